"""Retrieval metrics of one ranking against one gold set, and their aggregation.

hit@k     1 if a gold message is among the first k ranked, else 0.
recall@k  gold messages among the first k, over min(k, |gold|): the share of
          what a top-k list can hold, so a perfect ranking scores exactly 1 at
          every cut-off (plain |gold ∩ top-k| / |gold| would cap the oracle
          below 1 at k=1 whenever two messages are required).
rr        1 / rank of the first gold message; 0 when no gold message is ranked
          (a ranking may be shorter than the pool; what it leaves out is a miss).
Aggregation: pooled = mean over items ("all items"); macro = mean over
participants of their item means ("averaged by participant").
"""
from __future__ import annotations

import numpy as np

from .settings import CUTOFFS


def metric_names() -> list[str]:
    return [f"hit@{k}" for k in CUTOFFS] + [f"recall@{k}" for k in CUTOFFS] + ["mrr"]


def gold_ranks(ranking: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """1-based ranks at which gold messages appear in the ranking (gold sets are small: sort-based lookup)."""
    return np.flatnonzero(np.isin(ranking, gold, kind="sort")) + 1


def item_metrics(ranking, gold) -> dict[str, float]:
    """Every metric of `metric_names` for one item; `gold` must be non-empty."""
    ranks = gold_ranks(np.asarray(ranking), np.asarray(gold))
    out = {}
    for k in CUTOFFS:
        out[f"hit@{k}"] = float(ranks.size > 0 and ranks[0] <= k)
    for k in CUTOFFS:
        out[f"recall@{k}"] = int((ranks <= k).sum()) / min(k, len(gold))
    out["mrr"] = 1.0 / ranks[0] if ranks.size else 0.0
    return out


def pooled_and_macro(values, participants) -> dict:
    """Pooled mean, macro mean (participants weighted equally), per-participant means and n."""
    import pandas as pd

    series = pd.Series(np.asarray(values, dtype=float), index=pd.Index(participants, name="participant_id"))
    if series.empty:
        return {"n": 0, "pooled": None, "macro": None, "by_participant": {}}
    means = series.groupby(level=0, sort=True).mean()
    return {"n": int(series.size), "pooled": float(series.mean()), "macro": float(means.mean()),
            "by_participant": {str(k): float(v) for k, v in means.items()}}
