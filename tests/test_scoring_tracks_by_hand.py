"""`score` and `evaluate` on two more hand-built releases of `tiny_release`, every figure worked out by hand.

chat only (no qa track): both enriched rows withdrawn (U01:C0002, U02:C0002), so the enriched stratum has no
scored row. Posed: U01:C0001, C0003, C0004, the cold open C0005; U02:C0001, C0003, C0004. Retrieval-scored (pool,
required messages): U01:C0001 (8, {6, 7}), U01:C0003 (20, {17}: distant, recorded only), U02:C0001 (4, {3}),
U02:C0003 (18, {17}), U02:C0004 (19, {8}); distant dependent (strict): none.

qa only (no chat track): U01 asks two questions, U02 a single one. U01:Q0001 (pool turns 0-21, gold {2}: distant),
U01:Q0002 (unanswerable, no evidence), U02:Q0001 "Where do I live?" asked after turn 10 (pool 0-10, gold {1, 5},
both within the last 10 messages: not distant).

Wilson at z = 1.959964 (z^2 = 3.841459): k = n gives [n / (n + z^2), 1], k = 0 gives [0, z^2 / (n + z^2)], else
(p + z^2/2n -+ z sqrt(p(1 - p)/n + z^2/4n^2)) / (1 + z^2/n). With two participants a resample is A twice, B twice or
one of each (chances 1/4, 1/4, 1/2): 500 resamples hold each extreme far beyond 2.5%, so the percentile interval is
[the lower participant's figure, the higher one's]; one participant has no interval.
"""
from __future__ import annotations

import json
import re

import pytest
from local_server import JSONHandler, serving
from tiny_release import QUESTIONS, build, dayid, write_jsonl

from realcompanion.cli import main

JUDGE = {"model": "hand", "prompt_sha256": "0" * 64, "temperature": 0}
ENRICHED_WITHDRAWN = {"U01:C0006": "context_lost", "U01:C0002": "stored_verdict_failed",
                      "U02:C0002": "gold_unsupported_rebuild_failed"}
ONE_QUESTION_EACH_SIDE = [QUESTIONS[0], QUESTIONS[1], ("U02:Q0001", "Where do I live?", "Porto", [1, 5], 10)]


def flat(tree: dict, prefix=()) -> dict:
    """A nested report block as one mapping of key paths, which `pytest.approx` compares."""
    return {k: v for key, value in tree.items()
            for k, v in (flat(value, (*prefix, key)) if isinstance(value, dict) else {(*prefix, key): value}).items()}


def ranked(pid, *turns):
    return [dayid(pid, t) for t in turns]


@pytest.fixture(scope="module")
def chat_only(tmp_path_factory):
    return build(tmp_path_factory.mktemp("chat_only") / "release", withdrawn=ENRICHED_WITHDRAWN, tracks=("chat",))


@pytest.fixture(scope="module")
def qa_only(tmp_path_factory):
    return build(tmp_path_factory.mktemp("qa_only") / "release", questions=ONE_QUESTION_EACH_SIDE, tracks=("qa",))


def score(release, folder, track, **inputs):
    """`score --json` with each of `inputs` (run, verdicts: rows) written to a file; (exit code, report)."""
    options = [arg for name, rows in inputs.items()
               for arg in (f"--{name}", str(write_jsonl(folder / f"{name}.jsonl", rows)))]
    out = folder / "report.json"
    code = main(["score", str(release), "--track", track, *options, "--resamples", "500", "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8")) if code == 0 else None


CHAT_RUN = [
    # every score tied: the run's order decides, the gold 6 and 7 at ranks 6 and 7, just past the cut-off of 5:
    # hit@1 0, hit@5 0, hit@20 1, recall@5 0, recall@20 1, MRR 1/6
    {"item_id": "U01:C0001", "ranking": ranked("U01", 0, 1, 2, 3, 4, 6, 7), "scores": [1] * 7},
    {"item_id": "U01:C0003", "ranking": ranked("U01", 17), "scores": [1.5]},  # one message, fewer than k: 1 everywhere
    {"item_id": "U02:C0001", "ranking": ranked("U02", 0, 3), "scores": [2, 2]},  # gold 3 at rank 2: hit@5 1, MRR 1/2
    # the gold 17 sixth among six tied messages: hit@5 0, hit@20 1, MRR 1/6
    {"item_id": "U02:C0003", "ranking": ranked("U02", 16, 15, 14, 13, 12, 17), "scores": [0.5] * 6},
    # U02:C0004 left out: a miss. U01:C0002 is withdrawn: its ranking is ignored
    {"item_id": "U01:C0002", "ranking": ranked("U01", 2)},
]


