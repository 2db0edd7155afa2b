"""Evaluating rankings item by item, and summarizing them by population.

Per item and population (`gold.Track.populations`: an item is scored in each
population it belongs to, against that population's gold set): the metrics of
`metrics.item_metrics`, the pool size and the gold size. Summary: for every population and
metric, pooled and macro means, per-participant means, n, and (optionally)
participant-bootstrap intervals. Pool report: pool sizes, and the items whose
pool holds no more than k messages, where hit@k is attainable by listing the
pool (flagged, never hidden).
"""
from __future__ import annotations

import numpy as np

from realcompanion.scoring.bootstrap import mean_intervals

from .metrics import item_metrics, metric_names, pooled_and_macro
from .settings import CUTOFFS


def evaluate(item, population: str, ranking, gold) -> dict:
    """One row of the per-item frame: `ranking` scored against `gold` for `item` in `population`."""
    return {"item_id": item.item_id, "participant_id": item.participant_id, "population": population,
            "pool": item.pool_end, "gold_size": int(gold.size), **item_metrics(ranking, gold)}


def evaluate_all(track, item, ranking) -> list[dict]:
    """`ranking` scored in every population the item belongs to."""
    return [evaluate(item, population, ranking, gold) for population, gold in track.populations(item).items()]


def summarize(frame, populations, seed: int, resamples: int, intervals: bool = True) -> dict:
    out = {}
    for population in populations:
        rows = frame.loc[frame["population"] == population] if len(frame) else frame
        block = {"n": len(rows), "participants": int(rows["participant_id"].nunique())}
        for metric in metric_names():
            stats = pooled_and_macro(rows[metric], rows["participant_id"])
            stats.pop("n")
            if intervals and len(rows):
                stats["ci"] = mean_intervals(rows[metric], rows["participant_id"], seed, resamples)
            block[metric] = stats
        out[population] = block
    return out


def pool_report(items) -> dict:
    sizes = np.array([item.pool_end for item in items])
    if not sizes.size:
        return {"items": 0}
    return {
        "items": int(sizes.size), "min": int(sizes.min()), "median": float(np.median(sizes)),
        "max": int(sizes.max()),
        "k_at_least_pool": {str(k): [i.item_id for i in items if i.pool_end <= k] for k in CUTOFFS},
    }


def retrieval_tables(summaries: dict[str, dict], populations, what: str) -> str:
    """Pooled and macro metrics of several rankers (keys of `summaries`), one block per population."""
    from realcompanion.scoring.report import grid

    from .metrics import metric_names

    out = []
    for population in populations:
        n = next(iter(summaries.values()))[population]["n"] if summaries else 0
        rows = {name: {m: s[population][m]["pooled"] for m in metric_names()} | {
            "hit@5 macro": s[population]["hit@5"]["macro"]} for name, s in summaries.items()}
        out.append(grid(rows, f"{what}, {population} items (n={n}), pooled"))
    return "\n".join(out)
