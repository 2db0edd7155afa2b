"""A dataset converted into the format by a fork author: what a faithful conversion does must pass, and each
mistake a converter makes must fire its own rule, naming the row, in words that say what to fix.

The cases reshape a copy of the specimen the way converted datasets look (no session indices, messages of
a session sharing the session's start time, counts not yet declared) rather than ship any outside data.
"""
from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from realcompanion.validators.run import validate
from rich.cells import cell_len
from test_forks import fork, mistakes_table, refresh_validate_publish  # noqa: F401  (the fork fixture: a clone with its documents)
from test_rules import chat_change, context_phase_b_left, on_rows, previous_message_as_recent, read, turns_of, write

from realcompanion.stamp import stamp

BASELINE = {"NUL1"}  # the specimen's one claim without evidence, counted (tests/test_rules.py)


def without_session_indices(root: Path) -> None:
    """A source dataset that records no session index: `session` is null on every message (SPEC §3: nullable)."""
    rows = read(root, "source")
    for row in rows:
        row["session"] = None
    write(root, "source", rows)


def failures_of(report, rule: str):
    frame = report.failure_frame()
    return frame[frame["rule"] == rule]


def test_a_stream_without_session_indices_passes(specimen):
    """Sessions are the gap rule's (Table 25, Structural: multi hop spans sessions): a null index hides none."""
    without_session_indices(specimen)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE, report.failure_frame().head(10).to_string()


def test_multi_hop_within_one_session_fails_without_session_indices(specimen):
    """With no stored index, a multi_hop question citing one session is still STR1's, by the gap rule."""
    without_session_indices(specimen)
    qa = read(specimen, "qa")
    row = next(r for r in qa if r["category"] == "multi_hop")
    row["evidence"] = row["evidence"][:1]
    write(specimen, "qa", qa)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | {"STR1"}
    failed = failures_of(report, "STR1")
    assert list(failed["row"]) == [row["item_id"]] and list(failed["value"]) == ["1 session"]


def test_multi_hop_across_two_messages_of_one_session_counts_sessions(specimen):
    """A converted multi-session question whose two evidence turns fall in one session by the gap rule (the
    dataset's sessions 20 minutes apart): STR1's value is the count of sessions, worded as such, since a bare `1`
    beside `evidence` reads as one cited message, and the line says what makes a session."""
    qa = read(specimen, "qa")
    source = read(specimen, "source")
    row = next(r for r in qa if r["category"] == "multi_hop")
    session = next(m for m in source if m["dayid"] == row["evidence"][0])
    same = [m["dayid"] for m in source if m["participant_id"] == session["participant_id"]
            and m["session"] == session["session"] and m["dayid"] <= row["asked_after"]]
    row["evidence"] = same[:2]
    write(specimen, "qa", qa)
    stamp(specimen)
    failed = failures_of(validate(specimen), "STR1")
    assert len(row["evidence"]) == 2 and list(failed["row"]) == [row["item_id"]]
    assert list(failed["value"]) == ["1 session"]
    assert list(failed["message"]) == ["evidence spans fewer than 2 sessions (sessions as `session` numbers them, "
                                       "by the gap rule: a new one after more than 30 minutes)"]


def test_counts_not_yet_declared_name_the_rows_found(specimen):
    """Before `refresh`, a converted participant has no declared count: the failure says so and gives the count
    found, of the participant's rows as a whole (no field), not as a value of participant_id (Table 25,
    Arithmetic: counts reconcile)."""
    descriptor = json.loads((specimen / "datapackage.json").read_text())
    found = descriptor["realcompanion"]["participants"].pop("U02")
    (specimen / "datapackage.json").write_text(json.dumps(descriptor, indent=2))
    failed = failures_of(validate(specimen), "ARI3").set_index(["resource", "row"])
    chat = failed.loc[("chat", "U02")]
    assert (chat["field"], str(chat["value"])) == ("", str(found["chat"]))
    assert chat["message"].startswith(f"no count declared, found {found['chat']} rows")
    assert "realcompanion refresh" in chat["message"]


def test_a_missing_persona_slot_names_the_rows_found(specimen):
    """ARI7 (Table 11: 39 slots per participant) gives the participant's row count, of its rows as a whole."""
    persona = read(specimen, "persona")
    pid = persona[0]["participant_id"]
    write(specimen, "persona", persona[1:])
    stamp(specimen)
    failed = failures_of(validate(specimen), "ARI7")
    assert list(failed["row"]) == [pid]
    assert (failed["field"].iloc[0], failed["value"].iloc[0]) == ("", "38")


def test_count_rules_print_rows_in_the_report(specimen, capsys):
    """Both count rules read `persona U01 =38 : ... found 38 rows` in the terminal report, before `refresh` (ARI3 and
    ARI7): the count is of the participant's rows, no field of persona."""
    from realcompanion.cli import main

    write(specimen, "persona", read(specimen, "persona")[1:])
    assert main(["validate", str(specimen)]) == 1
    out = capsys.readouterr().out
    assert out.count(" =38 : ") == 2 and "participant_id=38" not in out, out


def test_session_numbers_kept_across_a_dropped_session_name_the_gap_rule(specimen):
    """A converter that drops a session but keeps the dataset's numbering: ARI9 names the first message after the
    hole, once for every later session the hole shifts, and says where indices come from (Table 25; SPEC §3), with
    the gap read from datapackage.json."""
    source = read(specimen, "source")
    pid = source[0]["participant_id"]
    opener = next(r for r in source if r["participant_id"] == pid and r["session"] == 3)
    for row in source:
        if row["participant_id"] == pid and (row["session"] or 0) >= 3:
            row["session"] += 1
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | {"ARI9"}
    failed = failures_of(report, "ARI9")
    gap = json.loads((specimen / "datapackage.json").read_text())["realcompanion"]["session_gap_minutes"]
    shifted = [r for r in source if r["participant_id"] == pid and (r["session"] or 0) >= 4]
    assert failed[["row", "value"]].values.tolist() == [[opener["dayid"], "4"]]
    assert failed["message"].iloc[0] == f"expected session 3 by the gap rule (a new session after more than {gap} " \
                                        f"minutes; null if the record has no index): {len(shifted)} messages from this " \
                                        "one numbered 1 too high"


def first_row(root: Path, name: str, pick) -> tuple[list[dict], dict]:
    rows = read(root, name)
    return rows, next(r for r in rows if pick(r))


def test_a_number_left_as_an_answer_says_the_field_takes_text(specimen):
    """Source datasets give some answers as numbers (a year): SCH1 says the field is text or null, not that the
    value fits no branch of an 'anyOf'."""
    qa, row = first_row(specimen, "qa", lambda r: r["answer"] is not None)
    row["answer"] = 1998
    write(specimen, "qa", qa)
    failed = failures_of(validate(specimen), "SCH1")
    assert list(failed["row"]) == [row["item_id"]] and list(failed["field"]) == ["answer"]
    assert failed["message"].iloc[0].endswith('1998 is not of type "string" (or null)')


