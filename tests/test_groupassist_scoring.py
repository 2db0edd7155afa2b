"""GroupAssistBench scoring: formulas on hand-computed fixtures; nothing at or after the cutoff counts."""
from __future__ import annotations

import json
import math
import re
import shutil
import zlib

import numpy as np
import pandas as pd
import pytest
from local_server import JSONHandler, serving

from realcompanion.cli import main
from realcompanion.errors import ReadError
from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.scoring import (
    ContextTokens,
    atom_recall,
    baselines,
    bm25_ranking,
    context_tokens,
    dense_ranking,
    factual_f1,
    history,
    recall_at_k,
    rubric_score,
    tokens,
)
from realcompanion.scoring.embeddings import Embedder

DIMENSIONS = 256


def bag_of_words(text: str) -> list[float]:
    """A deterministic embedding: English words and single Chinese characters hashed into DIMENSIONS counts."""
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", text.lower()):
        vector[zlib.crc32(word.encode()) % DIMENSIONS] += 1.0
    return vector


class Embeddings(JSONHandler):
    """Answers /v1/embeddings like an OpenAI-compatible API with `bag_of_words` vectors; `mode` breaks it."""

    mode = "ok"

    def reply(self, body):
        data = [{"object": "embedding", "index": i, "embedding": bag_of_words(t)} for i, t in enumerate(body["input"])]
        if self.mode == "http_500":
            return 500, b'{"error": {"message": "the model is overloaded"}}'
        if self.mode == "malformed_json":
            return 200, b'{"data": [{"embedding": [0.1,'
        if self.mode == "wrong_count":
            data = data[:-1]
        if self.mode == "not_finite":
            data[0]["embedding"][0] = 1e300  # JSON, and a 64-bit float, but no 32-bit one
        if self.mode == "zero_vector":
            data[0]["embedding"] = [0.0] * DIMENSIONS
        if self.mode == "identical":  # a placeholder model: one vector for every text
            for row in data:
                row["embedding"] = [1.0] * DIMENSIONS
        text = json.dumps({"object": "list", "data": data, "model": body["model"]})
        if self.mode == "key_twice":
            text = '{"data": [], ' + text[1:]
        if self.mode in ("integer_too_long", "integer_past_a_float"):
            digits = "1" * (5000 if self.mode == "integer_too_long" else 400)
            text = text.replace('"embedding": [', f'"embedding": [{digits}, ', 1)
        return 200, text.encode()


@pytest.fixture
def embeddings():
    Embeddings.requests, Embeddings.mode = [], "ok"
    with serving(Embeddings) as url:
        yield url

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


def test_rubrics_of_equal_weights_one_or_no_mandatory_criterion_by_hand():
    """Pass is the declared formula read literally: with no mandatory criterion nothing is required, so only a
    penalty fails it (docs/scoring.md, Scoring verdicts)."""
    optional = pd.DataFrame({"criterion_id": ["o1", "o2", "o3", "p"], "kind": ["service"] * 3 + ["penalty"],
                             "mandatory": [False] * 4, "weight": [1.0, 1.0, 1.0, -1.0]})  # positive total 3
    assert rubric_score(optional, set()) == (0.0, True)
    assert rubric_score(optional, {"o1"}) == (pytest.approx(1 / 3), True)
    assert rubric_score(optional, {"o1", "p"}) == (0.0, False)  # (1 - 1) / 3
    one = pd.DataFrame({"criterion_id": ["g", "o1", "o2"], "kind": ["grounding", "service", "service"],
                        "mandatory": [True, False, False], "weight": [3.0, 1.0, 1.0]})  # positive total 5
    assert rubric_score(one, {"o1", "o2"}) == (pytest.approx(2 / 5), False)
    assert rubric_score(one, {"g"}) == (pytest.approx(3 / 5), True)


def test_recall_at_k_by_hand():
    assert recall_at_k(["m1", "m2", "m3", "m4"], {1: {"m2"}, 2: {"m4"}}, 2) == 0.5
    assert recall_at_k(["m1", "m2", "m3", "m4"], {1: {"m2"}, 2: {"m4"}}, 4) == 1.0
    # a unit of two near-duplicate messages is found by either
    assert recall_at_k(["m1", "m2", "m3", "m4"], {1: {"m2", "m4"}, 2: {"m3"}}, 2) == 0.5
    assert math.isnan(recall_at_k(["m1"], {}, 1))


