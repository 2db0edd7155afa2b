"""A GroupAssistBench release declares its languages (`groupassist.languages`), and an authored instance may have
no requester: a monolingual conversion and a question nobody in the group asked are VALID for this package and for
Frictionless, without a copied text or a made-up member.

The English-only copy is the specimen as a conversion of an English dataset leaves it: every `_zh` text null, its
Table Schemas not requiring them, the audit's review quotes quoting the English text, `languages: ["en"]`,
refreshed; it is built once per session.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest
from local_server import JSONHandler, serving
from raw_tracks import data_rows as _rows
from realcompanion.validators.groupassist.run import validate

from realcompanion.card import read_card
from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.synth import stamp

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _write(root, name, rows):
    (root / "data" / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                encoding="utf-8")


def _descriptor(root, change):
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    change(descriptor["groupassist"])
    path.write_text(json.dumps(descriptor, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _declare(languages):
    def change(block):
        if languages is None:
            block.pop("languages", None)
        else:
            block["languages"] = languages
    return change


def monolingual(root, kept):
    """The specimen at `root` in language `kept` only: the other language's texts null and not required, the
    audit's review quotes (Chinese in the specimen) quoting the kept language's text of their message, the word
    lists in the kept language alone."""
    other = {"zh": "_en", "en": "_zh"}[kept]
    messages = _rows(root, "messages")
    for name in ("messages", "instances", "anchors", "atoms", "criteria", "feedback", "audit"):
        rows = _rows(root, name)
        for row in rows:
            if name == "audit" and row["quote"]:
                row["quote"] = next(m[f"text_{kept}"] for m in messages if m["group_id"] == row["instance_id"][:3]
                                    and row["quote"] in m["text_zh"])
            row.update({k: None for k in row if k.endswith(other)})
        _write(root, name, rows)
    for path in (root / "schemas").glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        for field in schema["fields"]:
            if field["name"].endswith(other):
                field["constraints"].pop("required", None)
        path.write_text(json.dumps(schema, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    _descriptor(root, lambda block: block.update(languages=[kept], words={
        name: {kept: words[kept]} for name, words in block["words"].items()}))
    stamp(root)


@pytest.fixture(scope="session")
def english(tmp_path_factory):
    root = shutil.copytree(SPECIMEN, tmp_path_factory.mktemp("english") / "release")
    monolingual(root, "en")
    assert main(["refresh", str(root)]) == 0
    return root


@pytest.fixture
def copy(tmp_path):
    """A writable copy of a release folder."""
    return lambda source: shutil.copytree(source, tmp_path / "release")


def _valid_for_frictionless(root):
    from frictionless import Package, system

    with system.use_context(trusted=True):
        report = Package(str(root / "datapackage.json")).validate()
    return report.valid, report.flatten(["rowNumber", "fieldName", "type", "note"])[:5]


def test_an_english_only_release_is_valid_for_both_validators_and_loads(english, tmp_path, monkeypatch, capsys):
    import datasets

    capsys.readouterr()
    code, said = main(["validate", str(english)]), capsys.readouterr().out
    assert code == 0, said[-3000:]
    assert _valid_for_frictionless(english) == (True, [])
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    card = read_card(english / "README.md").data
    for config in (c["config_name"] for c in card["configs"]):
        loaded = datasets.load_dataset(str(english), config, split="test", cache_dir=str(tmp_path))
        assert loaded.num_rows == len(_rows(english, config))
    loaded = datasets.load_dataset(str(english), "messages", split="test", cache_dir=str(tmp_path))
    assert set(loaded["text_zh"]) == {None} and None not in loaded["text_en"]


def test_its_card_datasheet_and_croissant_say_it_carries_english_only(english, copy):
    root = copy(english)
    assert read_card(root / "README.md").data["language"] == ["en"]
    assert main(["croissant", str(root)]) == 0
    in_language = json.loads((root / "croissant.json").read_text(encoding="utf-8"))["inLanguage"]
    assert in_language in ("en", ["en"])  # one language is written alone
    stated = r"\| groupassist\.languages +\| {} +\|"
    assert re.search(stated.format(r'\["en"\]'), (root / "DATASHEET.md").read_text(encoding="utf-8"))
    assert read_card(SPECIMEN / "README.md").data["language"] == ["zh", "en"]
    assert re.search(stated.format(r'\["zh", "en"\]'), (SPECIMEN / "DATASHEET.md").read_text(encoding="utf-8"))


def test_baselines_score_the_declared_language_only(english, tmp_path):
    out = tmp_path / "baselines.json"
    assert main(["baselines", str(english), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert list(report["languages"]) == ["en"] and report["parameters"]["evaluation_language"] == "en"
    recall = [r["full_recall"] for r in report["languages"]["en"]["instances"] if r["full_recall"] is not None]
    assert recall and all(r == 1.0 for r in recall)  # the whole English history holds every anchor


class Judge(JSONHandler):
    """A judge that credits nothing and keeps every prompt it is sent."""

    def reply(self, body):
        prompt = body["messages"][0]["content"]
        type(self).prompts.append(prompt)
        if "<facts>" in prompt:
            answer = {"facts": []}
        else:
            answer = {"criteria": {c: False for c in re.findall(r"^(\S+) \[\w+\]: ", prompt.split("<criteria>")[1],
                                                                  re.M)}}
        payload = {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": json.dumps(answer)}}]}
        return 200, json.dumps(payload).encode()


def test_the_judge_reads_the_language_of_evaluation(english, tmp_path, capsys):
    Judge.prompts = []
    release = GroupAssistRelease(english)
    inst = release.frame("instances")
    replies = tmp_path / "replies.jsonl"
    replies.write_text("".join(json.dumps({"instance_id": i, "condition": "c", "response": "I do not know."}) + "\n"
                               for i in inst.loc[inst["split"] == "eval", "instance_id"]), encoding="utf-8")
    verdicts, score = tmp_path / "verdicts.jsonl", tmp_path / "score.json"
    with serving(Judge) as url:
        assert main(["judge", str(english), "--replies", str(replies), "--endpoint", url, "--model", "local-judge",
                     "--out", str(verdicts), "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY"]) == 0
    assert len(Judge.prompts) == (inst["split"] == "eval").sum()
    assert not [p for p in Judge.prompts if HAN.search(p)]  # the questions, atoms and criteria in English
    assert all("None" not in p.split("<question>")[-1].split("</question>")[0] for p in Judge.prompts)
    assert main(["score", str(english), "--verdicts", str(verdicts), "--json", str(score), "--resamples", "50"]) == 0
    assert json.loads(score.read_text(encoding="utf-8"))["parameters"]["evaluation_language"] == "en"
    assert "judged in en" in capsys.readouterr().out


def test_the_same_nulls_without_the_declaration_are_invalid_in_one_line(english, copy):
    """An English-only release that does not say so (its word lists the specimen's, in both languages, as a release
    of both needs) is one GL2 line: the schemas leave the default's Chinese fields optional."""
    root = copy(english)
    words = json.loads((SPECIMEN / "datapackage.json").read_text(encoding="utf-8"))["groupassist"]["words"]
    _descriptor(root, lambda block: (_declare(None)(block), block.update(words=words)))
    found = validate(root).failure_frame()
    assert found[["rule", "row", "field"]].values.tolist() == [["GL2", "datapackage.json", "groupassist.languages"]]
    assert "declares zh, yet the schemas leave 7 of its text fields optional" in found["message"].iloc[0]


