"""Arithmetic and Structural families (paper Table 25): stored numbers recompute; question categories hold."""
from __future__ import annotations

import numpy as np
import pandas as pd

from realcompanion.names import STALE, stale_count
from realcompanion.schemas import RESOURCES
from realcompanion.stamp import participant_counts

from ..catalogue import as_text, combined, failure_rows, failures
from ..context import runs
from ..integrity import unmatched
from .catalogue import frame_rule, release_rule


@frame_rule("ARI1", "error", "arithmetic", "chat", "tier",
            "tier recomputes from the shape of required_context on every scoreable row, cold opens included "
            "(schemas/vocabulary.json tier_rule)",
            "Table 25, Arithmetic (tier recomputable on 1,967 of 1,967 scoreable rows); Table 13; Table 46 (tier)")
def tier_recomputes(ctx, frame):
    return ~frame["scoreable"] | (frame["tier"] == shape_tier(ctx))


def shape_tier(ctx) -> np.ndarray:
    """Each chat row's tier as the shape of its context lists gives it (vocabulary tier_rule)."""
    return ctx.release.schemas.tier_of(
        ctx.series("chat", "required_context.profile_refs").list.len().fillna(0) > 0,
        ctx.series("chat", "required_context.episode_refs").list.len().fillna(0) > 0)


@frame_rule("ARI2", "error", "arithmetic", "chat", "stratum",
            "no stratum exception: every enriched row is memory-bearing (recorded), every abstention row a cold open "
            "without gold", "Table 25, Arithmetic (no stratum exception); Table 21 (enriched: 364 of 364)")
def no_stratum_exception(ctx, frame):
    recorded = ctx.series("chat", "memory_bearing.recorded")
    enriched_ok = (frame["stratum"] != "enriched") | recorded | frame["withdrawn"].notna()
    # an abstention row whose cold_open flag says otherwise is SIG1's line, whichever of the two is wrong
    abstention_ok = ~((frame["stratum"] == "abstention") & frame["cold_open"]) | frame["gold_response"].isna()
    return enriched_ok & abstention_ok


@release_rule("ARI10", "error", "arithmetic", ("source", "chat"),
              "the context lists are what the tier reads: every recent_context entry is recent, in the probe's session "
              "(the current thread) or in the last recent_window messages before it, and no episode_ref is also "
              "recent context",
              "Table 46 (reference set: disjoint from the recent window by construction; tier: the shape of the "
              "three context lists); Tables 13, 19 (required_context; the current thread); Table 24, gate E")
def recent_context_is_recent(ctx) -> pd.DataFrame:
    """A message of an earlier session beyond the window is a memory: listed as recent context, it makes a callback
    a thread row (tier basic, not memory-bearing), and listed in both lists, it is two shapes at once. Sessions are
    the gap rule's (a stored index may be null). A message at or after the probe is gate D's, an episode_ref inside
    the window on a strict row gate E's."""
    window = ctx.format["recent_window"]
    chat = ctx.frame("chat")
    recent = ctx.cited("chat", "required_context.recent_context", "turn")
    before = ctx.probe_turns.to_numpy()[recent["idx"]] - recent["turn"].astype("float64").to_numpy()
    sessions = gap_sessions(ctx).to_numpy(dtype="float64")
    probe = ctx.probe_positions.to_numpy()[recent["idx"]]
    earlier = sessions[recent["position"]] < np.where(probe >= 0, sessions[probe], np.nan)
    far = before > window
    strict = ctx.series("chat", "memory_bearing.strict").fillna(False).to_numpy(dtype=bool)
    told = strict[recent["idx"]] & ~far  # an episode_ref there lies in the window: gate E's line
    far &= earlier
    kept = recent[(before > 0) & ~far & ~told]
    both = ctx.cited("chat", "required_context.episode_refs").merge(kept[["idx", "value"]], on=["idx", "value"])
    return combined([
        failures("chat", chat["item_id"].to_numpy()[recent["idx"][far]], "required_context.recent_context",
                 recent["value"][far], [f"recent context from an earlier session, {n:.0f} messages before the probe, "
                                        f"outside the last {window} (the recent window): a message from further back "
                                        "is an episode_ref" for n in before[far]]),
        failures("chat", chat["item_id"].to_numpy()[both["idx"]], "required_context.episode_refs", both["value"],
                 "episode_ref is also recent context: the reference set is disjoint from the recent window")])


