"""One root cause, one line, in both formats: a value that fits its type but breaks its field's own constraint (a
typo in a field the rules join on) is reported once, by the constraint rule, and read as null by every other rule,
as a value of the wrong type is (validators/aside.py); no row that joins on it is blamed for it."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import copy_release
from realcompanion.validators.groupassist.run import validate as validate_groupassist
from realcompanion.validators.run import validate
from test_groupassist_rules import Copy
from test_rules import read, write

from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.synth import stamp as stamp_groupassist
from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release
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


def _claim_cited(r):
    return r["participant_id"] == "U01" and r["evidence"] and r["claim_id"] in {
        c for line in (REPO_ROOT / "data" / "chat.jsonl").read_text(encoding="utf-8").splitlines()
        for c in json.loads(line)["required_context"]["profile_refs"]}


CITED = {  # an id that fits its pattern but names nothing, or a participant_id that names another participant
    "asked_after naming no message": ("qa", lambda r: r["evidence"], lambda r: {"asked_after": r["participant_id"] + ":d999:001"},
                                      "KEY1"),
    "probe_dayid naming no message": ("chat", lambda r: r["tier"] == "basic" and not r["cold_open"],
                                      lambda r: {"probe_dayid": r["participant_id"] + ":d999:001"}, "KEY1"),
    "a claim cited that does not exist": ("chat", lambda r: r["required_context"]["profile_refs"] and r["withdrawn"] is None,
                                          lambda r: {"required_context": {**r["required_context"], "profile_refs": [
                                              r["participant_id"] + ":P9999"]}}, "C"),
    "an episode cited that does not exist": ("chat", lambda r: r["required_context"]["episode_refs"] and r["withdrawn"] is None,
                                             lambda r: {"required_context": {**r["required_context"], "episode_refs": [
                                                 r["participant_id"] + ":d999:001"]}}, "C"),
    "a chat row's participant": ("chat", lambda r: r["participant_id"] == "U01" and r["required_context"]["recent_context"],
                                 {"participant_id": "U02"}, "ID1"),
    "a cited claim's participant": ("profile", _claim_cited, {"participant_id": "U02"}, "ID1"),
}


@pytest.mark.parametrize("case", CITED)
def test_a_citation_naming_nothing_or_another_participant_is_one_line(specimen, case):
    """An identifier that names no record, or a row whose participant_id is another's, is one line: KEY1's where a
    foreign key declares the field, C's for a list, ID1's where the row's own id says which participant it is; the
    rules that read what it cites (the referent, sufficiency) do not judge the row on what is missing."""
    resource, pick, change, rule = CITED[case]
    rows = read(specimen, resource)
    row = next(r for r in rows if pick(r))
    row.update(change(row) if callable(change) else change)
    write(specimen, resource, rows)
    stamp(specimen)
    found = errors(validate(specimen))
    assert found["rule"].tolist() == [rule], found.to_string()


def _thread_row(r):
    return r["scoreable"] and not r["cold_open"] and r["tier"] == "basic" and r["required_context"]["recent_context"] \
        and r["trace"]["C"]["relabeled"] is None


FLAGS = {  # a chat row's field that alone disagrees with the fields that agree with each other
    "tier": (_thread_row, {"tier": "hard"}, "ARI1"),  # the lists' shape and trace C say basic: CAT1, CAT2 read that
    "cold_open set": (_thread_row, {"cold_open": True}, "SIG1"),  # SIG7, SIG9 judge cold opens by flag and stratum
    "stratum abstention": (_thread_row, {"stratum": "abstention"}, "SIG1"),  # ARI2: a gold on a flagged cold open
    "cold_open cleared": (lambda r: r["cold_open"] and r["withdrawn"] is None, {"cold_open": False}, "SIG1"),  # F too
    "withdrawn code": (_thread_row, {"withdrawn": "context_lost"}, "SIG6"),  # SIG2 judges by what phase E decided
}


@pytest.mark.parametrize("case", FLAGS)
def test_a_field_alone_wrong_is_one_line(specimen, case):
    """A chat field that alone disagrees with others that agree is one line, the rule that compares it with them: the
    rules that read it as a premise (what a cold open cites, the category of a tier, whether a row is scoreable) judge
    the row by the fields that agree."""
    pick, change, rule = FLAGS[case]
    rows = read(specimen, "chat")
    next(r for r in rows if pick(r)).update(change)
    write(specimen, "chat", rows)
    stamp(specimen)
    found = errors(validate(specimen))
    assert found["rule"].tolist() == [rule], found.to_string()


def typo(value, constraints: dict):
    """The one typo each constrained field is broken by: a number one past its bound, a text one character short (one
    longer, where short still fits), empty where only its length is constrained; None where the value has no such
    typo (a boolean, a value of another type)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if not isinstance(value, str):
        return constraints["minimum"] - 1 if "minimum" in constraints else \
            constraints["maximum"] + 1 if "maximum" in constraints else None
    fits = (lambda v: v in constraints["enum"]) if "enum" in constraints else \
        (lambda v: re.fullmatch(constraints["pattern"], v)) if "pattern" in constraints else None
    if fits is None:
        return "" if constraints.get("minLength", 0) > 0 else None
    return next((v for v in (value[:-1], value + "x") if not fits(v)), None)


