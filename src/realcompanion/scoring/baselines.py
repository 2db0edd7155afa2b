"""The paper's six reference rankers (Table 4) and their scores under the controls (Table 33).

random         the pool in a seeded random order.
recency_user   the participant's own (user) messages of the pool, most recent
               first ("recency over participant messages"; companion messages
               are not ranked).
recency        the whole pool, most recent first.
bm25           the pool by BM25 score for the probe text (see `bm25`).
oracle         the gold set, nothing else: 1 on every metric by construction.
broken_oracle  `BROKEN_ORACLE_SIZE` pool messages outside the gold, drawn at
               random (seeded); every pool message outside the gold when the
               pool holds fewer: 0 on every metric by construction.
The oracle and the broken oracle are rebuilt for each substituted gold set;
the other rankings do not look at the gold and are scored against all three.
"""
from __future__ import annotations

import numpy as np

from .bm25 import Indexes
from .controls import GOLD_SETS, substituted_golds
from .gold import POPULATIONS
from .metrics import metric_names
from .retrieval import evaluate, pool_report, summarize
from .seeding import item_rng
from .settings import BROKEN_ORACLE_SIZE

METHODS = {
    "random": "Random",
    "recency_user": "Recency over participant messages",
    "recency": "Recency",
    "bm25": "BM25",
    "oracle": "Oracle",
    "broken_oracle": "Broken oracle",
}
USES_GOLD = {"oracle", "broken_oracle"}


class Rankers:
    """Builds each method's ranking of an item's pool (positions, best first)."""

    def __init__(self, track, seed: int):
        self.track, self.seed = track, seed
        self.indexes = Indexes(track.streams)

    def rank(self, method: str, item, gold: np.ndarray | None = None) -> np.ndarray:
        pool = np.arange(item.pool_end)
        if method == "random":
            return item_rng(self.seed, method, item.item_id).permutation(pool)
        if method == "recency_user":
            users = self.track.streams[item.participant_id].user_positions()
            return users[users < item.pool_end][::-1]
        if method == "recency":
            return pool[::-1]
        if method == "bm25":
            return self.indexes[item.participant_id].rank(item.query, item.pool_end)[0]
        if method == "oracle":
            return gold
        if method == "broken_oracle":
            outside = np.ones(item.pool_end, dtype=bool)
            outside[gold] = False
            outside = pool[outside]
            size = min(BROKEN_ORACLE_SIZE, outside.size)
            return item_rng(self.seed, method, item.item_id).choice(outside, size, replace=False)
        raise ValueError(f"unknown method {method!r}")

    def bm25_top_score(self, item) -> float:
        """The best BM25 score in the item's pool (0 for an empty pool): BM25's top-1 confidence."""
        scores = self.indexes[item.participant_id].scores(item.query)[:item.pool_end]
        return float(scores.max()) if scores.size else 0.0


def run_baselines(track, seed: int, progress=None):
    """One row per (item, method, gold set): the per-item frame every baseline summary is built from."""
    import pandas as pd

    items = track.retrievable()
    golds = substituted_golds(items, seed)
    rankers, rows = Rankers(track, seed), []
    for item in items:
        fixed = {m: rankers.rank(m, item) for m in METHODS if m not in USES_GOLD}
        for gold_set in GOLD_SETS:
            gold = golds[item.item_id][gold_set]
            for method in METHODS:
                ranking = rankers.rank(method, item, gold) if method in USES_GOLD else fixed[method]
                rows.append({"method": method, "gold_set": gold_set, **evaluate(track, item, ranking, gold)})
        if progress:
            progress()
    columns = ["method", "gold_set", "item_id", "participant_id", "pool", "gold_size", *POPULATIONS[track.name],
               *metric_names()]
    return pd.DataFrame(rows, columns=columns), rankers


def bm25_detectability(track, rankers: Rankers) -> tuple[list, list, list]:
    """BM25's top-1 score and the dependent label on the scored proportional-stratum probes (Table 30)."""
    items = track.detectability_items()
    return ([rankers.bm25_top_score(i) for i in items], [i.dependent for i in items],
            [i.participant_id for i in items])


def summarize_baselines(track, frame, seed: int, resamples: int) -> dict:
    """Per method: the summary on the actual gold (with intervals) and on each control gold set."""
    out = {}
    for method, label in METHODS.items():
        rows = frame[frame["method"] == method]
        out[method] = {"label": label, **{
            gold_set: summarize(rows[rows["gold_set"] == gold_set], POPULATIONS[track.name], seed, resamples,
                                intervals=gold_set == "actual")
            for gold_set in GOLD_SETS}}
    return out


def baselines_report(track, seed: int, resamples: int, progress=None) -> dict:
    """Everything `realcompanion baselines` reports for one track, before formatting."""
    from .auroc import auroc_summary

    frame, rankers = run_baselines(track, seed, progress)
    out = {"excluded": track.excluded(), "dropped_citations": track.dropped_citations(),
           "pool": pool_report(track.retrievable()),
           "baselines": summarize_baselines(track, frame, seed, resamples),
           "per_item": frame[frame["gold_set"] == "actual"].drop(columns="gold_set").to_dict("records")}
    if track.name == "chat":
        out["detectability"] = {"bm25_top1": auroc_summary(*bm25_detectability(track, rankers), seed, resamples)}
    return out