@pytest.fixture(scope="module")
def chat_run(chat_only, tmp_path_factory):
    code, report = score(chat_only, tmp_path_factory.mktemp("chat_run"), "chat", run=CHAT_RUN)
    assert code == 0
    return report


# per item, in the order U01:C0001, U01:C0003 | U02:C0001, U02:C0003, U02:C0004
@pytest.mark.parametrize("metric, pooled, macro, u01, u02", [
    ("hit@1", 1 / 5, (1 / 2 + 0) / 2, 1 / 2, 0.0),  # 0, 1 | 0, 0, 0
    ("hit@5", 2 / 5, (1 / 2 + 1 / 3) / 2, 1 / 2, 1 / 3),  # 0, 1 | 1, 0, 0
    ("hit@20", 4 / 5, (1 + 2 / 3) / 2, 1.0, 2 / 3),  # 1, 1 | 1, 1, 0
    ("recall@1", 1 / 5, 1 / 4, 1 / 2, 0.0),  # 0, 1 | 0, 0, 0
    ("recall@5", 2 / 5, 5 / 12, 1 / 2, 1 / 3),  # 0 (neither 6 nor 7 in the top 5), 1 | 1, 0, 0
    ("recall@20", 4 / 5, 5 / 6, 1.0, 2 / 3),  # 2/2, 1 | 1, 1, 0
    ("mrr", 11 / 30, 29 / 72, 7 / 12, 2 / 9),  # 1/6, 1 | 1/2, 1/6, 0: (11/6) / 5; (7/12 + 2/9) / 2
])
def test_ties_at_the_cut_off_and_short_rankings_by_hand(chat_run, metric, pooled, macro, u01, u02):
    block = chat_run["retrieval"]["summary"]["all"][metric]
    low, high = sorted((u01, u02))
    assert flat(block) == pytest.approx(flat({
        "pooled": pooled, "macro": macro, "by_participant": {"U01": u01, "U02": u02},
        "n_by_participant": {"U01": 2, "U02": 3},
        "ci": {"pooled": {"low": low, "high": high, "undefined_resamples": 0},
               "macro": {"low": low, "high": high, "undefined_resamples": 0}}}))


def test_a_withdrawn_stratum_leaves_one_distant_item_and_no_distant_dependent_one(chat_run):
    """Distant: U01:C0003 alone (1 on every metric, one participant: no interval); distant dependent: nobody."""
    summary = chat_run["retrieval"]["summary"]
    assert (summary["distant"]["n"], summary["distant"]["participants"]) == (1, 1)
    assert summary["distant"]["mrr"] == {"pooled": 1.0, "macro": 1.0, "by_participant": {"U01": 1.0},
                                         "n_by_participant": {"U01": 1}, "ci": {"pooled": None, "macro": None}}
    assert (summary["distant_dependent"]["n"], summary["distant_dependent"]["hit@5"]) == (
        0, {"pooled": None, "macro": None, "by_participant": {}, "n_by_participant": {}})
    assert sorted((e["item_id"], e["reason"]) for e in chat_run["excluded"]) == [
        ("U01:C0002", "withdrawn:stored_verdict_failed"), ("U01:C0004", "no required message"),
        ("U01:C0005", "cold_open"), ("U01:C0006", "withdrawn:context_lost"),
        ("U02:C0002", "withdrawn:gold_unsupported_rebuild_failed")]
    # pools 8, 20, 4, 18, 19: median 18; only U02:C0001's 4 is at most 5, every pool at most 20
    assert chat_run["pool"] == {"items": 5, "min": 4, "median": 18.0, "max": 20, "k_at_least_pool": {
        "1": [], "5": ["U02:C0001"], "20": ["U01:C0001", "U01:C0003", "U02:C0001", "U02:C0003", "U02:C0004"]}}


