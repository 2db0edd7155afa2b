"""Validity conditions V1-V6 (paper Table 9), each as its machine-checkable part.

V2's window test under the strict reading is gate E; V2 itself checks that the
on-screen verdict exists exactly where a row is memory-bearing.
"""
from __future__ import annotations

import pandas as pd

from .catalogue import failures, frame_rule, release_rule


@release_rule("V1", "error", "validity", ("source", "profile", "chat"),
              "sufficiency: every grounding_dayids entry is in the row's recorded context "
              "(recent_context, episode_refs, or evidence of profile_refs)")
def sufficiency(ctx) -> pd.DataFrame:
    context = ctx.recorded_context[["idx", "value"]].drop_duplicates()
    grounding = ctx.ids_cited("chat", "grounding_dayids")
    merged = grounding.merge(context, on=["idx", "value"], how="left", indicator=True)
    bad = merged[merged["_merge"] == "left_only"]
    return failures("chat", ctx.frame("chat")["item_id"].to_numpy()[bad["idx"]], "grounding_dayids",
                    bad["value"].astype(str), "grounding message is not in the recorded context")


@frame_rule("V2", "error", "validity", "chat", "on_screen",
            "references off screen: every recorded memory-bearing row carries an on-screen verdict, and no other row does")
def verdict_where_needed(ctx, frame):
    return frame["on_screen"].notna() == ctx.series("chat", "memory_bearing.recorded")


@release_rule("V3", "error", "validity", ("chat",),
              "one unconditioned stratum: in each participant's proportional stratum, memory-bearing rows are at most "
              "proportional_memory_max_share")
def unconditioned_stratum(ctx) -> pd.DataFrame:
    chat = ctx.frame("chat")
    recorded = ctx.series("chat", "memory_bearing.recorded").astype(bool)
    prop = chat["stratum"] == "proportional"
    share = recorded[prop].groupby(chat["participant_id"][prop]).mean()
    bad = share[share > ctx.params["proportional_memory_max_share"]]
    return failures("chat", bad.index, "stratum", bad.round(3).astype(str),
                    "memory-bearing share of the proportional stratum is too high")


@release_rule("V4", "error", "validity", ("source", "profile", "chat"),
              "stores fixed in advance: every profile_refs claim has evidence on record before the probe")
def stores_in_advance(ctx) -> pd.DataFrame:
    refs = ctx.ids_cited("chat", "required_context.profile_refs").rename(columns={"value": "claim_id"})
    known = refs[refs["claim_id"].isin(ctx.frame("profile")["claim_id"])]
    earliest = ctx.claim_evidence.groupby("claim_id")["turn"].min()
    first = known["claim_id"].map(earliest)
    bad = known[~(first.to_numpy() < ctx.probe_turns.to_numpy()[known["idx"]])]
    return failures("chat", ctx.frame("chat")["item_id"].to_numpy()[bad["idx"]], "required_context.profile_refs",
                    bad["claim_id"].astype(str), "claim has no evidence before the probe")


@release_rule("V5", "error", "validity", ("persona", "chat", "qa"),
              "an underived layer, cited: filled persona slots, answerable questions and memory-bearing chat rows "
              "cite messages; empty persona slots cite none")
def cited_layer(ctx) -> pd.DataFrame:
    persona, qa, chat = ctx.frame("persona"), ctx.frame("qa"), ctx.frame("chat")
    has_ev = persona["evidence"].list.len().fillna(0) > 0
    p_bad = persona["value"].notna() != has_ev
    q_bad = qa["answerable"] & (qa["evidence"].list.len().fillna(0) == 0)
    refs = (ctx.series("chat", "required_context.profile_refs").list.len()
            + ctx.series("chat", "required_context.episode_refs").list.len())
    c_bad = ctx.series("chat", "memory_bearing.recorded") & (refs == 0)
    return pd.concat([
        failures("persona", ctx.row_ids("persona")[p_bad], "evidence", persona["value"][p_bad].astype(str),
                 "evidence must be non-empty exactly when value is set"),
        failures("qa", qa["item_id"][q_bad], "evidence", "[]", "answerable question cites no message"),
        failures("chat", chat["item_id"][c_bad], "required_context", "no refs",
                 "memory-bearing row cites no profile claim or earlier exchange"),
    ])


@frame_rule("V6", "error", "validity", "chat", "memory_bearing",
            "refutation only demotes: strict2 implies strict implies recorded, and trace B's removed references are "
            "not among the final ones")
def only_demotes(ctx, frame):
    recorded, strict, strict2 = ctx.readings()
    nested = (~strict2 | strict) & (~strict | recorded)
    final = pd.concat([ctx.ids_cited("chat", f"required_context.{p}")
                       for p in ("recent_context", "episode_refs", "profile_refs")])
    removed = ctx.ids_cited("chat", "trace.B.removed")
    readded = removed.merge(final, on=["idx", "value"])["idx"].unique()
    return nested & ~frame.index.isin(readded)
