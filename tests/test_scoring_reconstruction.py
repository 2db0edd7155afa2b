"""Reconstruction scores: exact values on a tiny fixture, and the command on the specimen."""
from __future__ import annotations

import json
import shutil

import pytest

from realcompanion.cli import main
from realcompanion.scoring.reconstruction import (
    agreement,
    normalize,
    normalized_match,
    persona_units,
    prf,
    profile_units,
)

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
