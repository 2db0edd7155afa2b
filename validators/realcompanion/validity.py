"""Validity conditions V1-V6 (paper Table 9), each as its machine-checkable part.

V2's window test under the strict reading is gate E; V2 itself checks that the
on-screen verdict exists exactly where a row is memory-bearing.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..catalogue import failures
from .catalogue import frame_rule, release_rule


@release_rule("V1", "error", "validity", ("source", "profile", "chat"),
              "sufficiency: every grounding_dayids entry is in the row's recorded context "
              "(recent_context, episode_refs, or evidence of profile_refs)", "Table 9, V1 (sufficiency verified)")
def sufficiency(ctx) -> pd.DataFrame:
    context = ctx.recorded_context[["idx", "value"]].drop_duplicates()
    grounding = ctx.cited("chat", "grounding_dayids")[["idx", "value"]]  # an id naming no message is gate C's
    merged = grounding.merge(context, on=["idx", "value"], how="left", indicator=True)
    bad = merged[(merged["_merge"] == "left_only") & ~ctx.context_unresolved[merged["idx"]]]
    return failures("chat", ctx.frame("chat")["item_id"].to_numpy()[bad["idx"]], "grounding_dayids",
                    bad["value"], "grounding message is not in the recorded context")


@frame_rule("V2", "error", "validity", "chat", "on_screen",
            "references off screen: every recorded memory-bearing row carries an on-screen verdict, and no other row "
            "does (the window test under the strict reading is gate E)",
            "Table 9, V2 (holds under the strict reading); Table 20 (404 verdicts)")
def verdict_where_needed(ctx, frame):
    return frame["on_screen"].notna() == ctx.series("chat", "memory_bearing.recorded")


@release_rule("V3", "error", "validity", ("chat",),
              "one unconditioned stratum: in each participant's proportional stratum (its scoreable rows, as Table 21 "
              "counts it), memory-bearing rows are a minority (strictly fewer than half)",
              "Table 9, V3 (one unconditioned stratum); Table 21 (proportional: 40 of 1,169 scoreable); Table 32")
def unconditioned_stratum(ctx) -> pd.DataFrame:
    """Counted over scoreable rows, the population of Tables 21 and 32 (1,169): a withdrawn row is no item of the
    stratum, and counting it would turn exactly half into a minority."""
    chat = ctx.frame("chat")
    recorded = ctx.series("chat", "memory_bearing.recorded")
    prop = ((chat["stratum"] == "proportional") & chat["scoreable"]).fillna(False) & recorded.notna()  # a null is
    # SCH2's, not counted
    counts = recorded[prop].astype(bool).groupby(chat["participant_id"][prop]).agg(["sum", "count"])
    bad = counts[2 * counts["sum"] >= counts["count"]]  # a minority is strictly fewer than half
    return failures("chat", bad.index, "", [f"{m} of {n}" for m, n in zip(bad["sum"], bad["count"])],  # rows together
                    "memory-bearing rows are not a minority of the proportional stratum")


@release_rule("V4", "error", "validity", ("source", "profile", "chat"),
              "stores fixed in advance: every profile_refs claim has evidence on record before the probe",
              "Table 9, V4 (stores fixed in advance)")
def stores_in_advance(ctx) -> pd.DataFrame:
    refs = ctx.ids_cited("chat", "required_context.profile_refs").rename(columns={"value": "claim_id"})
    known = refs[refs["claim_id"].isin(ctx.frame("profile")["claim_id"])]
    earliest = ctx.claim_evidence.groupby("claim_id")["turn"].min()
    first = known["claim_id"].map(earliest)
    bad = known[~(first.to_numpy() < ctx.probe_turns.to_numpy()[known["idx"]])]
    return failures("chat", ctx.frame("chat")["item_id"].to_numpy()[bad["idx"]], "required_context.profile_refs",
                    bad["claim_id"], "claim has no evidence before the probe")


@release_rule("COV1", "warning", "coverage", ("source", "profile", "chat"),
              "evidence of a cited claim at or after the probe is counted: allowed, since a claim is built "
              "from the whole history, and left out of the chat gold set and condition C2",
              "Table 28, C2 (profile evidence restricted to messages preceding the probe); Table 3 (full history)")
def late_claim_evidence(ctx) -> pd.DataFrame:
    claims = ctx.cited_claims
    probe = ctx.probe_turns.to_numpy()[claims["idx"]]
    after = claims["turn"].to_numpy() >= probe
    fixed = claims.assign(before=~after & (claims["turn"].to_numpy() < probe)).groupby(["idx", "claim_id"])[
        "before"].transform("any")  # a claim with no evidence before the probe is V4's
    late = claims[after & fixed.to_numpy()]
    return failures("chat", ctx.frame("chat")["item_id"].to_numpy()[late["idx"]], "required_context.profile_refs",
                    late["claim_id"], "evidence " + late["dayid"].astype(str) + " of the claim comes at or after the probe")


@release_rule("V5", "error", "validity", ("profile", "persona", "chat", "qa"),
              "an underived layer, cited: profile claims cite messages (evidence non-empty when present), filled "
              "persona slots, answerable questions and memory-bearing chat rows cite messages; empty persona slots "
              "cite none, and only memory-bearing chat rows cite earlier exchanges (episode_refs)",
              "Table 9, V5; Table 12 (evidence: non-empty); Tables 17, 21 (hard + edge = 237 of 404 memory-bearing)")
def cited_layer(ctx) -> pd.DataFrame:
    profile, persona, qa, chat = ctx.frame("profile"), ctx.frame("persona"), ctx.frame("qa"), ctx.frame("chat")
    e_bad = profile["evidence"].notna() & (profile["evidence"].list.len() == 0).fillna(False)
    has_ev = persona["evidence"].list.len().fillna(0) > 0
    p_bad = persona["value"].notna() != has_ev
    q_bad = qa["answerable"] & (qa["evidence"].list.len().fillna(0) == 0)
    episodes = ctx.series("chat", "required_context.episode_refs").list.len()
    refs = ctx.series("chat", "required_context.profile_refs").list.len() + episodes
    recorded = ctx.series("chat", "memory_bearing.recorded")
    c_bad = recorded & (refs == 0)
    u_bad = ~recorded & (episodes > 0)
    return pd.concat([
        failures("profile", profile["claim_id"][e_bad], "evidence", "[]",
                 "evidence is empty: a claim without evidence has evidence null"),
        failures("persona", ctx.row_ids("persona")[p_bad], "evidence", persona["evidence"][p_bad],
                 np.where(has_ev[p_bad], "evidence for an empty slot (value null): an empty slot cites no message",
                          "a value without evidence: a filled slot cites the messages it rests on")),
        failures("qa", qa["item_id"][q_bad], "evidence", "[]", "answerable question cites no message"),
        failures("chat", chat["item_id"][c_bad], "required_context", "no refs",
                 "memory-bearing row cites no profile claim or earlier exchange"),
        failures("chat", chat["item_id"][u_bad], "required_context.episode_refs",
                 ctx.series("chat", "required_context.episode_refs")[u_bad],
                 "row that is not memory-bearing cites an earlier exchange"),
    ])


@frame_rule("V6", "error", "validity", "chat", "memory_bearing",
            "refutation only demotes: strict2 implies strict implies recorded, and trace B's removed references are "
            "not among the final ones", "Table 9, V6 (refutation only demotes); Table 16, row B (may never add)")
def only_demotes(ctx, frame):
    recorded, strict, strict2 = ctx.readings()
    nested = (~strict2 | strict) & (~strict | recorded)
    final = pd.concat([ctx.ids_cited("chat", f"required_context.{p}")
                       for p in ("recent_context", "episode_refs", "profile_refs")])
    removed = ctx.ids_cited("chat", "trace.B.removed")
    readded = removed.merge(final, on=["idx", "value"])["idx"].unique()
    return nested & ~frame.index.isin(readded)
