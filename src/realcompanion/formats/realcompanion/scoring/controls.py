"""Substituted gold sets (paper Tables 29 and 33): what a score means when the gold is not the gold.

offset_permuted      Keeps each item's pool and the population's distribution
                     of probe-to-gold distances exactly, destroys the content
                     relation: the items' distance sets (pool end minus gold
                     position) are permuted among the items of the population,
                     each set used once, an item taking a set that fits its
                     pool and, unless only its own fits, another item's. The
                     permutation is drawn (seeded) most constrained item first
                     (smallest pool; ties in seeded random order) from the
                     unused sets that fit; since each item's own set fits its
                     pool, a fitting set is always left.
position_randomized  Keeps the pool and the gold-set size, destroys both the
                     distances and the content relation: as many pool
                     messages as the item has gold, drawn at random (seeded).
The broken oracle (Table 29's third control) is a ranking, see `baselines`.
"""
from __future__ import annotations

import zlib

import numpy as np

from realcompanion.scoring.seeding import item_rng

GOLD_SETS = ("actual", "offset_permuted", "position_randomized")


def permuted_offsets(pools: np.ndarray, offsets: list[np.ndarray], rng) -> list[int]:
    """For each item, the index of the distance set it takes: a permutation, every set fitting its taker's pool."""
    reach = np.array([o.max() for o in offsets])
    order = np.lexsort((rng.permutation(pools.size), pools))
    free, taken = np.ones(pools.size, dtype=bool), [0] * pools.size
    for item in order:
        fits = np.flatnonzero(free & (reach <= pools[item]))
        others = fits[fits != item]
        choice = rng.choice(others) if others.size else item
        free[choice], taken[item] = False, int(choice)
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
        rng = np.random.default_rng([seed, zlib.crc32(f"offset_permuted:{population}".encode())])
        taken = permuted_offsets(pools, offsets, rng)
        for (item, gold), donor in zip(pairs, taken, strict=True):
            drawn = item_rng(seed, f"position_randomized:{population}", item.item_id).choice(
                item.pool_end, gold.size, replace=False)
            out[item.item_id][population] = {"actual": gold, "offset_permuted": np.unique(item.pool_end - offsets[donor]),
                                             "position_randomized": np.sort(drawn)}
    return out
