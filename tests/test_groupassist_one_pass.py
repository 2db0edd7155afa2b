"""One pass over a GroupAssistBench release, as over a RealCompanion one: a record that does not fit its types is
set aside (GS1 names it), and every other row is still checked by every rule."""
from __future__ import annotations

import json

import pytest
from realcompanion.validators.groupassist.run import validate
from test_groupassist_rules import Copy

from realcompanion.cli import main
from realcompanion.formats.groupassist import RESOURCES


def free_fillers(c, group, n=2):
    """`n` distinct filler member messages nothing cites."""
    found = []
    for _ in range(n):
        m = c.free_filler(group, after=max([-1] + [f["turn"] for f in found]))
        found.append(m)
    return found


# Per resource: break one record's type (a field given a value of another JSON type), and put an independent
# defect in another record of the same resource; each returns (set-aside row, (rule, row) of the second defect).
def messages(c):
    broken, other = free_fillers(c, "G01")
    broken["turn"] = "five"
    other["speaker"] = "stranger"
    return broken["message_id"], ("GM3", other["message_id"])


def members(c):
    broken, other = c.rows["members"][0], c.rows["members"][1]
    broken["profile"] = 5
    other["profile"] += " call 13812345678"
    return f"{broken['group_id']}:{broken['member_id']}", ("GI5", f"{other['group_id']}:{other['member_id']}")


def instances(c):
    broken, other = c.instance(origin="authored"), c.instance(origin="native")
    broken["cutoff_turn"] = "late"
    other["query_en"] = "Where?"
    return broken["instance_id"], ("GC7", other["instance_id"])


def anchors(c):
    broken = c.one("anchors", from_assistant=False, profile_only=False)
    other = next(a for a in c.rows["anchors"] if a["instance_id"] != broken["instance_id"])
    broken["from_assistant"] = "no"
    other["span_en"] = "Nowhere No. 0000"
    return broken["anchor_id"], ("GA2", other["anchor_id"])


def atoms(c):
    broken, other = c.rows["atoms"][0], c.rows["atoms"][-1]
    broken["distractor"] = "no"
    other["atom_id"] = "G09:I0001:T01"
    return broken["atom_id"], ("GM6", other["atom_id"])


def criteria(c):
    broken, other = c.one("criteria", kind="grounding", mandatory=True), c.one("criteria", kind="service")
    broken["mandatory"] = "yes"
    other["pattern"] = "recalled_fact"
    return broken["criterion_id"], ("GC9", other["criterion_id"])


def feedback(c):
    broken, other = c.rows["feedback"][0], c.rows["feedback"][1]
    broken["wording_en"] = 7
    other["wording_en"] = "Something nobody said"
    return broken["feedback_id"], ("GP1", other["feedback_id"])


def audit(c):
    reviews = [a for a in c.rows["audit"] if a["layer"] == "review"]
    broken, other = reviews[0], reviews[1]
    broken["quote"] = 5
    other["quote"] = "无人说过的话"
    return broken["instance_id"], ("GP2", other["instance_id"])


BREAKS = {fn.__name__: fn for fn in (messages, members, instances, anchors, atoms, criteria, feedback, audit)}


def test_every_resource_is_broken():
    assert set(BREAKS) == set(RESOURCES)


@pytest.mark.parametrize("resource", sorted(BREAKS))
def test_a_record_of_another_type_is_set_aside_and_every_other_row_still_checked(tmp_path, resource):
    copy = Copy(tmp_path / "release")
    aside, second = BREAKS[resource](copy)
    copy.save()
    report = validate(copy.root)
    found = report.failure_frame()
    gs1 = found[found["rule"] == "GS1"]
    assert list(zip(gs1["resource"], gs1["row"])) == [(resource, aside)]
    assert not [(o.rule.id, o.skipped) for o in report.outcomes if o.skipped or o.crashed]  # none skipped or crashed
    # the set-aside row is named by GS1 only, and the second defect is still reported, by its rule
    assert not found.loc[found["rule"] != "GS1", "row"].eq(aside).any(), found.to_string()
    rest = found[found["rule"] != "GS1"]
    assert set(zip(rest["rule"], rest["row"])) == {second}, rest.to_string()
    for o in report.outcomes:
        if o.rule.family != "structure":
            assert o.set_aside == (resource in o.rule.reads), o.rule.id


