"""The scorer's definitions on the hand-built release of `tiny_release`: every expected value worked out by hand."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tiny_release import build, write_jsonl

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.baselines import baselines_report, run_baselines
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.formats.realcompanion.scoring.metrics import random_expectation, wilson
from realcompanion.release import Release


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build(tmp_path_factory.mktemp("tiny") / "release")


@pytest.fixture(scope="module")
def chat(tiny):
    release = Release(tiny)
    assert not release.invalid_rows
    return load_track(release, "chat")


@pytest.fixture(scope="module")
def frame(chat):
    return run_baselines(chat, seed=0)[0]


def metric(frame, method, item, population, name):
    rows = frame[(frame["method"] == method) & (frame["item_id"] == item) & (frame["population"] == population)
                 & (frame["gold_set"] == "actual")]
    assert len(rows) == 1, (method, item, population)
    return rows[name].iloc[0]


def test_the_hand_built_release_is_valid(tiny, capsys):
    assert main(["validate", str(tiny)]) == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out


def test_required_messages_reference_sets_and_populations(chat):
    turns = {i.item_id: (i.gold.tolist(), i.references.tolist()) for i in chat.scored()}
    assert turns == {"U01:C0001": ([6, 7], []), "U01:C0002": ([2, 13], [2]), "U01:C0003": ([17], [17]),
                     "U01:C0004": ([], []), "U02:C0001": ([3], []), "U02:C0002": ([1, 5, 15], [1, 5]),
                     "U02:C0003": ([17], []), "U02:C0004": ([8], [])}
    populations = {i.item_id: sorted(chat.populations(i)) for i in chat.retrievable()}
    assert populations == {"U01:C0001": ["all"], "U01:C0002": ["all", "distant", "distant_dependent"],
                           "U01:C0003": ["all", "distant"], "U02:C0001": ["all"],
                           "U02:C0002": ["all", "distant", "distant_dependent"], "U02:C0003": ["all"],
                           "U02:C0004": ["all"]}
    assert sorted((r["item_id"], r["population"], r["reason"]) for r in chat.excluded()) == [
        ("U01:C0004", "all", "no required message"), ("U01:C0005", "all", "cold_open"),
        ("U01:C0006", "all", "withdrawn:context_lost")]


def test_recency_finds_the_thread_on_all_items_and_rarely_the_reference_on_distant_ones(chat, frame):
    hits = {i: metric(frame, "recency", i, "all", "hit@5") for i in
            ("U01:C0001", "U01:C0002", "U01:C0003", "U02:C0001", "U02:C0002", "U02:C0003", "U02:C0004")}
    assert hits == {"U01:C0001": 1, "U01:C0002": 1, "U01:C0003": 1, "U02:C0001": 1, "U02:C0002": 1,
                    "U02:C0003": 1, "U02:C0004": 0}
    # U02:C0004 (probe 19): its thread, turn 8, is 11th most recent in the pool 18, 17, ..., 0
    assert metric(frame, "recency", "U02:C0004", "all", "mrr") == pytest.approx(1 / 11)
    # gold {6, 7}, ranking 7, 6, ...: one of two in the top 1 (not 1 / min(1, 2))
    assert metric(frame, "recency", "U01:C0001", "all", "recall@1") == 0.5
    # U02:C0002 (probe 16): gold {1, 5, 15}, top 5 = 15, 14, 13, 12, 11: one of three
    assert metric(frame, "recency", "U02:C0002", "all", "recall@5") == pytest.approx(1 / 3)
    # distant items are scored against the reference set alone
    # U01:C0002 (probe 14): reference turn 2 is 14 - 2 = 12th most recent (the thread, 13, does not count)
    assert metric(frame, "recency", "U01:C0002", "distant", "hit@5") == 0
    assert metric(frame, "recency", "U01:C0002", "distant", "mrr") == pytest.approx(1 / 12)
    assert metric(frame, "recency", "U01:C0003", "distant", "mrr") == pytest.approx(1 / 3)  # a reference on screen
    # U02:C0002 (probe 16): references {1, 5}; turn 5 is 16 - 5 = 11th most recent
    assert metric(frame, "recency", "U02:C0002", "distant", "mrr") == pytest.approx(1 / 11)
    # user turns only: U01 12, 10, 8, 6, 4, 2 (6th); U02 15, 13, 11, 9, 7, 5 (6th; 6, 8, 10, 12, 14 are the companion's)
    assert metric(frame, "recency_user", "U01:C0002", "distant", "mrr") == pytest.approx(1 / 6)
    assert metric(frame, "recency_user", "U01:C0003", "distant", "mrr") == 0  # the companion's own message
    assert metric(frame, "recency_user", "U02:C0002", "distant", "mrr") == pytest.approx(1 / 6)
    report = baselines_report(chat, 0, 50)
    recency = report["baselines"]["recency"]["actual"]
    assert recency["all"]["n"] == 7 and recency["all"]["hit@5"]["pooled"] == pytest.approx(6 / 7)
    assert recency["all"]["hit@5"]["macro"] == pytest.approx((1 + 3 / 4) / 2)
    assert recency["distant"]["n"] == 3 and recency["distant"]["hit@5"]["pooled"] == pytest.approx(1 / 3)
    assert recency["distant"]["hit@5"]["macro"] == pytest.approx(1 / 4)
    # Table 38's per-participant n: U01:C0002 and U01:C0003; U02:C0002
    assert recency["distant"]["hit@5"]["n_by_participant"] == {"U01": 2, "U02": 1}
    assert recency["distant_dependent"]["n"] == 2 and recency["distant_dependent"]["hit@5"]["pooled"] == 0
    # abstract: the share of every scored probe (8, one without a required message) whose required message is found
    assert report["found_share_top5"]["recency"] == {"found": 6.0, "probes": 8, "share": 0.75}


def test_random_expectation_is_exact(frame):
    h7 = sum(Fraction(1, r) for r in range(1, 8))
    expected = random_expectation(8, 2)
    assert expected["hit@1"] == pytest.approx(2 / 8) and expected["hit@5"] == pytest.approx(50 / 56)
    assert expected["recall@5"] == 5 / 8 and expected["hit@20"] == 1.0
    assert expected["mrr"] == pytest.approx(float((8 * h7 - 7) / 28))
    assert metric(frame, "random_expected", "U01:C0001", "all", "hit@5") == pytest.approx(50 / 56)
    # and it is what a seeded draw averages to
    rng, draws = np.random.default_rng(1), []
    for _ in range(20000):
        draws.append(int(np.isin(rng.permutation(8)[:5], [6, 7]).any()))
    assert np.mean(draws) == pytest.approx(50 / 56, abs=0.01)


def test_offset_draw_fits_every_pool_and_takes_another_items_set():
    from realcompanion.formats.realcompanion.scoring.controls import drawn_offsets

    ids = ["a", "b", "c"]
    # item 0 (pool 3) fits sets 0 (its own) and 1: it takes set 1; items 1 and 2 never take their own
    for seed in range(20):
        taken = drawn_offsets(np.array([3, 10, 10]), [np.array([3]), np.array([2]), np.array([9])], ids, seed, "all")
        assert taken[0] == 1 and taken[1] in (0, 2) and taken[2] in (0, 1)
    # only its own set fits item 0: it keeps it
    assert drawn_offsets(np.array([2, 10]), [np.array([2]), np.array([9])], ids[:2], 0, "all")[0] == 0


def test_offset_draw_is_with_replacement_so_recency_can_move():
    """Table 33: recency 0.979 under the actual gold, 0.982 offset permuted. Recency's hit depends on the
    distances alone, so a permutation of the distance sets could not move it: the donors are drawn with
    replacement, and two items may take the same set."""
    from realcompanion.formats.realcompanion.scoring.controls import drawn_offsets

    pools = np.full(40, 100)
    offsets = [np.array([1 + k]) for k in range(40)]
    taken = drawn_offsets(pools, offsets, [f"i{k}" for k in range(40)], 0, "all")
    assert len(set(taken)) < 40 and all(t != k for k, t in enumerate(taken))


@given(st.lists(st.tuples(st.integers(1, 60), st.lists(st.integers(1, 60), min_size=1, max_size=4)),
                min_size=1, max_size=30), st.integers(0, 2**32 - 1))
def test_offset_draw_always_fits(items, seed):
    from realcompanion.formats.realcompanion.scoring.controls import drawn_offsets

    pools = np.array([max(pool, *offsets) for pool, offsets in items])  # every item's own set fits its pool
    offsets = [np.array(o) for _, o in items]
    ids = [f"i{k}" for k in range(len(items))]
    taken = drawn_offsets(pools, offsets, ids, seed, "all")
    assert all(offsets[t].max() <= pools[i] for i, t in enumerate(taken))
    assert all(t != i or not any(offsets[j].max() <= pools[i] for j in range(len(items)) if j != i)
               for i, t in enumerate(taken))
    # each item's draw is its own: it does not depend on the order the items come in
    reordered = drawn_offsets(pools[::-1], offsets[::-1], ids[::-1], seed, "all")
    assert [ids[t] for t in taken] == [ids[::-1][t] for t in reordered][::-1]


@pytest.mark.parametrize(("k", "n", "low", "high"), [(0, 120, 0.0, 3.1), (56, 120, 38.0, 55.6), (40, 1169, 2.5, 4.6)])
def test_wilson_intervals_reproduce_tables_32_and_37(k, n, low, high):
    interval = wilson(k, n)
    assert (round(100 * interval["low"], 1), round(100 * interval["high"], 1)) == (low, high)


def test_demand_rate_is_the_memory_bearing_share_of_the_proportional_stratum(chat):
    rate = baselines_report(chat, 0, 10)["demand_rate"]
    assert (rate["recorded"]["memory_bearing"], rate["recorded"]["rows"]) == (1, 6)
    assert rate["recorded"]["wilson"] == wilson(1, 6) and rate["strict"]["memory_bearing"] == 0


def test_windows_measure_the_reference_set(tiny, tmp_path):
    out = tmp_path / "w.json"
    assert main(["windows", str(tiny), "--json", str(out)]) == 0
    coverage = json.loads(out.read_text())["coverage"]
    # recorded: U01:C0002 (14 - 2 = 12 back), U01:C0003 (20 - 17 = 3 back), U02:C0002 (16 - 1 = 15 back);
    # strict: U01:C0002 and U02:C0002, neither within 10 (gate E)
    assert coverage["recorded"]["n"] == 3 and coverage["recorded"]["messages"]["10"] == pytest.approx(1 / 3)
    assert coverage["recorded"]["messages"]["25"] == 1.0 and coverage["strict"]["messages"]["10"] == 0.0


def write_verdicts(path, chat, used, condition="C1"):
    judge = {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}
    return write_jsonl(path, [{"item_id": i.item_id, "condition": condition, "content_match": 2 if i.scored else 0,
                               "used_memory": i.item_id in used, "judge": judge} for i in chat.items if i.posed])


def test_misfire_is_scored_on_rows_that_need_no_memory(tiny, chat, tmp_path):
    used = {"U01:C0001", "U02:C0003", "U01:C0002"}
    verdicts = write_verdicts(tmp_path / "v.jsonl", chat, used)
    out = tmp_path / "s.json"
    assert main(["score", str(tiny), "--track", "chat", "--verdicts", str(verdicts), "--json", str(out),
                 "--resamples", "20"]) == 0
    c1 = json.loads(out.read_text())["judged"]["conditions"]["C1"]
    # rho* = 0: U01:C0001, U01:C0004, U02:C0001, U02:C0003, U02:C0004; the scoreable cold open U01:C0005 is the
    # abstention control, not a scored row; misfires: U01:C0001 and U02:C0003
    assert c1["misfire_rate"]["n"] == 5 and c1["misfire_rate"]["pooled"] == pytest.approx(2 / 5)
    assert c1["misfire_rate"]["wilson"] == wilson(2, 5)
    assert c1["appropriate_application"]["n"] == 3 and c1["appropriate_application"]["pooled"] == pytest.approx(1 / 3)
    assert c1["misapplication"]["n"] == 1 and c1["misapplication"]["pooled"] == 0.0
    assert c1["content_match_proportional"]["n"] == 6 and c1["content_match_dependent"]["n"] == 3
    # "all judged rows" (Tables 5, 40): the 8 scored rows (verdict 2) and the cold open (verdict 0)
    assert c1["content_match_judged"]["n"] == 9 and c1["content_match_judged"]["pooled"] == pytest.approx(16 / 9)
    assert c1["content_match"]["n"] == 8 and c1["content_match"]["pooled"] == 2.0


def test_the_terminal_shows_pooled_and_macro_judged_means(tiny, chat, tmp_path, capsys):
    """Tables 5, 39 and 40 print a mean over items and a mean over participants; the terminal shows both."""
    judge = {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}
    match = {"U01:C0002": 2, "U01:C0003": 1, "U02:C0002": 0}  # the dependent items (rho* = 1)
    verdicts = write_jsonl(tmp_path / "v.jsonl", [
        {"item_id": i.item_id, "condition": "C2", "content_match": match.get(i.item_id, 2), "used_memory": False,
         "judge": judge} for i in chat.items if i.posed])
    out = tmp_path / "s.json"
    assert main(["score", str(tiny), "--track", "chat", "--verdicts", str(verdicts), "--json", str(out),
                 "--resamples", "20"]) == 0
    dependent = json.loads(out.read_text())["judged"]["conditions"]["C2"]["content_match_dependent"]
    # pooled (2 + 1 + 0) / 3 = 1; macro: U01 (2 + 1) / 2 = 1.5, U02 0, (1.5 + 0) / 2 = 0.75
    assert (dependent["pooled"], dependent["macro"]) == (1.0, 0.75)
    lines = capsys.readouterr().out.splitlines()
    for title, shown in (("pooled [95% CI", "1.000 [0.000, 1.500]"), ("averaged by participant (macro", "0.750")):
        at = next(k for k, line in enumerate(lines) if line.startswith("Judged quantities by condition, " + title))
        columns, row = lines[at + 1].split(), lines[at + 2]
        assert row.startswith("C2") and shown in row
        assert columns.index("content_match_dependent") == columns.index("content_match") + 2


def test_table_7_quantities_read_optional_verdict_fields(tiny, chat, tmp_path):
    judge = {"model": "m", "prompt_sha256": "0" * 64, "temperature": 0}
    extra = {"U01:C0002": {"attributed": True, "locus": "earlier_exchange", "consistent": True},
             "U01:C0003": {"attributed": False, "locus": "earlier_exchange", "consistent": True},
             "U02:C0002": {"locus": "profile_claim", "consistent": False},
             "U01:C0001": {"consistent": True}}
    verdicts = write_jsonl(tmp_path / "v.jsonl", [
        {"item_id": i.item_id, "condition": "C2", "content_match": 1, "used_memory": False, "judge": judge,
         **extra.get(i.item_id, {})} for i in chat.items if i.posed])
    out = tmp_path / "s.json"
    assert main(["score", str(tiny), "--track", "chat", "--verdicts", str(verdicts), "--json", str(out),
                 "--resamples", "20"]) == 0
    c2 = json.loads(out.read_text())["judged"]["conditions"]["C2"]
    # rho* = 1: U01:C0002, U01:C0003, U02:C0002; U02:C0002 carries no attribution verdict
    assert (c2["attribution_rate"]["n"], c2["attribution_rate"]["missing"]) == (2, 1)
    assert c2["attribution_rate"]["pooled"] == 0.5
    # verified loci: earlier_exchange, companion_behavior, profile_claim
    assert c2["locus_accuracy"]["n"] == 3 and c2["locus_accuracy"]["pooled"] == pytest.approx(2 / 3)
    assert (c2["response_consistency"]["n"], c2["response_consistency"]["missing"]) == (4, 4)
    assert c2["response_consistency"]["pooled"] == 0.75


def test_detector_probabilities_are_scored_on_the_proportional_stratum(tiny, tmp_path):
    detector = write_jsonl(tmp_path / "d.jsonl", [
        {"item_id": "U01:C0001", "probability": 0.2}, {"item_id": "U01:C0003", "probability": 0.9},
        {"item_id": "U01:C0004", "probability": 0.95}, {"item_id": "U02:C0001", "probability": 0.1},
        {"item_id": "U02:C0003", "probability": 0.5}, {"item_id": "U01:C0002", "probability": 0.3}])
    out = tmp_path / "s.json"
    assert main(["score", str(tiny), "--track", "chat", "--detector", str(detector), "--json", str(out),
                 "--resamples", "20"]) == 0
    block = json.loads(out.read_text())["detector"]
    # one positive (U01:C0003, 0.9) against four negatives (0.2, 0.95, 0.1, 0.5): 3 of 4 pairs ordered
    assert (block["auroc"], block["n"], block["positives"], block["missing"]) == (0.75, 5, 1, 1)
    assert block["ignored_items"] == ["U01:C0002"]


def test_a_detector_probability_outside_the_unit_interval_is_one_line(tiny, tmp_path, capsys):
    detector = write_jsonl(tmp_path / "d.jsonl", [{"item_id": "U01:C0001", "probability": 1.5}])
    assert main(["score", str(tiny), "--track", "chat", "--detector", str(detector)]) == 2
    err = capsys.readouterr().err.strip()
    assert "d.jsonl" in err and "probability" in err and "\n" not in err


def contexts(tiny, tmp_path, condition, *extra):
    out = tmp_path / f"{condition}.jsonl"
    assert main(["contexts", str(tiny), "--condition", condition, "--out", str(out), *extra]) == 0
    return {r["item_id"]: [m["dayid"] for m in r["messages"]] for r in map(json.loads, out.read_text().splitlines())}


def test_c3_holds_only_messages_bm25_retrieves(tiny, tmp_path):
    c3, c3m = contexts(tiny, tmp_path, "C3"), contexts(tiny, tmp_path, "C3m")
    # "which trail should we take for the hike": only turns 6 ("we", "hike") and 7 ("hike") share a word
    assert c3["U01:C0001"] == ["U01:d001:007", "U01:d001:008"] == c3m["U01:C0001"]
    # "you guessed the shoes colour right": turns 14 ("you"), 16 ("shoes") and 17 ("you" twice, "shoes");
    # C3 by score, C3m by time
    assert c3["U01:C0003"][0] == "U01:d001:018"
    assert sorted(c3["U01:C0003"]) == c3m["U01:C0003"] == ["U01:d001:015", "U01:d001:017", "U01:d001:018"]
    # "cats and plants do not mix": no earlier message shares a word (no stemming: plant is not plants)
    assert c3["U02:C0004"] == [] and contexts(tiny, tmp_path, "C4")["U02:C0004"] != []
    padded = contexts(tiny, tmp_path, "C3", "--bm25-fallback", "recency")
    # padded with the 10 most recent messages before its probe (19): turns 18 down to 9
    assert padded["U02:C0004"] == [f"U02:d001:{t + 1:03d}" for t in range(18, 8, -1)]


@pytest.mark.parametrize("where", ["tiny", "specimen chat", "specimen qa"])
def test_bm25_ranks_like_a_bm25s_index_over_the_messages_before_the_probe(where, chat, repo):
    import bm25s

    from realcompanion.formats.realcompanion.scoring.settings import BM25
    from realcompanion.scoring.bm25 import ParticipantIndex
    from realcompanion.scoring.bm25 import tokenizer as bm25_tokenizer

    track = chat if where == "tiny" else load_track(Release(repo), where.split()[1])
    items = track.retrievable()[:: max(1, len(track.retrievable()) // 25)]
    for item in items:
        texts = track.streams[item.participant_id].texts
        tokenizer = bm25_tokenizer()
        corpus = tokenizer.tokenize(texts[:item.pool_end], return_as="tuple", show_progress=False, allow_empty=False)
        prefix = bm25s.BM25(method=BM25["method"], k1=BM25["k1"], b=BM25["b"])
        prefix.index(corpus, show_progress=False)
        query = tokenizer.tokenize([item.query], update_vocab=False, show_progress=False, allow_empty=False)[0]
        expected = prefix.get_scores_from_ids(query) if query else np.zeros(item.pool_end)
        ours = ParticipantIndex(texts).scores(item.query, item.pool_end)
        assert ours == pytest.approx(expected, rel=1e-5, abs=1e-6), item.item_id


def test_bm25_cuts_chinese_into_words():
    """A Chinese message is one clause-long run of word characters: unsegmented, the probe below shares no term
    with any earlier message and BM25 retrieves nothing (a converted Chinese release scored BM25 far below random)."""
    from realcompanion.scoring.bm25 import ParticipantIndex, terms

    texts = ["我去的是绿禾公园，看到了一朵开得特别美的樱花。", "真棒！", "今天我学了一道新的菜，叫做清蒸鲈鱼。", "听起来不错啊。",
             "我曾经和你提到我去过绿禾公园，我在绿禾公园看到了什么景色？"]
    assert list(ParticipantIndex(texts).rank(texts[-1], 4)[0][:1]) == [0]
    assert {"绿禾", "公园", "ai", "伴侣"} <= set(terms("你好啊ai伴侣，我去了绿禾公园")) and "a" not in terms("a cat")
    assert terms("妈妈喜欢什么花") == ["妈妈", "喜欢", "什么", "花"] and terms("好") == ["好"]  # one character: a word


def test_bm25_keeps_a_words_combining_marks():
    """A Devanagari vowel sign or an Arabic vowel mark is part of its word: cut at each mark, "मेरी बिल्ली कहाँ है"
    (where is my cat) fell apart into single letters, all dropped, so a Hindi probe retrieved nothing. By hand:
    message 0 shares मेरी, बिल्ली and है with the probe, message 2 only बिल्ली, message 1 nothing."""
    from realcompanion.scoring.bm25 import ParticipantIndex, terms

    assert terms("मेरी बिल्ली कहाँ है") == ["मेरी", "बिल्ली", "कहाँ", "है"]
    assert terms("مَدْرَسَة كبيرة") == ["مَدْرَسَة", "كبيرة"]
    # decomposed and full-width forms are the terms of their usual forms (NFKC)
    assert terms("Cafe\u0301 ＰＯＲＴＯ") == terms("Café PORTO") == ["Café", "PORTO"]
    texts = ["मेरी बिल्ली सो रही है", "आज बारिश हुई", "बिल्ली को खाना दिया", "मेरी बिल्ली कहाँ है"]
    assert list(ParticipantIndex(texts).rank(texts[-1], 3)[0]) == [0, 2]


def test_no_later_message_changes_a_ranking_or_a_context(tiny, tmp_path):
    """Appending messages after every probe (words of every probe in them) leaves every BM25 ranking and every C3
    context byte for byte the same; and so does scoring each probe on its prefix alone."""
    from realcompanion.scoring.bm25 import ParticipantIndex

    def bm25_rankings(folder):
        track = load_track(Release(folder), "chat")
        index = {pid: ParticipantIndex(s.texts) for pid, s in track.streams.items()}
        return {i.item_id: index[i.participant_id].rank(i.query, i.pool_end)[0].tobytes() for i in track.items}

    before, c3_before = bm25_rankings(tiny), (tmp_path / "a").mkdir() or contexts(tiny, tmp_path / "a", "C3")
    later = tmp_path / "later"
    import shutil

    shutil.copytree(tiny, later)
    source = [json.loads(line) for line in (later / "data" / "source.jsonl").read_text().splitlines()]
    probes = " ".join(json.loads(line)["probe"] for line in (later / "data" / "chat.jsonl").read_text().splitlines())
    for pid, start in (("U01", 24), ("U02", 20)):
        for k in range(3):
            turn = start + k
            source.append({"participant_id": pid, "turn": turn, "dayid": f"{pid}:d001:{turn + 1:03d}",
                           "db_id": 100 + 2 * turn, "sender": "user", "timestamp": f"2025-03-01T09:{turn:02d}:00+00:00",
                           "session": 1, "media": None, "text": probes})
    write_jsonl(later / "data" / "source.jsonl", source)
    assert bm25_rankings(later) == before
    (tmp_path / "b").mkdir()
    assert contexts(later, tmp_path / "b", "C3", "--unvalidated") == c3_before  # a test's edit, not restamped
    track = load_track(Release(tiny), "chat")
    for item in track.retrievable():
        texts = track.streams[item.participant_id].texts
        assert ParticipantIndex(texts[:item.pool_end]).rank(item.query, item.pool_end)[0].tobytes() == before[
            item.item_id]


def test_every_command_names_what_it_set_aside_the_same_way(tiny, tmp_path, capsys):
    broken = tmp_path / "broken"
    import shutil

    shutil.copytree(tiny, broken)
    chat_path, source_path = broken / "data" / "chat.jsonl", broken / "data" / "source.jsonl"
    rows = [json.loads(line) for line in chat_path.read_text().splitlines()]
    rows[6]["scoreable"] = "yes"  # U02:C0001 fails its schema
    write_jsonl(chat_path, rows)
    source = [json.loads(line) for line in source_path.read_text().splitlines()]
    source[5]["text"] = 5  # U01 turn 5 fails its schema
    write_jsonl(source_path, source)
    warning = ("warning: rows failing their schema are not scored (source 1, chat 1); run `realcompanion validate`")
    exclusions = ("chat: 6 retrieval-scoreable items; not retrieval-scored: cold_open 1, no required message 1, "
                  "withdrawn:context_lost 1")
    verdicts = write_verdicts(tmp_path / "v.jsonl", load_track(Release(tiny), "chat"), set())
    lines = [v for v in verdicts.read_text().splitlines() if "U02:C0001" not in v]
    verdicts.write_text("\n".join(lines) + "\n")
    for command in (["baselines", str(broken), "--track", "chat", "--resamples", "10"],
                    ["score", str(broken), "--track", "chat", "--verdicts", str(verdicts), "--resamples", "10"],
                    ["windows", str(broken)],
                    ["contexts", str(broken), "--condition", "C4", "--out", str(tmp_path / "c4.jsonl")]):
        assert main([*command, "--unvalidated"]) == 0  # it fails validation: scored as it is only when asked
        out = capsys.readouterr().out
        # contexts, which writes no JSON report, names the lines in the line itself
        named = warning.replace("(source 1, chat 1)", "(source 1 (line 6), chat 1 (line 7))")
        assert (named if command[0] == "contexts" else warning) in out and exclusions in out, command[0]
    assert "not put to a system: 1 rows (withdrawn:context_lost 1): U01:C0006" in out
    assert main(["baselines", str(broken), "--track", "chat", "--resamples", "10", "--unvalidated", "--json",
                 str(tmp_path / "b.json")]) == 0
    release = json.loads((tmp_path / "b.json").read_text())["release"]
    assert release["invalid_rows"] == {"source": 1, "chat": 1}
    assert release["invalid_lines"] == {"source": [6], "chat": [7]}
    capsys.readouterr()
    # C4 never reaches past the missing turn 5: U01:C0001 and U01:C0002 are one message short, and say so
    records = {r["item_id"]: r for r in map(json.loads, (tmp_path / "c4.jsonl").read_text().splitlines())}
    assert [m["dayid"] for m in records["U01:C0002"]["messages"]] == [
        f"U01:d001:{t + 1:03d}" for t in (4, 6, 7, 8, 9, 10, 11, 12, 13)]
    assert main(["contexts", str(broken), "--unvalidated", "--condition", "C4", "--out", str(tmp_path / "c4.jsonl")]) == 0
    assert "2 contexts lack source messages set aside by the reader: U01:C0001 (1), U01:C0002 (1)" in \
        capsys.readouterr().out