def test_a_cited_list_names_the_failing_item(specimen):
    """A nullable list of dayids: a repeated id says so; a malformed id names its own position in the list."""
    profile, row = first_row(specimen, "profile", lambda r: r["evidence"] and len(r["evidence"]) >= 2)
    row["evidence"] = [row["evidence"][0], row["evidence"][0]]
    other = next(r for r in profile if r["evidence"] and r is not row)
    other["evidence"] = [other["evidence"][0], "S1:4"]
    write(specimen, "profile", profile)
    stamp(specimen)
    failed = failures_of(validate(specimen), "SCH3").set_index("row")
    assert failed.loc[row["claim_id"], "field"] == "evidence"
    assert failed.loc[row["claim_id"], "message"].endswith("has non-unique elements (or null)")
    assert failed.loc[other["claim_id"], "field"] == "evidence.1"
    assert failed.loc[other["claim_id"], "message"].startswith('not a dayid (schemas/vocabulary.json): "S1:4" does not match')


def test_a_lone_surrogate_is_named_as_such(specimen):
    """JSON can escape half a surrogate pair (\\ud83d); no UTF-8 text holds one: SCH1 names row, field and what it is."""
    source = read(specimen, "source")
    row = source[5]
    row["text"] += "\ud83d"
    (specimen / "data" / "source.jsonl").write_text("".join(json.dumps(r) + "\n" for r in source), encoding="utf-8")
    failed = failures_of(validate(specimen), "SCH1")
    assert list(failed["row"]) == [row["dayid"]] and list(failed["field"]) == ["text"]
    assert "holds a lone surrogate ('\\ud83d' at character" in failed["message"].iloc[0]


def test_a_timestamp_left_as_a_number_is_reported_once(specimen):
    """An epoch number where RFC 3339 text belongs is SCH1's; the claims citing that message are not also told
    that their first_seen / last_seen should be null (ARI6 cannot date what SCH1 set aside)."""
    cited_elsewhere = {d for name in ("chat", "qa", "persona") for r in read(specimen, name)
                       for d in json.dumps(r).split('"') if d.count(":d") == 1}
    source = read(specimen, "source")
    date = {r["dayid"]: r["timestamp"][:10] for r in source}
    dayid = next(r["evidence"][0] for r in read(specimen, "profile") if r["first_seen"]
                 and r["evidence"][0] not in cited_elsewhere  # the claim's only message on its first_seen day
                 and [date[d] for d in r["evidence"]].count(r["first_seen"]) == 1)
    row = next(r for r in source if r["dayid"] == dayid)
    row["timestamp"] = 1736150580
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | {"SCH1"}, report.failure_frame().head(10).to_string()
    failed = failures_of(report, "SCH1")
    assert list(failed["row"]) == [dayid] and list(failed["field"]) == ["timestamp"]


def test_datetimes_printed_by_str_or_left_a_day_and_dates_given_a_time_say_what_to_write(specimen):
    """Three shapes a converter writes: `str(datetime)` (a space where RFC 3339 has T) in a timestamp, a dataset's
    day left as the timestamp (a dataset that dates days, not messages), and the evidence's timestamp copied into
    first_seen. Each is on a real day, so FLD2 says what differs instead of "not RFC 3339 with an explicit offset"
    (Table 11, timestamp; Table 12, first_seen)."""
    source = read(specimen, "source")
    message, day, undated = source[5], source[7], source[9]
    message["timestamp"] = message["timestamp"].replace("T", " ")
    day["timestamp"] = day["timestamp"][:10]
    undated["timestamp"] = None  # a dataset that dates nothing: forking.md's table gives SCH2's line, and a way out
    write(specimen, "source", source)
    profile, claim = first_row(specimen, "profile", lambda r: r["first_seen"] is not None)
    claim["first_seen"] = next(m["timestamp"] for m in source if m["dayid"] == claim["evidence"][0])
    write(specimen, "profile", profile)
    report = validate(specimen)
    assert list(failures_of(report, "SCH2")[["row", "field", "value", "message"]].itertuples(index=False, name=None)) \
        == [(undated["dayid"], "timestamp", "null", "violates not_nullable")]
    failed = failures_of(report, "FLD2").set_index("row")["message"]
    assert sorted(failed.index) == sorted([message["dayid"], day["dayid"], claim["claim_id"]])
    assert failed[message["dayid"]].startswith("a space between date and time, as Python's str() of a datetime")
    assert failed[day["dayid"]].startswith("a date without a time of day: a dataset that dates days")
    assert failed[claim["claim_id"]].startswith("a date and time where the local date belongs (YYYY-MM-DD")


def test_a_leap_second_says_what_to_write(specimen):
    """RFC 3339 allows a leap second (23:59:60), but Python's datetime, pandas and Frictionless do not read one: FLD2
    names it, as it names a lower-case t or z, instead of passing a timestamp that no other rule can date and that
    `frictionless validate` rejects (Table 11, timestamp)."""
    source = read(specimen, "source")
    message = source[5]
    message["timestamp"] = message["timestamp"][:17] + "60" + message["timestamp"][19:]
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | {"FLD2"}, report.failure_frame().head(10).to_string()
    failed = failures_of(report, "FLD2")
    assert list(failed["row"]) == [message["dayid"]]
    assert failed["message"].iloc[0].startswith("a leap second (:60), which RFC 3339 allows but")


def test_year_0000_says_what_to_write(specimen):
    """A placeholder year 0000 ("date unknown") in a timestamp and in a date: RFC 3339 allows it and Arrow reads it,
    but Python's datetime and Frictionless do not, so `validate` passed a release `frictionless validate` rejects."""
    source = read(specimen, "source")
    message = source[5]
    message["timestamp"] = "0000" + message["timestamp"][4:]
    write(specimen, "source", source)
    profile, claim = first_row(specimen, "profile", lambda r: r["first_seen"] is not None)
    claim["first_seen"] = "0000" + claim["first_seen"][4:]
    write(specimen, "profile", profile)
    failed = failures_of(validate(specimen), "FLD2").set_index("row")["message"]
    assert sorted(failed.index) == sorted([message["dayid"], claim["claim_id"]])
    assert all(m.startswith("year 0000, which RFC 3339 allows but") for m in failed)


def test_a_session_date_left_as_the_dataset_wrote_it_is_reported_once(specimen):
    """LoCoMo dates sessions as "1:56 pm on 8 May, 2023"; a converter that leaves that text on a message cited by a
    long_range question and by a profile claim gets FLD2's line only: STR3 still runs (it could not be evaluated
    when it read the text as a date) and ARI6 does not expect "1:56 pm o" as the claim's first_seen (Table 12)."""
    source = read(specimen, "source")
    inside = {r["dayid"] for before, r in zip(source, source[1:])  # not a session's first message
              if before["participant_id"] == r["participant_id"] and before["session"] == r["session"]}
    by_id = {r["dayid"]: r for r in source}
    rows = [by_id[next(r["evidence"][0] for r in read(specimen, name) if pick(r) and r["evidence"][0] in inside)]
            for name, pick in (("qa", lambda r: r["category"] == "long_range"), ("profile", lambda r: r["first_seen"]))]
    for row in rows:
        row["timestamp"] = "1:56 pm on 8 May, 2023"
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | {"FLD2"}, report.failure_frame().head(10).to_string()
    assert sorted(failures_of(report, "FLD2")["row"]) == sorted(r["dayid"] for r in rows)


