"""The paper's six reference rankers (Table 4) and their scores under the controls (Table 33).

random         the pool in a seeded random order (one draw); beside it,
               random_expected: the exact expectation over every ordering
               (`metrics.random_expectation`), no draw involved.
recency_user   the participant's own (user) messages of the pool, most recent
               first ("recency over participant messages"; companion messages
               are not ranked).
recency        the whole pool, most recent first.
bm25           the pool messages matching the probe, by BM25 score with
               statistics of the pool only (see `bm25`); with fallback
               "recency", the unmatched messages follow, most recent first.
oracle         the gold set, nothing else: 1 on every metric by construction.
broken_oracle  `BROKEN_ORACLE_SIZE` pool messages outside the gold, drawn at
               random (seeded); every pool message outside the gold when the
               pool holds fewer: 0 on every metric by construction.
The oracle and the broken oracle are rebuilt for each substituted gold set;
the other rankings do not look at the gold and are scored against all three.
"""
from __future__ import annotations

import numpy as np

from realcompanion.scoring.bm25 import Indexes
from realcompanion.scoring.seeding import item_rng

from .controls import GOLD_SETS, substituted_golds
from .gold import POPULATIONS
from .metrics import metric_names, random_expectation
from .retrieval import evaluate, pool_report, summarize
from .settings import BROKEN_ORACLE_SIZE

METHODS = {
    "random": "Random",
    "random_expected": "Random (exact expectation)",
    "recency_user": "Recency over participant messages",
    "recency": "Recency",
    "bm25": "BM25",
    "oracle": "Oracle",
    "broken_oracle": "Broken oracle",
}
USES_GOLD = {"oracle", "broken_oracle"}
EXPECTED = {"random_expected"}


class Rankers:
    """Builds each method's ranking of an item's pool (positions, best first)."""

    def __init__(self, track, seed: int, fallback: str = "none"):
        self.track, self.seed, self.fallback = track, seed, fallback
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
            return self.indexes[item.participant_id].rank(item.query, item.pool_end, self.fallback)[0]
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
        scores = self.indexes[item.participant_id].scores(item.query, item.pool_end)
        return float(scores.max()) if scores.size else 0.0


def run_baselines(track, seed: int, progress=None, fallback: str = "none"):
    """One row per (item, population, method, gold set): the per-item frame every baseline summary is built from."""
    import pandas as pd

    items = track.retrievable()
    golds = substituted_golds(track, items, seed)
    rankers, rows = Rankers(track, seed, fallback), []
    for item in items:
        fixed = {m: rankers.rank(m, item) for m in METHODS if m not in USES_GOLD | EXPECTED}
        for population, by_set in golds[item.item_id].items():
            for gold_set, gold in by_set.items():
                for method in METHODS:
                    key = {"method": method, "gold_set": gold_set}
                    if method in EXPECTED:
                        rows.append(key | evaluate(item, population, [], gold)
                                    | random_expectation(item.pool_end, gold.size))
                        continue
                    ranking = rankers.rank(method, item, gold) if method in USES_GOLD else fixed[method]
                    rows.append(key | evaluate(item, population, ranking, gold))
        if progress:
            progress()
    columns = ["method", "gold_set", "item_id", "participant_id", "population", "pool", "gold_size",
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


def found_share(track, frame) -> dict[str, dict]:
    """Per method: the share of all scored probes whose required message is in the top 5 (abstract: recency finds
    "the required message for 95.9% of probes"); a probe without a required message counts as not found."""
    scored = len(track.scored())
    rows = frame[(frame["gold_set"] == "actual") & (frame["population"] == "all")]
    return {m: {"found": float(rows.loc[rows["method"] == m, "hit@5"].sum()), "probes": scored,
                "share": float(rows.loc[rows["method"] == m, "hit@5"].sum()) / scored if scored else None}
            for m in METHODS}


def baselines_report(track, seed: int, resamples: int, progress=None, fallback: str = "none") -> dict:
    """Everything `realcompanion baselines` reports for one track, before formatting."""
    from .auroc import auroc_summary

    frame, rankers = run_baselines(track, seed, progress, fallback)
    out = {"excluded": track.excluded(), "kept_out": track.kept_out(), "dropped_citations": track.dropped_citations(),
           "pool": pool_report(track.retrievable()),
           "baselines": summarize_baselines(track, frame, seed, resamples),
           "found_share_top5": found_share(track, frame),
           "per_item": frame[frame["gold_set"] == "actual"].drop(columns="gold_set").to_dict("records")}
    if track.name == "chat":
        out["detectability"] = {"bm25_top1": auroc_summary(*bm25_detectability(track, rankers), seed, resamples)}
        out["demand_rate"] = demand_rate(track)
    return out


def demand_rate(track) -> dict[str, dict]:
    """Table 32's natural-rate row: the share of proportional-stratum scored rows memory-bearing under each
    reading, with its Wilson interval over rows (40 / 1,169 -> 3.4 [2.5, 4.6] in the paper)."""
    from .metrics import wilson

    rows = [i for i in track.scored() if i.stratum == "proportional"]
    out = {}
    for reading in track.definitions["readings"]:
        k = sum(bool(i.memory_bearing.get(reading)) for i in rows)
        out[reading] = {"memory_bearing": k, "rows": len(rows), "share": k / len(rows) if rows else None,
                        "wilson": wilson(k, len(rows))}
    return out
