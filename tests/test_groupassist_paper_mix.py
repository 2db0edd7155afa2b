"""The paper plan's M1/M2/M3 split of evaluated instances, recovered from the GroupAssistBench paper's Table 3.

Table 3's "L1 avg. met" and "L2 avg. S-bar" columns are instance-weighted means of
its M1-M3 columns, so the per-dependency counts (Table 10, not in the text) are the
integer vectors for which every system's weighted mean of the printed cells lands
on the printed overall figure. Every figure is rounded to 3 decimals, so the
weighted mean of the printed cells may differ from the printed overall by up to
0.0005 (the overall's rounding) + 0.0005 (the cells' rounding, weights summing to 1).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.plan import DEPENDENCIES, PAPER_DEPENDENCIES, PAPER_FEEDBACK, paper_plan, plan
from realcompanion.formats.groupassist.synth import synthesize

# GroupAssistBench paper, Table 3, all 14 systems: (M1, M2, M3, overall) of L1 met and of L2 S-bar.
TABLE_3 = {
    "L1": [
        (0.739, 0.504, 0.429, 0.628),  # Claude Sonnet 5
        (0.766, 0.572, 0.455, 0.669),  # DeepSeek-v4-flash
        (0.622, 0.344, 0.285, 0.494),  # Qwen-3.5-9b
        (0.685, 0.436, 0.377, 0.570),  # GPT-5.6-terra
        (0.676, 0.378, 0.313, 0.539),  # BM25
        (0.651, 0.374, 0.358, 0.529),  # Dense retrieval
        (0.618, 0.356, 0.356, 0.504),  # GraphRAG
        (0.647, 0.350, 0.345, 0.517),  # RAPTOR
        (0.464, 0.252, 0.234, 0.370),  # Mem0
        (0.290, 0.133, 0.178, 0.227),  # LightMem
        (0.537, 0.342, 0.355, 0.454),  # A-MEM
        (0.623, 0.387, 0.327, 0.513),  # MemoryOS
        (0.620, 0.455, 0.435, 0.546),  # xMemory
        (0.679, 0.540, 0.561, 0.621),  # EverMemOS
    ],
    "L2": [
        (0.473, 0.426, 0.371, 0.428),
        (0.510, 0.478, 0.374, 0.469),
        (0.446, 0.343, 0.226, 0.348),
        (0.505, 0.435, 0.303, 0.431),
        (0.446, 0.376, 0.230, 0.370),
        (0.428, 0.368, 0.242, 0.362),
        (0.399, 0.351, 0.236, 0.344),
        (0.422, 0.327, 0.237, 0.334),
        (0.305, 0.241, 0.172, 0.245),
        (0.192, 0.131, 0.094, 0.139),
        (0.321, 0.218, 0.185, 0.235),
        (0.380, 0.255, 0.168, 0.269),
        (0.133, 0.223, 0.220, 0.203),
        (0.137, 0.284, 0.253, 0.247),
    ],
}
TOTALS = {"L1": 1_374, "L2": 1_021}  # App. D
HALF_UNIT = 0.0005


def _cells_and_overall(level):
    table = np.array(TABLE_3[level])
    return table[:, :3], table[:, 3]


def _worst_residual(level, counts):
    """Largest |weighted mean of the printed cells - printed overall| over the systems, per count vector."""
    cells, overall = _cells_and_overall(level)
    return np.abs(np.asarray(counts, float) @ cells.T / TOTALS[level] - overall).max(axis=-1)


def _every_split(level):
    n = TOTALS[level]
    first, second = np.triu_indices(n + 1)  # first <= second: M1 = first, M2 = second - first
    return np.stack([first, second - first, n - second], axis=1)


def _least_squares_shares(level):
    """Weights summing to 1 that best reproduce the overall column (M3 = 1 - M1 - M2)."""
    cells, overall = _cells_and_overall(level)
    (w1, w2), *_ = np.linalg.lstsq(cells[:, :2] - cells[:, 2:], overall - cells[:, 2], rcond=None)
    return np.array([w1, w2, 1 - w1 - w2])


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_the_chosen_split_reproduces_every_printed_overall(level):
    counts = PAPER_DEPENDENCIES[level]
    assert sum(counts) == TOTALS[level]
    assert _worst_residual(level, counts) <= 2 * HALF_UNIT
    assert _worst_residual(level, (1, 1, 1)) > 0.05  # the plain mean of the three cells does not


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_the_chosen_split_is_the_feasible_one_closest_to_least_squares(level):
    splits = _every_split(level)
    feasible = splits[_worst_residual(level, splits) <= 2 * HALF_UNIT]
    shares = _least_squares_shares(level)
    closest = feasible[np.argmin(((feasible / TOTALS[level] - shares) ** 2).sum(axis=1))]
    assert tuple(closest) == PAPER_DEPENDENCIES[level]
    # it is also the largest-remainder rounding of the least-squares counts
    raw = shares * TOTALS[level]
    rounded = np.floor(raw).astype(int)
    rounded[np.argsort(rounded - raw)[: TOTALS[level] - rounded.sum()]] += 1
    assert tuple(rounded) == PAPER_DEPENDENCIES[level]


@pytest.mark.parametrize("level", ["L1", "L2"])
def test_no_split_meets_the_overall_rounding_alone(level):
    """Ignoring the cells' own rounding (tolerance 0.0005) leaves no integer split at all."""
    assert _worst_residual(level, _every_split(level)).min() > HALF_UNIT


def test_the_paper_plan_has_exactly_those_counts():
    counts = Counter()
    for group in paper_plan():
        assert len(group.dependencies) == group.eval_l1 + group.eval_l2
        counts.update(("L1", d) for d in group.dependencies[: group.eval_l1])
        counts.update(("L2", d) for d in group.dependencies[group.eval_l1:])
    assert {level: tuple(counts[level, d] for d in DEPENDENCIES) for level in TOTALS} == PAPER_DEPENDENCIES


def test_the_generator_follows_a_planned_split(tmp_path):
    planned = {"L1": (8, 3, 1), "L2": (2, 5, 2)}
    plans = plan(2, 3_000, 12, 9, 10, 2, {p: 1 for p in PAPER_FEEDBACK}, planned)
    synthesize(tmp_path / "release", plans, 0, SPECIMEN)
    instances = GroupAssistRelease(tmp_path / "release").frame("instances")
    made = Counter(zip(*(instances.loc[instances["split"] == "eval", c] for c in ("level", "dependency"))))
    assert {level: tuple(made[level, d] for d in DEPENDENCIES) for level in planned} == planned
