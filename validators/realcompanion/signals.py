"""Referent, Signals and Category-rule families (paper Table 25) on the chat track."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.formats.realcompanion import EMPTIED_BY_B
from realcompanion.names import stale_count

from ..catalogue import combined, failure_rows, failures
from ..context import runs, take_rows
from .arithmetic import shape_tier
from .catalogue import frame_rule, release_rule


@release_rule("REF1", "error", "referent", ("source", "profile", "chat"),
              "the recorded referent (trace A referent_text, recorded on every memory-bearing row, never blank) is "
              "present in the turns the row cites: recent_context, episode_refs and the evidence of profile_refs, not "
              "the probe (lexical check), unless trace A records the exception with its reason, not blank (ungrounded), "
              "which a grounded row does not",
              "Table 25, Referent (1,339 of 1,341 judged rows grounded; two exceptions recorded and allowed to stand)")
def referent(ctx) -> pd.DataFrame:
    chat = ctx.frame("chat")
    context = ctx.recorded_context
    context = context[context["position"] >= 0]
    corpus = _joined(ctx.table("source").column("text"), context["idx"].to_numpy(), context["position"].to_numpy(),
                     len(chat))
    referent_text = ctx.series("chat", "trace.A.referent_text")
    has = referent_text.notna().to_numpy()
    wanted = ctx.column("chat", "trace.A.referent_text").filter(has).to_pylist()  # Arrow to Python in one call
    # Python's lower on both sides; a blank referent states nothing, though every text contains it
    present = [bool(r.strip()) and r.lower() in c.lower() for r, c in zip(wanted, corpus[has])]
    found = pd.Series(False, index=chat.index)
    found[has] = np.array(present, dtype=bool)
    excepted = _recorded(ctx, "A", "ungrounded")
    unreasoned = excepted & ~found & has  # a blank reason (JSON Schema's minLength counts a space) gives none
    if unreasoned.any():
        unreasoned &= ~(ctx.series("chat", "trace.A.ungrounded.reason").str.strip().str.len() > 0).fillna(False)
    bad = pd.Series(has, index=chat.index) & ~found & ~excepted & ~ctx.context_unresolved
    stale = found & excepted  # an exception where there is none to record
    # null says nothing prior is referred to (trace schema), which a memory-bearing row's locus contradicts
    unstated = ~pd.Series(has, index=chat.index) & ctx.series("chat", "memory_bearing.recorded").fillna(False).astype(bool)
    return combined([failures("chat", chat["item_id"][bad], "trace.A.referent_text", referent_text[bad],
                              "referent not found in the turns the row cites, and no exception recorded (trace.A."
                              "ungrounded)"),
                     failures("chat", chat["item_id"][unreasoned], "trace.A.ungrounded.reason",
                              ctx.values("chat", "trace.A.ungrounded.reason", np.flatnonzero(unreasoned.to_numpy())),
                              "referent not found in the turns the row cites, and the exception recorded gives no reason"),
                     failures("chat", chat["item_id"][unstated], "trace.A.referent_text", referent_text[unstated],
                              "a memory-bearing row records no referent: null says nothing prior is referred to"),
                     failures("chat", chat["item_id"][stale], "trace.A.ungrounded",
                              ctx.values("chat", "trace.A.ungrounded", np.flatnonzero(stale.to_numpy())),
                              "records a referent exception, but the turns the row cites state the referent")])


def _recorded(ctx, phase: str, member: str) -> pd.Series:
    """Row by row, whether trace `phase` records `member` (an exception, a relabel); never where the release's
    schema declares no such member."""
    trace = ctx.table("chat").column("trace").type.field(phase).type
    if trace.get_field_index(member) < 0:
        return pd.Series(False, index=ctx.frame("chat").index)
    return ctx.series("chat", f"trace.{phase}.{member}").notna().astype(bool)


def _counted(ctx, found: int, param: str, what: str) -> pd.DataFrame:
    """A count of chat rows the release declares (stamp writes it): none, or the one line naming the stale count."""
    declared = ctx.params.get(param)
    if declared == found:
        return failure_rows([])
    return failure_rows([("chat", "chat", "", found, stale_count(declared, what))])


@release_rule("REF2", "error", "referent", ("chat",),
              "referent exceptions are counted: the rows whose trace A records one number "
              "realcompanion.referent_exceptions", "Table 25, Referent (two exceptions recorded)")
def exceptions_counted(ctx) -> pd.DataFrame:
    return _counted(ctx, int(_recorded(ctx, "A", "ungrounded").sum()), "referent_exceptions",
                    "rows with a referent exception recorded")


def _joined(texts: pa.ChunkedArray, rows: np.ndarray, positions: np.ndarray, count: int) -> np.ndarray:
    """Per row (0 .. count - 1), the `texts` at its `positions` joined by a space, in the order given ("" for a
    row given none). Grouped by a stable sort rather than Arrow's group_by: its first use in a process held 64 MB
    more for good, and its list aggregation kept about 95 MB after it was freed (100x paper size)."""
    order = np.argsort(rows, kind="stable")
    starts, _ = runs(rows[order])
    values = take_rows(texts, positions[order]).cast(pa.large_string())
    lists = pa.LargeListArray.from_arrays(np.append(starts, len(order)).astype(np.int64), values)
    out = np.full(count, "", dtype=object)
    out[rows[order][starts]] = pc.binary_join(lists, pa.scalar(" ", pa.large_string())).to_pylist()
    return out


@frame_rule("SIG2", "error", "signals", "chat", "scoreable",
            "a scoreable row is not withdrawn, and every cold open that is not withdrawn is scoreable "
            "(1,967 scoreable = 1,533 + 434 cold opens)",
            "Table 25, Arithmetic (1,967 scoreable rows); Table 3 (1,533 + 434 cold opens); Table 22")
def scoreable_rows(ctx, frame):
    # a withdrawn code on a row phase E ships is SIG6's line: the flag is judged by what E decided
    shipped = frame["withdrawn"].isna() | ctx.series("chat", "trace.E.ok").fillna(False).astype(bool)
    return (~frame["scoreable"] | shipped) & (frame["scoreable"] | ~(frame["cold_open"] & shipped))


@frame_rule("SIG3", "error", "signals", "chat", "required_context.recent_needed",
            "recent_needed is true exactly when recent_context is non-empty", "Table 13 (required_context)")
def recent_needed(ctx, frame):
    return ctx.series("chat", "required_context.recent_needed") == (
        ctx.series("chat", "required_context.recent_context").list.len() > 0)


@frame_rule("SIG4", "error", "signals", "chat", "trace",
            "trace copies agree with the row: A.locus = locus, D.gold_response = gold_response, "
            "D.grounding_dayids = grounding_dayids", "Table 16 (what phases A and D write)")
def trace_copies(ctx, frame):
    gold = ctx.series("chat", "trace.D.gold_response")
    same_gold = (gold == frame["gold_response"]).fillna(False) | (gold.isna() & frame["gold_response"].isna())
    same_grounding = ctx.same_lists("chat", "trace.D.grounding_dayids", "grounding_dayids")
    return (ctx.series("chat", "trace.A.locus") == frame["locus"]) & same_gold & same_grounding


@frame_rule("SIG5", "error", "signals", "chat", "memory_bearing",
            "on recorded memory-bearing rows the readings recompute from the on-screen verdict: "
            "strict = not clear, strict2 = not_on_screen", "Table 20 (on-screen verdicts); Table 21 (readings)")
def readings(ctx, frame):
    recorded, strict, strict2 = ctx.readings()
    verdict = frame["on_screen"]
    ok = (strict == (verdict != "clear")) & (strict2 == (verdict == "not_on_screen"))
    return ~recorded | ok.fillna(False)


@frame_rule("SIG6", "error", "signals", "chat", "withdrawn",
            "phase E decides whether the item ships: a row is withdrawn exactly when E.ok is false, and a row that "
            "ships has E.category_ok true", "Table 16, row E (ok, category_ok: whether the item ships)")
def withdrawn_is_failed_e(ctx, frame):
    withdrawn = frame["withdrawn"].notna()
    return (withdrawn == ~ctx.series("chat", "trace.E.ok")) & (withdrawn | ctx.series("chat", "trace.E.category_ok"))


@frame_rule("SIG7", "error", "signals", "chat", "cold_open",
            "a cold open's probe opens a session (its participant's first message, or more than "
            "session_gap_minutes after the previous one)",
            "Table 3 (cold opens); Table 19 (nothing prior); SPEC §3 (cold_open)", also_reads=("source",))
def cold_open_opens_session(ctx, frame):
    positions = ctx.probe_positions.to_numpy()
    placed = (positions >= 0) & ctx.at(ctx.probe_positions, "instant").notna().to_numpy()  # unresolved: gate C's;
    opens = np.where(placed, ctx.session_starts.to_numpy()[positions], True)  # no instant: FLD2's, not judged
    return ~_cold_open(frame) | opens


def _cold_open(chat: pd.DataFrame) -> pd.Series:
    """Rows that are cold opens by both their flag and their stratum: where the two disagree, SIG1's line names the
    row, and the rules about cold opens do not judge it by the one that may be wrong."""
    return (chat["cold_open"] & (chat["stratum"] == "abstention")).fillna(False).astype(bool)


@release_rule("SIG9", "error", "signals", ("chat",),
              "a cold open cites nothing: its locus is none, and its recent_context, profile_refs and episode_refs are "
              "empty", "Table 3 (cold opens, the abstention control); Table 19 (nothing prior); SPEC §3 (cold_open)")
def cold_open_cites_nothing(ctx) -> pd.DataFrame:
    """A cold open opens a session: no current thread precedes it, and a memory it needed would make it no control
    of restraint. A converter that gives every probe the messages before it gives a cold open the last session's."""
    chat = ctx.frame("chat")
    cold = _cold_open(chat)
    bad = cold & (chat["locus"] != "none").fillna(False)
    return combined([failures("chat", chat["item_id"][bad], "locus", chat["locus"][bad],
                              "a cold open's locus is none: nothing prior is referred to"),
                     *_citing(ctx, cold, "a cold open cites nothing")])


