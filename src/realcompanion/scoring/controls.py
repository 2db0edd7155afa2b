"""Substituted gold sets (paper Tables 29 and 33): what a score means when the gold is not the gold.

offset_permuted      Keeps each item's pool and the population's distribution
                     of probe-to-gold distances, destroys the content
                     relation: each item takes the distance set (pool end minus
                     gold position) of a donor drawn at random (seeded, per
                     item) among the other items of the population whose set
                     fits its pool; its own set only when no other fits. Donors
                     are drawn with replacement, so the distances are a sample
                     of the population's distribution, not a permutation of it:
                     recency, a function of the distances alone, moves by that
                     sample's deviation (Table 33: 0.979 -> 0.982), which an
                     exact permutation would forbid.
position_randomized  Keeps the pool and the gold-set size, destroys both the
                     distances and the content relation: as many pool
                     messages as the item has gold, drawn at random (seeded).
The broken oracle (Table 29's third control) is a ranking, see `baselines`.
"""
from __future__ import annotations

import numpy as np

from .seeding import item_rng

GOLD_SETS = ("actual", "offset_permuted", "position_randomized")


def drawn_offsets(pools: np.ndarray, offsets: list[np.ndarray], ids: list[str], seed: int,
                  population: str) -> list[int]:
    """For each item, the index of the donor whose distance set it takes: drawn with replacement among the other
    items whose set fits its pool (its own when none does), from the item's own seeded stream."""
    reach = np.array([o.max() for o in offsets])
    order = np.lexsort((np.array(ids), reach))  # by reach, then id: a draw does not depend on the items' order
    fitting = np.searchsorted(reach[order], pools, side="right")  # the sets of order[:fitting[i]] fit item i's pool
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    taken = []
    for item, count in enumerate(fitting):
        rng = item_rng(seed, f"offset_permuted:{population}", ids[item])
        others = count - 1  # item's own set always fits its own pool
        if not others:
            taken.append(item)
            continue
        pick = rng.integers(others)
        taken.append(int(order[pick + (pick >= rank[item])]))
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