def test_a_failure_citing_a_set_aside_record_is_not_reported_again(tmp_path):
    """A feedback item's message whose role is not text: GP1 (which reads the role) does not name the item for it."""
    copy = Copy(tmp_path / "release")
    item = copy.rows["feedback"][0]
    copy.message(item["message_id"])["role"] = 5
    copy.save()
    report = validate(copy.root)
    found = report.failure_frame()
    assert list(zip(found["rule"], found["row"])) == [("GS1", item["message_id"])], found.to_string()
    assert {o.rule.id: o for o in report.outcomes}["GP1"].set_aside == 1


@pytest.mark.parametrize("spelling", ["2025-03-02T23:59:59", "2025-03-02T23:59:59+08", "2025-03-02t23:59:59z"])
def test_a_timestamp_gs4_rejects_is_not_ordered_against_the_next_message(tmp_path, spelling):
    """A timestamp without an offset was read as UTC by GM2, which then named the next message, a good one, as
    going back in time: the one defect is GS4's, once."""
    copy = Copy(tmp_path / "release")
    broken = copy.rows["messages"][3]
    broken["timestamp"] = spelling  # later than its group's next records, read as any instant
    copy.save()
    found = validate(copy.root).failure_frame()
    assert list(zip(found["rule"], found["row"])) == [("GS4", broken["message_id"])], found.to_string()


def test_every_report_form_says_what_was_set_aside(tmp_path, capsys):
    copy = Copy(tmp_path / "release")
    aside, (rule, row) = messages(copy)
    copy.save()
    # one run writes the three forms of one report: the terminal's (stdout), the JSON file and the HTML pages
    assert main(["validate", str(copy.root), "--json", str(tmp_path / "report.json"), "--html",
                 str(tmp_path / "docs")]) == 1
    rules = {r["id"]: r for r in json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["rules"]}
    assert rules["GM3"]["set_aside"] == 1 and rules["GM3"]["skipped"] is None and rules["GM3"]["failures"] == 1
    assert rules["GC10"]["set_aside"] == 1 and rules["GC10"]["passed"]
    terminal = capsys.readouterr().out
    assert "GM3" in terminal and "1 row(s) (1 set aside)" in terminal and "SKIP" not in terminal
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "docs").rglob("*.html"))
    assert "1 failing row, 1 set aside" in pages and "0 failing rows, 1 set aside" in pages


def test_forked_workers_set_aside_what_one_process_does(tmp_path, monkeypatch):
    from realcompanion.validators import speed

    copy = Copy(tmp_path / "release")
    messages(copy)
    copy.save()
    serial = validate(copy.root)
    monkeypatch.setattr(speed, "PARALLEL_MIN_ROWS", 0)
    forked = validate(copy.root)
    assert not [o.rule.id for o in forked.outcomes if o.skipped] and forked.fired() == {"GS1", "GM3"}
    assert forked.failure_frame().to_dict("records") == serial.failure_frame().to_dict("records")
    assert [(o.rule.id, o.set_aside) for o in forked.outcomes] == [(o.rule.id, o.set_aside) for o in serial.outcomes]


def test_one_huge_turn_leaves_every_other_groups_counts_exact(tmp_path):
    """Messages before a cutoff are counted per group from one sorted key array; a record at turn 2**60 (GM1 names
    its id, GM2 the turns it skips) must not blur the other groups' keys, or gate iv finds short histories where
    there are none."""
    copy = Copy(tmp_path / "release")
    last = copy.rows["messages"][-1]
    copy.rows["messages"].append(last | {"message_id": last["message_id"][:-6] + "999999", "turn": 2**60,
                                         "reply_to": None})
    copy.save()
    report = validate(copy.root)
    assert report.fired() == {"GM1", "GM2"}