def _constrained(release, rows_of) -> list[tuple[str, str, int]]:
    """Every top-level field of the release's Table Schemas with a value constraint (enum, pattern, range, length),
    each with a record of its own to break: one others cite, for a primary key field (the rows naming it are its own),
    else the first holding a value the typo breaks that no other field's typo takes."""
    out = []
    for name in release.resources:
        rows, key, taken = rows_of(name), release.primary_key(name), set()
        others = "".join(json.dumps(rows_of(n)) for n in release.resources if n != name) if key else ""
        for field in release.table_schema(name)["fields"]:
            held = [i for i, r in enumerate(rows) if i not in taken
                    and typo(r.get(field["name"]), field.get("constraints") or {}) is not None]
            cited = [i for i in held if field["name"] in key and json.dumps(rows[i][field["name"]]) in others]
            if held:
                taken.add((cited or held)[0])
                out.append((name, field["name"], (cited or held)[0]))
    return out


FORMATS = {"realcompanion": (Release, lambda root: copy_release(REPO_ROOT, root), stamp, validate, "SCH2"),
           "groupassist": (GroupAssistRelease, lambda root: shutil.copytree(SPECIMEN, root), stamp_groupassist,
                           validate_groupassist, "GS2")}


@pytest.mark.parametrize("form", FORMATS)
def test_every_constrained_field_broken_is_one_line(tmp_path, form):
    """Whatever fields typos break, of either format, each on a record of its own, the constraint rule names each once,
    on its record and field, and no other line follows from any: keys among them (the rows citing one, the counts it
    fills, are not blamed), all in the one pass: 36 typos of the RealCompanion specimen, 58 of the GroupAssistBench
    one, judged in two validations rather than 94."""
    opened, copy, restamp, judge, constraint = FORMATS[form]
    root = tmp_path / "release"
    copy(root)
    release = opened(root, check=False)
    rows = {name: read(root, name) for name in release.resources}
    broken = _constrained(release, rows.__getitem__)
    for resource, field, at in broken:
        declared = next(f for f in release.table_schema(resource)["fields"] if f["name"] == field)
        rows[resource][at][field] = typo(rows[resource][at][field], declared.get("constraints") or {})
    for name, written in rows.items():
        write(root, name, written)
    restamp(root)
    report = judge(root)
    named = [[constraint, resource, ":".join(str(rows[resource][at][k]) for k in release.primary_key(resource)), field]
             for resource, field, at in broken]
    assert sorted(errors(report)[["rule", "resource", "row", "field"]].values.tolist()) == sorted(named)
    assert len(broken) > 30 and not [o.rule.id for o in report.outcomes if o.skipped]


