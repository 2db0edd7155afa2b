"""One root cause, one line, in both formats: a value that fits its type but breaks its field's own constraint (a
typo in a field the rules join on) is reported once, by the constraint rule, and read as null by every other rule,
as a value of the wrong type is (validators/aside.py); no row that joins on it is blamed for it."""
from __future__ import annotations

import shutil

import pytest
from realcompanion.validators.groupassist.run import validate as validate_groupassist
from realcompanion.validators.run import validate
from test_groupassist_rules import Copy
from test_rules import read, write

from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.stamp import stamp


def errors(report):
    found = report.failure_frame()
    return found[found["severity"] == "error"]


GROUPASSIST = {  # resource, which record, the typo: each breaks a constraint of the field, and rules join on it
    "cutoff below 0": ("instances", lambda r: r["origin"] == "authored", {"cutoff_turn": -1}),
    "anchor's instance": ("anchors", lambda r: r["unit"] == 1,
                          lambda r: {"instance_id": r["instance_id"].replace(":I", ":X")}),
    "message's group": ("messages", lambda r: r["turn"] == 5, {"group_id": "G1"}),
    "unit 0": ("anchors", lambda r: r["unit"] == 2, {"unit": 0}),
    "atom's instance": ("atoms", lambda r: r["unit"] == 1, lambda r: {"instance_id": r["instance_id"].replace(":I", ":X")}),
}


@pytest.mark.parametrize("case", GROUPASSIST)
def test_a_typo_in_a_groupassist_field_is_one_line(tmp_path, case):
    resource, pick, change = GROUPASSIST[case]
    copy = Copy(tmp_path / "release")
    row = next(r for r in copy.rows[resource] if pick(r))
    row.update(change(row) if callable(change) else change)
    copy.save()
    report = validate_groupassist(copy.root)
    found = errors(report)
    assert found["rule"].tolist() == ["GS2"], found.to_string()
    assert not [o.rule.id for o in report.outcomes if o.skipped]


REALCOMPANION = {
    "participant of a question": ("qa", lambda r: True, {"participant_id": "U1"}),
    "turn below 0": ("source", lambda r: r["turn"] == 30, {"turn": -1}),
    "participant of a message": ("source", lambda r: r["turn"] == 30, {"participant_id": "U1"}),
}


@pytest.mark.parametrize("case", REALCOMPANION)
def test_a_typo_in_a_realcompanion_field_is_one_line(specimen, case):
    resource, pick, change = REALCOMPANION[case]
    rows = read(specimen, resource)
    next(r for r in rows if pick(r)).update(change)
    write(specimen, resource, rows)
    stamp(specimen)
    report = validate(specimen)
    found = errors(report)
    assert found["rule"].tolist() == ["SCH2"], found.to_string()
    assert not [o.rule.id for o in report.outcomes if o.skipped]


def test_a_row_joining_on_a_set_aside_value_keeps_its_own_defect(tmp_path):
    """Nulling takes away only what a row owes to the bad value: an anchor of the instance whose cutoff is set aside
    still fails gate ii for a span its message does not hold."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(origin="authored")
    instance["cutoff_turn"] = -1
    anchor = next(a for a in copy.anchors(instance["instance_id"]) if a["unit"])
    anchor["span_en"] = "Nowhere No. 0000"
    copy.save()
    found = errors(validate_groupassist(copy.root))
    assert sorted(zip(found["rule"], found["row"])) == [("GA2", anchor["anchor_id"]), ("GS2", instance["instance_id"])]


def test_a_release_without_such_values_is_judged_once(tmp_path, monkeypatch):
    """A release whose every value meets its constraints is not judged again (the benchmark's releases)."""
    from realcompanion.validators import run

    copy = tmp_path / "release"
    shutil.copytree(SPECIMEN, copy)
    calls = []
    real = run._execute
    monkeypatch.setattr(run, "_execute", lambda *a, **k: calls.append(1) or real(*a, **k))
    validate_groupassist(copy)
    assert len(calls) == 1


def test_a_member_left_off_the_roster_is_one_line_however_often_they_speak_or_ask(tmp_path):
    """A member renamed on the roster, a name that fits its field: GM3 names the speaker once, on its first message,
    and no instance the member requests is blamed for the roster (GS6)."""
    copy = Copy(tmp_path / "release")
    asker = copy.instance(origin="native")
    member = copy.one("members", group_id=asker["group_id"], member_id=asker["requester"])
    member["member_id"] += "x"
    said = [m for m in copy.rows["messages"] if (m["group_id"], m["speaker"]) == (asker["group_id"], asker["requester"])]
    copy.save()
    found = errors(validate_groupassist(copy.root))
    assert len(said) > 1
    assert found[["rule", "row", "field"]].values.tolist() == [["GM3", said[0]["message_id"], "speaker"]]
    assert found["message"].iloc[0].startswith(f"not a member of the group: {len(said)} message(s)")


def test_a_native_requester_misspelt_is_one_line(tmp_path):
    """A requester no member of the group has (GS6): the request at the cutoff is not judged against it (GC7)."""
    copy = Copy(tmp_path / "release")
    asker = copy.instance(origin="native")
    asker["requester"] = asker["requester"].replace("_", "-")
    copy.save()
    found = errors(validate_groupassist(copy.root))
    assert found[["rule", "row"]].values.tolist() == [["GS6", asker["instance_id"]]]
