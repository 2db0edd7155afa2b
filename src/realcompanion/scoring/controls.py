"""Substituted gold sets (paper Tables 29 and 33): what a score means when the gold is not the gold.

offset_permuted      Keeps the pool and the distribution of probe-to-gold
                     distances, destroys the content relation: each item takes
                     the distances (pool end minus gold position) of another
                     retrieval-scoreable item of the track, drawn at random
                     (seeded) among those whose distances all fit in its pool
                     (the item itself always fits, so there is always a donor).
position_randomized  Keeps the pool and the gold-set size, destroys both the
                     distances and the content relation: as many pool
                     messages as the item has gold, drawn at random (seeded).
The broken oracle (Table 29's third control) is a ranking, see `baselines`.
"""
from __future__ import annotations

import numpy as np

from .seeding import item_rng

GOLD_SETS = ("actual", "offset_permuted", "position_randomized")


def substituted_golds(items, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """For every item, its gold set under each entry of GOLD_SETS."""
    offsets = [item.pool_end - item.gold for item in items]
    reach = np.array([o.max() for o in offsets])
    out = {}
    for item in items:
        donors = np.flatnonzero(reach <= item.pool_end)
        donor = offsets[item_rng(seed, "offset_permuted", item.item_id).choice(donors)]
        drawn = item_rng(seed, "position_randomized", item.item_id).choice(item.pool_end, item.gold.size,
                                                                          replace=False)
        out[item.item_id] = {"actual": item.gold, "offset_permuted": np.unique(item.pool_end - donor),
                             "position_randomized": np.sort(drawn)}
    return out