def test_the_units_a_retriever_must_find():
    """App. A.4: anchors of one unit (one message, or near-duplicate facts) are one memory; a premise of the query, a
    profile-only anchor and an M3 instance's superseded value are not units to retrieve. Counting every non-premise
    anchor message, an instance with a profile-only and a superseded anchor beside two units had recall 2/4 where
    a retriever finding both units has found every memory the instance needs."""
    from realcompanion.formats.groupassist.scoring import memory_units

    anchors = pd.DataFrame({
        "message_id": ["a", "b", "c", "d", "e", "f"], "unit": [1, 1, 2, 3, 4, 5],
        "premise": [False, False, False, False, False, True], "profile_only": [False, False, False, True, False, False],
        "m3_role": [None, None, "current", None, "superseded", None]})
    units = memory_units(anchors)
    assert units == {1: {"a", "b"}, 2: {"c"}}
    assert recall_at_k(["b", "c", "d", "e"], units, 2) == 1.0
    assert recall_at_k(["d", "e", "f", "a"], units, 3) == 0.0


def test_baselines_aggregate_by_cell_by_level_and_overall_pooled_over_instances():
    from realcompanion.formats.groupassist.baselines import by_level_dependency

    frame = pd.DataFrame({"instance_id": ["a", "b", "c", "d", "e"], "level": ["L1", "L1", "L1", "L2", "L2"],
                          "dependency": ["M1", "M1", "M2", "M1", "M3"], "bm25_recall@20": [1.0, 0.0, 0.8, 1.0, 0.25],
                          "bm25_tokens": [100, 200, 600, 50, 150]})
    table = by_level_dependency(frame)
    assert table.to_dict("index") == {
        ("L1", "M1"): {"n": 2, "bm25_recall@20": 0.5, "bm25_tokens": 150.0},
        ("L1", "M2"): {"n": 1, "bm25_recall@20": 0.8, "bm25_tokens": 600.0},
        # pooled over the level's 3 instances: (1 + 0 + 0.8) / 3, not the mean of the cells (0.5 + 0.8) / 2
        ("L1", "all"): {"n": 3, "bm25_recall@20": pytest.approx(0.6), "bm25_tokens": 300.0},
        ("L2", "M1"): {"n": 1, "bm25_recall@20": 1.0, "bm25_tokens": 50.0},
        ("L2", "M3"): {"n": 1, "bm25_recall@20": 0.25, "bm25_tokens": 150.0},
        ("L2", "all"): {"n": 2, "bm25_recall@20": 0.625, "bm25_tokens": 100.0},
        # every instance: (1 + 0 + 0.8 + 1 + 0.25) / 5 and (100 + 200 + 600 + 50 + 150) / 5
        ("all", "all"): {"n": 5, "bm25_recall@20": pytest.approx(0.61), "bm25_tokens": 220.0},
    }


def test_chinese_is_segmented_into_words():
    words = tokens(["周末聚会就定在图书馆1001号吧"], "zh")[0]
    assert "图书馆" in words and "聚会" in words and "周末" in words


def test_bm25_finds_the_anchor_in_chinese():
    messages = pd.DataFrame({"message_id": ["x:0", "x:1", "x:2"], "turn": [0, 1, 2], "speaker": ["a", "b", "a"],
                             "text_zh": ["今天好累啊", "周末聚会就定在图书馆1001号吧", "大家吃饭了吗"]})
    assert bm25_ranking(messages, "周末聚会的地点在哪里？")[0] == "x:1"