def test_detectability_of_tied_and_missing_top_1_scores_by_hand(chat_run):
    """Proportional stratum: U01:C0001 (top-1 1), U01:C0003 (1.5, the one positive), U01:C0004 (no row: missing),
    U02:C0001 (2), U02:C0003 (0.5), U02:C0004 (no row: missing). 1.5 beats 1 and 0.5, loses to 2: AUROC 2/3.
    Resampled: U01 twice 1 (the positive against U01:C0001 only), one of each 2/3, U02 twice has no positive
    (undefined, about a quarter of 500)."""
    block = chat_run["retrieval"]
    assert (block["missing_items"], block["ignored_items"]) == (["U02:C0004"], ["U01:C0002"])
    top1 = block["detectability_top1"]
    assert (top1["n"], top1["positives"], top1["missing"], top1["auroc"]) == (4, 1, 2, pytest.approx(2 / 3))
    assert (top1["ci"]["low"], top1["ci"]["high"]) == (pytest.approx(2 / 3), 1.0)
    assert 0.15 < top1["ci"]["undefined_resamples"] / 500 < 0.35


# per item, exact: U01:C0001 (pool 8, gold {6, 7}), U01:C0003 (20, {17}) | U02:C0001 (4, {3}), U02:C0003 (18, {17}),
# U02:C0004 (19, {8}). Random: a first gold at rank r has chance C(N - r, g - 1) / C(N, g); with one gold MRR is
# H_N / N, with N = 8, g = 2 it is (8 H_7 - 7) / 28; hit@5 of N = 8, g = 2 is 1 - C(6, 5) / C(8, 5) = 50/56.
H = {n: sum(1 / r for r in range(1, n + 1)) for n in (4, 7, 18, 19, 20)}
BASELINES = {
    ("recency", "hit@1"): ([1, 0], [1, 1, 0]),  # the newest first: 7, then 17 third, 3, 17, and 8 eleventh
    ("recency", "hit@5"): ([1, 1], [1, 1, 0]),
    ("recency", "mrr"): ([1, 1 / 3], [1, 1, 1 / 11]),
    ("recency_user", "hit@1"): ([1, 0], [0, 0, 0]),  # the user's own messages: only U01:C0001's 6 is one
    ("recency_user", "recall@5"): ([1 / 2, 0], [0, 0, 0]),
    ("random_expected", "hit@1"): ([2 / 8, 1 / 20], [1 / 4, 1 / 18, 1 / 19]),
    ("random_expected", "hit@5"): ([50 / 56, 5 / 20], [1, 5 / 18, 5 / 19]),
    ("random_expected", "recall@5"): ([5 / 8, 5 / 20], [1, 5 / 18, 5 / 19]),
    ("random_expected", "mrr"): ([(8 * H[7] - 7) / 28, H[20] / 20], [H[4] / 4, H[18] / 18, H[19] / 19]),
    ("oracle", "recall@1"): ([1 / 2, 1], [1, 1, 1]),
    ("broken_oracle", "hit@20"): ([0, 0], [0, 0, 0]),
}


