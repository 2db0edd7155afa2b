"""`realcompanion diff OLD NEW`: added, removed and changed records per resource, by primary key."""
from __future__ import annotations

import json

import pytest
from conftest import copy_release

from realcompanion.cli import main
from realcompanion.publish.diff import diff
from realcompanion.stamp import stamp


@pytest.fixture
def new(specimen, tmp_path):
    return copy_release(specimen, tmp_path / "new")


def read_rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def edit_rows(path, edit):
    write_rows(path, edit(read_rows(path)))


def test_identical_releases_have_no_differences(specimen, new, capsys):
    assert main(["diff", str(specimen), str(new)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("release 0.1.0 -> 0.1.0: no differences\n")
    assert "chat: +0 added, -0 removed, ~0 changed" in out


def test_added_removed_and_changed_records_are_named(specimen, new, capsys):
    chat, qa, profile, persona = (new / "data" / f"{n}.jsonl" for n in ("chat", "qa", "profile", "persona"))
    first_chat, last_qa, first_profile, first_slot = (read_rows(chat)[0], read_rows(qa)[-1], read_rows(profile)[0],
                                                      read_rows(persona)[0])

    def correct_gold(rows):
        rows[0]["gold_response"] = "A corrected reply."
        rows[0]["trace"]["D"]["gold_response"] = "A corrected reply."
        return rows

    edit_rows(chat, correct_gold)
    edit_rows(qa, lambda rows: rows[:-1])
    edit_rows(profile, lambda rows: rows + [{**rows[0], "claim_id": "U01:P9999"}])
    edit_rows(persona, lambda rows: [{**rows[0], "rationale": "Revised."}, *rows[1:]])
    descriptor = json.loads((new / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["version"] = "0.1.1"
    (new / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    stamp(new)

    assert main(["diff", str(specimen), str(new)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "release 0.1.0 -> 0.1.1"
    assert lines[1] == "parameters changed: participants, rows"
    assert "chat: +0 added, -0 removed, ~1 changed" in lines
    assert f"  ~ {first_chat['item_id']}: gold_response, trace" in lines
    assert "qa: +0 added, -1 removed, ~0 changed" in lines and f"  - {last_qa['item_id']}" in lines
    assert "profile: +1 added, -0 removed, ~0 changed" in lines and "  + U01:P9999" in lines
    assert f"  ~ {first_slot['participant_id']}/{first_slot['slot']}: rationale" in lines
    assert first_profile["claim_id"] not in "\n".join(lines)


def test_schema_and_resource_changes(specimen, new):
    descriptor = json.loads((new / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["resources"] = [r for r in descriptor["resources"] if r["name"] != "qa"]
    (new / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    schema_path = new / "schemas" / "persona.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema["fields"] = [f for f in schema["fields"] if f["name"] != "rationale"]
    schema_path.write_text(json.dumps(schema), encoding="utf-8")
    edit_rows(new / "data" / "persona.jsonl", lambda rows: [{k: v for k, v in r.items() if k != "rationale"}
                                                            for r in rows])

    result = {r.name: r for r in diff(specimen, new).resources}
    assert result["persona"].fields_removed == ["rationale"] and not result["persona"].changed
    assert result["qa"].only_in == "old"
    assert len(result["qa"].removed) == json.loads((specimen / "datapackage.json").read_text())["realcompanion"][
        "rows"]["qa"]


def test_a_row_that_does_not_match_its_schema_stops_the_diff(specimen, new, capsys):
    edit_rows(new / "data" / "chat.jsonl", lambda rows: [{**rows[0], "scoreable": "yes"}, *rows[1:]])
    assert main(["diff", str(specimen), str(new)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "chat.jsonl:1" in err and "validate" in err


def test_a_duplicate_primary_key_stops_the_diff(specimen, new, capsys):
    """The line naming it names the second row (it named no row)."""
    rows = read_rows(specimen / "data" / "qa.jsonl")
    edit_rows(new / "data" / "qa.jsonl", lambda rows: rows + [rows[0]])
    assert main(["diff", str(specimen), str(new)]) == 2
    assert f"qa.jsonl:{len(rows) + 1} field 'item_id': primary key {rows[0]['item_id']} is not unique (first at " \
           "line 1)" in capsys.readouterr().err


def test_what_the_records_mean_is_compared_too(specimen, new, capsys):
    """A release whose records are the same but whose vocabulary, constraints, rules or licence changed is not
    "no differences": each change is a line naming the file and the place in it."""
    def edit_json(path, edit):
        document = json.loads(path.read_text(encoding="utf-8"))
        edit(document)
        path.write_text(json.dumps(document), encoding="utf-8")

    edit_json(new / "schemas" / "vocabulary.json", lambda v: v["sender"].append("narrator"))
    edit_json(new / "schemas" / "qa.schema.json", lambda s: next(f for f in s["fields"] if f["name"] == "question")[
        "constraints"].update(minLength=2))
    edit_json(new / "datapackage.json", lambda d: d.update(licenses=[{"name": "CC0-1.0"}]))
    edit_json(new / "schemas" / "rules.json", lambda r: r["rules"][0].update(severity="warning"))
    (new / "schemas" / "notes.json").write_text("{}", encoding="utf-8")
    assert main(["diff", str(specimen), str(new)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "release 0.1.0 -> 0.1.0"
    assert out[1:8] == ["definitions changed:", "  datapackage.json: licenses.CC-BY-NC-4.0 (removed)",
                        "  datapackage.json: licenses.CC0-1.0 (added)", "  schemas/notes.json: (file) (added)",
                        "  schemas/qa.schema.json: fields.question.constraints.minLength 1 -> 2",
                        '  schemas/rules.json: rules.SIG1.severity "error" -> "warning"',
                        "  schemas/vocabulary.json: sender +narrator"]


@pytest.mark.parametrize("before, after, line", [
    ({"enum": [True, False]}, {"enum": [1, 0]}, "enum +1 +0 -true -false"),
    ({"minimum": 1}, {"minimum": True}, "minimum 1 -> true"),
    ({"enum": ["a", "b"]}, {"enum": ["a", "b", "b"]}, "enum +b"),
    ([1, 2], [1, 3], "(file) +3 -2"),
], ids=["true-is-not-1", "bound", "listed-twice", "top-level-list"])
def test_a_definition_is_compared_as_json_spells_it(specimen, new, capsys, before, after, line):
    """Python's == takes `true` for `1` and a list for the same list holding a value twice ("(order)"): two schemas
    whose enums differed so were "no differences"."""
    (specimen / "schemas" / "notes.json").write_text(json.dumps(before), encoding="utf-8")
    (new / "schemas" / "notes.json").write_text(json.dumps(after), encoding="utf-8")
    assert main(["diff", str(specimen), str(new)]) == 0
    assert f"  schemas/notes.json: {line}" in capsys.readouterr().out.splitlines()


def fifo(path):
    import os

    os.mkfifo(path)
    return "is a FIFO (named pipe), not a regular file"


def link_outside(path):
    outside = path.parent.parent.parent / "outside.json"
    outside.write_text('{"secret": 1}', encoding="utf-8")
    path.symlink_to(outside)
    return f"is a link to {outside}, outside the package folder: a release reads only its own files"


@pytest.mark.parametrize("make", [fifo, link_outside])
def test_a_schemas_file_that_is_no_file_of_the_release_is_one_line(specimen, new, capsys, make):
    """A link out of the folder was read (and its values printed), and a FIFO passed over as absent."""
    reason = make(new / "schemas" / "notes.json")
    assert main(["diff", str(specimen), str(new)]) == 2
    assert capsys.readouterr().err == f"error: {new}/schemas/notes.json: {reason}\n"
