"""Area under the ROC curve of a score against a recorded label, with a participant interval.

Used for detectability (does a signal - a retriever's top-1 score, whether a
reply used memory - separate memory-bearing probes from the rest, Table 30)
and for abstention (does abstaining separate unanswerable questions). The
AUROC is the Mann-Whitney U of the positives' scores against the negatives'
over n_pos * n_neg (ties count one half), from `scipy.stats.mannwhitneyu`.
With one class only it is undefined and reported as null, never as 0.5.

U is a sum over (positive, negative) pairs, so it splits by the participants
the two items come from: U = sum over participant pairs (a, b) of U(a's
positives, b's negatives). Those P x P terms are computed once; a bootstrap
resample of participants then only adds up the terms of the participants it
drew, which makes the participant interval exact and vectorized.
"""
from __future__ import annotations

import numpy as np

from realcompanion.scoring.bootstrap import participant_interval


def _u(positives: np.ndarray, negatives: np.ndarray) -> float:
    from scipy.stats import mannwhitneyu

    if not positives.size or not negatives.size:
        return 0.0
    return float(mannwhitneyu(positives, negatives, method="asymptotic").statistic)


def auroc(scores, labels) -> float | None:
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels, dtype=bool)
    pairs = labels.sum() * (~labels).sum()
    return _u(scores[labels], scores[~labels]) / pairs if pairs else None


def resampled_auroc(scores, labels, participants):
    """statistic(idx, axis): the AUROC of each resample of participant indices (sorted participant order);
    NaN where a resample lacks a class."""
    groups = [(scores[(participants == p) & labels], scores[(participants == p) & ~labels])
              for p in np.unique(participants)]
    u = np.array([[_u(pos, neg) for _, neg in groups] for pos, _ in groups])
    n_pos = np.array([pos.size for pos, _ in groups], dtype=float)
    n_neg = np.array([neg.size for _, neg in groups], dtype=float)

    def statistic(idx, axis=-1):
        pairs = n_pos[idx].sum(axis) * n_neg[idx].sum(axis)
        total = u[idx[..., :, None], idx[..., None, :]].sum(axis=(-2, -1))
        return np.where(pairs > 0, total / np.where(pairs > 0, pairs, 1), np.nan)

    return statistic


def auroc_summary(scores, labels, participants, seed: int, resamples: int) -> dict:
    scores, labels, participants = (np.asarray(scores, dtype=float), np.asarray(labels, dtype=bool),
                                    np.asarray(participants))
    value = auroc(scores, labels)
    interval = participant_interval(np.unique(participants).size, resampled_auroc(scores, labels, participants),
                                    seed, resamples) if value is not None else None
    return {"n": int(labels.size), "positives": int(labels.sum()), "auroc": value, "ci": interval}