def test_baselines_on_a_withdrawn_stratum_by_hand(chat_only, tmp_path):
    """Every deterministic ranker on the five retrieval-scored items; the demand rate over the six scored rows of
    the proportional stratum (U01:C0003 the one memory-bearing, recorded only): 1/6, Wilson [0.030053, 0.563503]
    ((1/6 + z^2/12 -+ z sqrt(5/216 + z^2/144)) / (1 + z^2/6)), strict 0/6, [0, z^2 / (6 + z^2)]; the required
    message in recency's top 5 for 4 of the 6 scored probes (U01:C0004 has none)."""
    out = tmp_path / "b.json"
    assert main(["baselines", str(chat_only), "--track", "chat", "--resamples", "20", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    for (method, metric), (u01, u02) in BASELINES.items():
        block = report["baselines"][method]["actual"]["all"][metric]
        assert (block["pooled"], block["macro"], block["by_participant"]) == (
            pytest.approx(sum(u01 + u02) / 5), pytest.approx((sum(u01) / 2 + sum(u02) / 3) / 2),
            pytest.approx({"U01": sum(u01) / 2, "U02": sum(u02) / 3})), (method, metric)
    demand = report["demand_rate"]
    assert (demand["recorded"]["memory_bearing"], demand["recorded"]["rows"]) == (1, 6)
    assert demand["recorded"]["wilson"] == pytest.approx({"low": 0.030053, "high": 0.563503}, abs=1e-6)
    assert demand["strict"]["wilson"] == pytest.approx({"low": 0.0, "high": 3.841459 / 9.841459}, abs=1e-6)
    assert report["found_share_top5"]["recency"] == {"found": 4.0, "probes": 6, "share": 4 / 6}


# C1: (item, content match, used memory, attributed, locus, consistent); U02:C0004 has no verdict (missing), the
# withdrawn U01:C0002 has one (extra: listed, not scored); the cold open carries no Table 7 field
C1 = [("U01:C0001", 2, False, False, "current_thread", True), ("U01:C0003", 1, True, True, "companion_behavior", True),
      ("U01:C0004", 0, True, False, "none", False), ("U01:C0005", 1, False, None, None, None),
      ("U02:C0001", 2, False, False, "current_thread", True), ("U02:C0003", 1, True, False, "earlier_exchange", False),
      ("U01:C0002", 2, True, None, None, None)]
# C4, a v1 verdict (no Table 7 field): (item, content match, used memory)
C4 = [("U01:C0001", 1, False), ("U01:C0003", 0, False), ("U01:C0004", 2, False), ("U01:C0005", 0, True),
      ("U02:C0001", 1, False), ("U02:C0003", 2, False), ("U02:C0004", 2, False)]


def chat_verdicts():
    rows = []
    for item, match, used, attributed, locus, consistent in C1:
        row = {"item_id": item, "condition": "C1", "content_match": match, "used_memory": used, "judge": JUDGE}
        rows.append(row if attributed is None else row | {"attributed": attributed, "locus": locus,
                                                          "consistent": consistent})
    return rows + [{"item_id": i, "condition": "C4", "content_match": m, "used_memory": u, "judge": JUDGE}
                   for i, m, u in C4]


@pytest.fixture(scope="module")
def chat_judged(chat_only, tmp_path_factory):
    code, report = score(chat_only, tmp_path_factory.mktemp("chat_judged"), "chat", verdicts=chat_verdicts())
    assert code == 0
    return report["judged"]


@pytest.mark.parametrize("condition, name, n, missing, pooled, macro, u01, u02, wilson", [
    # posed, C1: U01 2 + 1 + 0 + 1 = 4 over 4, U02 2 + 1 = 3 over 2
    ("C1", "content_match_judged", 6, 1, 7 / 6, (1 + 3 / 2) / 2, 1.0, 1.5, None),
    ("C1", "content_match", 5, 1, 6 / 5, 1.25, 1.0, 1.5, None),  # without the cold open: U01 3 over 3
    ("C1", "content_match_proportional", 5, 1, 6 / 5, 1.25, 1.0, 1.5, None),  # every scored row is proportional
    ("C1", "restraint", 5, 1, 2 / 5, (1 / 3 + 1 / 2) / 2, 1 / 3, 1 / 2, (0.117621, 0.769276)),
    # no reference set: U01:C0001 (not used), U01:C0004 (used), U02:C0001 (not), U02:C0003 (used)
    ("C1", "misfire_rate", 4, 1, 1 / 2, 1 / 2, 1 / 2, 1 / 2, (0.150039, 0.849961)),
    ("C1", "response_consistency", 5, 1, 3 / 5, (2 / 3 + 1 / 2) / 2, 2 / 3, 1 / 2, (0.230724, 0.882379)),
    # posed, C4: U01 1 + 0 + 2 + 0 = 3 over 4, U02 1 + 2 + 2 = 5 over 3
    ("C4", "content_match_judged", 7, 0, 8 / 7, (3 / 4 + 5 / 3) / 2, 3 / 4, 5 / 3, None),
    ("C4", "content_match", 6, 0, 8 / 6, (1 + 5 / 3) / 2, 1.0, 5 / 3, None),
    ("C4", "restraint", 6, 0, 1.0, 1.0, 1.0, 1.0, (6 / (6 + 3.841459), 1.0)),
    ("C4", "misfire_rate", 5, 0, 0.0, 0.0, 0.0, 0.0, (0.0, 3.841459 / (5 + 3.841459))),
])
def test_judged_means_over_two_participants_by_hand(chat_judged, condition, name, n, missing, pooled, macro, u01, u02,
                                                    wilson):
    block = chat_judged["conditions"][condition][name]
    low, high = sorted((u01, u02))
    assert flat({k: block[k] for k in ("n", "missing", "pooled", "macro", "by_participant", "ci")}) == pytest.approx(flat({
        "n": n, "missing": missing, "pooled": pooled, "macro": macro, "by_participant": {"U01": u01, "U02": u02},
        "ci": {"pooled": {"low": low, "high": high, "undefined_resamples": 0},
               "macro": {"low": low, "high": high, "undefined_resamples": 0}}}))
    assert block.get("wilson") == (None if wilson is None else pytest.approx(dict(zip(("low", "high"), wilson)),
                                                                              abs=1e-6))


@pytest.mark.parametrize("condition, name, n, missing, pooled", [
    ("C1", "content_match_dependent", 1, 0, 1.0),  # U01:C0003 alone: one participant, no interval
    ("C1", "appropriate_application", 1, 0, 1.0),
    ("C1", "misapplication", 1, 0, 1.0),  # locus none: U01:C0004, memory used
    ("C1", "cold_open_restraint", 1, 0, 1.0),
    ("C1", "attribution_rate", 1, 0, 1.0),
    ("C1", "locus_accuracy", 1, 0, 1.0),  # companion_behavior, the verified locus
    ("C4", "content_match_dependent", 1, 0, 0.0),
    ("C4", "cold_open_restraint", 1, 0, 0.0),  # memory used on the cold open
    # a v1 verdict carries no Table 7 field: each of the three counts it as missing, never as a wrong answer
    ("C4", "attribution_rate", 0, 1, None),
    ("C4", "locus_accuracy", 0, 1, None),
    ("C4", "response_consistency", 0, 6, None),
])
def test_judged_shares_of_one_participant_or_none_by_hand(chat_judged, condition, name, n, missing, pooled):
    block = chat_judged["conditions"][condition][name]
    assert (block["n"], block["missing"], block["pooled"]) == (n, missing, pooled)
    assert block.get("ci", {"pooled": None, "macro": None}) == {"pooled": None, "macro": None}
    if n and not name.startswith("content_match"):  # a share: Wilson of 1/1 and 0/1
        assert block["wilson"] == pytest.approx({"low": 1 / (1 + 3.841459), "high": 1.0} if pooled else
                                                {"low": 0.0, "high": 3.841459 / (1 + 3.841459)}, abs=1e-6)


def test_auroc_contrast_and_table_8_with_missing_and_extra_verdicts_by_hand(chat_judged):
    """used_memory AUROC, C1: the positive U01:C0003 (used) against U01:C0001 (not: a win), U01:C0004 (used: a tie),
    U02:C0001 (win), U02:C0003 (tie): (2 + 1/2 + 1/2) / 4 = 3/4; U01 twice gives (1 + 1/2) / 2 = 3/4 too. C4: nothing
    used on the stratum, every pair ties, 1/2. C4 - C1 on the five scored items judged under both: U01 -1, -1, +2,
    U02 -1, +1: 0; dependent U01:C0003 -1. Table 8, recorded: pi 1/5, gamma_1 -1, gamma_0 (-1 + 2 - 1 + 1) / 4 = 1/4,
    products -1/5 and +1/5, gain 0: no share of a zero gain. The withdrawn row's verdict is listed, not scored."""
    c1, c4 = chat_judged["conditions"]["C1"], chat_judged["conditions"]["C4"]
    assert (c1["used_memory_auroc"]["auroc"], c1["used_memory_auroc"]["n"], c1["used_memory_auroc"]["missing"]) == (
        0.75, 5, 1)
    assert (c1["used_memory_auroc"]["ci"]["low"], c1["used_memory_auroc"]["ci"]["high"]) == (0.75, 0.75)
    assert (c4["used_memory_auroc"]["auroc"], c4["used_memory_auroc"]["n"]) == (0.5, 6)
    contrast = chat_judged["contrasts"]["C4 - C1"]
    assert (contrast["scored"]["pooled"], contrast["scored"]["n"], contrast["scored"]["missing"]) == (0.0, 5, 1)
    assert (contrast["dependent"]["pooled"], contrast["dependent"]["ci"]) == (-1.0, {"pooled": None, "macro": None})
    split = chat_judged["decomposition"]["C4 - C1"]
    assert split["both"]["recorded"] == split["proportional"]["recorded"] == pytest.approx({
        "n": 5, "memory_bearing": 1, "pi": 0.2, "gamma_1": -1.0, "gamma_0": 0.25, "pi_gamma_1": -0.2,
        "rest_gamma_0": 0.2, "gain": 0.0, "from_no_memory_rows": None})
    assert chat_judged["verdicts_on_unposed_items"] == ["U01:C0002"]


def test_a_repeated_verdict_and_an_absent_track_are_one_line(chat_only, qa_only, tmp_path, capsys):
    row = {"item_id": "U01:C0001", "condition": "C1", "content_match": 2, "used_memory": False, "judge": JUDGE}
    assert score(chat_only, tmp_path, "chat", verdicts=[row, row])[0] == 2
    assert score(qa_only, tmp_path, "chat", verdicts=[row])[0] == 2
    assert score(chat_only, tmp_path, "qa", verdicts=[row])[0] == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 'verdicts.jsonl'}:2 field 'condition': 'U01:C0001' under 'C1' is already judged at line 1",
        f"error: {qa_only / 'datapackage.json'} field 'resources': the release leaves out 'chat': no such track to "
        "score (it carries profile, persona, qa)",
        f"error: {chat_only / 'datapackage.json'} field 'resources': the release leaves out 'qa': no such track to "
        "score (it carries profile, persona, chat)"]


