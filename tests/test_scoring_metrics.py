"""Metric functions on small hand-computed fixtures: exact values."""
from __future__ import annotations

import numpy as np
import pytest

from realcompanion.formats.realcompanion.scoring.auroc import auroc, auroc_summary, resampled_auroc
from realcompanion.formats.realcompanion.scoring.metrics import item_metrics, pooled_and_macro
from realcompanion.scoring.bootstrap import mean_intervals


def test_two_gold_messages_at_ranks_two_and_four():
    m = item_metrics([5, 3, 9, 1], [1, 3])
    assert m == {"hit@1": 0.0, "hit@5": 1.0, "hit@20": 1.0, "recall@1": 0.0, "recall@5": 1.0, "recall@20": 1.0,
                 "mrr": 0.5}


def test_recall_is_over_the_whole_gold_set():
    m = item_metrics([4, 0, 1, 2], [4, 7, 8])
    assert m["recall@1"] == pytest.approx(1 / 3) and m["hit@1"] == 1.0
    assert m["recall@5"] == pytest.approx(1 / 3) and m["recall@20"] == pytest.approx(1 / 3)
    assert m["mrr"] == 1.0
    # Table 30: gold {a, b}, ranking [b, x, a]
    m = item_metrics([11, 99, 10], [10, 11])
    assert (m["recall@1"], m["recall@5"], m["hit@1"]) == (0.5, 1.0, 1.0)


def test_gold_beyond_twenty_counts_only_for_mrr():
    ranking = list(range(100, 125)) + [7]
    m = item_metrics(ranking, [7])
    assert m["hit@20"] == 0.0 and m["recall@20"] == 0.0 and m["mrr"] == pytest.approx(1 / 26)


@pytest.mark.parametrize("ranking", [[], [8, 9]])
def test_no_gold_ranked_is_zero_everywhere(ranking):
    assert set(item_metrics(ranking, [2]).values()) == {0.0}


def test_pooled_and_macro():
    s = pooled_and_macro([1, 0, 0, 1, 1], ["A", "A", "A", "B", "B"])
    assert s["n"] == 5 and s["pooled"] == pytest.approx(0.6) and s["macro"] == pytest.approx((1 / 3 + 1) / 2)
    assert s["by_participant"] == {"A": pytest.approx(1 / 3), "B": 1.0}


def test_auroc_counts_ties_as_half():
    assert auroc([0.9, 0.8, 0.1, 0.8], [1, 0, 0, 1]) == pytest.approx(3.5 / 4)
    assert auroc([0.2, 0.3], [1, 1]) is None


def test_resampled_auroc_equals_auroc_of_the_resampled_items():
    rng = np.random.default_rng(3)
    scores, labels = rng.integers(0, 5, 60).astype(float), rng.random(60) < 0.4
    participants = np.repeat(["A", "B", "C"], 20)
    statistic = resampled_auroc(scores, labels, participants)
    idx = np.array([[0, 0, 2], [1, 2, 2]])
    expected = [auroc(np.concatenate([scores[participants == "ABC"[i]] for i in row]),
                      np.concatenate([labels[participants == "ABC"[i]] for i in row])) for row in idx]
    assert statistic(idx) == pytest.approx(expected)


def test_intervals_are_seeded():
    values, participants = [1, 0, 1, 1, 0, 0, 1, 0], list("AABBCCDD")
    first, again = mean_intervals(values, participants, 7, 300), mean_intervals(values, participants, 7, 300)
    assert first == again
    assert first["pooled"]["low"] <= 0.5 <= first["pooled"]["high"]
    assert mean_intervals([1, 0], ["A", "A"], 7, 300) == {"pooled": None, "macro": None}


def test_auroc_interval_brackets_the_estimate():
    rng = np.random.default_rng(0)
    labels = rng.random(80) < 0.5
    scores = labels + rng.normal(0, 0.8, 80)
    s = auroc_summary(scores, labels, np.repeat(list("ABCD"), 20), 0, 400)
    assert s["ci"]["low"] <= s["auroc"] <= s["ci"]["high"] and s["positives"] == int(labels.sum())


def test_terminal_figures_round_half_up_on_their_decimal_value():
    from realcompanion.scoring.report import fixed, share_with_wilson

    # 1/16, 3/16 and 71/80 end in a 5 at the fourth decimal; 0.1 + 0.2 carries float noise
    assert [fixed(v) for v in (1 / 16, 3 / 16, 71 / 80, 0.1 + 0.2, 2 / 3, 1.0)] == [
        "0.063", "0.188", "0.888", "0.300", "0.667", "1.000"]
    assert [fixed(v) for v in (-0.0004, -0.0, -0.0005, -1 / 16)] == ["0.000", "0.000", "-0.001", "-0.063"]
    assert share_with_wilson(1 / 16, None) == "6.3"  # 6.25 percent


def test_a_count_column_prints_whole_counts_whole():
    """The abstract's "found" column holds counts beside the random ranker's expectation: 139, not 139.000."""
    from realcompanion.scoring.report import grid

    text = grid({"Recency": {"found": 139.0, "share": 1.0}, "Random (exact expectation)": {"found": 15.4649, "share": 0.1},
                 "BM25": {"found": None, "share": None}}, "t", counts=("found",))
    assert [line.split()[-2:] for line in text.splitlines()[2:]] == [
        ["139", "1.000"], ["15.465", "0.100"], ["-", "-"]]
