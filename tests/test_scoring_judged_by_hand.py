"""Judge, then score, on the hand-built release of `tiny_release`: every figure below is worked out by hand.

The local judge reads its verdict off the reply ("CM=2 MEM=1": content match 2, memory used), so the verdicts
are fixed in advance; U02:C0004 has no reply under C1 (missing). Items put to a system: scored U01:C0001-C0004,
U02:C0001-C0004 and the cold open U01:C0005; memory-bearing (recorded): U01:C0002, U01:C0003, U02:C0002 (the
enriched rows U01:C0002 and U02:C0002 are outside the proportional stratum); locus none: U01:C0004.
"""
from __future__ import annotations

import json
import re

import pytest
from local_server import JSONHandler, serving
from tiny_release import build

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.metrics import random_expectation
from realcompanion.scoring.bootstrap import mean_intervals

C0 = {"U01:C0001": (1, 0), "U01:C0002": (0, 0), "U01:C0003": (0, 0), "U01:C0004": (2, 0), "U01:C0005": (2, 0),
      "U02:C0001": (1, 0), "U02:C0002": (0, 0), "U02:C0003": (2, 0), "U02:C0004": (2, 0)}
C1 = {"U01:C0001": (2, 0), "U01:C0002": (1, 1), "U01:C0003": (2, 0), "U01:C0004": (2, 1), "U01:C0005": (1, 0),
      "U02:C0001": (2, 0), "U02:C0002": (2, 1), "U02:C0003": (2, 0)}