@release_rule("ARI11", "error", "arithmetic", ("chat",),
              "a stratum samples each turn once: no two chat rows of one stratum share a probe_dayid",
              "Table 32 (natural-rate stratum: 1,169 sampled turns); Table 21 (proportional: 1,169 rows); Table 3 "
              "(434 cold opens)")
def probe_sampled_once(ctx) -> pd.DataFrame:
    """A row written twice under a new item_id counts its item twice in every score; the second and later rows are
    named, each with the first."""
    chat = ctx.frame("chat")
    held = chat["stratum"].notna() & chat["probe_dayid"].notna()
    keys = chat.loc[held, ["stratum", "probe_dayid"]]
    again = keys.duplicated()
    first = chat["item_id"][held].groupby([keys["stratum"], keys["probe_dayid"]]).transform("first")
    return failures("chat", chat["item_id"][held][again], "probe_dayid", keys["probe_dayid"][again],
                    [f"probe already sampled in the {s} stratum by {f}: a stratum samples each turn once"
                     for s, f in zip(keys["stratum"][again], first[again])])


@release_rule("ARI3", "error", "arithmetic", RESOURCES,
              "per-participant counts reconcile with datapackage.json, and every participant of a derived file has "
              "a stream in source", "Table 25, Arithmetic (counts reconcile); Tables 2, 11")
def counts_reconcile(ctx) -> pd.DataFrame:
    """A count `stamp` would not write is stale too: one of 0 (it counts only the rows a participant has), or for a
    resource without participant_id (renamed or dropped); `refresh` drops both, so a VALID release holds neither."""
    declared = ctx.params.get("participants", {})
    rows = []
    streams = participant_counts(ctx.table("source"))
    counted = [r for r in ctx.release.resources if "participant_id" in ctx.table(r).column_names]
    for name in counted:
        actual = participant_counts(ctx.table(name))
        for pid in sorted(set(actual) | {p for p, c in declared.items() if name in c}):
            want, got = declared.get(pid, {}).get(name), actual.get(pid)
            if want != got:
                said = "no count declared" if want is None else f"declared {want} rows"
                rows.append((name, pid, "", got or 0, stale_count(want, "rows", held=False) if got is None
                             else f"{said}, found {got} rows ({STALE})"))
            elif pid not in streams:
                rows.append((name, pid, "participant_id", pid, "participant has no messages in source"))
    flat = {f"{pid}.{name}": count for pid, per in declared.items() if isinstance(per, dict) for name, count in per.items()}
    rows += unmatched(ctx, "participants", {f"{pid}.{name}" for pid in declared for name in counted},
                      "no resource of the release with a participant_id", entries=flat)
    return failure_rows(rows)


@frame_rule("ARI5", "error", "arithmetic", "profile", "confidence_label",
            "confidence_label is the band of confidence (cut points confidence_bands); null together",
            "Table 12 (confidence, confidence_label: numeric and banded)")
def confidence_band(ctx, frame):
    labels = np.array(ctx.vocab["confidence_label"], dtype=object)
    conf = frame["confidence"].astype("float64")
    band = pd.Series(labels[np.searchsorted(ctx.format["confidence_bands"], conf.fillna(0), side="right")],
                     index=frame.index)
    # a null confidence is banded as nothing: a label beside it is the failure, not the band of 0
    return (conf.isna() & frame["confidence_label"].isna()) | (conf.notna() & (frame["confidence_label"] == band)
                                                               ).fillna(False)


@release_rule("ARI6", "error", "arithmetic", ("source", "profile"),
              "first_seen and last_seen are null together, and when present are the dates of the earliest and latest "
              "evidence message", "Table 12 (first_seen, last_seen: observation window, on 3,109 claims both)")