def test_a_single_question_and_a_tie_at_the_cut_off_by_hand(qa_only, tmp_path):
    """U01:Q0001 ranked [2]: one message, 1 everywhere. U02:Q0001 (its participant's one question) ranked with every
    score tied, its gold 1 and 5 sixth and seventh: hit@5 0, recall@5 0, recall@20 2/2, MRR 1/6. U01:Q0002 cites
    nothing: listed, its ranking ignored. Pools 22 and 11 messages, median 16.5; only 11 is at most 20."""
    run = [{"item_id": "U01:Q0001", "ranking": ranked("U01", 2)},
           {"item_id": "U02:Q0001", "ranking": ranked("U02", 0, 2, 3, 4, 7, 1, 5), "scores": [1] * 7},
           {"item_id": "U01:Q0002", "ranking": ranked("U01", 21)}]
    code, report = score(qa_only, tmp_path, "qa", run=run)
    summary = report["retrieval"]["summary"]
    for metric, u02 in (("hit@1", 0.0), ("hit@5", 0.0), ("hit@20", 1.0), ("recall@5", 0.0), ("recall@20", 1.0),
                        ("mrr", 1 / 6)):
        assert flat(summary["all"][metric]) == pytest.approx(flat({
            "pooled": (1 + u02) / 2, "macro": (1 + u02) / 2, "by_participant": {"U01": 1.0, "U02": u02},
            "n_by_participant": {"U01": 1, "U02": 1},
            "ci": {"pooled": {"low": u02, "high": 1.0, "undefined_resamples": 0},
                   "macro": {"low": u02, "high": 1.0, "undefined_resamples": 0}}}))
        assert summary["distant"][metric] == {"pooled": 1.0, "macro": 1.0, "by_participant": {"U01": 1.0},
                                              "n_by_participant": {"U01": 1}, "ci": {"pooled": None, "macro": None}}
    assert (report["retrieval"]["missing_items"], report["retrieval"]["ignored_items"]) == ([], ["U01:Q0002"])
    assert report["pool"] == {"items": 2, "min": 11, "median": 16.5, "max": 22,
                              "k_at_least_pool": {"1": [], "5": [], "20": ["U02:Q0001"]}}
    # an item outside a population is not listed; one inside it without a gold set is
    assert report["excluded"] == [{"item_id": "U01:Q0002", "population": "all", "reason": "no evidence"}]


