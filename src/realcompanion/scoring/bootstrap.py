"""Confidence intervals from resampling participants (paper Table 36), seeded.

Items of one participant are not independent (same person, same stream), so
the unit resampled is the participant: each resample draws participants with
replacement and recomputes the statistic on all their items. Intervals are
scipy's percentile bootstrap at the method's CONFIDENCE_LEVEL. A statistic that
is undefined on some resamples (an AUROC whose resample lacks a class) gets
the percentile interval of the defined resamples, and the report says how
many were undefined (scipy's own warning about them, which names the BCa method, is
silenced). Fewer than two participants, or no defined resample: no interval.
"""
from __future__ import annotations

import numpy as np

from ..formats import DEFAULT, part

CONFIDENCE_LEVEL = part(DEFAULT, "settings").CONFIDENCE_LEVEL  # Table 36, which every format's intervals keep

# blocks resampled in one call of `table_intervals`: each call holds two rows of `resamples` statistics a block, and
# copies of them (720 blocks at 2,000 resamples took 66 MB at once)
TOGETHER = 100


def participant_interval(n_participants: int, statistic, seed: int, resamples: int) -> dict | None:
    """Interval of `statistic(idx, axis)`, vectorized over resampled participant indices `idx`."""
    return participant_intervals(n_participants, lambda idx, axis=-1: statistic(idx, axis)[None], 1, seed,
                                 resamples)[0]


def participant_intervals(n_participants: int, statistic, k: int, seed: int, resamples: int) -> list[dict | None]:
    """The interval of each of the `k` statistics `statistic(idx, axis)` returns (an array, one row each), from one
    set of resamples: each interval is the one `participant_interval` gives that statistic alone, since both draw
    the same participants from the same seed. Scoring many cells of one size costs one call, not one each."""
    import warnings

    from scipy.stats import DegenerateDataWarning, bootstrap

    if n_participants < 2:
        return [None] * k
    with warnings.catch_warnings():  # undefined resamples are handled below; scipy's warning names BCa, not used here
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = bootstrap((np.arange(n_participants),), statistic, vectorized=True, n_resamples=resamples,
                           method="percentile", confidence_level=CONFIDENCE_LEVEL, rng=np.random.default_rng(seed))
    lows, highs = (np.atleast_1d(bound) for bound in result.confidence_interval)
    out = []
    for row, low, high in zip(np.atleast_2d(result.bootstrap_distribution), lows, highs):
        undefined = int(np.isnan(row).sum())
        if undefined == row.size:
            out.append(None)
            continue
        if undefined:
            tail = 50 * (1 - CONFIDENCE_LEVEL)
            low, high = np.nanpercentile(row, [tail, 100 - tail])
        out.append({"low": float(low), "high": float(high), "undefined_resamples": undefined})
    return out


def mean_intervals(values, participants, seed: int, resamples: int) -> dict:
    """Intervals of the pooled and the macro mean of per-item `values`."""
    return mean_intervals_many([(values, participants)], seed, resamples)[0]


def mean_intervals_many(blocks, seed: int, resamples: int) -> list[dict]:
    """`mean_intervals` of each (values, participants) of `blocks`, the blocks with as many participants resampled
    together (`participant_intervals`): the same numbers, one bootstrap per size instead of two per block."""
    import pandas as pd

    tables = []
    for values, participants in blocks:
        grouped = pd.Series(np.asarray(values, dtype=float)).groupby(np.asarray(participants), sort=True)
        tables.append((grouped.sum().to_numpy(), grouped.count().to_numpy()))
    return table_intervals(tables, seed, resamples)


def table_intervals(tables, seed: int, resamples: int) -> list[dict]:
    """`mean_intervals_many` of blocks given as (sums, counts) per participant (sorted by participant, as pandas'
    group-by gives them), for a caller that summed every block in one group-by."""
    tables = [(sums, counts, sums / counts) for sums, counts in ((s, c.astype(float)) for s, c in tables)]
    out: list[dict] = [{} for _ in tables]
    for size in sorted({len(sums) for sums, _, _ in tables}):
        positions = [k for k in range(len(tables)) if len(tables[k][0]) == size]
        for at in range(0, len(positions), TOGETHER):  # each draws the same participants: the same intervals
            taken = positions[at:at + TOGETHER]
            chosen = [tables[k] for k in taken]

            def both(idx, axis=-1, chosen=chosen):  # block by block: the very sums `mean_intervals` of one block makes
                return np.stack([sums[idx].sum(axis) / counts[idx].sum(axis) for sums, counts, _ in chosen] +
                                [means[idx].mean(axis) for _, _, means in chosen])

            found = participant_intervals(size, both, 2 * len(chosen), seed, resamples)
            for j, k in enumerate(taken):
                out[k] = {"pooled": found[j], "macro": found[len(chosen) + j]}
    return out