class Judge(JSONHandler):
    """A chat-completions API whose verdict is the one the reply spells out."""

    def reply(self, body):
        reply = body["messages"][0]["content"].split("<reply>")[1]
        match, used = re.search(r"CM=(\d) MEM=(\d)", reply).groups()
        content = json.dumps({"content_match": int(match), "used_memory": used == "1"})
        return 200, json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": content}}]}).encode()


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The folder holding the hand-built release and the verdicts the local judge gave on it (v.jsonl)."""
    folder = tmp_path_factory.mktemp("judged")
    release = build(folder / "release")
    replies = folder / "replies.jsonl"
    replies.write_text("".join(json.dumps({"item_id": i, "condition": c, "reply": f"CM={m} MEM={u}"}) + "\n"
                               for c, verdicts in (("C0", C0), ("C1", C1)) for i, (m, u) in verdicts.items()),
                       encoding="utf-8")
    with serving(Judge) as url:
        assert main(["judge", str(release), "--track", "chat", "--replies", str(replies), "--endpoint", url,
                     "--model", "hand", "--out", str(folder / "v.jsonl"),
                     "--api-key-env", "REALCOMPANION_TEST_UNSET_KEY"]) == 0
    return folder


@pytest.fixture(scope="module")
def report(judged):
    folder, release, reports = judged, judged / "release", []
    for seed in (5, 5):
        out = folder / f"score{len(reports)}.json"
        assert main(["score", str(release), "--track", "chat", "--verdicts", str(folder / "v.jsonl"),
                     "--seed", str(seed), "--resamples", "2000", "--json", str(out)]) == 0
        reports.append(json.loads(out.read_text(encoding="utf-8")))
    assert reports[0]["judged"] == reports[1]["judged"]  # one seed, one set of intervals
    return reports[0]["judged"]


@pytest.mark.parametrize("condition, name, pooled, macro, n, missing", [
    # all judged rows: U01 1+0+0+2+2 = 5 over 5, U02 1+0+2+2 = 5 over 4; 10/9 pooled, (1 + 1.25)/2 macro
    ("C0", "content_match_judged", 10 / 9, 1.125, 9, 0),
    ("C0", "content_match", 8 / 8, (3 / 4 + 5 / 4) / 2, 8, 0),
    # C1: U01 2+1+2+2 = 7 over 4, U02 2+2+2 = 6 over 3 (U02:C0004 has no verdict)
    ("C1", "content_match", 13 / 7, (7 / 4 + 2) / 2, 7, 1),
    ("C1", "content_match_judged", 14 / 8, (8 / 5 + 2) / 2, 8, 1),
    # memory used on the memory-bearing U01:C0002 and U02:C0002, not on U01:C0003
    ("C1", "appropriate_application", 2 / 3, (1 / 2 + 1) / 2, 3, 0),
    # restraint: memory used on U01:C0002, U01:C0004 and U02:C0002 of the 7 judged scored rows
    ("C1", "restraint", 4 / 7, (2 / 4 + 2 / 3) / 2, 7, 1),
    # misfire: rows needing no memory U01:C0001, U01:C0004 (used), U02:C0001, U02:C0003; U02:C0004 missing
    ("C1", "misfire_rate", 1 / 4, (1 / 2 + 0) / 2, 4, 1),
    ("C1", "misapplication", 1.0, 1.0, 1, 0),
])
def test_judged_means_pooled_and_macro(report, condition, name, pooled, macro, n, missing):
    block = report["conditions"][condition][name]
    assert (block["pooled"], block["macro"]) == (pytest.approx(pooled), pytest.approx(macro))
    assert (block["n"], block["missing"]) == (n, missing)


def test_paired_contrast_and_wilson_interval(report):
    scored, dependent = report["contrasts"]["C1 - C0"]["scored"], report["contrasts"]["C1 - C0"]["dependent"]
    # differences on the 7 items judged under both: U01 1, 1, 2, 0; U02 1, 2, 0
    assert (scored["pooled"], scored["n"], scored["missing"]) == (pytest.approx(1.0), 7, 1)
    # memory-bearing: U01:C0002 1 - 0, U01:C0003 2 - 0, U02:C0002 2 - 0
    assert (dependent["pooled"], dependent["macro"]) == (pytest.approx(5 / 3), pytest.approx((3 / 2 + 2) / 2))
    # Wilson for 2 of 3, z = 1.959964: (p + z²/2n ± z √(p(1-p)/n + z²/4n²)) / (1 + z²/n) = [0.2077, 0.9385]
    wilson = report["conditions"]["C1"]["appropriate_application"]["wilson"]
    assert (wilson["low"], wilson["high"]) == (pytest.approx(0.20766, abs=1e-4), pytest.approx(0.93851, abs=1e-4))


def test_table_8_decomposition_by_hand(report):
    """C1 - C0 on the items judged under both (U02:C0004 has no C1 verdict). Both strata, 7 items: U01:C0001 +1,
    U01:C0002 +1, U01:C0003 +2, U01:C0004 0, U02:C0001 +1, U02:C0002 +2, U02:C0003 0. Recorded: memory-bearing
    U01:C0002, U01:C0003, U02:C0002 (5 over 3), the others 2 over 4: pi 3/7, pi gamma_1 5/7, (1 - pi) gamma_0 2/7,
    gain 1 (the scored contrast), 2/7 of it from no-memory rows. Strict drops U01:C0003 from the memory-bearing:
    3 over 2 against 4 over 5. Proportional stratum, 5 items (U01:C0001, C0003, C0004, U02:C0001, C0003): recorded,
    U01:C0003 alone (+2) against 2 over 4, gain 4/5, half from no-memory rows; strict, no memory-bearing item at
    all: the whole gain, 4/5, from no-memory rows."""
    table = report["decomposition"]["C1 - C0"]
    expected = {
        ("both", "recorded"): (7, 3, 3 / 7, 5 / 3, 2 / 4, 5 / 7, 2 / 7, 1.0, 2 / 7),
        ("both", "strict"): (7, 2, 2 / 7, 3 / 2, 4 / 5, 3 / 7, 4 / 7, 1.0, 4 / 7),
        ("proportional", "recorded"): (5, 1, 1 / 5, 2.0, 2 / 4, 2 / 5, 2 / 5, 4 / 5, 1 / 2),
        ("proportional", "strict"): (5, 0, 0.0, None, 4 / 5, 0.0, 4 / 5, 4 / 5, 1.0),
    }
    names = ("n", "memory_bearing", "pi", "gamma_1", "gamma_0", "pi_gamma_1", "rest_gamma_0", "gain",
             "from_no_memory_rows")
    for (stratum, reading), values in expected.items():
        got = table[stratum][reading]
        assert [got[k] for k in names] == [v if v is None else pytest.approx(v) for v in values], (stratum, reading)
    assert table["both"]["recorded"]["gain"] == pytest.approx(report["contrasts"]["C1 - C0"]["scored"]["pooled"])


def test_misfire_is_on_the_empty_reference_set_whatever_the_reading(judged, report):
    """Table 30: misfire is one minus restraint "on probes with an empty reference set", and Table 7 gives it one
    count whatever the reading. Under strict, U01:C0003 is not memory-bearing but cites an episode (its reference
    set, turn 17): it stays out of misfire's population. C1: U01:C0001, U01:C0004 (used), U02:C0001, U02:C0003 ->
    1 / 4 under every reading (U02:C0004 missing)."""
    folder = judged
    out = folder / "strict.json"
    assert main(["score", str(folder / "release"), "--track", "chat", "--verdicts", str(folder / "v.jsonl"),
                 "--reading", "strict", "--resamples", "10", "--json", str(out)]) == 0
    strict = json.loads(out.read_text(encoding="utf-8"))["judged"]["conditions"]["C1"]["misfire_rate"]
    recorded = report["conditions"]["C1"]["misfire_rate"]
    assert (strict["pooled"], strict["n"], strict["missing"]) == (0.25, 4, 1)
    assert (recorded["pooled"], recorded["n"]) == (strict["pooled"], strict["n"])
    assert strict["population"] == "no_reference_set"


def test_used_memory_auroc_counts_ties_as_half(report):
    """C1 on the proportional stratum (5 judged): the one positive, U01:C0003 (not used, 0), against the negatives
    U01:C0001 0, U01:C0004 1, U02:C0001 0, U02:C0003 0: three ties and one loss, (3 x 1/2) / 4. Under C0 nothing is
    used: every pair ties, 1/2."""
    c1, c0 = report["conditions"]["C1"]["used_memory_auroc"], report["conditions"]["C0"]["used_memory_auroc"]
    assert (c1["auroc"], c1["n"], c1["positives"], c1["missing"]) == (0.375, 5, 1, 1)
    assert c0["auroc"] == 0.5
    # resampling participants: U01 twice gives (2 x 1/2 + 0 + 0) / 4 per positive = 0.25, U01 and U02 0.375,
    # U02 twice has no positive (undefined, about a quarter of the resamples)
    assert (c1["ci"]["low"], c1["ci"]["high"]) == (0.25, 0.375)
    assert 0.2 < c1["ci"]["undefined_resamples"] / 2000 < 0.3


def test_participant_bootstrap_by_enumeration(report):
    """Two participants: a resample is U01 twice (content match 7/4), U02 twice (2) or one of each (13/7), with
    chances 1/4, 1/4, 1/2. The 2.5th and 97.5th percentiles of 2000 such resamples are the two extremes: the
    unit resampled is the participant, not the item (items would give values below 7/4)."""
    ci = report["conditions"]["C1"]["content_match"]["ci"]
    assert (ci["pooled"]["low"], ci["pooled"]["high"]) == (pytest.approx(7 / 4), pytest.approx(2.0))
    assert (ci["macro"]["low"], ci["macro"]["high"]) == (pytest.approx(7 / 4), pytest.approx(2.0))
    assert report["conditions"]["C1"]["misapplication"]["ci"] == {"pooled": None, "macro": None}  # one participant


def test_percentile_interval_of_a_known_resample_distribution():
    """Four participants with means 0, 1, 2, 3 (one item each): a resample mean is the mean of 4 draws from
    {0, 1, 2, 3}. P(mean < 0.5) = 5/256 < 2.5% < P(mean <= 0.5) = 15/256, and symmetrically at the top, so the
    2.5th and 97.5th percentiles of 4000 resamples are 0.5 and 2.5. One seed gives one interval every time;
    another seed draws other resamples."""
    values, people = [0, 1, 2, 3], ["A", "B", "C", "D"]
    first = mean_intervals(values, people, 11, 4000)
    assert first == mean_intervals(values, people, 11, 4000)
    assert first["pooled"]["low"] == pytest.approx(0.5) and first["pooled"]["high"] == pytest.approx(2.5)
    spread = list(range(10)), list("ABCDEFGHIJ")
    assert mean_intervals(*spread, 11, 300) != mean_intervals(*spread, 12, 300)


@pytest.mark.parametrize("pool, k, expected", [(50, 1, 1 / 50), (50, 5, 5 / 50), (50, 20, 20 / 50), (4, 5, 1.0)])
def test_random_hit_at_k_with_one_gold_message_is_k_over_n(pool, k, expected):
    """One gold message among N: a random order puts it in the top k with chance k / N (1 once k >= N)."""
    assert random_expectation(pool, 1)[f"hit@{k}"] == pytest.approx(expected)
    assert random_expectation(pool, 1)[f"recall@{k}"] == pytest.approx(min(expected, 1.0))