def test_a_key_set_aside_leaves_another_records_defect_to_the_same_rule(tmp_path):
    """A roster record whose group is set aside may be any group's record of its member: a group lacking that member
    is not blamed, and a member missing from another group's roster still is (GM3), in the same pass."""
    copy = Copy(tmp_path / "release")
    typed = copy.one("members", group_id="G01", member_id="member_01")
    typed["group_id"] = "G0"
    renamed = next(m for m in copy.rows["members"] if m["group_id"] == "G02" and m["member_id"] != "member_01")
    speaker, renamed["member_id"] = renamed["member_id"], renamed["member_id"] + "x"
    copy.save()
    found = errors(validate_groupassist(copy.root))
    said = next(m for m in copy.rows["messages"] if (m["group_id"], m["speaker"]) == ("G02", speaker))
    assert found[["rule", "row"]].values.tolist() == [["GS2", "G0:member_01"], ["GM3", said["message_id"]]], \
        found.to_string()


def test_a_participant_set_aside_fills_only_a_slot_it_may_hold(specimen):
    """A persona row whose participant is set aside may be the row of a participant lacking its slot (ARI7 does not
    blame U01 for it), not of one holding that slot already: U02, short of another slot, is still named."""
    rows = read(specimen, "persona")
    next(r for r in rows if (r["participant_id"], r["slot"]) == ("U01", "openness"))["participant_id"] = "U0"
    rows.remove(next(r for r in rows if (r["participant_id"], r["slot"]) == ("U02", "gender")))
    write(specimen, "persona", rows)
    stamp(specimen)
    found = errors(validate(specimen))
    assert found[["rule", "row"]].values.tolist() == [["SCH2", "U0:openness"], ["ARI7", "U02"]], found.to_string()


def test_a_key_set_aside_stands_for_the_missing_id_nearest_it_alone(tmp_path):
    """A cited message's id typed a digit short reads as the id the foreign keys name and no record holds that it
    most nearly spells: the anchors citing it resolve, and a reply naming another missing message is still GS3's."""
    copy = Copy(tmp_path / "release")
    cited = copy.message(copy.rows["anchors"][0]["message_id"])
    cited["message_id"] = cited["message_id"][:-1]
    stray = next(m for m in copy.rows["messages"] if m["group_id"] == "G02" and m["turn"] > 5 and not m["reply_to"])
    stray["reply_to"] = "G02:m099999"
    copy.save()
    found = errors(validate_groupassist(copy.root))
    assert set(found["row"]) == {cited["message_id"], stray["message_id"]}, found.to_string()
    assert ("GS3", stray["message_id"]) in set(zip(found["rule"], found["row"]))


def _renumber(rows, sessions, change):
    """The messages of each (participant, session) in `sessions`, changed; the first of each."""
    firsts = [next(r for r in rows if (r["participant_id"], r["session"]) == s) for s in sessions]
    for row in [r for r in rows if (r["participant_id"], r["session"]) in sessions]:
        change(row)
    return firsts


def test_a_misnumbered_session_is_one_line_and_another_its_own(specimen):
    """A session whose every message carries a wrong index is one ARI9 line, on its first message, saying how many
    messages the index is wrong on; a second one elsewhere, even of the same participant, is its own line."""
    rows = read(specimen, "source")
    sessions = [("U01", 2), ("U01", 4), ("U02", 3)]
    sizes = [sum((r["participant_id"], r["session"]) == s for r in rows) for s in sessions]
    firsts = _renumber(rows, sessions, lambda r: r.update(session=r["session"] + 100))
    write(specimen, "source", rows)
    stamp(specimen)
    found = errors(validate(specimen))
    assert min(sizes) > 1
    assert found[["rule", "row", "field"]].values.tolist() == [["ARI9", f["dayid"], "session"] for f in firsts]
    assert [m.split(": ")[-1] for m in found["message"]] == [f"{n} messages from this one numbered 100 too high"
                                                              for n in sizes]


def test_a_session_left_without_indices_stays_valid(specimen):
    """The near miss: a session whose messages carry no index (null: the record has none, SPEC §3) is not misnumbered."""
    rows = read(specimen, "source")
    _renumber(rows, [("U01", 2)], lambda r: r.update(session=None))
    write(specimen, "source", rows)
    stamp(specimen)
    assert errors(validate(specimen)).empty
