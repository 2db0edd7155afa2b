"""The personal-data screen (PII1, GI5) read as a person reads: text hidden by invisible or look-alike characters,
every free-text leaf a fork adds, the documents the release ships, and parameters that cannot switch it off; with
the ordinary text a release holds (dates, versions, identifiers, Chinese prose with numerals) left alone."""
from __future__ import annotations

import json
import shutil

import pytest
from realcompanion.validators.groupassist.integrity import PII_PATTERNS_ZH
from realcompanion.validators.groupassist.run import validate as validate_groupassist
from realcompanion.validators.personal import PII_PATTERNS, first_matches
from realcompanion.validators.run import validate
from test_forks import add_notes, edit_json
from test_fuzz import run_quietly
from test_groupassist_rules import Copy
from test_rules import append_text, on_rows, read, uncited_message, write

from realcompanion.names import DOCUMENTS
from realcompanion.stamp import stamp

BOTH = PII_PATTERNS | PII_PATTERNS_ZH | {"long digit run": r"\d{11,}"}

HIDDEN = [  # (text as written, what the finding names, its label)
    ("call 138\u200b1234\u200b5678 now", "138\u200b1234\u200b5678", "long digit run"),
    ("mail ana@exam\u00adple\u00ad.org", "ana@exam\u00adple\u00ad.org", "e-mail address"),
    ("mail ana@example\u3002org", "ana@example\u3002org", "e-mail address"),
    ("ring 020\u20137946\u20130958", "020\u20137946\u20130958", "phone number"),
    ("全角１３８１２３４５６７８号", "１３８１２３４５６７８", "mainland mobile number"),
    ("手机一三八一二三四五六七八", "一三八一二三四五六七八", "mainland mobile number"),
    ("手机幺三九 零零零零 一二三四", "幺三九 零零零零 一二三四", "phone number"),
    ("SSN 078-05-1120 on file", "078-05-1120", "US social security number"),
    ("身份证 110101 19900307 123X", "110101 19900307 123X", "resident ID number"),
    ("身份证 1101 0119 9003 0712 3X", None, None),  # split in fours from the first digit: not the id's shape
    ("座机010-62751234", "010-62751234", "mainland landline number"),
    ("座机(0755)8612 3456 找我", "(0755)8612 3456", "mainland landline number"),
    ("写信到ana@example.org吧", "ana@example.org", "e-mail address"),
    ("写信到 张三@例子.中国", "张三@例子.中国", "e-mail address"),
]


@pytest.mark.parametrize("text,named,label", HIDDEN)
def test_the_screen_reads_text_as_a_person_does(text, named, label):
    """Zero-width spaces in a digit run, soft hyphens in a domain, 。 for the dot, an en dash in a phone number,
    Chinese numerals, a split resident ID, a landline: found, and named as written; an address after Chinese words
    starts where the address does."""
    found = first_matches(text, BOTH)
    if named is None:
        assert "resident ID number" not in found, found
    else:
        assert found.get(label) == named, found


ORDINARY = ["Meet on 2024-01-15 at 10:30–11:45.", "Version 1.2.3 of the app, build 2024.11.30.", "It costs ¥1,280.",
            "ISBN 978-3-16-148410-0", "U01:d001:001 and G02:M0123", "Population 1,234,567 in 2020.",
            "我们一起去看了三四场电影。", "第一二三章讲的是十二月的事。", "一五一十地说了，九点到十一点。",
            "Room 1203, floor 12, 3–5 pm.", "Scores 7-2-1 and 12-10.", "约在二〇二四年十二月三十一日见。",
            "https://example.org/page#section", "pi is 3.14159265", "Chapter 10–12 (pp. 201–245)"]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_personal_data(text):
    assert first_matches(text, BOTH) == {}


@pytest.mark.parametrize("text", ["Call 138\u200b1234\u200b5678 now", "Mail ana@exam\u00adple.org",
                                  "Mail ana@example\u3002org", "Ring 020\u20137946\u20130958",
                                  "SSN 078-05-1120", "手机一三八一二三四五六七八"])
def test_a_release_hiding_personal_data_is_screened(specimen, text):
    on_rows("source", uncited_message("companion"), append_text(text))(specimen)
    stamp(specimen)
    report = validate(specimen, rules="PII1")
    assert report.fired() == {"PII1"}, text


def test_chinese_personal_data_in_a_groupassistbench_release(tmp_path):
    copy = Copy(tmp_path / "release")
    texts = ["手机一三八一二三四五六七八", "身份证 110101 19900307 123X", "座机010-62751234"]
    ids = []
    for n, text in enumerate(texts):
        message = copy.free_filler(f"G0{n + 1}")
        message["text_zh"] += text
        ids.append(message["message_id"])
    copy.save()
    found = validate_groupassist(copy.root, rules="GI5").failure_frame()
    assert set(found["row"]) == set(ids), found


# -- every free-text leaf of a fork's resource ------------------------------------

