"""Release gates A-F (paper Table 24): the conditions no release may ship without."""
from __future__ import annotations

import json
import os
import unicodedata

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.schemas import RESOURCES, names

from ..catalogue import FAILURE_COLUMNS, as_text, combined, failures
from ..structure import prefix_differs
from .catalogue import release_rule


def _rows(ctx, frame: pd.DataFrame) -> list[str]:
    return [ctx.row_ids(r).iloc[i] for r, i in zip(frame["resource"], frame["idx"])]


def _report(ctx, bad: pd.DataFrame, message) -> pd.DataFrame:
    if bad.empty:
        return pd.DataFrame(columns=FAILURE_COLUMNS)
    out = failures("", _rows(ctx, bad), "", bad["value"], message)
    out["resource"], out["field"] = bad["resource"].to_numpy(), bad["field"].to_numpy()
    return out


@release_rule("A", "error", "gate", ("chat", "source"), "the probe is a real user turn, reproduced verbatim "
              "(probe equals the text of probe_dayid, whose sender is user)", "Table 24, gate A")
def gate_a(ctx) -> pd.DataFrame:
    chat = ctx.frame("chat")
    found = ctx.probe_positions >= 0
    text, sender = ctx.at(ctx.probe_positions, "text"), ctx.at(ctx.probe_positions, "sender")
    bad = found & ((text != chat["probe"]).fillna(True) | (sender != "user").fillna(True))
    why = [differs(p, t) if s == "user" else "probe message is not a user turn"
           for p, t, s in zip(chat["probe"][bad], text[bad], sender[bad].fillna(""))]
    shown = [where_it_differs(p, t) if s == "user" else excerpt(p, 0)
             for p, t, s in zip(chat["probe"][bad], text[bad], sender[bad].fillna(""))]
    return failures("chat", chat["item_id"][bad], "probe", shown, why)


PROBE_SHOWN = 60  # characters of a failing probe shown, around where it differs
BEFORE = 20  # of them, before the first character that differs


def excerpt(text, at: int) -> str | None:
    """PROBE_SHOWN characters of `text` from BEFORE characters ahead of position `at` (0-based), each end that cuts
    the text marked `…`."""
    if not isinstance(text, str):
        return text
    start = max(0, min(at - BEFORE, len(text) - PROBE_SHOWN))
    end = start + PROBE_SHOWN
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")


def where_it_differs(probe, text) -> str | None:
    """The part of the probe around the first character where it differs from its message (the line's message
    names that character), so the value shown holds the difference."""
    if not isinstance(probe, str) or not isinstance(text, str):
        return excerpt(probe, 0)
    return excerpt(probe, len(os.path.commonprefix([probe, text])))


def differs(probe, text) -> str:
    """How a probe differs from its message, since the line shows only the probe's start: a converter's strip() or
    Unicode normalization (NFKC too, which text cleaning applies to fold full-width forms), else the first character
    that differs (1-based)."""
    what = "probe differs from the text of probe_dayid"
    if not isinstance(probe, str) or not isinstance(text, str):
        return what
    if probe.strip() == text.strip():
        return f"{what} only in leading or trailing whitespace: a probe is its message verbatim"
    for form, named in (("NFC", "normalization (NFC / NFD)"),
                        ("NFKC", "compatibility normalization (NFKC / NFKD: full-width forms)")):
        if unicodedata.normalize(form, probe) == unicodedata.normalize(form, text):
            return f"{what} only in Unicode {named}: a probe is its message verbatim"
    return f"{what} from character {len(os.path.commonprefix([probe, text])) + 1}"


@release_rule("B", "error", "gate", ("source",),
              "database identifiers parallel the turn identifiers: db_id, turn, dayid and timestamp agree in order, "
              "and the file lists each participant's messages in that order",
              "Table 24, gate B; Table 11 (source: each participant's messages in order)")
def gate_b(ctx) -> pd.DataFrame:
    """Judged a batch of whole participants at a time: every check compares a message with its participant's
    others, and the intermediates of 2.7 million messages at once took 460 MB (100x paper size); batches of
    half a million take 110 MB, and less CPU (1.7 s against 2.1 s)."""
    m = ctx.stream.rename_axis("line").reset_index()  # `line`: the message's position in the file
    pid = pd.factorize(m["participant_id"].ffill().bfill())[0]  # grouped by number, fast; one without a participant
    # (set aside) counts with the one before it in the stream, where the stream keeps it
    found: dict[int, list[pd.DataFrame]] = {}  # per check, its failures batch by batch, in stream order
    for batch in participant_batches(pid, GATE_B_BATCH):
        for i, part in _gate_b_batch(m.iloc[batch].reset_index(drop=True), pid[batch]):
            found.setdefault(i, []).append(part)
    return combined([part for i in sorted(found) for part in found[i]])


GATE_B_BATCH = 500_000  # messages; a release of up to this many is one batch