def _citing(ctx, rows: pd.Series, message: str) -> list[pd.DataFrame]:
    """A failure, saying `message`, for each context list of the chat rows `rows` (a mask) that holds anything."""
    item = ctx.frame("chat")["item_id"]
    parts = []
    for field in ("required_context.recent_context", "required_context.profile_refs", "required_context.episode_refs"):
        cited = ctx.series("chat", field)
        bad = rows & (cited.list.len().fillna(0) > 0)
        parts.append(failures("chat", item[bad], field, cited[bad], message))
    return parts


@release_rule("SIG11", "error", "signals", ("chat",),
              f"a row withdrawn because phase B removed every reference ({EMPTIED_BY_B}) cites nothing: its "
              "recent_context, profile_refs and episode_refs are empty",
              f"Table 22 (the context could not be reconstructed: {EMPTIED_BY_B}); Table 16 (B only removes "
              "references; C and D read the context B left)")
def emptied_by_phase_b(ctx) -> pd.DataFrame:
    """The released context is the one phase B left (tier and category are functions of it, Table 16), and B only
    removes: a row withdrawn because B left nothing cites nothing, what it removed recorded in trace B. A converter
    that keeps the context a withdrawn row was sampled with gives it one that B did not leave."""
    emptied = (ctx.frame("chat")["withdrawn"] == EMPTIED_BY_B).fillna(False)
    return combined(_citing(ctx, emptied, f"withdrawn as {EMPTIED_BY_B}: phase B left the row nothing to cite"))