def seen_dates(ctx) -> pd.DataFrame:
    profile = ctx.frame("profile")
    claim = pd.factorize(profile["claim_id"])[0]  # a number per claim id (rows sharing an id share it; none: -1)
    evidence = ctx.claim_evidence
    owner = claim[evidence["idx"].to_numpy()]
    date = readable_date(ctx, evidence["position"])
    set_aside = owner[date.isna().to_numpy() & (owner >= 0)]
    undated = np.isin(claim, set_aside)  # cites a message SCH1 or FLD2 set aside: its failure, reported once
    # each day a number in its order (ISO dates sort as text), a claim's earliest and latest taken over the numbers:
    # over the text, pandas made a Python string of every evidence date (100x paper size: 195 MB at the peak
    # against 71, and up to 95 MB kept after)
    day, days = pd.factorize(date, sort=True)
    held = (owner >= 0) & (day >= 0)
    span = pd.Series(day[held]).groupby(owner[held]).agg(["min", "max"])
    parts = []
    for field, agg in (("first_seen", "min"), ("last_seen", "max")):
        expected = pd.Series(days.take(span[agg].reindex(claim, fill_value=-1).to_numpy(), allow_fill=True),
                             index=profile.index)
        bad = profile[field].notna() & (profile[field] != expected).fillna(True) & ~undated
        parts.append(failures("profile", profile["claim_id"][bad], field, profile[field][bad],
                              ["expected " + as_text(e) for e in expected[bad]]))
    for field, other in (("first_seen", "last_seen"), ("last_seen", "first_seen")):  # a window is whole or absent
        bad = profile[field].isna() & profile[other].notna()
        parts.append(failures("profile", profile["claim_id"][bad], field, profile[field][bad],
                              f"null while {other} is present: an observation window has both ends or neither"))
    return pd.concat(parts)


@frame_rule("ARI8", "error", "arithmetic", "persona", "category", "a persona row's category is its slot's category",
            "SPEC §3 (persona category: a function of the slot)")
def slot_category(ctx, frame):
    return frame["category"] == frame["slot"].map(ctx.vocab["persona_slot"])


def readable_date(ctx, positions: pd.Series) -> pd.Series:
    """The local dates (YYYY-MM-DD) of the messages at `positions`, null where there is none or its timestamp does not
    read (SCH1 or FLD2 set it aside): no rule dates a message by a malformed timestamp's first ten characters."""
    return ctx.at(positions, "date").where(ctx.at(positions, "instant").notna())


def gap_sessions(ctx) -> pd.Series:
    """Per message (file order): its session by the gap rule, counted from 1 within its participant's stream (null
    without a participant), which a stored `session` must equal (ARI9) and may leave null (SPEC §3); rules that
    count sessions read this one. Counted over participant numbers in the stream, where each participant's
    messages lie together: with pandas' cumulative sum grouped by the participant id, STR1 and ARI9 took 155 and
    122 MB more at 100x paper size (now 54)."""
    m = ctx.stream
    code = pd.factorize(m["participant_id"])[0]
    held, at = code >= 0, m.index.to_numpy()
    opens = ctx.session_starts.to_numpy()[at]  # in stream order
    if not held.all():
        code, opens, at = code[held], opens[held], at[held]
    begins, lengths = runs(code)
    del code  # each array here is a copy of 2.7 million values at 100x paper size: as few as can be at once
    counted = np.cumsum(opens, dtype=np.int32)
    counted -= np.repeat(counted[begins] - opens[begins], lengths)
    out = np.empty(len(m), dtype=np.int64) if held.all() else np.full(len(m), np.nan)
    out[at] = counted
    return pd.Series(out)


@release_rule("ARI9", "error", "arithmetic", ("source",),
              "session indices recompute from the gap rule (a new session after more than session_gap_minutes)",
              "Table 25, Category rule (13 carry no session index); SPEC §3 (session)")
