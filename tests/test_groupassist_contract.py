"""Releases shaped unlike the specimen but faithful to GROUPASSIST.md pass; each broken in one contract item fails
exactly that item's rule, naming the row."""
from __future__ import annotations

from realcompanion.validators.groupassist.run import validate
from test_groupassist_rules import Copy


def judged(copy):
    """(rules fired, (rule, row) of each failure) of the saved copy; no rule may crash."""
    copy.save()
    report = validate(copy.root)
    assert not [o.rule.id for o in report.outcomes if o.crashed]
    found = report.failure_frame()
    return report.fired(), set(zip(found["rule"], found["row"]))


def test_an_anchor_in_another_groups_history_fails_gate_i(tmp_path):
    """Its turn is before the cutoff, its span is in the message: it is still not in the instance's history."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(group_id="G02", origin="authored", dependency="M1", level="L2")
    anchor = next(a for a in copy.anchors(instance["instance_id"]) if a["unit"])
    turn = copy.message(anchor["message_id"])["turn"]
    elsewhere = copy.free_filler("G03", after=turn - 1, before=turn + 1)
    elsewhere["text_zh"] += anchor["span_zh"]
    elsewhere["text_en"] += anchor["span_en"]
    anchor["message_id"] = elsewhere["message_id"]
    assert judged(copy) == ({"GA1"}, {("GA1", anchor["anchor_id"])})


def test_an_empty_evidence_span_fails_gate_ii(tmp_path):
    copy = Copy(tmp_path / "release")
    anchor = copy.rows["anchors"][0]
    anchor["span_en"] = ""
    assert judged(copy) == ({"GA2"}, {("GA2", anchor["anchor_id"])})
