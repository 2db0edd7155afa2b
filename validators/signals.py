"""Referent, Signals and Category-rule families (paper Table 25) on the chat track."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .catalogue import failures, frame_rule, release_rule


@release_rule("REF1", "warning", "referent", ("source", "profile", "chat"),
              "the trace A referent_text is present in the probe or the turns the row cites (lexical check)")
def referent(ctx) -> pd.DataFrame:
    chat = ctx.frame("chat")
    context = ctx.recorded_context
    context = context[context["position"] >= 0]
    turns = pa.table({"idx": context["idx"].to_numpy(),
                      "text": pc.take(ctx.table("source").column("text"), context["position"].to_numpy())})
    grouped = turns.group_by("idx", use_threads=False).aggregate([("text", "list")])
    corpus = np.full(len(chat), "", dtype=object)
    corpus[grouped["idx"].to_numpy()] = pc.binary_join(grouped["text_list"], " ").to_pylist()
    corpus = chat["probe"].str.lower() + " " + pd.Series(corpus, index=chat.index).str.lower()
    referent_text = ctx.series("chat", "trace.A.referent_text")
    has = referent_text.notna()
    present = [r.lower() in c for r, c in zip(referent_text[has], corpus[has])]
    bad = has.copy()
    bad[has] = ~np.array(present, dtype=bool)
    return failures("chat", chat["item_id"][bad], "trace.A.referent_text", referent_text[bad].astype(str),
                    "referent not found in the probe or cited turns")


@frame_rule("SIG2", "error", "signals", "chat", "scoreable",
            "a scoreable row is neither withdrawn nor a cold open")
def scoreable_rows(ctx, frame):
    return ~frame["scoreable"] | (frame["withdrawn"].isna() & ~frame["cold_open"])


@frame_rule("SIG3", "error", "signals", "chat", "required_context.recent_needed",
            "recent_needed is true exactly when recent_context is non-empty")
def recent_needed(ctx, frame):
    return ctx.series("chat", "required_context.recent_needed") == (
        ctx.series("chat", "required_context.recent_context").list.len() > 0)


@frame_rule("SIG4", "error", "signals", "chat", "trace",
            "trace copies agree with the row: A.locus = locus, D.gold_response = gold_response, "
            "D.grounding_dayids = grounding_dayids")
def trace_copies(ctx, frame):
    gold = ctx.series("chat", "trace.D.gold_response")
    same_gold = (gold == frame["gold_response"]).fillna(False) | (gold.isna() & frame["gold_response"].isna())
    same_grounding = ctx.same_lists("chat", "trace.D.grounding_dayids", "grounding_dayids")
    return (ctx.series("chat", "trace.A.locus") == frame["locus"]) & same_gold & same_grounding


@frame_rule("SIG5", "error", "signals", "chat", "memory_bearing",
            "on recorded memory-bearing rows the readings recompute from the on-screen verdict: "
            "strict = not clear, strict2 = not_on_screen")
def readings(ctx, frame):
    recorded, strict, strict2 = ctx.readings()
    verdict = frame["on_screen"]
    ok = (strict == (verdict != "clear")) & (strict2 == (verdict == "not_on_screen"))
    return ~recorded | ok.fillna(False)


@frame_rule("SIG6", "error", "signals", "chat", "withdrawn",
            "a row is withdrawn exactly when its trace E says it does not ship (E.ok false)")
def withdrawn_is_failed_e(ctx, frame):
    return frame["withdrawn"].notna() == ~ctx.series("chat", "trace.E.ok")


@frame_rule("CAT1", "error", "category", "chat", "category", "the category belongs to its tier")
def category_in_tier(ctx, frame):
    allowed = [f"{t}/{c}" for t, cats in ctx.vocab["chat_category"].items() for c in cats]
    return (frame["tier"] + "/" + frame["category"]).isin(allowed)


@frame_rule("CAT2", "error", "category", "chat", "trace.C",
            "trace C agrees with the row: C.tier = tier, C.category = category, C.rule = the tier's rule sentence")
def trace_c_agrees(ctx, frame):
    rule = frame["tier"].map(ctx.vocab["tier_rule"])
    return ((ctx.series("chat", "trace.C.tier") == frame["tier"])
            & (ctx.series("chat", "trace.C.category") == frame["category"])
            & (ctx.series("chat", "trace.C.rule") == rule)).fillna(False)