def test_unreadable_timestamps_opening_a_stream_shift_no_later_row(specimen):
    """A converter that leaves its first sessions' dates as text gets FLD2's lines for them: gate B counts the days
    from the first readable message's own day, ARI9 judges the indices from the first stored one after them (a run
    of unreadable messages may hide session starts) and SIG7 does not judge a cold open whose probe is one of them,
    so no other row is reported for them. A wrong index after them is still named."""
    source = read(specimen, "source")
    opening = [r for r in source if r["participant_id"] == "U01"][:40]
    for row in opening:
        row["timestamp"] = "1:56 pm on 8 May, 2023"
    later = next(r for r in source if r["participant_id"] == "U01" and r["session"] and r not in opening
                 and r["turn"] > opening[-1]["turn"] + 50)
    later["session"] += 1
    assert any(c["cold_open"] and c["probe_dayid"] in {r["dayid"] for r in opening} for c in read(specimen, "chat"))
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert sorted(failures_of(report, "FLD2")["row"]) == sorted(r["dayid"] for r in opening)
    assert failures_of(report, "B").empty and failures_of(report, "SIG7").empty  # a probe among them: FLD2's
    assert list(failures_of(report, "ARI9")["row"]) == [later["dayid"]]


def test_unreadable_timestamps_opening_days_shift_no_later_row(specimen):
    """A message that opens a later day with its date left as text keeps the slot its dayid names: gate B put it in
    the day before, and the next message of its day was 'seq of dayid differs' (once per such day). Two dayids
    swapped later in such a day are still named."""
    source = read(specimen, "source")
    mine = [r for r in source if r["participant_id"] == "U02"]
    opening = [r for before, r in zip(mine, mine[1:]) if r["dayid"].endswith(":001")
               and r["dayid"].split(":")[1] != before["dayid"].split(":")[1]][:10]
    for row in opening:
        row["timestamp"] = "1:56 pm on 8 May, 2023"
    write(specimen, "source", source)
    stamp(specimen)
    report = validate(specimen)
    assert sorted(failures_of(report, "FLD2")["row"]) == sorted(r["dayid"] for r in opening)
    assert failures_of(report, "B").empty, failures_of(report, "B").to_string()
    day = next(r["dayid"][:-3] for r in opening if r["dayid"][:-3] + "003" in {m["dayid"] for m in mine})
    second, third = (next(r for r in mine if r["dayid"] == day + seq) for seq in ("002", "003"))
    second["dayid"], third["dayid"] = third["dayid"], second["dayid"]
    write(specimen, "source", source)
    stamp(specimen)
    assert set(failures_of(validate(specimen), "B")["row"]) == {day + "002", day + "003"}


def test_a_first_record_that_is_not_the_header_says_what_it_should_name(specimen):
    """Converters build records in their own key order or keep a field of the dataset (LoCoMo's blip_caption): HDR1
    says which field the schema lacks, or gives the schema's order, not only "another order" (Frictionless reads
    line 1 as the header)."""
    source = read(specimen, "source")
    source[0]["blip_caption"] = "a photo of a dog"
    write(specimen, "source", source)
    qa = read(specimen, "qa")
    order = ["question", "answer", *(k for k in qa[0] if k not in ("question", "answer"))]
    write(specimen, "qa", [{k: r[k] for k in order if k in r} for r in qa])
    failed = failures_of(validate(specimen), "HDR1").set_index("resource")
    assert (failed.loc["source", "field"], failed.loc["source", "message"]) == \
        ("blip_caption", "line 1 names fields the schema does not declare: blip_caption")
    assert failed.loc["qa", "message"] == ("line 1 names the fields in another order; the schema's is item_id, "
                                           "participant_id, question, answer, answerable, category, evidence, "
                                           "asked_after, excluded")


def test_multi_hop_trusts_stored_session_indices_when_timestamps_are_wrong(specimen):
    """Timestamps collapsed to one instant are gate B's and ARI9's to report; STR1 counts the stored session
    indices where there are some, so it does not add a failure on every multi_hop question of the participant."""
    qa = read(specimen, "qa")
    pid = next(r["participant_id"] for r in qa if r["category"] == "multi_hop")
    source = read(specimen, "source")
    first = next(r["timestamp"] for r in source if r["participant_id"] == pid)
    for row in source:
        if row["participant_id"] == pid:
            row["timestamp"] = first
    write(specimen, "source", source)
    stamp(specimen)
    fired = validate(specimen).fired()
    assert {"B", "ARI9"} <= fired and "STR1" not in fired


def resumed_after(root: Path, pid: str, session: int, days: int) -> None:
    """The participant's stream resumes `days` later from its session `session` on (a conversation picked up years
    later): timestamps move, dayids are renumbered by the local day everywhere they are cited, claim dates follow."""
    from datetime import datetime, timedelta

    source = read(root, "source")
    start = next(r["turn"] for r in source if r["participant_id"] == pid and r["session"] == session)
    renamed, seq, first = {}, {}, None
    for row in source:
        if row["participant_id"] != pid:
            continue
        if row["turn"] >= start:
            row["timestamp"] = (datetime.fromisoformat(row["timestamp"]) + timedelta(days=days)).isoformat()
        day = date.fromisoformat(row["timestamp"][:10])
        first = first or day
        n = (day - first).days + 1
        seq[n] = seq.get(n, 0) + 1
        renamed[row["dayid"]], row["dayid"] = f"{pid}:d{n:03d}:{seq[n]:03d}", f"{pid}:d{n:03d}:{seq[n]:03d}"
    write(root, "source", source)
    dates = {row["dayid"]: row["timestamp"][:10] for row in source}
    for name in ("profile", "persona", "chat", "qa"):
        text = (root / "data" / f"{name}.jsonl").read_text(encoding="utf-8")
        rows = [json.loads(line) for line in re.sub(rf"{pid}:d\d{{3}}:\d{{3}}", lambda m: renamed[m[0]], text).splitlines()]
        for row in rows if name == "profile" else []:
            if row["first_seen"]:
                row["first_seen"], row["last_seen"] = min(dates[d] for d in row["evidence"]), \
                    max(dates[d] for d in row["evidence"])
        write(root, name, rows)