@release_rule("SIG10", "error", "signals", ("chat",),
              "each phase's result records what it did: A, C and D, which may revise nothing, are never revised; B is "
              "revised exactly when it removed references (or failed); E fails exactly when the item does not ship "
              "(E.ok false)", "Table 16 (what each phase writes and may revise); Table 10 (derivations: checks that "
              "failed, labels that were revised)")
def phase_results(ctx) -> pd.DataFrame:
    """The trace is the record of how a label was produced: a revision no phase may make, a removal recorded as a
    pass or a shipped item whose deciding phase failed, is a record that says otherwise than the row."""
    chat = ctx.frame("chat")
    result = {phase: ctx.series("chat", f"trace.{phase}.result") for phase in "ABCDE"}
    removed = ctx.series("chat", "trace.B.removed").list.len().fillna(0) > 0
    checks = [(phase, result[phase] == "revised", f"phase {phase} may revise nothing (Table 16)") for phase in "ACD"]
    checks += [("B", (result["B"] == "revised") & ~removed, "phase B is revised but removed no reference"),
               ("B", (result["B"] == "pass") & removed, "phase B removed references but records a pass"),
               ("E", (result["E"] == "fail") != ~ctx.series("chat", "trace.E.ok"),
                "phase E's result disagrees with E.ok: it fails exactly when the item does not ship")]
    parts = []
    for phase, bad, why in checks:
        bad = bad.fillna(False).astype(bool)
        parts.append(failures("chat", chat["item_id"][bad], f"trace.{phase}.result", result[phase][bad], why))
    return combined(parts)