def test_a_declaration_with_the_schemas_left_requiring_the_other_language_names_them(english, copy):
    """A conversion declares ["en"] and nulls every `_zh` text but keeps the specimen's schemas: one GL2 line says
    which fields to stop requiring, beside GS2's (and Frictionless's) missing values, which alone name no cause."""
    root = copy(english)
    for name, field in (("messages", "text_zh"), ("instances", "query_zh")):
        path = root / "schemas" / f"{name}.schema.json"
        schema = json.loads(path.read_text(encoding="utf-8"))
        next(f for f in schema["fields"] if f["name"] == field)["constraints"]["required"] = True
        path.write_text(json.dumps(schema, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    stamp(root)
    found = validate(root).failure_frame()
    mine = found[found["rule"] == "GL2"]
    assert mine[["row", "field", "value"]].values.tolist() == [["datapackage.json", "groupassist.languages", '["en"]']]
    assert mine["message"].iloc[0].startswith("leaves out zh, yet the schemas require 2 of its text fields "
                                              "(messages.text_zh, instances.query_zh): drop their `required`")
    assert set(found["rule"]) == {"GL2", "GS2"}


def test_a_declared_languages_text_left_null_is_invalid(english, copy):
    root = copy(english)
    messages = _rows(root, "messages")
    messages[5]["text_en"] = None
    _write(root, "messages", messages)
    stamp(root)
    found = validate(root).failure_frame()
    assert found[["rule", "row", "field", "value"]].values.tolist()[:1] == [
        ["GS2", messages[5]["message_id"], "text_en", "null"]]


def test_an_undeclared_languages_text_is_invalid(english, copy):
    root = copy(english)
    anchors = _rows(root, "anchors")
    anchors[2]["fact_zh"] = anchors[2]["fact_en"]
    _write(root, "anchors", anchors)
    stamp(root)
    report = validate(root)
    found = report.failure_frame()
    assert report.fired() == {"GL2"}
    assert found[["row", "field"]].values.tolist() == [[anchors[2]["anchor_id"], "fact_zh"]]
    assert "a language the release does not declare" in found["message"].iloc[0]


@pytest.mark.parametrize("languages", [["zh", "en"], ["en", "zh"]])
def test_a_bilingual_release_declaring_its_languages_in_either_order_is_valid(copy, languages):
    root = copy(SPECIMEN)
    _descriptor(root, _declare(languages))
    stamp(root)
    report = validate(root)
    assert report.errors == 0 and not report.fired()
    assert GroupAssistRelease(root).evaluation_language == languages[0]


def test_a_chinese_only_release_is_valid(copy):
    """The other way round: English null and not required, Chinese declared."""
    root = copy(SPECIMEN)
    monolingual(root, "zh")
    report = validate(root)
    assert report.errors == 0, report.failure_frame().head()


@pytest.mark.parametrize("languages", [[], ["fr"], ["en", "en"], "en"])
def test_the_declaration_is_bounded(copy, languages, capsys):
    root = copy(SPECIMEN)
    _descriptor(root, _declare(languages))
    capsys.readouterr()
    assert main(["validate", str(root)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "languages" in err


def _requester(root, origin, value, k=0):
    rows = _rows(root, "instances")
    instance = [r for r in rows if r["origin"] == origin][k]
    instance["requester"] = value
    _write(root, "instances", rows)
    stamp(root)
    return instance["instance_id"]


def test_an_authored_question_nobody_asked_has_a_null_requester(copy):
    root = copy(SPECIMEN)
    iid = _requester(root, "authored", None)
    report = validate(root)
    assert report.errors == 0 and not report.fired()
    assert _valid_for_frictionless(root) == (True, [])
    from realcompanion.formats.groupassist.respond import UNASKED, asked_items
    from realcompanion.formats.groupassist.scoring import Rankers

    release = GroupAssistRelease(root)
    items = asked_items(release, Rankers(release, release.evaluation_language), ["full_context"], 20)
    asked = next(item for item in items if item["instance_id"] == iid)
    assert f"{UNASKED} asks:" in json.dumps(asked["messages"](), ensure_ascii=False)


def test_a_native_request_without_a_requester_is_invalid(copy):
    root = copy(SPECIMEN)
    iid = _requester(root, "native", None)
    report = validate(root)
    found = report.failure_frame()
    assert report.fired() == {"GS6"}
    assert found[["row", "field", "value"]].values.tolist() == [[iid, "requester", "null"]]
    assert found["message"].iloc[0].startswith("null on a native instance")


@pytest.mark.parametrize("origin", ["native", "authored"])
def test_an_unknown_requester_is_still_invalid(copy, origin):
    root = copy(SPECIMEN)
    iid = _requester(root, origin, "member_99")
    found = validate(root).failure_frame()
    assert found.loc[found["rule"] == "GS6", ["row", "field", "value"]].values.tolist() == [
        [iid, "group_id,requester", f"{iid[:3]}, member_99"]]