def test_a_conversation_past_day_999_has_dayids(specimen):
    """A converted conversation spanning more than 999 days (or a day of more than 999 messages: LongMemEval dates
    a whole haystack on one day) numbers as SPEC §2's {day:03d} prints, d1000: the dayid pattern admits it, with one
    spelling per number, and gate B reads day and seq at that width (Table 24, gate B)."""
    pattern = json.loads((specimen / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["identifier"]["dayid"]
    assert re.fullmatch(pattern, f"U01:d{1000:03d}:{1000:03d}") and re.fullmatch(pattern, f"U01:d{7:03d}:{12:03d}")
    assert not any(re.fullmatch(pattern, dayid) for dayid in ("U01:d0999:001", "U01:d001:0012", "U01:d01:001"))
    resumed_after(specimen, "U01", 3, 1100)
    assert any(":d1" in r["dayid"] and len(r["dayid"]) == 13 for r in read(specimen, "source"))
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE, report.failure_frame().head(10).to_string()


# -- a whole dataset converted the way docs/forking.md §4 says --------------------------------------------

SESSIONS = {  # participant: (start of each session, who opens it, messages), dated by session only
    "U01": [("2024-03-04T09:15:00+00:00", "user", 6), ("2024-03-04T18:40:00+00:00", "companion", 5),
            ("2024-03-19T07:05:00+00:00", "user", 7)],
    "U02": [("2024-05-30T23:50:00+00:00", "companion", 4), ("2024-06-02T12:00:00+00:00", "user", 6)],
}


def converted_source() -> list[dict]:
    """Every message at its session's time (the dataset dates sessions, not messages); dayid by local day."""
    rows = []
    for pid, sessions in SESSIONS.items():
        seq, first_day, turn = {}, None, 0
        for number, (start, opener, count) in enumerate(sessions, 1):
            day = date.fromisoformat(start[:10])
            first_day = first_day or day
            d = (day - first_day).days + 1
            for n in range(count):
                seq[d] = seq.get(d, 0) + 1
                sender = opener if n % 2 == 0 else ({"user", "companion"} - {opener}).pop()
                rows.append({"participant_id": pid, "turn": turn, "dayid": f"{pid}:d{d:03d}:{seq[d]:03d}",
                             "db_id": number * 1000 + n + 1, "sender": sender, "timestamp": start,
                             "session": number if pid == "U01" else None,  # U02's dataset has no index
                             "media": "image" if n == 3 else None,
                             "text": f"message {n + 1} of session {number}, from the {sender}"})
                turn += 1
    return rows


def converted_rows(source: list[dict], vocabulary: dict) -> dict[str, list[dict]]:
    """Profile claims with evidence and no strength, empty persona slots, next-turn chat golds, mapped questions."""
    out = {"source": source, "profile": [], "persona": [], "chat": [], "qa": []}
    for pid in SESSIONS:
        stream = [r for r in source if r["participant_id"] == pid]
        users = [r for r in stream if r["sender"] == "user"]
        for n, cited in enumerate((users[:2], users[-1:]), 1):
            out["profile"].append({
                "claim_id": f"{pid}:P{n:04d}", "participant_id": pid, "field": "interests",
                "text": f"Claim {n}.", "evidence": [r["dayid"] for r in cited], "evidence_count": len(cited),
                "confidence": None, "confidence_label": None, "first_seen": cited[0]["timestamp"][:10],
                "last_seen": cited[-1]["timestamp"][:10], "temporality": None, "audit_verdict": None})
        out["persona"] += [{"participant_id": pid, "slot": slot, "category": category, "value": None,
                            "evidence": None, "rationale": None}
                           for slot, category in vocabulary["persona_slot"].items()]
        for i, (probe, reply) in enumerate(zip(stream, stream[1:])):
            if (probe["sender"], reply["sender"]) != ("user", "companion") or probe["timestamp"] != reply["timestamp"]:
                continue  # the next message of the same session
            recent = [r["dayid"] for r in stream[max(0, i - 3):i] if r["timestamp"] == probe["timestamp"]]
            locus = "current_thread" if recent else "none"
            out["chat"].append({
                "item_id": f"{pid}:C{len(out['chat']) + 1:04d}", "participant_id": pid, "stratum": "proportional",
                "cold_open": False, "scoreable": True, "withdrawn": None, "probe": probe["text"],
                "probe_dayid": probe["dayid"], "gold_response": reply["text"], "sampled_as": "basic",
                "tier": "basic", "category": "continuation", "locus": locus,
                "required_context": {"recent_context": recent, "profile_refs": [], "episode_refs": [],
                                     "recent_needed": bool(recent)},
                "grounding_dayids": [], "memory_bearing": {"recorded": False, "strict": False, "strict2": False},
                "on_screen": None,
                "trace": {"A": {"result": "pass", "rationale": None, "referent_text": None, "locus": locus},
                          "B": {"result": "pass", "rationale": None, "removed": []},
                          "C": {"result": "pass", "rationale": None, "tier": "basic", "category": "continuation",
                                "rule": vocabulary["tier_rule"]["basic"], "relabeled": None},
                          "D": {"result": "pass", "rationale": "The next message of the conversation.",
                                "gold_response": reply["text"], "grounding_dayids": []},
                          "E": {"result": "pass", "rationale": None, "ok": True, "category_ok": True}}})
        openers = [r["dayid"] for i, r in enumerate(stream) if i == 0 or r["timestamp"] != stream[i - 1]["timestamp"]]
        questions = [("multi_hop", "Two sessions?", "yes", openers[:2]),
                     ("temporal", "When?", "In spring.", openers[:1]),
                     ("unanswerable", "What was never said?", None, openers[1:2])]  # a distractor's message
        for n, (category, question, answer, evidence) in enumerate(questions, 1):
            out["qa"].append({"item_id": f"{pid}:Q{n:04d}", "participant_id": pid, "question": question,
                              "answer": answer, "answerable": answer is not None, "category": category,
                              "evidence": evidence, "asked_after": stream[-1]["dayid"], "excluded": None})
    return out


def test_a_converted_dataset_passes_the_fork_loop(fork, capsys):  # noqa: F811  (the fixture imported above)
    """A faithful conversion (forking.md §4) is valid with no warning, for Frictionless too, loads with `datasets`
    config by config and is scored by the baselines: no rule is stricter than the format."""
    import datasets

    from realcompanion.cli import main

    vocabulary = json.loads((fork / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))
    files = converted_rows(converted_source(), vocabulary)
    for name, rows in files.items():
        write(fork, name, rows)
    descriptor = json.loads((fork / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["realcompanion"].update(synthetic=True, relabeled=0,
                                       provenance="Converted from a dataset of model-written conversations.")
    (fork / "datapackage.json").write_text(json.dumps(descriptor, indent=2), encoding="utf-8")
    refresh_validate_publish(fork, capsys)
    assert validate(fork).fired() == set()
    assert "> **Synthetic release (version 0.1.0).** Converted from" in (fork / "README.md").read_text(encoding="utf-8")
    for name, rows in files.items():
        assert datasets.load_dataset(str(fork), name, split="test").num_rows == len(rows)
    for track in ("chat", "qa"):
        assert main(["baselines", str(fork), "--track", track, "--resamples", "10"]) == 0


def test_the_guides_load_dataset_line_loads_the_release_it_is_run_in(fork, monkeypatch, tmp_path, capsys):  # noqa: F811
    """forking.md §4's `python -c` line, run in the release folder as written: `datasets` names a local dataset after
    its folder, and "." has no name ("dataset_name should be specified but got None"), so the line must not pass
    "." (SPEC §1: load_dataset(<path>, "chat", split="test") works from a local clone)."""
    import datasets

    guide = (Path(__file__).parents[1] / "docs" / "forking.md").read_text(encoding="utf-8")
    code = re.search(r"^python -c '(import datasets.*)'", guide, re.M).group(1)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "datasets")
    monkeypatch.chdir(fork)
    exec(code, {})
    assert f"num_rows: {len(read(fork, 'chat'))}" in capsys.readouterr().out


def test_a_probe_that_differs_says_where(specimen):
    """Gate A's line shows the probe's first 60 characters, which a trimmed, re-normalized (NFC, or NFKC as text
    cleaning folds full-width Chinese punctuation) or cut probe shares with its message: the message says how it
    differs (Table 24, gate A: reproduced verbatim)."""
    import unicodedata

    chat = read(specimen, "chat")
    texts = {r["dayid"]: r["text"] for r in read(specimen, "source")}
    rows = iter(r for r in chat if not r["withdrawn"] and len(texts[r["probe_dayid"]]) > 20)
    trimmed, cut, normalized, folded = next(rows), next(rows), next(rows), next(rows)
    source = read(specimen, "source")
    message = next(r for r in source if r["dayid"] == normalized["probe_dayid"])
    message["text"] = unicodedata.normalize("NFD", "Café, ") + message["text"]
    full_width = next(r for r in source if r["dayid"] == folded["probe_dayid"])
    full_width["text"] = "你好，ＡＩ！" + full_width["text"]  # a Chinese input method's comma, letters and "!"
    write(specimen, "source", source)
    trimmed["probe"] = texts[trimmed["probe_dayid"]] + "\n"
    cut["probe"] = texts[cut["probe_dayid"]][:-5]
    normalized["probe"] = unicodedata.normalize("NFC", message["text"])
    folded["probe"] = unicodedata.normalize("NFKC", full_width["text"])
    write(specimen, "chat", chat)
    failed = failures_of(validate(specimen), "A").set_index("row")["message"]
    assert failed[trimmed["item_id"]] == ("probe differs from the text of probe_dayid only in leading or trailing "
                                          "whitespace: a probe is its message verbatim")
    assert failed[cut["item_id"]] == (f"probe differs from the text of probe_dayid from character "
                                      f"{len(cut['probe']) + 1}")
    assert failed[normalized["item_id"]] == ("probe differs from the text of probe_dayid only in Unicode "
                                             "normalization (NFC / NFD): a probe is its message verbatim")
    assert failed[folded["item_id"]] == ("probe differs from the text of probe_dayid only in Unicode compatibility "
                                         "normalization (NFKC / NFKD: full-width forms): a probe is its message verbatim")


def test_a_value_outside_a_vocabulary_names_the_vocabulary(specimen):
    """A dataset's own category or speaker name where a vocabulary value belongs: SCH2 says which vocabulary (and
    which identifier a malformed id should be), not only pandera's check."""
    qa, question = first_row(specimen, "qa", lambda r: True)
    question["category"] = "adversarial"
    write(specimen, "qa", qa)
    source, message = first_row(specimen, "source", lambda r: r["sender"] == "companion")
    message["sender"] = "Companion Bot"
    write(specimen, "source", source)
    stamp(specimen)
    failed = failures_of(validate(specimen), "SCH2").set_index("row")["message"]
    assert failed[question["item_id"]].startswith("not in vocabulary qa_category (schemas/vocabulary.json): violates")
    assert failed[message["dayid"]].startswith("not in vocabulary sender (schemas/vocabulary.json): violates isin(")


def test_a_malformed_identifier_names_its_kind(specimen):
    persona = read(specimen, "persona")
    persona[0]["participant_id"] = "conv-1"
    write(specimen, "persona", persona)
    stamp(specimen)
    failed = failures_of(validate(specimen), "SCH2")
    assert list(failed["message"]) == ["not a participant_id (schemas/vocabulary.json): violates pattern "
                                       "^U[0-9]{2,4}$"]


DAYID = "^U[0-9]{2,4}:d([0-9]{3}|[1-9][0-9]{3,}):([0-9]{3}|[1-9][0-9]{3,})$"


@pytest.mark.parametrize("name, field, cite", [
    ("qa", "evidence", lambda row: row.update(evidence=["D1:3"])),
    ("chat", "required_context.recent_context", lambda row: row["required_context"].update(recent_context=["D1:3"])),
], ids=["list", "list-in-a-nested-schema"])
def test_a_dataset_id_left_among_cited_messages_names_its_kind(specimen, name, field, cite):
    """A dataset's own message id ("D1:3") left in a list of cited messages: SCH3 says a dayid belongs there, as
    SCH2 says a participant_id belongs in a field; it printed the pattern alone."""
    rows, row = first_row(specimen, name, lambda r: r.get("evidence") or r.get("required_context"))
    cite(row)
    write(specimen, name, rows)
    stamp(specimen)
    failed = failures_of(validate(specimen), "SCH3")
    assert list(zip(failed["field"], failed["message"])) == [
        (f"{field}.0", f'not a dayid (schemas/vocabulary.json): "D1:3" does not match "{DAYID}"')]



def test_an_identifier_pattern_a_fork_gives_two_kinds_names_both(specimen):
    """A fork's vocabulary that gives a second identifier the dayid's pattern: SCH3 named the last kind declared
    with it (`not a turn_id` of a list of dayids); it names each kind the pattern stands for."""
    path = specimen / "schemas" / "vocabulary.json"
    vocabulary = json.loads(path.read_text(encoding="utf-8"))
    vocabulary["identifier"]["turn_id"] = DAYID
    path.write_text(json.dumps(vocabulary), encoding="utf-8")
    rows, row = first_row(specimen, "qa", lambda r: r.get("evidence"))
    row["evidence"] = ["D1:3"]
    write(specimen, "qa", rows)
    stamp(specimen)
    failed = failures_of(validate(specimen), "SCH3")
    assert list(failed["message"]) == [f'not a dayid or turn_id (schemas/vocabulary.json): "D1:3" does not match "{DAYID}"']


def test_cold_opens_written_as_the_field_table_says_are_scoreable(repo, specimen):
    """A converter writes `scoreable` as the card's field table describes it. It said cold opens are never
    scoreable, and a conversion that followed it failed SIG2 on every cold open: Table 25's 1,967 scoreable rows are
    Table 3's 1,533 + 434 cold opens. The conversion guide's cold-open sentence named stratum, cold_open and gold
    but not scoreable, and a conversion that followed it failed SIG2 the same way."""
    schema = json.loads((repo / "schemas" / "chat.schema.json").read_text(encoding="utf-8"))
    described = next(f["description"] for f in schema["fields"] if f["name"] == "scoreable")
    assert "always a cold open that is not withdrawn" in described, described
    guide = (repo / "docs" / "forking.md").read_text(encoding="utf-8")
    chat_bullet = " ".join(guide.split("- **Chat.**")[1].split("- **Questions.**")[0].split())
    assert ("`cold_open` true, no gold, locus `none` and no context, not even the last session's (`SIG1`, `ARI2`, "
            "`SIG7`, `SIG9`), and `scoreable` true unless withdrawn") in chat_bullet
    chat = read(specimen, "chat")
    opens = [r for r in chat if r["cold_open"] and not r["withdrawn"]]
    for row in opens:
        row["scoreable"] = False
    write(specimen, "chat", chat)
    stamp(specimen)
    assert sorted(failures_of(validate(specimen), "SIG2")["row"]) == sorted(r["item_id"] for r in opens)


# rows of forking.md's table of what a careless conversion sees, each as an edit of the specimen: edits of other rows
GUIDE_MISTAKES = {
    "SIG9": on_rows("chat", lambda r, root: r["cold_open"] and turns_of(root)[r["probe_dayid"]] > 0,
                    previous_message_as_recent),
    "SIG10": on_rows("chat", lambda r, root: r["trace"]["B"]["removed"], chat_change(trace__B__result="pass")),
    "SIG11": on_rows("chat", lambda r, root: r["withdrawn"] == "stage_b_empty_context", context_phase_b_left),
    "FLD3": on_rows("qa", lambda r, root: r["answerable"], lambda r, root: r.update(answer=" ")),
}


def test_the_guides_trace_and_blank_mistakes_are_reported_as_it_says(repo, specimen):
    """The table's rows for SIG9, SIG10, SIG11 and FLD3: each edit made on one copy of the specimen (each edits a row of
    its own), validated once; each rule's lines hold the one the guide quotes."""
    said = dict(row for row in mistakes_table((repo / "docs" / "forking.md").read_text(encoding="utf-8"))
                if row[0] in GUIDE_MISTAKES)
    assert said.keys() == GUIDE_MISTAKES.keys()
    for edit in GUIDE_MISTAKES.values():
        edit(specimen)
    stamp(specimen)
    report = validate(specimen)
    assert report.fired() == BASELINE | set(GUIDE_MISTAKES), report.failure_frame().head(10).to_string()
    for rule, says in said.items():
        assert failures_of(report, rule)["message"].str.contains(says, regex=False).any(), (rule, says)


def with_options(root: Path, nested: dict | None) -> None:
    """A multiple-choice dataset's options kept on each question (MemDaily's A-D): an object field `choices` of qa,
    typed by `nested` as schemas/nested/choices.schema.json, or by nothing when it is None."""
    schema = json.loads((root / "schemas" / "qa.schema.json").read_text(encoding="utf-8"))
    field = {"name": "choices", "type": "object", "description": "The options, by letter.", "constraints": {}}
    if nested is not None:
        (root / "schemas" / "nested" / "choices.schema.json").write_text(json.dumps(nested), encoding="utf-8")
        field["nestedSchema"] = "nested/choices.schema.json"
    schema["fields"].append(field)
    (root / "schemas" / "qa.schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    qa = read(root, "qa")
    for row in qa:
        row["choices"] = {"A": "yes", "B": "no"}
    write(root, "qa", qa)


def test_an_array_of_numbers_without_a_nested_schema_says_what_its_items_are_read_as(specimen):
    """An array field without a nestedSchema is read as a list of text, as the format's own are: a fork's array of
    step numbers failed SCH1 on every row with Arrow's 'Expected bytes, got a 'int' object' alone."""
    schema = json.loads((specimen / "schemas" / "qa.schema.json").read_text(encoding="utf-8"))
    schema["fields"].append({"name": "steps", "type": "array", "description": "Target steps.", "constraints": {}})
    (specimen / "schemas" / "qa.schema.json").write_text(json.dumps(schema, indent=2), encoding="utf-8")
    qa = read(specimen, "qa")
    for row in qa:
        row["steps"] = [0, 1]
    write(specimen, "qa", qa)
    stamp(specimen)
    found = failures_of(validate(specimen), "SCH1")
    assert len(found) == len(qa) and set(found["field"]) == {"steps"}
    assert found["message"].str.endswith("(an array field's items are text unless its nestedSchema types them)").all()


OPTIONS = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
           "required": ["A", "B"], "properties": {"A": {"type": "string"}, "B": {"type": "string"}}}
COPIED_ID = "https://realcompanion.dataset/schemas/nested/memory_bearing.schema.json"


@pytest.mark.parametrize("nested, said", [
    (None, "schemas/qa.schema.json field 'fields.9': 'nestedSchema' is a required property"),
    ({"$id": COPIED_ID} | OPTIONS, f"schemas/nested/memory_bearing.schema.json field '$id': '{COPIED_ID}' also names "
                                   "schemas/nested/choices.schema.json"),
], ids=["no-nested-schema", "id-of-another"])
def test_an_object_field_is_typed_by_a_nested_schema_of_its_own(specimen, capsys, nested, said):
    """An object field is read as a struct of its nested schema's properties, and the nested rule finds a schema by
    its `$id`. Without a nested schema the release stopped on "(KeyError: 'properties')", naming no file or field;
    with the `$id` of the schema it was copied from, the options were checked against memory_bearing's schema
    ('"recorded" is a required property' on every question, exit 1). Each is now one line naming the file and field
    (exit 2)."""
    from realcompanion.cli import main

    with_options(specimen, nested)
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and said in err, err


@pytest.mark.parametrize("nested", [{"$id": "https://realcompanion.dataset/schemas/nested/choices.schema.json"} | OPTIONS,
                                    OPTIONS], ids=["own-id", "no-id"])
def test_an_object_field_with_its_own_nested_schema_passes(specimen, nested):
    """A nested schema without an `$id` is found by the URI its path gives: SCH3 failed as "could not be evaluated:
    '$id'" on every row."""
    from realcompanion.schemas import Schemas

    with_options(specimen, nested)
    Schemas(specimen).render()  # the schema files as `refresh` writes them
    stamp(specimen)
    assert validate(specimen).fired() == BASELINE

# -- the converted dataset's own title, name and licence ------------------------------------------------

def set_descriptor(root: Path, change) -> None:
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    change(descriptor)
    path.write_text(json.dumps(descriptor, indent=2), encoding="utf-8")


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(licenses=[{"path": "https://creativecommons.org/licenses/by-nc/4.0/"}]), "licenses.0.name"),
    (lambda d: d.pop("licenses"), "licenses"),
    (lambda d: d.pop("title"), "title"),
    (lambda d: d.pop("name"), "name"),
    (lambda d: d.update(licenses=[{"name": "Proprietary"}]), "licenses.0.name"),
    (lambda d: d.update(licenses=[{"name": "cc-by-nc-4.0"}]), "licenses.0.name"),
], ids=["licence-by-path", "no-licence", "no-title", "no-name", "licence-not-spdx", "licence-id-lower-case"])
def test_a_descriptor_the_documents_cannot_state_is_one_line(fork, capsys, change, field):  # noqa: F811
    """Data Package leaves name, title and licences optional, and allows a licence given only by its path, so
    `validate` passes; the card, the datasheet and the citation state them, so each command that writes them says
    which is missing (exit 2), not a KeyError traceback."""
    from realcompanion.cli import main

    set_descriptor(fork, change)
    assert main(["validate", str(fork)]) == 0
    capsys.readouterr()
    refused = []
    for command in (["refresh"], ["card"], ["cite"], ["publish", "--repo-id", "org/fork", "--version", "0.1.0",
                                                       "--dry-run"]):
        code = main([command[0], str(fork), *command[1:]])
        err = capsys.readouterr().err
        if code == 0:  # a command that does not state the missing part (cite needs no licence)
            continue
        refused.append(command[0])
        assert code == 2 and err.count("\n") == 1, (command, err)
        assert err.startswith("error: ") and f"datapackage.json field '{field}': " in err, err
    assert {"refresh", "card", "publish"} <= set(refused)


