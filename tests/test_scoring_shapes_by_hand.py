"""`score` on unusual but legal runs and verdicts over the hand-built release of `tiny_release`, every figure
worked out by hand.

Pools and gold sets (positions are turns; `tiny_release` lists the items): the chat items scored for retrieval are
U01:C0001 (pool 8, required {6, 7}), U01:C0002 (pool 14, required {2, 13}, reference {2}: distant and distant
dependent), U01:C0003 (pool 20, required = reference {17}: distant only), U02:C0001 (pool 4, {3}), U02:C0002 (pool
16, required {1, 5, 15}, reference {1, 5}: distant and distant dependent), U02:C0003 (pool 18, {17}) and U02:C0004
(pool 19, {8}). U01:C0004 has no required message and U01:C0005 is a cold open: their rows are not retrieval-scored.
"""
from __future__ import annotations

import json

import pytest
from tiny_release import QUESTIONS, build, dayid, write_jsonl

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.metrics import random_expectation


def ranked(pid, *turns):
    return [dayid(pid, t) for t in turns]


RUN = [
    # tied scores keep the run's order: 5 first, then the gold 7 and 6 -> hit@1 0, hit@5 1, recall@5 2/2, MRR 1/2
    {"item_id": "U01:C0001", "ranking": ranked("U01", 5, 7, 6), "scores": [1, 1, 1]},
    # the whole pool newest first, 14 messages, k = 20 beyond it: all: 13 at rank 1, 2 at rank 12 -> hit@1 1,
    # recall@1 1/2, recall@5 1/2, recall@20 1, MRR 1; distant ({2}): hit@5 0, hit@20 1, MRR 1/12
    {"item_id": "U01:C0002", "ranking": ranked("U01", *range(13, -1, -1))},
    # U01:C0003 left out: a miss (0 everywhere) in all and distant
    {"item_id": "U02:C0001", "ranking": [], "scores": []},  # empty: 0 everywhere
    # all ({1, 5, 15}): hit@1 1, recall@1 1/3, recall@5 1, MRR 1; distant ({1, 5}): hit@1 0, recall@5 1, MRR 1/2
    {"item_id": "U02:C0002", "ranking": ranked("U02", 15, 1, 5), "scores": [3, 2, 1]},
    {"item_id": "U02:C0003", "ranking": ranked("U02", 17), "scores": [0.5]},  # 1 everywhere
    # the pool newest first: 8 at rank 11 -> hit@5 0, hit@20 1, recall@20 1, MRR 1/11
    {"item_id": "U02:C0004", "ranking": ranked("U02", *range(18, -1, -1))},
    {"item_id": "U01:C0004", "ranking": ranked("U01", 0)},  # no required message: ranking ignored
    {"item_id": "U01:C0005", "ranking": []},  # cold open: ignored
]


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """The tiny release with two more question shapes: U01:Q0001 cites every message of its pool (22 gold messages,
    more than k = 20), and U02:Q0001's pool (2 messages) is smaller than k = 5."""
    questions = [QUESTIONS[0][:3] + (list(range(22)), 21), QUESTIONS[1],
                 ("U02:Q0001", "Where do I live?", "Porto", [1], 1)]
    return build(tmp_path_factory.mktemp("run") / "release", questions=questions)