class System(JSONHandler):
    """A chat-completions API that is both the system and the judge. As the system it answers "Mira" when the
    context shows Mira and the question asks for the teacher, "Porto" when it shows Porto and the question asks
    where, else that it does not know; as the judge it reads the answer against the reference."""

    def reply(self, body):
        prompt = body["messages"][0]["content"]
        if "<answer>" in prompt:
            answer, reference = (re.search(f"<{tag}>\n(.*)\n</{tag}>", prompt, re.S).group(1)
                                 for tag in ("answer", "reference"))
            abstained = answer == "I do not know."
            correct = abstained if reference.startswith("(none") else not abstained and answer in reference
            content = json.dumps({"answer_correct": correct, "abstained": abstained})
        else:
            context, question = prompt.split("The question:")
            content = ("Mira" if "Mira" in context and "teacher" in question else
                       "Porto" if "Porto" in context and "live" in question else "I do not know.")
        return 200, json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": content}}]}).encode()


def test_evaluate_a_question_track_on_a_local_endpoint_by_hand(qa_only, tmp_path):
    """Contexts end at the turn a question is asked after. U01:Q0001 (after 21): C1 holds turns 19-21, no Mira;
    C4 turns 12-21, Mira at 14: answered, correct. U02:Q0001 (after 10): C1 turns 8-10, no Porto; C4 turns 1-10,
    Porto at 1 and 5: answered, correct. U01:Q0002 has no answer: every abstention is correct. So C0 and C1: 1/3
    correct (U01 1/2, U02 0), every question abstained; C4: 3/3, only the unanswerable one abstained (AUROC 1).
    C4 - C0: U01 +1, 0; U02 +1: 2/3 pooled, (1/2 + 1) / 2 macro; answerable +1 each."""
    out = tmp_path / "eval"
    with serving(System) as url:
        assert main(["evaluate", str(qa_only), "--track", "qa", "--condition", "C0", "--condition", "C1",
                     "--condition", "C4", "--endpoint", url, "--model", "sys", "--judge-endpoint", url,
                     "--judge-model", "hand", "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY",
                     "--judge-api-key-env", "REALCOMPANION_TEST_UNSET_KEY", "--resamples", "500", "--out",
                     str(out)]) == 0
    judged = json.loads((out / "score.json").read_text(encoding="utf-8"))["judged"]
    for condition, (u01, u02, abstained_answerable, auroc) in {"C0": (1 / 2, 0.0, 1.0, 0.5),
                                                               "C1": (1 / 2, 0.0, 1.0, 0.5),
                                                               "C4": (1.0, 1.0, 0.0, 1.0)}.items():
        block = judged["conditions"][condition]
        assert block["answer_accuracy"]["by_participant"] == {"U01": u01, "U02": u02}
        assert block["answer_accuracy"]["pooled"] == pytest.approx((2 * u01 + u02) / 3)
        assert block["answer_accuracy"]["macro"] == pytest.approx((u01 + u02) / 2)
        assert (block["abstention_unanswerable"]["pooled"], block["abstention_answerable"]["pooled"]) == (
            1.0, abstained_answerable)
        assert (block["abstention_auroc"]["auroc"], block["abstention_auroc"]["n"]) == (auroc, 3)
    assert judged["conditions"]["C0"]["answer_accuracy"]["ci"]["pooled"] == {"low": 0.0, "high": 0.5,
                                                                              "undefined_resamples": 0}
    for name in ("C4 - C0", "C4 - C1"):
        scored, answerable = judged["contrasts"][name]["scored"], judged["contrasts"][name]["answerable"]
        assert (scored["pooled"], scored["macro"], answerable["pooled"]) == (
            pytest.approx(2 / 3), pytest.approx(3 / 4), 1.0)
    assert judged["contrasts"]["C1 - C0"]["scored"]["pooled"] == 0.0