def test_a_converted_licence_reaches_citation_cff(fork, capsys):  # noqa: F811
    """A converted dataset under its own licence (LongMemEval's MIT, say): `refresh` writes it into the card's header
    and CITATION.cff, as it does the version, so the published documents do not contradict datapackage.json."""
    import yaml

    from realcompanion.cli import main

    set_descriptor(fork, lambda d: d.update(licenses=[{"name": "MIT", "path": "https://opensource.org/licenses/MIT"}]))
    assert main(["card", str(fork)]) == 1 and "CITATION.cff: license" in capsys.readouterr().out
    refresh_validate_publish(fork, capsys)
    assert yaml.safe_load((fork / "CITATION.cff").read_text(encoding="utf-8"))["license"] == "MIT"
    assert "\nlicense: mit\n" in (fork / "README.md").read_text(encoding="utf-8")
    assert main(["card", str(fork)]) == 0


OWN_TERMS = "https://github.com/naver-ai/carecall-memory#dataset-license-and-download"


def test_a_licence_outside_the_spdx_list_is_linked(fork, capsys):  # noqa: F811
    """A dataset under its publisher's own terms (CareCall-Memory's NAVER licence) is named by an SPDX `LicenseRef-`
    id. Neither the Hub's licence list nor CFF's names it: the card's header says `other` with the licence's name and
    link, and CITATION.cff its `license-url`, so neither document is one the Hub or a CFF reader rejects."""
    import yaml
    from test_citation import cffconvert_citation

    from realcompanion.cli import main

    own = {"name": "LicenseRef-NAVER-CareCall-Memory", "path": OWN_TERMS}
    set_descriptor(fork, lambda d: d.update(licenses=[own]))
    refresh_validate_publish(fork, capsys)
    cited = (fork / "CITATION.cff").read_text(encoding="utf-8")
    cffconvert_citation()(cited).validate()
    assert "license" not in yaml.safe_load(cited) and yaml.safe_load(cited)["license-url"] == OWN_TERMS
    header = (fork / "README.md").read_text(encoding="utf-8").split("\n---\n")[0]
    assert {"license: other", "license_name: naver-carecall-memory", f"license_link: {OWN_TERMS}"} <= set(
        header.splitlines())
    assert main(["card", str(fork)]) == 0
    set_descriptor(fork, lambda d: d.update(licenses=[{"name": own["name"]}]))
    assert main(["refresh", str(fork)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "datapackage.json field 'licenses.0.path': " in err, err


@pytest.mark.parametrize("licenses, header", [
    ([{"name": "ODC-By-1.0"}], ["license: odc-by"]),
    ([{"name": "ODbL-1.0"}, {"name": "CC-BY-4.0"}], ["license:", "- odbl", "- cc-by-4.0"]),
    ([{"name": "GPL-3.0-or-later"}], ["license: gpl-3.0"]),
    ([{"name": "EUPL-1.2"}], ["license: other", "license_name: eupl-1.2",
                              "license_link: https://spdx.org/licenses/EUPL-1.2.html"]),
    ([{"name": "CC-BY-ND-3.0", "path": "https://creativecommons.org/licenses/by-nd/3.0/"}],
     ["license: other", "license_name: cc-by-nd-3.0", "license_link: https://creativecommons.org/licenses/by-nd/3.0/"]),
], ids=["odc-by", "odbl-and-cc-by", "gpl-or-later", "eupl-by-spdx-page", "cc-by-nd-3-by-path"])
def test_the_card_names_a_licence_as_the_hub_lists_it(fork, capsys, licenses, header):  # noqa: F811
    """The header gave an SPDX id in lower case: `odc-by-1.0`, which the Hub's licence list does not hold (it
    lists Open Data Commons Attribution as `odc-by`), so the dataset page showed no licence. A licence the list
    does not hold at all is `other`, named and linked as the Hub asks; CITATION.cff keeps the SPDX ids."""
    import yaml

    set_descriptor(fork, lambda d: d.update(licenses=licenses))
    refresh_validate_publish(fork, capsys)
    lines = (fork / "README.md").read_text(encoding="utf-8").split("\n---\n")[0].splitlines()
    assert set(header) <= set(lines) and ("license_name" in str(lines)) == ("license: other" in header)
    if header[0] == "license:":  # a list, in the descriptor's order
        assert lines[lines.index(header[0]):lines.index(header[0]) + len(header)] == header
    cited = yaml.safe_load((fork / "CITATION.cff").read_text(encoding="utf-8"))["license"]
    assert cited == (licenses[0]["name"] if len(licenses) == 1 else [lic["name"] for lic in licenses])


def test_plots_of_an_empty_population_say_so(fork, monkeypatch, tmp_path):  # noqa: F811
    """A minimal conversion has no memory-bearing row, so Table 38's distant items and Figure 4's probes are none:
    the PNGs say there is nothing to plot instead of drawing empty axes whose made-up ticks read like a result."""
    from matplotlib.figure import Figure

    from realcompanion.cli import main

    vocabulary = json.loads((fork / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))
    for name, rows in converted_rows(converted_source(), vocabulary).items():
        write(fork, name, rows)
    stamp(fork)
    drawn = []
    monkeypatch.setattr(Figure, "savefig", lambda figure, *args, **kwargs: drawn.append(figure))
    assert main(["baselines", str(fork), "--track", "chat", "--resamples", "2", "--plot", str(tmp_path / "b.png")]) == 0
    assert main(["windows", str(fork), "--plot", str(tmp_path / "w.png")]) == 0
    assert len(drawn) == 2
    for figure in drawn:
        axes = figure.axes[0]
        assert not axes.lines and [t.get_text() for t in axes.texts][0].endswith(": nothing to plot")


def test_a_url_with_a_query_string_is_named_whole(specimen):
    """Converted assistant turns link their sources: PII1 names the URL as the message writes it, its last query
    value too, not cut after the last `=` (validating.md: a line names the value as the row writes it)."""
    url = "https://example.org/search?q=running+shoes&page=2"
    source = read(specimen, "source")
    row = next(r for r in source if r["sender"] == "companion" and r["media"] is None)
    row["text"] += f" See {url} for more."
    write(specimen, "source", source)
    stamp(specimen)
    failed = failures_of(validate(specimen), "PII1")
    assert list(failed["value"]) == [url] and list(failed["row"]) == [row["dayid"]]


def test_a_null_left_in_a_required_list_is_one_line(specimen):
    """An abstention question converted with `evidence` null for "no evidence" (the list is required; `[]` is
    what it holds empty): one fault, one line, SCH2's not_nullable. SCH3 read the same null against the nested
    schema too and printed a second line for it."""
    qa = read(specimen, "qa")
    row = next(r for r in qa if r["category"] == "unanswerable")
    row["evidence"] = None
    write(specimen, "qa", qa)
    stamp(specimen)
    frame = validate(specimen).failure_frame()
    failed = frame[(frame["severity"] == "error") & (frame["row"] == row["item_id"])]
    assert list(zip(failed["rule"], failed["field"], failed["message"])) == [
        ("SCH2", "evidence", "violates not_nullable")]


def test_chinese_text_keeps_to_the_columns_of_the_terminal_report(specimen, monkeypatch):
    """A converted Chinese release: a failing row's value is cut to 60 terminal columns, and a declared rule's
    Chinese statement to its column of the summary, counting each Chinese character as the two columns it takes
    (cut by characters, both took twice their room and pushed the row count off the line)."""
    from test_fuzz import run_quietly

    monkeypatch.setenv("COLUMNS", "100")
    chat = read(specimen, "chat")
    chat[2]["probe"] = "我今天去了公园，看到了一朵樱花和一只松鼠。" * 6
    write(specimen, "chat", chat)
    rules_path = specimen / "schemas" / "rules.json"
    declared = json.loads(rules_path.read_text(encoding="utf-8"))
    declared["rules"].append({"id": "ZH1", "severity": "warning", "kind": "not_null", "resource": "qa",
                              "fields": ["question"], "statement": "每个问题都写有问题的文字，" * 8})
    rules_path.write_text(json.dumps(declared, ensure_ascii=False), encoding="utf-8")
    stamp(specimen)
    code, out, _ = run_quietly(["validate", str(specimen)])
    lines = out.splitlines()
    value = next(line for line in lines if f"{chat[2]['item_id']} probe=" in line).split("probe=")[1].split(" : ")[0]
    summary = next(line for line in lines if line.split()[1:2] == ["ZH1"])
    assert code == 1 and cell_len(value) == 60, value
    assert cell_len(summary) <= 100 and summary.startswith("ok   ZH1   warning 每个"), summary


def test_diff_cuts_a_chinese_value_to_itscell_len(specimen, tmp_path):
    """`diff` shortens a changed definition to 40 terminal columns, a Chinese title's as an English one's."""
    from conftest import copy_release
    from test_fuzz import run_quietly
    from test_rules import edit_descriptor

    old = copy_release(specimen, tmp_path / "old")
    edit_descriptor(specimen, lambda d: d.update(title="记忆银行：十五位虚拟用户与人工智能伴侣十天的对话记录"))
    code, out, _ = run_quietly(["diff", str(old), str(specimen)])
    new = next(line for line in out.splitlines() if "datapackage.json: title" in line).split(" -> ")[1]
    assert code == 0 and cell_len(new) <= 40 and new.startswith('"记忆银行') and new.endswith("…"), new



def test_characters_of_no_column_keep_to_the_columns_too(specimen, tmp_path, monkeypatch):
    """A run of zero-width joiners and direction overrides takes no terminal column, so a cut by columns never cut
    it, and the report and diff printed each character's escape: a failing value, a declared rule's statement and a
    changed title ran their lines to any length (and an override turned the rest of a summary line around)."""
    from conftest import copy_release
    from test_fuzz import run_quietly
    from test_rules import edit_descriptor

    monkeypatch.setenv("COLUMNS", "100")
    hidden = "\u200d\u202e" * 400
    old = copy_release(specimen, tmp_path / "old")
    chat = read(specimen, "chat")
    chat[2]["probe"] = hidden
    write(specimen, "chat", chat)
    rules_path = specimen / "schemas" / "rules.json"
    declared = json.loads(rules_path.read_text(encoding="utf-8"))
    declared["rules"] += [{"id": "ZW1", "severity": "warning", "kind": "not_null", "resource": "qa",
                           "fields": ["question"], "statement": hidden},
                          {"id": "ZW2", "severity": "warning", "kind": "not_null", "resource": "profile",  # fails
                           "fields": ["evidence"], "statement": "claims cite\u202e messages"}]
    rules_path.write_text(json.dumps(declared), encoding="utf-8")
    stamp(specimen)
    code, out, _ = run_quietly(["validate", str(specimen)])
    value = next(line for line in out.splitlines() if f"{chat[2]['item_id']} probe=" in line).split("probe=")[1]
    summary = next(line for line in out.splitlines() if line.split()[1:2] == ["ZW1"])
    assert code == 1 and value.split(" : ")[0] == ("\\u200d\\u202e" * 5)[:59] + "…", value  # a cut value is marked
    assert cell_len(summary) <= 100 and summary.isprintable(), summary
    assert "ZW2 (warning): claims cite\\u202e messages" in out.splitlines()  # the failing rule's heading too
    edit_descriptor(old, lambda d: d.update(title=hidden))
    code, out, _ = run_quietly(["diff", str(old), str(specimen)])
    was = next(line for line in out.splitlines() if "datapackage.json: title" in line).split(" -> ")[0]
    assert code == 0 and was.endswith('title "' + ("\\u200d\\u202e" * 4)[:38] + "…"), was


def test_a_date_typed_with_full_width_characters_says_what_to_write(specimen):
    """A Chinese input method types ＋, ： and digits full-width: Python's datetime does not read such a timestamp or
    date, and FLD2 says that the ASCII form is what to write, not only that the value is no RFC 3339."""
    source = read(specimen, "source")
    source[4]["timestamp"] = source[4]["timestamp"].replace("+", "＋").replace(":", "：")
    write(specimen, "source", source)
    profile, claim = first_row(specimen, "profile", lambda r: r["first_seen"] is not None)
    claim["first_seen"] = claim["first_seen"].translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    write(specimen, "profile", profile)
    failed = failures_of(validate(specimen), "FLD2").set_index("row")["message"]
    assert sorted(failed.index) == sorted([source[4]["dayid"], claim["claim_id"]])
    assert all(m.startswith("full-width characters (＋, ：, digits), as a Chinese or Japanese input method") for m in
               failed), failed.to_dict()


def test_a_full_width_date_is_named_so_only_when_its_ascii_form_passes(specimen):
    """NFKC makes ２０２５－０２－３０ 2025-02-30, no day in ASCII either: FLD2 said to write the ASCII form, which
    fails again. Only the full-width form of a valid value is named full-width; the others say what is wrong."""
    full_width = str.maketrans("0123456789-:+", "０１２３４５６７８９－：＋")
    source = read(specimen, "source")
    source[4]["timestamp"] = ("2025-02-30" + source[4]["timestamp"][10:]).translate(full_width)
    source[5]["timestamp"] = source[5]["timestamp"][:11] + "25" + source[5]["timestamp"][13:].translate(full_width)
    write(specimen, "source", source)
    profile, claim = first_row(specimen, "profile", lambda r: r["first_seen"] is not None)
    claim["first_seen"] = "0000-01-01".translate(full_width)
    write(specimen, "profile", profile)
    failed = failures_of(validate(specimen), "FLD2").set_index("row")["message"].to_dict()
    assert failed == {source[4]["dayid"]: "not RFC 3339 with an explicit offset on a calendar day",
                      source[5]["dayid"]: "not RFC 3339 with an explicit offset on a calendar day",
                      claim["claim_id"]: "not a date on a calendar day"}, failed
