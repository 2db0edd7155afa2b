"""Retrieval metrics of one ranking against one gold set, and their aggregation.

hit@k     1 if a gold message is among the first k ranked, else 0.
recall@k  gold messages among the first k, over |gold| ("recall over the
          whole gold set at the same cutoffs", Table 30): gold {a, b} ranked
          [b, x, a] has recall@1 0.5.
rr        1 / rank of the first gold message; 0 when no gold message is ranked
          (a ranking may be shorter than the pool; what it leaves out is a miss).
Random expectation: the exact mean of each metric over every ordering of the
pool (`random_expectation`), reported beside the seeded random draw.
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
        out[f"recall@{k}"] = int((ranks <= k).sum()) / len(gold)
    out["mrr"] = 1.0 / ranks[0] if ranks.size else 0.0
    return out


def random_expectation(pool: int, gold: int) -> dict[str, float]:
    """Exact expectation of every metric for a uniformly random ordering of `pool` messages, `gold` of them gold.

    The first gold message sits at rank r with probability P(r) = gold/pool for r = 1 and
    P(r + 1) = P(r) (pool - r - gold + 1) / (pool - r); hit@k is P(first rank <= k), recall@k is
    min(k, pool) / pool (each gold message is in the top k with that chance), MRR is the sum of P(r) / r.
    """
    ranks = np.arange(1, pool - gold + 2, dtype=float)
    ratios = (pool - ranks[:-1] - gold + 1) / (pool - ranks[:-1])
    first = gold / pool * np.concatenate([[1.0], np.cumprod(ratios)])
    cumulative = np.cumsum(first)
    out = {f"hit@{k}": 1.0 if k >= ranks.size else float(cumulative[k - 1]) for k in CUTOFFS}
    out |= {f"recall@{k}": min(k, pool) / pool for k in CUTOFFS}
    out["mrr"] = float((first / ranks).sum())
    return out


def wilson(successes: int, n: int) -> dict | None:
    """Wilson score interval of a share over items (Tables 32, 37), at `settings.CONFIDENCE_LEVEL`."""
    from scipy.stats import binomtest

    from .settings import CONFIDENCE_LEVEL

    if not n:
        return None
    ci = binomtest(int(successes), int(n)).proportion_ci(confidence_level=CONFIDENCE_LEVEL, method="wilson")
    return {"low": float(ci.low), "high": float(ci.high)}


def pooled_and_macro(values, units, unit: str = "participant") -> dict:
    """Pooled mean, macro mean (each of `units` weighted equally), per-unit means and counts, and n. The per-unit
    keys name the unit (`by_participant`; a GroupAssistBench report's are groups, `by_group`)."""
    import pandas as pd

    series = pd.Series(np.asarray(values, dtype=float), index=pd.Index(units, name=unit))
    if series.empty:
        return {"n": 0, "pooled": None, "macro": None, f"by_{unit}": {}, f"n_by_{unit}": {}}
    grouped = series.groupby(level=0, sort=True)
    means = grouped.mean()
    return {"n": int(series.size), "pooled": float(series.mean()), "macro": float(means.mean()),
            f"by_{unit}": {str(k): float(v) for k, v in means.items()},
            f"n_by_{unit}": {str(k): int(v) for k, v in grouped.size().items()}}