@pytest.mark.parametrize("tokenizer", ["o200k_base", "cl100k_base"])
def test_context_tokens_from_line_counts_equal_the_whole_text(tokenizer):
    release = GroupAssistRelease(SPECIMEN)
    messages, inst = release.frame("messages"), release.frame("instances")
    tricky = pd.DataFrame({"turn": [0, 1, 2, 3], "speaker": ["a", "b", "a", "b"],
                           "text_zh": ["句末有标点？", "trailing space ", "多行\n/第二行", "12345"]})
    for lang in ("zh", "en"):
        count, frame = ContextTokens(tokenizer, lang), tricky.rename(columns={"text_zh": f"text_{lang}"})
        assert count(frame) == context_tokens(frame, tokenizer, lang) and count(frame.iloc[:0]) == 0
        for row in inst.itertuples():
            visible = history(messages, row.group_id, row.cutoff_turn)
            assert count(visible) == context_tokens(visible, tokenizer, lang), (row.instance_id, lang)
            sample = visible.iloc[::7]
            assert count(sample) == context_tokens(sample, tokenizer, lang)


def test_context_tokens_count_offline_with_the_declared_tokenizer():
    records = pd.DataFrame({"turn": [0], "speaker": ["member_01"], "text_zh": ["你好，大家今天的安排是什么"]})
    assert context_tokens(records, "o200k_base") != context_tokens(records, "cl100k_base")