def add_leaves(root, text: str, free_text=None) -> str:
    """The notes resource (docs/forking.md) with three more fields: a list of strings, a string with a pattern any
    text meets, and an object whose member is typed through a `$ref`; `text` in each of them on one note."""
    add_notes(root)
    nested = root / "schemas" / "nested"
    (nested / "tags.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array", "items": {"type": "string"}}))
    (nested / "free_text.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"}))
    (nested / "detail.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
        "required": ["remark"], "properties": {"remark": {"$ref": "free_text.schema.json"}}}))
    flag = {} if free_text is None else {"freeText": free_text}

    def fields(schema):
        schema["fields"] += [
            {"name": "tags", "type": "array", "nestedSchema": "nested/tags.schema.json", **flag},
            {"name": "contact", "type": "string", "constraints": {"pattern": "[\\s\\S]*"}, **flag},
            {"name": "detail", "type": "object", "nestedSchema": "nested/detail.schema.json", **flag}]
    edit_json(root / "schemas" / "notes.schema.json", fields)
    notes = read(root, "notes")
    for note in notes:
        note.update(tags=["ok"], contact="none", detail={"remark": "fine"})
    notes[0].update(tags=["ok", text], contact=text, detail={"remark": text})
    write(root, "notes", notes)
    stamp(root)
    return notes[0]["note_id"]


def test_every_text_leaf_a_fork_adds_is_screened(specimen):
    note = add_leaves(specimen, "reach me at a.b@example.org")
    found = validate(specimen, rules="PII1").failure_frame()
    assert sorted(found["field"]) == ["contact", "detail.remark", "tags"] and set(found["row"]) == {note}, found


def test_a_field_a_fork_marks_as_no_free_text_is_not_screened(specimen):
    add_leaves(specimen, "reach me at a.b@example.org", free_text=False)
    assert validate(specimen, rules="PII1").fired() == set()


def test_a_core_field_cannot_be_marked_out_of_the_screen(specimen):
    on_rows("source", uncited_message("companion"), append_text("reach me at a.b@example.org"))(specimen)
    edit_json(specimen / "schemas" / "source.schema.json",
              lambda s: next(f for f in s["fields"] if f["name"] == "text").update(freeText=False))
    stamp(specimen)
    assert "PII1" in validate(specimen, rules="PII1").fired()


# -- the documents, the parameters, a screen that did not run -----------------------

@pytest.fixture
def documented(specimen, repo):
    for name in DOCUMENTS:
        shutil.copy2(repo / name, specimen / name)
    return specimen


@pytest.mark.parametrize("document", ["CHANGELOG.md", "README.md", "DATASHEET.md", "CITATION.cff"])
def test_every_document_the_release_ships_is_screened(documented, document):
    with (documented / document).open("a", encoding="utf-8") as out:
        out.write("\n# Write to the curator at curator@example.org or 020 7946 0958\n")
    found = validate(documented, rules="PII1").failure_frame()
    assert set(found["row"]) == {document} and set(found["value"]) == {"curator@example.org", "020 7946 0958"}
    assert all(m.startswith("line ") for m in found["message"]), found
    code, out, err = run_quietly(["publish", str(documented), "--repo-id", "org/x", "--version", "0.1.0",
                                  "--dry-run"])
    assert code == 1 and "personal-data finding(s) (PII1) not acknowledged" in err, err


def test_a_document_s_numbers_and_digests_are_not_personal_data(documented):
    """Counts, sizes and digests fill a datasheet: the digit run is a data screen, and a digest is not a number."""
    with (documented / "DATASHEET.md").open("a", encoding="utf-8") as out:
        out.write("\n434517741 bytes, sha256 13812345678" + "ab" * 27 + ", 36,534 rows\n")
    assert validate(documented, rules="PII1").fired() == set()


@pytest.mark.parametrize("run", [64, 2 ** 70, 16])
def test_a_digit_run_that_would_switch_the_screen_off_is_refused(specimen, run):
    edit_json(specimen / "datapackage.json", lambda d: d["realcompanion"].update(pii_digit_run=run))
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2 and "field 'realcompanion.pii_digit_run'" in err and "maximum of 15" in err, err


def test_a_screen_that_could_not_run_is_an_error(documented):
    (documented / "CHANGELOG.md").write_bytes(b"# Changes\n\xff\xfe not text\n")
    report = validate(documented, rules="PII1")
    outcome = next(o for o in report.outcomes if o.rule.id == "PII1")
    assert outcome.crashed and report.errors == 1, outcome.skipped


def test_a_screens_findings_come_in_one_order_whatever_the_hash_seed(tmp_path):
    """A resource's free-text fields are read in the table's order, not a set's: Python orders a set of names by a
    hash seeded anew in each process, and the report must be the same bytes from run to run."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    c = Copy(tmp_path / "release")
    first, second = c.rows["messages"][:2]
    first["text_zh"], second["text_en"] = "写信到ana@example.org吧", "mail bo@example.org today"
    c.save()
    reports = set()
    for seed in (0, 3):  # two seeds that ordered the fields apart when a set did
        out = tmp_path / f"report-{seed}.json"
        subprocess.run([str(Path(sys.executable).parent / "realcompanion"), "validate", str(c.root), "--rules", "GI5",
                        "--json", str(out)], env={**os.environ, "PYTHONHASHSEED": str(seed)}, capture_output=True)
        reports.add(json.dumps([f for f in json.loads(out.read_text(encoding="utf-8"))["failures"] if f["rule"] == "GI5"]))
    assert len(reports) == 1
    assert [f["field"] for f in json.loads(reports.pop())] == ["text_zh", "text_en"]
