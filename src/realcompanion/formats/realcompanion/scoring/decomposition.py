"""Table 8: a content-match contrast split by ground-truth demand, per stratum and reading.

For two conditions A and B (the gain B - A, per item: B's verdict minus A's) and the items of a stratum judged
under both, with pi the share of them memory-bearing under the reading:

  gain = pi * gamma_1 + (1 - pi) * gamma_0

gamma_1 is the mean gain on the memory-bearing items, gamma_0 on the others; "from no-memory rows" is
(1 - pi) * gamma_0 / gain, the share of the gain that comes from items that need no memory. The abstract's
"at the natural rate 96% of the gain from supplying recorded evidence comes from messages that need none" is
the proportional stratum's share for C2 - C1 (recorded evidence against the three preceding messages, the
contrast of Table 36 and of Table 40's last row).

Strata: `both` (every scored item, Table 35's 1,533) and `proportional` (the scored items of the proportional
stratum, 1,169). Readings: every memory-bearing reading the release declares (Table 8 prints recorded and
strict). The two products are sums over the stratum divided by its n, so they always add up to the gain (the
mean paired difference, Table 36's contrast without its interval); gamma_1 or gamma_0 is null when its class
is empty, the share when the gain is 0.
"""
from __future__ import annotations

from .gold import PROPORTIONAL

STRATA = {"both": lambda i: i.scored, "proportional": lambda i: i.scored and i.stratum == PROPORTIONAL}


def split(gains: list[tuple[bool, float]]) -> dict:
    """Table 8's columns for (memory-bearing, gain) pairs of one stratum under one reading."""
    n = len(gains)
    dependent = [g for needs, g in gains if needs]
    other = [g for needs, g in gains if not needs]
    if not n:
        return {"n": 0, "memory_bearing": 0, "pi": None, "gamma_1": None, "gamma_0": None, "pi_gamma_1": None,
                "rest_gamma_0": None, "gain": None, "from_no_memory_rows": None}
    pi_gamma_1, rest_gamma_0 = sum(dependent) / n, sum(other) / n
    gain = pi_gamma_1 + rest_gamma_0
    return {"n": n, "memory_bearing": len(dependent), "pi": len(dependent) / n,
            "gamma_1": sum(dependent) / len(dependent) if dependent else None,
            "gamma_0": sum(other) / len(other) if other else None,
            "pi_gamma_1": pi_gamma_1, "rest_gamma_0": rest_gamma_0, "gain": gain,
            "from_no_memory_rows": rest_gamma_0 / gain if gain else None}


def decomposition(track, first: dict, second: dict, column: str = "content_match") -> dict:
    """{stratum: {reading: Table 8's columns}} for verdicts `second` minus `first` (verdict rows by item id)."""
    out = {}
    for stratum, member in STRATA.items():
        pairs = [(i, float(second[i.item_id][column]) - float(first[i.item_id][column])) for i in track.items
                 if member(i) and i.item_id in first and i.item_id in second]
        out[stratum] = {reading: split([(bool((i.memory_bearing or {}).get(reading)), gain) for i, gain in pairs])
                        for reading in track.definitions["readings"]}
    return out