def score(release, tmp_path, track, rows):
    out = tmp_path / "report.json"
    code = main(["score", str(release), "--track", track, "--run", str(write_jsonl(tmp_path / "run.jsonl", rows)),
                 "--resamples", "500", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8")) if code == 0 else None


@pytest.fixture(scope="module")
def report(release, tmp_path_factory):
    code, out = score(release, tmp_path_factory.mktemp("report"), "chat", RUN)
    assert code == 0
    return out


@pytest.mark.parametrize("population, metric, pooled, macro", [
    # U01: C0001 1, C0002 1, C0003 0; U02: C0001 0, C0002 1, C0003 1, C0004 0
    ("all", "hit@5", 4 / 7, (2 / 3 + 2 / 4) / 2),
    ("all", "hit@1", 3 / 7, (1 / 3 + 2 / 4) / 2),
    # U01: 0, 1/2, 0; U02: 0, 1/3, 1, 0
    ("all", "recall@1", (1 / 2 + 1 / 3 + 1) / 7, (1 / 6 + (4 / 3) / 4) / 2),
    # U01: 1, 1/2, 0; U02: 0, 1, 1, 0
    ("all", "recall@5", 3.5 / 7, (1.5 / 3 + 2 / 4) / 2),
    # U01: 1/2, 1, 0; U02: 0, 1, 1, 1/11
    ("all", "mrr", (1.5 + 2 + 1 / 11) / 7, (1.5 / 3 + (2 + 1 / 11) / 4) / 2),
    # distant: U01:C0002 (rank 12), U01:C0003 (missing), U02:C0002 (rank 2)
    ("distant", "hit@5", 1 / 3, (0 + 1) / 2),
    ("distant", "hit@20", 2 / 3, (1 / 2 + 1) / 2),
    ("distant", "mrr", (1 / 12 + 1 / 2) / 3, (1 / 24 + 1 / 2) / 2),
    ("distant_dependent", "mrr", (1 / 12 + 1 / 2) / 2, (1 / 12 + 1 / 2) / 2),
    ("distant_dependent", "recall@1", 0.0, 0.0),
])
def test_run_metrics_by_hand(report, population, metric, pooled, macro):
    block = report["retrieval"]["summary"][population][metric]
    assert (block["pooled"], block["macro"]) == (pytest.approx(pooled), pytest.approx(macro))


def test_missing_ignored_and_small_pools_by_hand(report):
    """Two participants: a resample draws U01 twice (hit@5 2/3), U02 twice (2/4) or both (4/7), each at least once in
    40 draws of 500, so the pooled interval is [1/2, 2/3]; pools of 4, 8, 14, 16, 18, 19 and 20 messages: one at
    most 5 (U02:C0001), all at most 20."""
    retrieval = report["retrieval"]
    assert retrieval["missing_items"] == ["U01:C0003"]
    assert retrieval["ignored_items"] == ["U01:C0004", "U01:C0005"]
    assert retrieval["summary"]["all"]["hit@5"]["ci"]["pooled"] == {"low": 0.5, "high": 2 / 3, "undefined_resamples": 0}
    assert report["pool"]["k_at_least_pool"]["5"] == ["U02:C0001"] and len(report["pool"]["k_at_least_pool"]["20"]) == 7


def test_an_empty_ranking_scores_below_every_top_1_score(release, tmp_path):
    """Detectability of the run's top-1 on the proportional stratum (U01:C0001, C0003, C0004, U02:C0001, C0003,
    C0004; U01:C0003 the one memory-bearing). Log-probabilities: U01:C0003 -2 against U01:C0001 -3 (above),
    U02:C0001's empty ranking (-inf, above) and U02:C0003 -1 (below): AUROC 2/3. U01:C0004 gives no scores and
    U02:C0004 no row: 2 missing. An empty ranking read as 0 sat above every log-probability and gave 1/3."""
    rows = [{"item_id": "U01:C0003", "ranking": ranked("U01", 17), "scores": [-2.0]},
            {"item_id": "U01:C0001", "ranking": ranked("U01", 7), "scores": [-3.0]},
            {"item_id": "U02:C0001", "ranking": [], "scores": []},
            {"item_id": "U02:C0003", "ranking": ranked("U02", 17, 16), "scores": [-1.0, -1.0]},
            {"item_id": "U01:C0004", "ranking": ranked("U01", 0)}]
    code, report = score(release, tmp_path, "chat", rows)
    block = report["retrieval"]["detectability_top1"]
    assert (block["auroc"], block["n"], block["positives"], block["missing"]) == (pytest.approx(2 / 3), 4, 1, 2)


def test_scores_rising_along_a_ranking_are_one_line(release, tmp_path, capsys):
    """Distances (lower for closer) written as scores: the first would be the run's least confident message, and
    detectability one minus itself. Ties are allowed."""
    rows = [{"item_id": "U02:C0003", "ranking": ranked("U02", 17, 16, 15), "scores": [0.1, 0.1, 0.9]}]
    assert score(release, tmp_path, "chat", rows)[0] == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run.jsonl:1 field 'scores': scores[2] 0.9 exceeds scores[1] 0.1" in err


def test_a_gold_set_larger_than_k_and_a_pool_smaller_than_k(release, tmp_path):
    """U01:Q0001: every one of its 22 pool messages is gold; the run lists them newest first, so recall@k is k / 22
    (20 / 22 at k = 20, the most any ranking reaches) and hit@1, MRR 1. U02:Q0001 (pool {0, 1}, gold {1}) ranked
    [0, 1]: hit@1 0, hit@5 1, recall@5 1, MRR 1/2; its random expectation is hit@1 1/2, MRR 1/2 + 1/4 = 3/4, and
    recall@5 min(5, 2) / 2 = 1. U01:Q0002 cites nothing (listed under no evidence)."""
    rows = [{"item_id": "U01:Q0001", "ranking": ranked("U01", *range(21, -1, -1))},
            {"item_id": "U02:Q0001", "ranking": ranked("U02", 0, 1)}]
    code, report = score(release, tmp_path, "qa", rows)
    per_item = {r["item_id"]: r for r in report["retrieval"]["per_item"]}
    assert {k: per_item["U01:Q0001"][k] for k in ("hit@1", "recall@1", "recall@5", "recall@20", "mrr", "gold_size")} \
        == pytest.approx({"hit@1": 1, "recall@1": 1 / 22, "recall@5": 5 / 22, "recall@20": 20 / 22, "mrr": 1,
                          "gold_size": 22})
    assert {k: per_item["U02:Q0001"][k] for k in ("hit@1", "hit@5", "recall@5", "mrr")} == \
        {"hit@1": 0.0, "hit@5": 1.0, "recall@5": 1.0, "mrr": 0.5}
    assert {"item_id": "U01:Q0002", "population": "all", "reason": "no evidence"} in report["excluded"]
    expected = random_expectation(2, 1)
    assert (expected["hit@1"], expected["mrr"], expected["recall@5"]) == (0.5, 0.75, 1.0)
    assert random_expectation(22, 22)["hit@1"] == 1.0 and random_expectation(22, 22)["recall@20"] == 20 / 22


JUDGE = {"model": "hand", "prompt_sha256": "0" * 64, "temperature": 0}
SCORED = ["U01:C0001", "U01:C0002", "U01:C0003", "U01:C0004", "U02:C0001", "U02:C0002", "U02:C0003", "U02:C0004"]
VERDICTS = (  # (condition, item, content match, used memory)
    [("C0", "U01:C0005", 2, False)]  # only the cold open: every scored population empty
    + [("C1", i, 2, i in ("U01:C0002", "U01:C0003")) for i in SCORED[:4]]  # one participant, all correct
    + [("C2", i, 0, True) for i in SCORED])  # all wrong, memory used everywhere


@pytest.fixture(scope="module")
def judged(release, tmp_path_factory):
    folder = tmp_path_factory.mktemp("judged")
    verdicts = write_jsonl(folder / "v.jsonl", [{"item_id": i, "condition": c, "content_match": m, "used_memory": u,
                                                 "judge": JUDGE} for c, i, m, u in VERDICTS])
    assert main(["score", str(release), "--track", "chat", "--verdicts", str(verdicts), "--resamples", "500",
                 "--json", str(folder / "s.json")]) == 0
    return json.loads((folder / "s.json").read_text(encoding="utf-8"))["judged"]


@pytest.mark.parametrize("condition, name, pooled, n, missing", [
    ("C0", "content_match_judged", 2.0, 1, 8),
    ("C0", "content_match", None, 0, 8),  # a population without a verdict: no number, all missing
    ("C0", "cold_open_restraint", 1.0, 1, 0),
    ("C1", "content_match", 2.0, 4, 4),
    ("C1", "restraint", 2 / 4, 4, 4),  # memory used on U01:C0002 and U01:C0003
    ("C1", "misfire_rate", 0.0, 2, 3),  # empty reference set: U01:C0001, U01:C0004 (+ U02:C0001, C0003, C0004)
    ("C1", "appropriate_application", 1.0, 2, 1),  # U01:C0002, U01:C0003 (U02:C0002 missing)
    ("C2", "content_match", 0.0, 8, 0),
    ("C2", "misfire_rate", 1.0, 5, 0),
    ("C2", "restraint", 0.0, 8, 0),
])
def test_judged_shapes_by_hand(judged, condition, name, pooled, n, missing):
    block = judged["conditions"][condition][name]
    assert (block["pooled"], block["n"], block["missing"]) == (pooled if pooled is None else pytest.approx(pooled), n,
                                                               missing)


def test_intervals_of_one_participant_all_wrong_and_empty_classes_by_hand(judged):
    """C1 holds U01 alone: no interval (one participant resampled is no spread). C2 is 0 on every item, so every
    resample is 0; used memory everywhere ties every pair, AUROC 1/2 (U01:C0003 against the 5 other proportional
    items). Wilson at z = 1.96: k = n gives [n / (n + z^2), 1], k = 0 gives [0, z^2 / (n + z^2)]: cold open 1/1
[0.2065, 1], misfire 5/5 [0.5655, 1], restraint 0/8 [0, 0.3244]. Paired C2 - C1 on U01's four: -2 each."""
    c1, c2 = judged["conditions"]["C1"], judged["conditions"]["C2"]
    assert c1["content_match"]["ci"] == {"pooled": None, "macro": None}
    assert (c1["used_memory_auroc"]["auroc"], c1["used_memory_auroc"]["ci"]) == (1.0, None)
    assert c2["content_match"]["ci"]["pooled"] == {"low": 0.0, "high": 0.0, "undefined_resamples": 0}
    assert (c2["used_memory_auroc"]["auroc"], c2["used_memory_auroc"]["n"]) == (0.5, 6)
    assert judged["conditions"]["C0"]["cold_open_restraint"]["wilson"] == pytest.approx({"low": 0.2065, "high": 1.0},
                                                                                          abs=1e-4)
    assert c2["misfire_rate"]["wilson"] == pytest.approx({"low": 0.5655, "high": 1.0}, abs=1e-4)
    assert c2["restraint"]["wilson"] == pytest.approx({"low": 0.0, "high": 0.3244}, abs=1e-4)
    contrast = judged["contrasts"]["C2 - C1"]
    assert (contrast["scored"]["pooled"], contrast["scored"]["n"], contrast["scored"]["missing"]) == (-2.0, 4, 4)
    assert (contrast["dependent"]["n"], contrast["dependent"]["missing"]) == (2, 1)
    assert judged["contrasts"]["C1 - C0"]["scored"] == {  # no item judged under both: nothing to compare
        "population": "scored", "n": 0, "pooled": None, "macro": None, "by_participant": {}, "n_by_participant": {},
        "missing": 8}


def test_table_8_with_an_empty_class_by_hand(judged):
    """C2 - C1 on U01's four items (-2 each). Both strata, recorded: 2 memory-bearing (U01:C0002, C0003), pi 1/2,
    gain -2, half of it from no-memory rows. Proportional, strict: U01:C0001, C0003, C0004, none memory-bearing
    under strict: gamma_1 undefined (null), pi 0, all the gain from no-memory rows."""
    split = judged["decomposition"]["C2 - C1"]
    assert split["both"]["recorded"] == pytest.approx({
        "n": 4, "memory_bearing": 2, "pi": 0.5, "gamma_1": -2.0, "gamma_0": -2.0, "pi_gamma_1": -1.0,
        "rest_gamma_0": -1.0, "gain": -2.0, "from_no_memory_rows": 0.5})
    assert split["proportional"]["strict"] == {
        "n": 3, "memory_bearing": 0, "pi": 0.0, "gamma_1": None, "gamma_0": -2.0, "pi_gamma_1": 0.0,
        "rest_gamma_0": -2.0, "gain": -2.0, "from_no_memory_rows": 1.0}
