"""Substituted gold sets (paper Tables 29 and 33): what a score means when the gold is not the gold.

offset_permuted      Keeps each item's pool and the population's distribution
                     of probe-to-gold distances, destroys the content
                     relation: each item takes the distance set (pool end minus
                     gold position) of a donor drawn at random (seeded, per
                     item) among the other items of the population whose set
                     fits its pool, weighted so that each set is drawn once on
                     average (`set_weights`); its own set only when no other
                     fits. Donors are drawn with replacement, so the distances
                     are a sample of the population's distribution, not a
                     permutation of it: recency, a function of the distances
                     alone, moves by that sample's deviation (Table 33: 0.979 ->
                     0.982), which an exact permutation would forbid.
position_randomized  Keeps the pool and the gold-set size, destroys both the
                     distances and the content relation: as many pool
                     messages as the item has gold, drawn at random (seeded).
The broken oracle (Table 29's third control) is a ranking, see `baselines`.
"""
from __future__ import annotations

import numpy as np

from realcompanion.scoring.seeding import item_rng

GOLD_SETS = ("actual", "offset_permuted", "position_randomized")


def set_weights(fitting: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Weights of the distance sets (in reach order) such that, each item drawing among the other sets that fit
    its pool (the first fitting[i] in reach order, its own at rank[i] left out) with chances proportional to the
    weights, every set is drawn once on average: the fit matrix balanced by Sinkhorn's iteration (rows, then
    columns), computed on cumulative sums since the sets that fit a pool are a prefix of the reach order.
    Unweighted, an item with a small pool can take only short sets and one with a large pool any set, so short
    distances were drawn more often than the population holds them (the distant items' median distance fell from
    997 to 389 messages on the paper-scale release)."""
    n, weights = rank.size, np.ones(rank.size)
    rows = np.zeros(n)
    for _ in range(SINKHORN_ROUNDS):
        prefix = np.concatenate([[0.0], np.cumsum(weights)])
        offered = prefix[fitting] - weights[rank]  # each item's other fitting sets
        rows = np.divide(1.0, offered, out=np.zeros(n), where=offered > 0)
        # set at position s is offered to the items with fitting > s, its own item (order[s]) left out
        reaching = np.cumsum(np.bincount(fitting, weights=rows, minlength=n + 1)[::-1])[::-1][1:]
        takers = reaching - rows[np.argsort(rank)]
        weights = np.divide(1.0, takers, out=np.zeros(n), where=takers > 0)
    return weights


# Rounds of the balancing: fit matrices rarely admit an exact balance (a set only its own item reaches), so the
# iteration approaches it slowly; after 300 rounds nine sets in ten are drawn within 0.03 of once on average on a
# random staircase of 3,312 items (0.33 s), after 100 within 0.08
SINKHORN_ROUNDS = 300
WEIGHT_FLOOR = 1e-6  # of the largest weight


def drawn_offsets(pools: np.ndarray, offsets: list[np.ndarray], ids: list[str], seed: int,
                  population: str) -> list[int]:
    """For each item, the index of the donor whose distance set it takes: drawn with replacement among the other
    items whose set fits its pool, with the weights of `set_weights`, from the item's own seeded stream; its own
    set when no other fits."""
    reach = np.array([o.max() for o in offsets])
    order = np.lexsort((np.array(ids), reach))  # by reach, then id: a draw does not depend on the items' order
    fitting = np.searchsorted(reach[order], pools, side="right")  # the sets of order[:fitting[i]] fit item i's pool
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    weights = set_weights(fitting, rank)
    # a balance that does not exist drives some weights towards 0: kept drawable, so that an item takes another
    # item's set whenever one fits, and far enough from 0 that the sums below lose nothing to rounding
    weights = np.maximum(weights, WEIGHT_FLOOR * weights.max()) if weights.size else weights
    prefix = np.concatenate([[0.0], np.cumsum(weights)])
    taken = []
    for item, count in enumerate(fitting):
        own = rank[item]
        before, after = prefix[own], prefix[count] - prefix[own + 1]  # the other fitting sets, either side of its own
        if count < 2:
            taken.append(item)
            continue
        point = item_rng(seed, f"offset_permuted:{population}", ids[item]).random() * (before + after)
        point = point if point < before else prefix[own + 1] + (point - before)  # step over the item's own set
        at = int(np.searchsorted(prefix, point, side="right")) - 1
        at = min(max(at, 0), count - 1)
        taken.append(int(order[at if at != own else at + 1 if at + 1 < count else at - 1]))
    return taken


def substituted_golds(track, items, seed: int) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """For every item and population it belongs to, its gold set under each entry of GOLD_SETS."""
    out: dict[str, dict[str, dict[str, np.ndarray]]] = {i.item_id: {} for i in items}
    members: dict[str, list] = {}
    for item in items:
        for population, gold in track.populations(item).items():
            members.setdefault(population, []).append((item, gold))
    for population, pairs in members.items():
        pools = np.array([item.pool_end for item, _ in pairs])
        offsets = [item.pool_end - gold for item, gold in pairs]
        taken = drawn_offsets(pools, offsets, [item.item_id for item, _ in pairs], seed, population)
        for (item, gold), donor in zip(pairs, taken, strict=True):
            drawn = item_rng(seed, f"position_randomized:{population}", item.item_id).choice(
                item.pool_end, gold.size, replace=False)
            out[item.item_id][population] = {"actual": gold, "offset_permuted": np.unique(item.pool_end - offsets[donor]),
                                             "position_randomized": np.sort(drawn)}
    return out