def test_baselines_count_context_tokens_with_the_declared_tokenizer(tmp_path):
    root = tmp_path / "release"
    shutil.copytree(SPECIMEN, root)
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["groupassist"]["tokenizer"] = "cl100k_base"
    (root / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    frame = baselines(GroupAssistRelease(root)).set_index("instance_id")
    messages = GroupAssistRelease(root).frame("messages")
    first = GroupAssistRelease(root).frame("instances").query("split == 'eval'").iloc[0]
    visible = history(messages, first["group_id"], first["cutoff_turn"])
    assert frame.loc[first["instance_id"], "full_tokens"] == context_tokens(visible, "cl100k_base")
    assert frame.loc[first["instance_id"], "full_tokens"] != context_tokens(visible, "o200k_base")


def test_dense_ranking_and_recall_by_hand(embeddings):
    messages = pd.DataFrame({"message_id": ["x:0", "x:1", "x:2", "x:3", "x:4"], "turn": [0, 1, 2, 3, 4],
                             "speaker": ["a", "b", "a", "b", "a"],
                             "text_en": ["lunch at noon", "the hall is room seven", "", "hall booked for friday",
                                         "lunch at noon"]})
    embedder = Embedder(embeddings, batch=2)
    ranked = dense_ranking(messages, "which hall and which room", embedder, "en")
    # cosines with the query's words {which x2, hall, and, room}: x:1 shares hall+room (2 of 5 words), x:3 hall
    # (1 of 4), the rest nothing; equal scores go to the most recent; the empty message scores 0 unsent
    assert ranked == ["x:1", "x:3", "x:4", "x:2", "x:0"]
    assert recall_at_k(ranked, {1: {"x:1"}, 2: {"x:3"}}, 1) == 0.5
    assert recall_at_k(ranked, {1: {"x:1"}, 2: {"x:3"}}, 2) == 1.0
    assert recall_at_k(ranked, {1: {"x:0"}, 2: {"x:3"}}, 2) == 0.5
    # each distinct non-empty text once, in batches of two: 3 texts + 1 query = 2 requests
    sent = [t for _, body in Embeddings.requests for t in body["input"]]
    assert sorted(sent) == sorted(["lunch at noon", "the hall is room seven", "hall booked for friday",
                                   "which hall and which room"])
    assert all(len(body["input"]) <= 2 and body["model"] == "text-embedding-3-small" for _, body in Embeddings.requests)
    first = embedder.requests
    dense_ranking(messages, "which hall and which room", embedder, "en")
    assert embedder.requests == first  # cached within the run
    vectors = embedder.matrix(["the hall is room seven"])
    assert np.linalg.norm(vectors[0]) == pytest.approx(1.0)


def test_a_vector_of_any_32_bit_magnitude_ranks_by_its_direction(embeddings):
    """Norms are taken in 64 bits: in 32, the squares of entries like 1e20 overflowed and of 1e-30 underflowed, numpy
    printed a warning, and the vector was ranked as the zero vector (cosine 0 with every query)."""
    import warnings

    embedder = Embedder(embeddings)
    embedder.cache = {"large": np.float32([1e20, 0, 1e20]), "small": np.float32([3e-30, 4e-30, 0])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = embedder.matrix(["large", "small"])
    assert rows.dtype == np.float32 and np.allclose(rows, [[0.5 ** 0.5, 0, 0.5 ** 0.5], [0.6, 0.8, 0]])


@pytest.mark.parametrize("mode, says", [("http_500", "HTTP 500"), ("malformed_json", "is not JSON"),
                                        ("wrong_count", "holds 1 vectors for 2 inputs"),
                                        ("not_finite", "not a finite number"),
                                        ("zero_vector", "'embedding' is a zero vector"),
                                        ("key_twice", "duplicate key 'data'"),
                                        ("integer_too_long", "integer string conversion"),
                                        ("integer_past_a_float", "not a non-empty list of numbers")])
def test_a_broken_embeddings_endpoint_is_one_line_and_exit_2(embeddings, mode, says, capsys):
    """An answer is read as strictly as a file: a key twice was read as its last value, and an integer too long
    for Python, or for a float, was a traceback; a number past a 32-bit float added numpy's warning line."""
    Embeddings.mode = mode
    with pytest.raises(ReadError, match=says):
        Embedder(embeddings, batch=2).embed(["one", "two"])
    assert main(["baselines", str(SPECIMEN), "--dense-endpoint", embeddings, "--dense-batch", "2", "--dense-api-key-env",
                 "REALCOMPANION_TEST_UNSET_KEY"]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and embeddings in err and "\n" not in err and "Traceback" not in err


def test_messages_at_or_after_the_cutoff_change_nothing(tmp_path, embeddings):
    from realcompanion.formats.groupassist.synth import stamp

    release = GroupAssistRelease(SPECIMEN)
    inst = release.frame("instances")
    chosen = inst[(inst["group_id"] == "G01") & (inst["split"] == "eval")].head(6)
    before = baselines(release, embedder=Embedder(embeddings)).set_index("instance_id").loc[chosen["instance_id"]]
    assert {"dense_recall@20", "dense_tokens"} <= set(before.columns)
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
    Embeddings.requests = []
    after = baselines(GroupAssistRelease(copy), embedder=Embedder(embeddings)).set_index("instance_id")
    pd.testing.assert_frame_equal(before, after.loc[chosen["instance_id"]])
    assert leak not in {t for _, body in Embeddings.requests for t in body["input"]}  # never even embedded
    visible = history(GroupAssistRelease(copy).frame("messages"), "G01", int(chosen["cutoff_turn"].max()))
    assert not visible["text_zh"].eq(leak).any()


def test_baselines_command(tmp_path, capsys):
    out = tmp_path / "b.json"
    assert main(["baselines", str(SPECIMEN), "--json", str(out), "--plot", str(tmp_path / "b.png")]) == 0
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["tokenizer"] == "o200k_base" and set(report["languages"]) == {"zh", "en"}
    inst = GroupAssistRelease(SPECIMEN).frame("instances")
    assert len(report["languages"]["zh"]["instances"]) == (inst["split"] == "eval").sum() == 72
    assert report["dense"] == {"run": False, "reason": "not run (no --dense-endpoint given)"}
    assert report["release"]["synthetic"] is True and report["parameters"]["release"]["retrieval_k"] == 20
    shown = capsys.readouterr().out
    assert "recall" in shown and "dense: not run (no --dense-endpoint given)" in shown
    assert "k >= history: 0 instances" in shown  # every specimen history exceeds k = 20
    assert main(["baselines", str(SPECIMEN), "--json", str(SPECIMEN / "data" / "report.json")]) == 2
    assert "refusing to write into the release" in capsys.readouterr().err
    assert not (SPECIMEN / "data" / "report.json").exists()


def test_an_instance_without_anchors_has_null_recall_named_in_one_line(tmp_path, capsys):
    import shutil

    from realcompanion.formats.groupassist.synth import stamp

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    anchors = GroupAssistRelease(SPECIMEN).frame("anchors")
    anchors[anchors["instance_id"] != "G01:I0001"].to_json(copy / "data" / "anchors.jsonl", orient="records",
                                                           lines=True, force_ascii=False)
    stamp(copy)
    out = tmp_path / "b.json"
    assert main(["baselines", str(copy), "--unvalidated", "--json", str(out)]) == 0  # it breaks the L1 invariant
    warning = [line for line in capsys.readouterr().out.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "1 eval instances cite no anchor of a memory unit" in warning[0] and "G01:I0001" in warning[0]
    report = json.loads(out.read_text(encoding="utf-8"), parse_constant=pytest.fail)  # NaN is not JSON
    first = next(r for r in report["languages"]["zh"]["instances"] if r["instance_id"] == "G01:I0001")
    assert first["full_recall"] is None and first["bm25_recall@20"] is None and first["full_tokens"] > 0
    l1_m1 = next(c for c in report["languages"]["zh"]["by_level_dependency"]
                 if (c["level"], c["dependency"]) == (first["level"], first["dependency"]))
    assert l1_m1["full_recall"] == 1.0  # the other instances of the cell, every anchor in the full history


def test_a_cell_whose_instances_have_no_anchor_shows_no_recall(tmp_path, capsys):
    """Every L2 M1 instance without anchors: the cell's recall is undefined, '-' as in every score table (it
    printed NaN)."""
    import shutil

    from realcompanion.formats.groupassist.synth import stamp

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    release = GroupAssistRelease(SPECIMEN)
    inst, anchors = release.frame("instances"), release.frame("anchors")
    gone = set(inst.loc[(inst["level"] == "L2") & (inst["dependency"] == "M1"), "instance_id"])
    anchors[~anchors["instance_id"].isin(gone)].to_json(copy / "data" / "anchors.jsonl", orient="records",
                                                         lines=True, force_ascii=False)
    stamp(copy)
    assert main(["baselines", str(copy), "--unvalidated"]) == 0  # it breaks the M1 invariant
    shown = capsys.readouterr().out
    row = next(line for line in shown.splitlines() if line.startswith("L2") and line.split()[1] == "M1")
    assert "NaN" not in shown and row.split()[4] == "-" and row.split()[6] == "-", row


def test_histories_no_longer_than_k_are_flagged():
    from realcompanion.formats.groupassist.baselines import history_line

    frame = pd.DataFrame({"instance_id": ["a", "b", "c"], "history": [20, 21, 5]})
    assert history_line(frame, 20) == ("history before the cutoff: min 5, median 20, max 21 records; "
                                       "k >= history: 2 instances (a, c)")


def test_a_history_without_an_indexable_word_retrieves_nothing():
    """BM25 retrieves the messages sharing a word with the query, in both formats: none here. With the recency
    fallback, all of them, most recent first."""
    records = pd.DataFrame({"message_id": ["a", "b", "c"], "turn": [0, 1, 2], "speaker": ["x", "y", "x"],
                            "text_zh": ["", " ", "。"], "text_en": ["the", "a", "of it"]})
    assert bm25_ranking(records, "会议", "zh") == [] and bm25_ranking(records, "the meeting", "en") == []
    assert bm25_ranking(records, "会议", "zh", fallback="recency") == ["c", "b", "a"]
    assert bm25_ranking(records, "the meeting", "en", fallback="recency") == ["c", "b", "a"]
    assert bm25_ranking(records.iloc[:0], "meeting", "en") == []


def test_bm25_leaves_out_messages_sharing_no_word_with_the_query():
    records = pd.DataFrame({"message_id": ["a", "b", "c", "d"], "turn": [0, 1, 2, 3], "speaker": ["x", "y", "x", "y"],
                            "text_en": ["dinner at eight", "the hall is booked", "dinner was great", "ok"]})
    assert bm25_ranking(records, "where is dinner", "en") == ["c", "a"]
    assert bm25_ranking(records, "where is dinner", "en", fallback="recency") == ["c", "a", "d", "b"]


def test_an_instance_without_history_scores_zero(tmp_path, embeddings):
    """A cutoff at turn 0 (gate iv fails) leaves nothing to rank: every ranker reaches none of the anchors
    (recall 0, the anchors lie at or after the cutoff) with no context tokens, and nothing is indexed."""
    import shutil

    from realcompanion.formats.groupassist.synth import stamp

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    inst = GroupAssistRelease(SPECIMEN).frame("instances")
    inst.loc[inst["instance_id"] == "G01:I0001", "cutoff_turn"] = 0
    inst.to_json(copy / "data" / "instances.jsonl", orient="records", lines=True, force_ascii=False)
    stamp(copy)
    frame = baselines(GroupAssistRelease(copy), embedder=Embedder(embeddings)).set_index("instance_id")
    assert frame.loc["G01:I0001"].to_dict() == {
        "level": "L1", "dependency": "M1", "history": 0, "anchors_outside_history": 1, "full_recall": 0.0, "full_tokens": 0,
        "bm25_recall@20": 0.0, "bm25_tokens": 0, "dense_recall@20": 0.0, "dense_tokens": 0}


@pytest.mark.parametrize("mode", ["identical", "ok"])
def test_identical_embeddings_for_every_text_are_one_warning_line(tmp_path, embeddings, capsys, mode):
    """Every dense score ties, so dense is its tie rule (recency) alone: said in one line naming the languages,
    figures still reported; the near miss (vectors that differ) says nothing."""
    from tiny_groupassist import build

    Embeddings.mode = mode
    folder = build(tmp_path / "release")
    assert main(["baselines", str(folder), "--dense-endpoint", embeddings, "--dense-model", "m"]) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if "same vector" in line]
    assert warnings == (["warning: the embeddings endpoint gave every text the same vector (zh, en), so every dense "
                         "score ties and dense ranks each history most recent first; check --dense-endpoint and "
                         "--dense-model"] if mode == "identical" else [])


def test_a_release_without_eval_instances_is_one_line(tmp_path, capsys):
    import shutil

    from realcompanion.formats.groupassist.synth import stamp

    copy = shutil.copytree(SPECIMEN, tmp_path / "copy")
    inst = GroupAssistRelease(SPECIMEN).frame("instances").assign(split="pool")
    inst.to_json(copy / "data" / "instances.jsonl", orient="records", lines=True, force_ascii=False)
    stamp(copy)
    assert main(["baselines", str(copy)]) == 0
    assert capsys.readouterr().out.strip() == "no eval instances (split eval): nothing to score"


def test_baselines_command_with_dense(tmp_path, embeddings, capsys):
    out = tmp_path / "b.json"
    assert main(["baselines", str(SPECIMEN), "--json", str(out), "--dense-endpoint", embeddings,
                 "--dense-model", "local-bow", "--dense-batch", "500"]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["dense"] == {"endpoint": embeddings, "model": "local-bow", "batch": 500,
                               "requests": len(Embeddings.requests)}
    for lang in ("zh", "en"):
        cells = report["languages"][lang]["by_level_dependency"]
        assert len(cells) == 6 + 3 and all(0 <= c["dense_recall@20"] <= 1 and c["dense_tokens"] > 0 for c in cells)
    assert "dense_recall@20" in capsys.readouterr().out


def test_each_format_refuses_the_others_options(repo, capsys):
    assert main(["baselines", str(repo), "--track", "chat", "--dense-endpoint", "http://127.0.0.1:9/v1"]) == 2
    assert "GroupAssistBench releases only" in capsys.readouterr().err
    assert main(["baselines", str(SPECIMEN), "--track", "chat", "--reading", "strict"]) == 2
    assert "--track, --reading: RealCompanion releases only" in capsys.readouterr().err


@pytest.mark.parametrize("command, extra", [
    ("baselines", ["--dependent-reading", "strict"]), ("score", ["--dependent-reading", "strict"]),
    ("score", ["--detector", "d.jsonl"]), ("baselines", ["--seed", "7"]), ("baselines", ["--resamples", "50"])])
def test_a_realcompanion_only_option_is_refused_not_ignored(tmp_path, command, extra, capsys):
    """`--dependent-reading` chose a reading, and `--detector` scored a detector, on a GroupAssistBench release
    too, where each was ignored: it has no readings and no chat track. Its baselines draw nothing at random and
    resample nothing, so `--seed` and `--resamples` are refused there too (`score` bootstraps its cells with
    them)."""
    args = ["--verdicts", str(tmp_path / "v.jsonl")] if command == "score" else []
    assert main([command, str(SPECIMEN), *args, *extra]) == 2
    assert f"{extra[0]}: RealCompanion releases only" in capsys.readouterr().err
