"""GroupAssistBench scoring: formulas on hand-computed fixtures; nothing at or after the cutoff counts."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from realcompanion.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.groupassist.scoring import (
    atom_recall,
    baselines,
    bm25_ranking,
    context_tokens,
    factual_f1,
    history,
    recall_at_k,
    rubric_score,
    tokens,
)

CRITERIA = pd.DataFrame({
    "criterion_id": ["g1", "g2", "s1", "s2", "p1", "p2"],
    "kind": ["grounding", "grounding", "service", "service", "penalty", "penalty"],
    "mandatory": [True, True, True, False, False, False],
    "weight": [3.0, 3.0, 2.0, 1.0, -1.5, -2.0],
})


def test_atom_recall_and_factual_f1_by_hand():
    atoms = pd.DataFrame({"atom_id": ["a", "b", "c", "d"], "distractor": [False, False, False, True]})
    assert atom_recall(atoms, {"a", "d"}) == pytest.approx(1 / 3)  # the distractor is no target
    # 3 facts stated: a (correct), d (the distractor: an error), one unsupported -> precision 1/3
    assert factual_f1(1 / 3, correct=1, stated=3) == pytest.approx(1 / 3)
    assert factual_f1(0.5, correct=1, stated=1) == pytest.approx(2 * 1 * 0.5 / 1.5)
    assert factual_f1(0.0, correct=0, stated=0) == 0.0


def test_rubric_score_and_pass_by_hand():
    # positive total 3+3+2+1 = 9
    assert rubric_score(CRITERIA, {"g1", "g2", "s1", "s2"}) == (1.0, True)
    assert rubric_score(CRITERIA, {"g1", "g2", "s1"}) == (pytest.approx(8 / 9), True)  # optional unmet still passes
    score, passed = rubric_score(CRITERIA, {"g1", "g2", "s1", "p2"})
    assert score == pytest.approx((8 - 2) / 9) and not passed  # a penalty met fails the pass
    assert rubric_score(CRITERIA, {"g1", "s2"}) == (pytest.approx(4 / 9), False)  # mandatory g2, s1 unmet
    assert rubric_score(CRITERIA, {"p1", "p2"}) == (0.0, False)  # clipped at 0


def test_recall_at_k_by_hand():
    assert recall_at_k(["m1", "m2", "m3", "m4"], {"m2", "m4"}, 2) == 0.5
    assert recall_at_k(["m1", "m2", "m3", "m4"], {"m2", "m4"}, 4) == 1.0
    assert math.isnan(recall_at_k(["m1"], set(), 1))


def test_chinese_is_segmented_into_words():
    words = tokens(["周末聚会就定在图书馆1001号吧"], "zh")[0]
    assert "图书馆" in words and "聚会" in words and "周末" in words


def test_bm25_finds_the_anchor_in_chinese():
    messages = pd.DataFrame({"message_id": ["x:0", "x:1", "x:2"], "turn": [0, 1, 2], "speaker": ["a", "b", "a"],
                             "text_zh": ["今天好累啊", "周末聚会就定在图书馆1001号吧", "大家吃饭了吗"]})
    assert bm25_ranking(messages, "周末聚会的地点在哪里？")[0] == "x:1"


def test_context_tokens_count_offline_with_o200k_base():
    records = pd.DataFrame({"turn": [0], "speaker": ["member_01"], "text_zh": ["你好"]})
    assert context_tokens(records) > 0


def test_messages_at_or_after_the_cutoff_change_nothing(tmp_path):
    import shutil

    from realcompanion.groupassist.synth import stamp

    release = GroupAssistRelease(SPECIMEN)
    inst = release.frame("instances")
    chosen = inst[inst["group_id"] == "G01"].head(6)
    before = baselines(release).set_index("instance_id").loc[chosen["instance_id"]]
    copy = tmp_path / "copy"
    shutil.copytree(SPECIMEN, copy)
    # copy of every anchor's text appended right at each chosen cutoff: a leaking index would rank them first
    anchors = release.frame("anchors")
    leak = " ".join(anchors[anchors["instance_id"].isin(chosen["instance_id"])]["span_zh"]) + " " + \
        " ".join(chosen["query_zh"])
    messages = release.frame("messages")
    last = messages[messages["group_id"] == "G01"].iloc[-1]
    extra = [{"group_id": "G01", "turn": int(last["turn"]) + 1 + i, "message_id": f"G01:m{int(last['turn']) + 1 + i:06d}",
              "speaker": "assistant", "role": "assistant", "timestamp": last["timestamp"], "reply_to": None,
              "placeholder": None, "text_zh": leak, "text_en": leak} for i in range(3)]
    rows = pd.concat([messages, pd.DataFrame(extra)]).sort_values(["group_id", "turn"], kind="stable")
    rows.to_json(copy / "data" / "messages.jsonl", orient="records", lines=True, force_ascii=False)
    stamp(copy)
    after = baselines(GroupAssistRelease(copy)).set_index("instance_id").loc[chosen["instance_id"]]
    pd.testing.assert_frame_equal(before, after)
    visible = history(GroupAssistRelease(copy).frame("messages"), "G01", int(chosen["cutoff_turn"].max()))
    assert not visible["text_zh"].eq(leak).any()


def test_baselines_command(tmp_path, capsys):
    import json

    from realcompanion.cli import main

    out = tmp_path / "b.json"
    assert main(["baselines", str(SPECIMEN), "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["tokenizer"] == "o200k_base" and set(report["languages"]) == {"zh", "en"}
    assert len(report["languages"]["zh"]["instances"]) == GroupAssistRelease(SPECIMEN).table("instances").num_rows
    assert "recall" in capsys.readouterr().out
