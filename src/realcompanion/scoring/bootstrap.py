"""Confidence intervals from resampling participants (paper Table 36), seeded.

Items of one participant are not independent (same person, same stream), so
the unit resampled is the participant: each resample draws participants with
replacement and recomputes the statistic on all their items. Intervals are
scipy's percentile bootstrap at `settings.CONFIDENCE_LEVEL`. A statistic that
is undefined on some resamples (an AUROC whose resample lacks a class) gets
the percentile interval of the defined resamples, and the report says how
many were undefined (scipy's own warning about them, which names the BCa method, is
silenced). Fewer than two participants, or no defined resample: no interval.
"""
from __future__ import annotations

import numpy as np

from ..formats.realcompanion.scoring.settings import CONFIDENCE_LEVEL


def participant_interval(n_participants: int, statistic, seed: int, resamples: int) -> dict | None:
    """Interval of `statistic(idx, axis)`, vectorized over resampled participant indices `idx`."""
    import warnings

    from scipy.stats import DegenerateDataWarning, bootstrap

    if n_participants < 2:
        return None
    with warnings.catch_warnings():  # undefined resamples are handled below; scipy's warning names BCa, not used here
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = bootstrap((np.arange(n_participants),), statistic, vectorized=True, n_resamples=resamples,
                           method="percentile", confidence_level=CONFIDENCE_LEVEL, rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    undefined = int(np.isnan(result.bootstrap_distribution).sum())
    if undefined == result.bootstrap_distribution.size:
        return None
    if undefined:
        tail = 50 * (1 - CONFIDENCE_LEVEL)
        low, high = np.nanpercentile(result.bootstrap_distribution, [tail, 100 - tail])
    return {"low": float(low), "high": float(high), "undefined_resamples": undefined}


def mean_intervals(values, participants, seed: int, resamples: int) -> dict:
    """Intervals of the pooled and the macro mean of per-item `values`."""
    import pandas as pd

    grouped = pd.Series(np.asarray(values, dtype=float)).groupby(np.asarray(participants), sort=True)
    sums, counts = grouped.sum().to_numpy(), grouped.count().to_numpy().astype(float)
    means = sums / counts

    def pooled(idx, axis=-1):
        return sums[idx].sum(axis) / counts[idx].sum(axis)

    def macro(idx, axis=-1):
        return means[idx].mean(axis)

    return {"pooled": participant_interval(len(sums), pooled, seed, resamples),
            "macro": participant_interval(len(sums), macro, seed, resamples)}
