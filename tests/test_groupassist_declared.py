"""The declaration mechanism on a GroupAssistBench release: `groupassist.rules` names the rules file, checked and run
in the same pass as the coded rules."""
from __future__ import annotations

import json
import shutil

import pytest
from realcompanion.validators.groupassist.run import validate

from realcompanion.cli import main
from realcompanion.groupassist import SPECIMEN
from realcompanion.groupassist.synth import stamp


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