def participant_batches(pid: np.ndarray, rows: int) -> list[slice]:
    """The stream (grouped by the participant codes `pid`) as slices of at least `rows` messages, cut only where a
    participant's messages begin (the last slice may be shorter)."""
    cuts = [0]
    for edge in [*(np.flatnonzero(np.diff(pid)) + 1), len(pid)]:
        if edge - cuts[-1] >= rows or edge == len(pid):
            cuts.append(int(edge))
    return [slice(a, b) for a, b in zip(cuts, cuts[1:])]


def _gate_b_batch(m: pd.DataFrame, pid: np.ndarray):
    """Gate B's checks over whole participants' messages: (check number, failures) of each check that fails."""
    position = m.groupby(pid, sort=False).cumcount()
    # day and seq are the tail's numbers, at any width the release's dayid pattern admits (d1000 after day 999)
    tail = pc.extract_regex(pa.array(m["dayid"].array, pa.string()), DAYID_TAIL)
    day, seq = (_number(pc.struct_field(tail, part)) for part in ("day", "seq"))
    instant = m["instant"]
    dates, days = pd.factorize(m["date"])  # each distinct date parsed once
    local = pd.Series(pd.to_datetime(pd.Series(days, dtype=object), format="%Y-%m-%d", errors="coerce").array.take(
        dates, allow_fill=True))
    first, day_of = local.groupby(pid).transform("min"), local
    if local.isna().any():  # messages without a readable date (FLD2's)
        named = pd.to_timedelta(pd.Series(day, dtype="float64") - 1, unit="D")  # the day its dayid names, from day 1
        opened_unread = local.isna().groupby(pid).transform("first")  # day 1 is unknown: counted from the first
        first = first.where(~opened_unread, (local - named).where(local.notna()).groupby(pid).transform("first"))
        # such a message keeps its slot in the day its dayid names (one opening a day left the next message a seq
        # too high), or, when its dayid names none, in the day of the message before it (of the one after it when
        # it opens the stream)
        day_of = local.fillna(first + named)
        day_of = day_of.groupby(pid).ffill().fillna(day_of.groupby(pid).bfill())
    expected_day = (local - first).dt.days + 1
    expected_seq = day_of.groupby([pid, day_of], sort=False).cumcount() + 1
    prev = lambda s: s.groupby(pid).shift()  # noqa: E731
    checks = [
        (_breaks(m["turn"], position, pid), "turn", "turns are not contiguous from 0"),
        # Table 11: `source` is each participant's messages in order; participants' runs may interleave, as a
        # GroupAssistBench group's (GM2)
        ((m["line"] < prev(m["line"])).fillna(False), "turn", "listed in the file before the previous turn's message: "
                                                              "the file lists each participant's messages in order"),
        ((m["db_id"] <= prev(m["db_id"])).fillna(False), "db_id", "db_id does not increase with turn"),
        ((instant < prev(instant)).fillna(False), "timestamp", "timestamp earlier than the previous turn"),
        (day != expected_day, "dayid", "day of dayid differs from the local date's day"),
        (_breaks(pd.Series(seq), expected_seq, [pid, day_of]), "dayid", "seq of dayid differs from the order within "
                                                                        "the day"),
    ]
    return [(i, failures("source", m["dayid"][bad], field, m[field][bad], why))
            for i, (bad, field, why) in enumerate(checks) if bad.any()]


DAYID_TAIL = r":d(?P<day>[0-9]+):(?P<seq>[0-9]+)$"  # a malformed id (SCH2's, set aside) matches nothing: NaN


def _breaks(actual: pd.Series, expected: pd.Series, groups) -> pd.Series:
    """Rows where `actual` differs from `expected` and the difference also changed from the row before in its group:
    a missing or an extra message is one failure, not one per later message, and the first row that differs is
    always among them, so a release fails exactly when the row-by-row comparison fails (a row of unreadable value,
    set aside by SCH1, changes nothing)."""
    offset = actual - expected
    before = offset.groupby(groups).shift().groupby(groups).ffill().fillna(0)
    return (offset != before).fillna(False) & (actual != expected).fillna(False)