@frame_rule("SIG8", "error", "signals", "chat", "locus",
            "a row is memory-bearing (recorded) exactly when its locus is a memory store: a profile claim, an "
            "earlier exchange or the companion's past behavior (vocabulary memory_locus)",
            "Tables 19, 21 (223 + 116 + 65 = 404 memory-bearing; 1,009 + 120 = 1,129 = Table 7's rho*=0)")
def locus_is_memory(ctx, frame):
    return frame["locus"].isin(ctx.vocab["memory_locus"]) == ctx.series("chat", "memory_bearing.recorded")


@frame_rule("CAT1", "error", "category", "chat", "category", "the category belongs to its tier",
            "Table 18 (categories by tier); Table 25, Category rule")
def category_in_tier(ctx, frame):
    allowed = [f"{t}/{c}" for t, cats in ctx.vocab["chat_category"].items() for c in cats]
    return (_judged_tier(ctx, frame) + "/" + frame["category"]).isin(allowed)


def _judged_tier(ctx, frame) -> pd.Series:
    """The tier the category rule judges a row by: its own, unless on a scoreable row that alone differs from both its
    lists' shape and trace C's, where ARI1's one line names it and the rule reads the tier the two agree on."""
    shape = pd.Series(shape_tier(ctx), index=frame.index)
    lone = (frame["scoreable"] & (frame["tier"] != shape) & (ctx.series("chat", "trace.C.tier") == shape)).fillna(False)
    return frame["tier"].where(~lone.astype(bool), shape)


@frame_rule("CAT2", "error", "category", "chat", "trace.C",
            "the tier, the category and the rule sentence agree: C.tier = tier, C.rule = the tier's rule sentence, "
            "and C.category = category unless trace C records a relabel to category, with its reason",
            "Table 25, Category rule (agree on 2,018 rows; 3 relabeled by record); Table 16, row C")
def trace_c_agrees(ctx, frame):
    tier = _judged_tier(ctx, frame)
    rule = tier.map(ctx.vocab["tier_rule"])
    written = ctx.series("chat", "trace.C.category")
    to, reason = ctx.series("chat", "trace.C.relabeled.category"), ctx.series("chat", "trace.C.relabeled.reason")
    agrees = to.isna() & (written == frame["category"])
    relabeled = (to == frame["category"]) & (written != frame["category"]) & (reason.str.strip().str.len() > 0)
    return ((ctx.series("chat", "trace.C.tier") == tier) & (ctx.series("chat", "trace.C.rule") == rule)
            & (agrees | relabeled)).fillna(False)


@release_rule("CAT3", "error", "category", ("chat",),
              "relabels by record are counted: the rows whose trace C records a relabel number "
              "realcompanion.relabeled", "Table 25, Category rule (3 relabeled by record)")
def relabels_counted(ctx) -> pd.DataFrame:
    return _counted(ctx, int(ctx.series("chat", "trace.C.relabeled.category").notna().sum()), "relabeled",
                    "rows relabeled by record")


@release_rule("CAT4", "error", "category", ("chat", "source"),
              "rows without a session index are counted: the chat rows whose probe carries no session index number "
              "realcompanion.sessionless", "Table 25, Category rule (13 carry no session index); SPEC §3 (session)")
def sessionless_counted(ctx) -> pd.DataFrame:
    probes = ctx.probe_positions.to_numpy()
    session = ctx.messages["session"].isna().to_numpy()
    return _counted(ctx, int(session[probes[probes >= 0]].sum()), "sessionless",
                    "chat rows whose probe carries no session index")
