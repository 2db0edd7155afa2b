"""The question track on the hand-built release of `tiny_release`, every figure worked out by hand.

U01:Q0001 "What is my pottery teacher called?" cites turn 2 and is asked after turn 21: its pool is turns
0-21 (22 messages) and its evidence lies 22 - 2 = 20 messages back, outside the last 10 (distant).
U01:Q0002 is unanswerable: no evidence, so no retrieval score.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from tiny_release import build, write_jsonl

from realcompanion.cli import main


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build(tmp_path_factory.mktemp("tiny_qa") / "release")


def test_question_retrieval_by_hand(tiny, tmp_path):
    out = tmp_path / "b.json"
    assert main(["baselines", str(tiny), "--track", "qa", "--resamples", "20", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["excluded"] == [{"item_id": "U01:Q0002", "population": "all", "reason": "no evidence"}]

    def actual(method, population="all"):
        block = report["baselines"][method]["actual"][population]
        assert block["n"] == 1 and block["participants"] == 1
        return {m: v["pooled"] for m, v in block.items() if isinstance(v, dict)}

    # recency ranks 21, 20, ..., 0: turn 2 is 20th
    recency = actual("recency", "distant")
    assert (recency["hit@5"], recency["hit@20"], recency["recall@20"]) == (0.0, 1.0, 1.0)
    assert recency["mrr"] == pytest.approx(1 / 20)
    # the user's turns 20, 18, ..., 2: turn 2 is 10th
    assert actual("recency_user")["mrr"] == pytest.approx(1 / 10)
    # only turns 0 and 2 hold a non-stopword of the question ("pottery"; turn 2 also "teacher", "called")
    assert actual("bm25")["hit@1"] == 1.0 and actual("bm25")["mrr"] == 1.0
    # one gold message among 22, uniformly placed: rank r with probability 1/22
    expected = actual("random_expected")
    harmonic = sum(Fraction(1, r) for r in range(1, 23))
    assert expected["hit@1"] == pytest.approx(1 / 22) and expected["hit@5"] == pytest.approx(5 / 22)
    assert expected["recall@5"] == pytest.approx(5 / 22) and expected["mrr"] == pytest.approx(float(harmonic / 22))
    assert actual("oracle") == {m: 1.0 for m in actual("oracle")}
    assert actual("broken_oracle") == {m: 0.0 for m in actual("broken_oracle")}
    # one participant: no participant interval
    assert report["baselines"]["recency"]["actual"]["all"]["mrr"]["ci"] == {"pooled": None, "macro": None}


def test_question_verdicts_by_hand(tiny, tmp_path):
    judge = {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}
    verdicts = write_jsonl(tmp_path / "v.jsonl", [
        {"item_id": "U01:Q0001", "condition": "A", "answer_correct": True, "abstained": False, "judge": judge},
        {"item_id": "U01:Q0002", "condition": "A", "answer_correct": True, "abstained": True, "judge": judge},
        {"item_id": "U01:Q0001", "condition": "B", "answer_correct": False, "abstained": True, "judge": judge},
        {"item_id": "U01:Q0002", "condition": "B", "answer_correct": False, "abstained": False, "judge": judge}])
    out = tmp_path / "s.json"
    assert main(["score", str(tiny), "--track", "qa", "--verdicts", str(verdicts), "--resamples", "20",
                 "--json", str(out)]) == 0
    judged = json.loads(out.read_text())["judged"]
    a, b = judged["conditions"]["A"], judged["conditions"]["B"]
    assert (a["answer_accuracy"]["pooled"], a["answer_accuracy"]["n"]) == (1.0, 2)
    assert (a["abstention_unanswerable"]["pooled"], a["abstention_answerable"]["pooled"]) == (1.0, 0.0)
    # abstaining (1 on Q0002, 0 on Q0001) against "not answerable" (Q0002): 1 of 1 pair ordered; B the reverse
    assert (a["abstention_auroc"]["auroc"], b["abstention_auroc"]["auroc"]) == (1.0, 0.0)
    assert b["answer_accuracy"]["pooled"] == 0.0
    contrast = judged["contrasts"]["B - A"]
    assert (contrast["scored"]["pooled"], contrast["scored"]["n"]) == (-1.0, 2)
    assert (contrast["answerable"]["pooled"], contrast["answerable"]["n"]) == (-1.0, 1)
