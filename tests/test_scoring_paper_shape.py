"""The paper-scale synthetic release is shaped like the paper where its findings depend on shape.

Not the paper's numbers (the text is synthetic), its pattern: a recency window finds the required message for
most probes and for few memory-bearing ones, BM25 beats recency on those, the oracle scores 1 and the broken
oracle 0; memory-bearing probes are a minority of the proportional stratum and their references lie far back.
"""
from __future__ import annotations

import json

import pytest
from conftest import built_once

from realcompanion.cli import main


@pytest.fixture(scope="module")
def paper(tmp_path_factory, paper_release):
    """The baselines and windows reports of the paper-scale release, made once a run (shared by the workers)."""
    def score(folder):
        return [main(["baselines", str(paper_release), "--track", "chat", "--resamples", "10", "--json",
                      str(folder / "baselines.json")]),
                main(["windows", str(paper_release), "--json", str(folder / "windows.json")])]

    folder, codes = built_once(tmp_path_factory, "paper-scale-scores", score)
    assert codes == [0, 0]
    return json.loads((folder / "baselines.json").read_text()), json.loads((folder / "windows.json").read_text())


def test_recency_finds_most_probes_and_few_that_need_memory(paper):
    report, _ = paper
    recency = report["baselines"]["recency"]["actual"]
    assert report["found_share_top5"]["recency"]["share"] > 0.9
    assert recency["all"]["hit@5"]["pooled"] > 0.9
    assert recency["distant"]["n"] > 300 and recency["distant"]["hit@5"]["pooled"] < 0.1


def test_bm25_beats_recency_on_memory_bearing_probes(paper):
    report, _ = paper
    bm25, recency = (report["baselines"][m]["actual"]["distant"]["hit@5"] for m in ("bm25", "recency"))
    assert bm25["pooled"] > recency["pooled"] + 0.1 and bm25["macro"] > recency["macro"] + 0.1


def test_oracle_one_broken_oracle_zero(paper):
    report, _ = paper
    for population in ("all", "distant", "distant_dependent"):
        assert report["baselines"]["oracle"]["actual"][population]["hit@5"]["pooled"] == 1.0
        assert report["baselines"]["broken_oracle"]["actual"][population]["hit@5"]["pooled"] == 0.0


def test_memory_is_rarely_needed_and_far_away(paper):
    report, windows = paper
    assert 0.01 < report["demand_rate"]["recorded"]["share"] < 0.06  # Table 32: 3.4%
    assert windows["coverage"]["recorded"]["messages"]["10"] < 0.05  # Table 34: 1.0%
    assert windows["coverage"]["recorded"]["messages"]["250"] < 0.5  # Table 34: 15.8%