def _number(strings: pa.Array) -> np.ndarray:
    """Digits as numbers, NaN where a malformed identifier has none (that row is set aside)."""
    try:
        return pc.cast(strings, pa.int64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        return pd.to_numeric(pd.Series(strings.to_pylist(), dtype=object), errors="coerce").to_numpy()


@release_rule("C", "error", "gate", RESOURCES,
              "every cited identifier resolves to a released turn (or claim) of the same participant", "Table 24, gate C")
def gate_c(ctx) -> pd.DataFrame:
    cited = ctx.citations
    claims = ctx.frame("profile").set_index("claim_id")["participant_id"]
    owner = ctx.at(cited["position"], "participant_id")
    owner = owner.fillna(cited["value"][owner.isna()].map(claims))  # not a message: a claim, or nothing
    bad = cited[(owner.isna() | (owner != cited["pid"])) & ~_told(ctx, cited, owner)]
    why = np.where(owner[bad.index].isna(), "cited identifier does not exist",
                   "cited identifier belongs to another participant")
    return _report(ctx, bad, why)


def _told(ctx, cited: pd.DataFrame, owner: pd.Series) -> np.ndarray:
    """Citations whose failure another rule's one line tells: an id naming nothing in a field a foreign key declares
    (probe_dayid, asked_after: KEY1), and another participant's record where the citing row's or the cited claim's
    own id prefix differs from its participant_id (ID1, which names which of the two is wrong)."""
    keyed = [(name, field) for name in ctx.release.resources
             for key in ctx.release.table_schema(name).get("foreignKeys", []) for field in names(key["fields"])]
    unknown = pd.Series(list(zip(cited["resource"], cited["field"])), index=cited.index).isin(keyed) & owner.isna()
    doubted = np.zeros(len(cited), dtype=bool)
    differs = {name: prefix_differs(ctx, name) for name in {*cited["resource"], "profile"} & set(ctx.release.resources)}
    for name, rows in differs.items():
        if rows is not None and name in set(cited["resource"]):
            mine = (cited["resource"] == name).to_numpy()
            doubted[mine] = rows[cited["idx"].to_numpy()[mine]]
    if differs.get("profile") is not None:
        doubted |= cited["value"].isin(ctx.frame("profile")["claim_id"][differs["profile"]]).to_numpy(dtype=bool)
    return unknown.to_numpy(dtype=bool) | (doubted & owner.notna().to_numpy(dtype=bool))


@release_rule("D", "error", "gate", RESOURCES,
              "every cited identifier precedes its probe (chat), or is at or before asked_after (qa)", "Table 24, gate D")
def gate_d(ctx) -> pd.DataFrame:
    cited = ctx.citations
    turn = ctx.at(cited["position"], "turn").astype("float64")
    anchors = {
        "chat": ctx.probe_turns - 0.5,  # strictly before the probe
        "qa": ctx.at(ctx.positions("qa", "asked_after"), "turn").astype("float64"),
    }
    parts = []
    for resource, anchor in anchors.items():
        rows = cited[(cited["resource"] == resource) & ~cited["field"].isin(["probe_dayid", "asked_after"])]
        limit = anchor.to_numpy()[rows["idx"]]
        parts.append(rows[turn[rows.index].to_numpy() > limit])
    return _report(ctx, pd.concat(parts), "cited message comes after the probe / asked_after")


@release_rule("E", "error", "gate", ("source", "profile", "chat"),
              "a callback reaches outside the recent window: on memory-bearing rows under the strict reading, no "
              "episode_ref and no evidence of a profile_refs claim lies in the last recent_window messages before "
              "the probe", "Table 24, gate E; Table 9 V2 (holds under the strict reading); Table 20")
def gate_e(ctx) -> pd.DataFrame:
    window = ctx.format["recent_window"]
    chat = ctx.frame("chat")
    strict = ctx.series("chat", "memory_bearing.strict").fillna(False).to_numpy(dtype=bool)
    episodes = ctx.cited("chat", "required_context.episode_refs", "turn")
    episodes["field"] = "required_context.episode_refs"
    claims = ctx.cited_claims.rename(columns={"claim_id": "ref"})
    claims["value"], claims["field"] = claims["ref"], "required_context.profile_refs"
    both = pd.concat([episodes[["idx", "value", "turn", "field"]], claims[["idx", "value", "turn", "field"]]])
    probe = ctx.probe_turns.to_numpy()[both["idx"]]
    inside = (both["turn"].to_numpy() >= probe - window) & (both["turn"].to_numpy() < probe)
    bad = both[inside & strict[both["idx"]]].drop_duplicates(["idx", "value", "field"])
    return failures("chat", chat["item_id"].to_numpy()[bad["idx"]], "", bad["value"],
                    f"reference lies within the last {window} messages before the probe").assign(
        field=bad["field"].to_numpy())


@release_rule("F", "error", "gate", ("chat",),
              "a gold response is present (has content, not blank) unless the item is a cold open (or withdrawn)",
              "Table 24, gate F; Table 46 (gold response: a reference reply)")
def gate_f(ctx) -> pd.DataFrame:
    chat = ctx.frame("chat")
    gold = chat["gold_response"]
    absent = gold.isna() | (gold.str.strip() == "").fillna(False)
    # an abstention row is a cold open whatever its flag says: a flag that disagrees is SIG1's line
    cold = chat["cold_open"].fillna(False).astype(bool) | (chat["stratum"] == "abstention").fillna(False)
    bad = absent & ~cold & chat["withdrawn"].isna()
    shown = [as_text(g) if g is None or pd.isna(g) else json.dumps(g) for g in gold[bad]]
    return failures("chat", chat["item_id"][bad], "gold_response", shown, "gold response missing or blank")
