"""The declaration mechanism on a GroupAssistBench release: `groupassist.rules` names the rules file, checked and run
in the same pass as the coded rules."""
from __future__ import annotations

import json
import shutil

import pytest
from realcompanion.validators.groupassist.run import validate

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.formats.groupassist.synth import stamp


@pytest.fixture
def release(tmp_path):
    root = tmp_path / "release"
    shutil.copytree(SPECIMEN, root)
    return root


def _declare(root, *rules):
    path = root / "schemas" / "rules.json"
    declared = json.loads(path.read_text(encoding="utf-8"))
    declared["rules"] += list(rules)
    path.write_text(json.dumps(declared, ensure_ascii=False), encoding="utf-8")


def _block(root, **changes):
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    descriptor["groupassist"].update(changes)
    path.write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")


def test_a_declared_expression_reads_the_parameters_of_the_descriptor(release):
    _block(release, max_message_chars=60)  # GM5 reads the limit from the descriptor, not from its file
    report = validate(release)
    assert report.fired() == {"GM5"}
    found = report.failure_frame()
    long = [json.loads(line) for line in (release / "data" / "messages.jsonl").read_text(encoding="utf-8").splitlines()]
    assert set(found["row"]) == {m["message_id"] for m in long if max(len(m["text_zh"]), len(m["text_en"])) > 60}


def test_a_field_named_params_cannot_set_the_limit_a_format_rule_reads(release, capsys):
    """A fork may add fields; one named `params`, holding {"max_message_chars": 1000000} on every message, was what
    GM5's `params['max_message_chars']` read, and a message of any length passed."""
    nested = release / "schemas" / "nested"
    nested.mkdir()
    (nested / "params.schema.json").write_text(json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
        "required": ["max_message_chars"], "properties": {"max_message_chars": {"type": "integer"}}}), encoding="utf-8")
    path = release / "schemas" / "messages.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["fields"].append({"name": "params", "type": "object", "nestedSchema": "nested/params.schema.json"})
    path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    path = release / "data" / "messages.jsonl"
    rows = [{**json.loads(line), "params": {"max_message_chars": 10 ** 6}}
            for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    _block(release, max_message_chars=60)
    assert main(["schemas", "--write", str(release)]) == 0
    stamp(release)
    capsys.readouterr()
    report = validate(release)
    assert report.fired() == {"GM5"}
    assert set(report.failure_frame()["row"]) == {
        r["message_id"] for r in rows if max(len(r["text_zh"]), len(r["text_en"])) > 60}


def test_a_forks_declared_rule_runs_with_the_coded_ones(release, capsys):
    _declare(release, {"id": "FB1", "severity": "error", "kind": "expression", "resource": "feedback",
                       "field": "wording_en", "expression": "len(wording_en) <= 20",
                       "statement": "feedback wording is short"},
             {"id": "AU1", "severity": "warning", "kind": "relationships", "resource": "audit", "field": "instance_id",
              "to": {"resource": "instances", "field": "instance_id"}, "statement": "audit rows name kept instances"})
    feedback = [json.loads(line) for line in (release / "data" / "feedback.jsonl").read_text(encoding="utf-8").splitlines()]
    long = {f["feedback_id"] for f in feedback if len(f["wording_en"]) > 20}
    assert long, "the specimen has long feedback wording"
    report = validate(release)
    assert report.fired() == {"FB1", "AU1"}
    found = report.failure_frame()
    assert set(found.loc[found["rule"] == "FB1", "row"]) == long
    assert main(["rules", str(release), "--format", "groupassist"]) == 0
    assert "FB1" in capsys.readouterr().out


@pytest.mark.parametrize("rule, field", [
    ({"id": "GA1", "severity": "error", "kind": "not_null", "resource": "messages", "fields": ["text_zh"],
      "statement": "a coded id"}, "rules[1].id"),
    ({"id": "CB1", "severity": "error", "kind": "cites_before", "resource": "anchors", "field": "message_id",
      "anchor": "message_id", "statement": "a stream kind"}, "rules[1]"),
    ({"id": "SP1", "severity": "error", "kind": "relationships", "resource": "anchors", "field": "message_id",
      "to": {"resource": "messages", "field": "message_id"}, "same_participant": True, "statement": "per participant"},
     "rules[1]"),
])
def test_declarations_this_format_cannot_run_are_one_line_and_exit_2(release, capsys, rule, field):
    _declare(release, rule)
    stamp(release)
    assert main(["validate", str(release)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "rules.json" in err and field in err
