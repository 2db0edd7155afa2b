"""Rules with a window, a threshold, a count, a cut point or a time comparison, on a copy of the specimen at exactly
their edge and one step past it.

The paper's wording decides on which side the edge falls ("precedes", "at or before", "more than", "at least",
"a minority", "at most"). Each case edits one thing: on the allowed side of the edge the release is VALID, one step
past it exactly the rule that states the edge fires, naming the edited row.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from realcompanion.validators.groupassist.run import validate as validate_groupassist
from realcompanion.validators.run import validate
from test_fuzz import run_quietly
from test_groupassist_rules import Copy
from test_rules import edit_descriptor, read, write

from realcompanion.stamp import stamp

BASELINE = {"NUL1"}  # the specimen's one claim without evidence, counted


def judged(root):
    """(rules fired beyond the specimen's own warning, (rule, row) of each failure) of the re-stamped copy."""
    stamp(root)
    report = validate(root)
    found = report.failure_frame()
    return report.fired() - BASELINE, set(zip(found["rule"], found["row"].astype(str)))


def params(root) -> dict:
    return json.loads((root / "datapackage.json").read_text())["realcompanion"]


def stream(root):
    """The source rows, by dayid, and by (participant, turn)."""
    rows = read(root, "source")
    return rows, {m["dayid"]: m for m in rows}, {(m["participant_id"], m["turn"]): m for m in rows}


def at(m) -> datetime:
    return datetime.fromisoformat(m["timestamp"])


def strict_episode_row(chat):
    return next(r for r in chat if r["memory_bearing"]["strict"] and r["withdrawn"] is None
                and r["required_context"]["episode_refs"] and not r["required_context"]["profile_refs"])


def window_episode(root, past):
    """Gate E (Table 24: a callback reaches outside the recent window): a strict row's extra episode ref at the
    oldest message outside the window (probe - recent_window - 1), or one step later, inside it."""
    chat, (_, by, turn) = read(root, "chat"), stream(root)
    row = strict_episode_row(chat)
    probe = by[row["probe_dayid"]]["turn"]
    row["required_context"]["episode_refs"].append(
        turn[row["participant_id"], probe - params(root)["recent_window"] - 1 + past]["dayid"])
    write(root, "chat", chat)
    return "E", row["item_id"]


def window_claim(root, past):
    """Gate E's other branch: the evidence of the row's cited claim, at the same two messages."""
    chat, profile, (_, by, turn) = read(root, "chat"), read(root, "profile"), stream(root)
    vocabulary = json.loads((root / "schemas" / "vocabulary.json").read_text())
    row = strict_episode_row(chat)
    probe, window = by[row["probe_dayid"]]["turn"], params(root)["recent_window"]
    claim = next(c for c in profile if c["participant_id"] == row["participant_id"] and c["evidence"]
                 and all(by[e]["turn"] < probe - window for e in c["evidence"]))
    claim["evidence"].append(turn[row["participant_id"], probe - window - 1 + past]["dayid"])
    claim["evidence"].sort(key=lambda d: by[d]["turn"])
    claim["evidence_count"] += 1
    for field, end in (("first_seen", 0), ("last_seen", -1)):
        claim[field] = claim[field] and by[claim["evidence"][end]]["timestamp"][:10]
    category = vocabulary["chat_category"]["edge"][0]
    row["required_context"]["profile_refs"] = [claim["claim_id"]]
    row.update(tier="edge", category=category)
    row["trace"]["C"].update(tier="edge", category=category, rule=vocabulary["tier_rule"]["edge"])
    write(root, "profile", profile)
    write(root, "chat", chat)
    return "E", row["item_id"]


def recent_context_before_probe(root, past):
    """Gate D (every cited identifier precedes its probe): recent context at probe - 1, or at the probe."""
    chat, (_, by, turn) = read(root, "chat"), stream(root)
    row = next(r for r in chat if r["required_context"]["recent_context"] and r["withdrawn"] is None)
    probe = by[row["probe_dayid"]]["turn"]
    cited = turn[row["participant_id"], probe - 1 + past]["dayid"]
    row["required_context"]["recent_context"] = sorted({*row["required_context"]["recent_context"], cited},
                                                       key=lambda d: by[d]["turn"])
    write(root, "chat", chat)
    return "D", row["item_id"]


def asked_after_latest_evidence(root, past):
    """Gate D on questions (cited messages at or before asked_after): asked_after at the latest evidence message,
    or at the one before it."""
    qa, (_, by, turn) = read(root, "qa"), stream(root)
    row = next(r for r in qa if r["evidence"] and r["category"] not in ("long_range", "multi_hop"))
    latest = max(by[d]["turn"] for d in row["evidence"])
    row["asked_after"] = turn[row["participant_id"], latest - past]["dayid"]
    write(root, "qa", qa)
    return "D", row["item_id"]


def claim_evidence_before_probe(root, past):
    """V4 (stores fixed in advance): the cited claim's only evidence at probe - 1, or at the probe itself."""
    chat, profile, (_, by, turn) = read(root, "chat"), read(root, "profile"), stream(root)
    cited = [c for r in chat for c in r["required_context"]["profile_refs"]]
    row = next(r for r in chat if len(r["required_context"]["profile_refs"]) == 1 and r["withdrawn"] is None
               and not r["memory_bearing"]["strict"] and cited.count(r["required_context"]["profile_refs"][0]) == 1)
    evidence = turn[row["participant_id"], by[row["probe_dayid"]]["turn"] - 1 + past]["dayid"]
    claim = next(c for c in profile if c["claim_id"] == row["required_context"]["profile_refs"][0])
    claim.update(evidence=[evidence], evidence_count=1, first_seen=claim["first_seen"] and by[evidence]["timestamp"][:10],
                 last_seen=claim["last_seen"] and by[evidence]["timestamp"][:10])
    kept = {*row["required_context"]["recent_context"], *row["required_context"]["episode_refs"], evidence}
    row["grounding_dayids"] = row["trace"]["D"]["grounding_dayids"] = [d for d in row["grounding_dayids"] if d in kept]
    write(root, "profile", profile)
    write(root, "chat", chat)
    return "V4", row["item_id"]


def session_gap(root, past):
    """ARI9 (a new session after more than session_gap_minutes): a session's messages moved so that its first comes
    one microsecond more than session_gap_minutes after the message before it, written one hour west of it (a new
    session, as stored), or exactly session_gap_minutes after it (the same session: its stored index is wrong)."""
    rows, gap = read(root, "source"), timedelta(minutes=params(root)["session_gap_minutes"])
    for i, (before, first) in enumerate(zip(rows, rows[1:])):
        same = [m for m in rows[i + 1:] if m["participant_id"] == first["participant_id"]
                and m["session"] == first["session"]]
        shift = at(before) + gap + timedelta(microseconds=1 - past) - at(first)
        west = timezone(at(before).utcoffset() - timedelta(hours=1))
        if (before["participant_id"] == first["participant_id"] and before["session"] != first["session"]
                and all((at(m) + shift).date() == at(m).date() for m in same)
                and (at(first) + shift).astimezone(west).date() == at(first).date()):
            break
    for m in same:
        m["timestamp"] = (at(m) + shift).isoformat()
    first["timestamp"] = at(first).astimezone(west).isoformat()
    write(root, "source", rows)
    return "ARI9", first["dayid"]


def long_range_span(root, past):
    """STR3 (0 of 22 long range short of the span threshold): asked_after exactly long_range_min_days after the
    earliest evidence message's day, or a day short."""
    qa, (rows, by, _) = read(root, "qa"), stream(root)
    days = params(root)["long_range_min_days"] - past
    for row in (r for r in qa if r["category"] == "long_range"):
        turns = [by[d]["turn"] for d in row["evidence"]]
        first = datetime.fromisoformat(by[row["evidence"][turns.index(min(turns))]]["timestamp"][:10])
        asked = [m for m in rows if m["participant_id"] == row["participant_id"] and m["turn"] >= max(turns)
                 and (datetime.fromisoformat(m["timestamp"][:10]) - first).days == days]
        if asked:
            row["asked_after"] = asked[0]["dayid"]
            write(root, "qa", qa)
            return "STR3", row["item_id"]
    raise AssertionError("no long_range question to move")


def confidence_cut_point(root, past):
    """ARI5: a confidence equal to the lower cut point is in the upper band (DATASHEET.md: low < 0.5 <= medium)."""
    profile = read(root, "profile")
    claim = next(c for c in profile if c["confidence"] is not None)
    claim.update(confidence=params(root)["confidence_bands"][0], confidence_label=("medium", "low")[past])
    write(root, "profile", profile)
    return "ARI5", claim["claim_id"]


def stratum_half(root, past):
    """V3 (one unconditioned stratum; Table 21 counts the proportional stratum's 1,169 scoreable rows): a
    participant's scoreable proportional rows are memory-bearing in exactly half (not a minority), while its
    withdrawn proportional rows stay in the file; or one more row that is not memory-bearing (a minority)."""
    chat = read(root, "chat")
    withdrawn = {r["participant_id"] for r in chat if r["stratum"] == "proportional" and r["withdrawn"]}
    pid = next(r["participant_id"] for r in chat if r["stratum"] == "proportional" and r["memory_bearing"]["recorded"]
               and r["participant_id"] in withdrawn)
    mine = [r for r in chat if r["participant_id"] == pid and r["stratum"] == "proportional" and r["scoreable"]]
    plain = [r for r in mine if not r["memory_bearing"]["recorded"]]
    dropped = {id(r) for r in plain[len(mine) - len(plain) + 1 - past:]}
    write(root, "chat", [r for r in chat if id(r) not in dropped])
    return "V3", pid


def equal_instants(root, past):
    """Gate B (timestamps never go back): a message at the same instant as the one before it, written in another
    UTC offset, or one microsecond earlier."""
    rows, gap = read(root, "source"), timedelta(minutes=params(root)["session_gap_minutes"])
    before, m = next((a, b) for a, b, c in zip(rows, rows[1:], rows[2:])
                     if a["participant_id"] == b["participant_id"] == c["participant_id"]
                     and a["session"] == b["session"] == c["session"] and at(c) - at(a) <= gap
                     and (at(a) - timedelta(hours=1)).date() == at(a).date())
    offset = timezone(at(before).utcoffset() - timedelta(hours=1))
    m["timestamp"] = (at(before) - timedelta(microseconds=past)).astimezone(offset).isoformat()
    write(root, "source", rows)
    return "B", m["dayid"]


EDGES = [window_episode, window_claim, recent_context_before_probe, asked_after_latest_evidence,
         claim_evidence_before_probe, session_gap, long_range_span, confidence_cut_point, stratum_half, equal_instants]


@pytest.mark.parametrize("past", [0, 1], ids=["edge", "past"])
@pytest.mark.parametrize("edge", EDGES, ids=[e.__name__ for e in EDGES])
def test_the_edge_passes_and_one_step_past_it_fires_its_rule(edge, past, specimen):
    """`edge(root, 0)` builds the allowed case nearest the edge, `edge(root, 1)` the nearest case past it."""
    rule, row = edge(specimen, past)
    fired, failures = judged(specimen)
    assert fired == ({rule} if past else set()), sorted(failures)[:5]
    assert (rule, row) in failures or not past, sorted(failures)[:5]


def judged_groupassist(copy):
    copy.save()
    report = validate_groupassist(copy.root)
    found = report.failure_frame()
    return report.fired(), set(zip(found["rule"], found["row"].astype(str)))


def records_before(copy, group, turn) -> int:
    return sum(m["group_id"] == group and m["turn"] < turn for m in copy.rows["messages"])


def min_history(copy, past):
    """Gate iv (the cutoff leaves at least min_history messages), its parameter read from datapackage.json: set to
    the number of records before the earliest cutoff, or one more."""
    instance = min(copy.rows["instances"], key=lambda i: records_before(copy, i["group_id"], i["cutoff_turn"]))
    descriptor = copy.descriptor()
    descriptor["groupassist"]["min_history"] = records_before(copy, instance["group_id"], instance["cutoff_turn"]) + past
    (copy.root / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    return "GA4", instance["instance_id"]


def premise_at_cutoff(copy, past):
    """Gate i (every anchor and cited premise precedes the cutoff): an authored query's cited premise (no memory, so
    no distance to keep) moved to a member's record just before the cutoff turn, or to the cutoff turn; its old
    message no longer states it, so the new one is the earliest that does (GC17)."""
    def member_at(instance, turn):
        return next((m for m in copy.rows["messages"] if m["group_id"] == instance["group_id"]
                     and m["role"] == "member" and m["turn"] == turn and not m["placeholder"]), None)

    # a premise whose instance has a member's record on each side of its cutoff, the same one for both cases
    premise, instance = next((a, i) for a in copy.rows["anchors"] if a["premise"]
                             for i in [copy.instance(instance_id=a["instance_id"])]
                             if member_at(i, i["cutoff_turn"] - 1) and member_at(i, i["cutoff_turn"]))
    message = member_at(instance, instance["cutoff_turn"] - 1 + past)
    old = copy.message(premise["message_id"])
    old["text_zh"], old["text_en"] = old["text_zh"].replace(premise["span_zh"], ""), old["text_en"].replace(
        premise["span_en"], "")
    message["text_zh"] += premise["span_zh"]
    message["text_en"] += " " + premise["span_en"]
    premise.update(message_id=message["message_id"], from_assistant=False)
    return "GA1", premise["anchor_id"]


def authored_distance(bound):
    """App. A.5 (the cutoff between delta_min and delta_max messages after the last anchor; GROUPASSIST.md: messages
    between them): an authored cutoff with exactly delta_min (delta_max) records between, or one fewer (more)."""
    def edge(copy, past):
        params = copy.descriptor()["groupassist"]
        count = params["delta_min"] - past if bound == "min" else params["delta_max"] + past
        turn = {m["message_id"]: m["turn"] for m in copy.rows["messages"]}
        for instance in (i for i in copy.rows["instances"]
                         if (i["origin"], i["dependency"], i["level"]) == ("authored", "M1", "L1")):
            last = max(turn[a["message_id"]] for a in copy.anchors(instance["instance_id"]) if not a["premise"])
            after = sorted(m["turn"] for m in copy.rows["messages"]
                           if m["group_id"] == instance["group_id"] and m["turn"] > last)
            if len(after) > count:  # the cutoff just after the count-th record past the last anchor
                instance["cutoff_turn"] = after[count - 1] + 1
                return "GC6", instance["instance_id"]
        raise AssertionError("no authored M1 L1 instance of the specimen has that many records after its anchors")
    edge.__name__ = f"authored_distance_{bound}"
    return edge


def rubric(positive, penalties, mandatory, past_by):
    """Gate v (App. B: three to six positive criteria, at most three penalties, at most eight in all, at most four
    mandatory): an L2 rubric rebuilt at a limit, or one criterion past it (`past_by` adds a positive criterion, a
    penalty, or makes one more positive criterion mandatory)."""
    def edge(copy, past):
        sizes = {"positive": positive, "penalties": penalties, "mandatory": mandatory}
        sizes[past_by] += past * (-1 if past_by == "positive" and positive == 3 else 1)
        weights = copy.descriptor()["groupassist"]["weights"]
        criteria = [c for c in copy.rows["criteria"] if c["instance_id"] == instance(copy)["instance_id"]]
        grounding = next(c for c in criteria if c["kind"] == "grounding")
        penalty = next(c for c in criteria if c["kind"] == "penalty")
        built = []
        for k in range(sizes["positive"] + sizes["penalties"]):
            model = grounding if k < sizes["positive"] else penalty
            built.append(model | {"criterion_id": f"{model['instance_id']}:C{k + 1:02d}",
                                  "text_zh": f"{model['text_zh']}（{k}）", "text_en": f"{model['text_en']} ({k})"})
            if k < sizes["positive"]:
                built[-1].update(mandatory=k < sizes["mandatory"],
                                 weight=weights["grounding"] if k < sizes["mandatory"] else 1)
        copy.rows["criteria"] = [c for c in copy.rows["criteria"] if c not in criteria] + built
        return "GA5", grounding["instance_id"]

    def instance(copy):
        cited = {c["instance_id"] for c in copy.rows["criteria"] if c["kind"] == "penalty"}
        return next(i for i in copy.rows["instances"] if i["level"] == "L2" and i["dependency"] != "M3"
                    and i["instance_id"] in cited)
    edge.__name__ = f"rubric_{positive}_{penalties}_{mandatory}_{past_by}"
    return edge


GROUPASSIST_EDGES = [min_history, premise_at_cutoff, authored_distance("min"), authored_distance("max"),
                     rubric(3, 0, 3, "positive"), rubric(6, 2, 4, "penalties"), rubric(5, 3, 4, "penalties"),
                     rubric(6, 0, 4, "mandatory")]


@pytest.mark.parametrize("past", [0, 1], ids=["edge", "past"])
@pytest.mark.parametrize("edge", GROUPASSIST_EDGES, ids=[e.__name__ for e in GROUPASSIST_EDGES])
def test_a_groupassist_edge_passes_and_one_step_past_it_fires_its_rule(edge, past, tmp_path):
    copy = Copy(tmp_path / "release")
    rule, row = edge(copy, past)
    fired, failures = judged_groupassist(copy)
    assert fired == ({rule} if past else set()), sorted(failures)[:5]
    assert (rule, row) in failures or not past, sorted(failures)[:5]


def test_a_declared_count_is_a_whole_number_not_true(specimen):
    """CAT3 (3 relabeled by record) compares a count: `relabeled: true` equalled the specimen's one relabel in
    Python (True == 1) and passed. It is refused as the other declared counts are (exit 2, one line)."""
    edit_descriptor(specimen, lambda d: d["realcompanion"].update(relabeled=True))
    code, out, err = run_quietly(["validate", str(specimen)])
    assert code == 2 and "field 'realcompanion.relabeled': True is not of type 'integer'" in err, (code, err)