def sessions_recompute(ctx) -> pd.DataFrame:
    """One line per run of a participant's messages whose stored indices are off by the same amount, on its first
    message: a session numbered wrong, or a dropped or split session shifting every later one, is one fault, not one
    per message (a message with a null index, or without a participant, neither breaks a run nor is judged)."""
    m = ctx.stream
    expected = gap_sessions(ctx).loc[m.index]
    unread = m["instant"].isna()  # FLD2's: a run of them may hide session starts, so after one the indices are
    if unread.any():  # judged from the first stored index that follows it, not counted from the stream's start
        pid = m["participant_id"].ffill().bfill()
        after = unread.groupby(pid).cumsum()  # how many unreadable messages come before, in its participant
        stored = (m["session"] - expected).where(m["session"].notna() & ~unread)
        expected = expected + stored.groupby([pid, after]).transform("first").where(after > 0, 0).fillna(0)
    off = (m["session"] - expected).to_numpy("float64", na_value=np.nan)
    indexed = ~np.isnan(off)  # a message without a participant (set aside) has no index to expect
    off = off[indexed]
    begins, lengths = runs(np.rec.fromarrays([pd.factorize(m["participant_id"])[0][indexed], off]))
    bad = off[begins] != 0
    begins, lengths, off = begins[bad], lengths[bad], off[begins[bad]]
    first = m[indexed].iloc[begins]
    return failures("source", first["dayid"], "session", first["session"],
                    [f"expected session {e:g} by the gap rule (a new session after more than "
                     f"{ctx.format['session_gap_minutes']} minutes; null if the record has no index)"
                     + (f": {n} messages from this one numbered {abs(d):g} too {'high' if d > 0 else 'low'}" if n > 1 else "")
                     for e, n, d in zip(expected[indexed].iloc[begins], lengths, off)])


@release_rule("STR1", "error", "structural", ("source", "qa"), "multi_hop evidence spans at least two sessions",
              "Table 25, Structural (0 of 38 multi hop within one session)")
def multi_hop(ctx) -> pd.DataFrame:
    qa = ctx.frame("qa")
    evidence = ctx.cited("qa", "evidence", "session")  # the stored index; the gap rule's where it is null
    evidence["session"] = evidence["session"].astype("float64").fillna(
        pd.Series(gap_sessions(ctx).to_numpy()[evidence["position"]], index=evidence.index))
    sessions = evidence.groupby("idx")["session"].nunique()
    spans = pd.Series(range(len(qa))).map(sessions).fillna(0)
    bad = (qa["category"] == "multi_hop").fillna(False) & (spans.to_numpy() < 2)
    spanned = spans[bad.to_numpy()].astype(int)  # a count of sessions, not of messages: say which
    return failures("qa", qa["item_id"][bad], "evidence", spanned.astype(str) + np.where(spanned == 1, " session", " sessions"),
                    "evidence spans fewer than 2 sessions (sessions as `session` numbers them, by the gap rule: a new "
                    f"one after more than {ctx.format['session_gap_minutes']} minutes)")


@frame_rule("STR2", "error", "structural", "qa", "evidence", "knowledge_update cites at least two messages",
            "Table 25, Structural (0 of 26 knowledge update citing one message)")
def knowledge_update(ctx, frame):
    return (frame["category"] != "knowledge_update") | (frame["evidence"].list.len().fillna(0) >= 2)


@release_rule("STR3", "error", "structural", ("source", "qa"),
              "long_range: from the earliest evidence message to asked_after spans at least long_range_min_days",
              "Table 25, Structural (0 of 22 long range short of the span threshold)")
def long_range(ctx) -> pd.DataFrame:
    qa = ctx.frame("qa")
    cited = ctx.cited("qa", "evidence")
    dates = pd.to_datetime(readable_date(ctx, cited["position"]), format="%Y-%m-%d")
    first = dates.groupby(cited["idx"].to_numpy()).min().reindex(range(len(qa)))  # not .map: keeps the datetime type
    anchor = ctx.positions("qa", "asked_after")
    asked = pd.to_datetime(readable_date(ctx, anchor), format="%Y-%m-%d")
    # a question dated by a message whose timestamp does not read is that message's failure (SCH1, FLD2), not a span
    unread = np.isin(np.arange(len(qa)), cited["idx"][dates.isna().to_numpy()]) | ((anchor >= 0) & asked.isna()).to_numpy()
    span = (asked.to_numpy() - first.to_numpy()) / np.timedelta64(1, "D")
    bad = (qa["category"] == "long_range").fillna(False).to_numpy(bool) & ~(span >= ctx.format["long_range_min_days"]) \
        & ~unread
    return failures("qa", qa["item_id"][bad], "evidence", [f"{s:.0f} days" for s in span[bad]],
                    f"span shorter than {ctx.format['long_range_min_days']} days")

