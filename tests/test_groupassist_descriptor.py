"""The `groupassist` block is typed by the package's own JSON Schema: a malformed or hostile block is one line, exit 2."""
from __future__ import annotations

import json
import shutil

import pytest

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN


def _drop(block, key):
    block.pop(key)


def _set(path, value):
    def change(block):
        *parents, last = path.split(".")
        for part in parents:
            block = block[part]
        block[last] = value
    return change


CASES = {
    "missing parameter": (lambda b: _drop(b, "min_history"), "'min_history' is a required property", None),
    "wrong type": (_set("max_message_chars", "2000"), "'2000' is not of type 'integer'", "groupassist.max_message_chars"),
    "looser delta than the paper's": (_set("delta_min", 0), "20 was expected", "groupassist.delta_min"),
    "wider delta than the paper's": (_set("delta_max", 10000), "200 was expected", "groupassist.delta_max"),
    "NaN-like weight": (_set("weights.grounding", None), "None is not of type 'number'", "groupassist.weights.grounding"),
    "positive penalty": (_set("weights.penalty.recalled_fact", 1.5), "1.5 is greater than or equal to the maximum of 0",
                         "groupassist.weights.penalty.recalled_fact"),
    "word list not a list": (_set("words.pointer.en", "above"), "'above' is not of type 'array'",
                             "groupassist.words.pointer.en"),
    "unknown language": (_set("words.pointer.fr", ["ci-dessus"]), "Additional properties are not allowed",
                         "groupassist.words.pointer"),
    "more positive criteria than the paper's": (_set("rubric.positive_max", 10), "6 was expected",
                                                "groupassist.rubric.positive_max"),
    "more mandatory criteria than the paper's": (_set("rubric.mandatory_max", 8), "4 was expected",
                                                 "groupassist.rubric.mandatory_max"),
    "other format": (_set("format", "realcompanion"), "'groupassist' was expected", "groupassist.format"),
    "word list without a word": (_set("words.change_hint", {"zh": [], "en": []}), "should be non-empty",
                                 "groupassist.words.change_hint"),
    "a bilingual release's word list without English": (lambda b: b["words"]["pointer"].pop("en"),
                                                        "'en' is a required property", "groupassist.words.pointer"),
    "a Chinese-only release's word list without Chinese": (lambda b: (b.update(languages=["zh"]),
                                                                      b["words"]["change_hint"].pop("zh")),
                                                           "'zh' is a required property", "groupassist.words.change_hint"),
    "an English-only release's word list without an English word": (
        lambda b: (b.update(languages=["en"]), b["words"]["evaluation_dimension"].update(en=[])), "should be non-empty",
        "groupassist.words.evaluation_dimension.en"),
    "M3 superseded weight not the paper's": (_set("weights.m3_superseded_value", -3), "-2 was expected",
                                             "groupassist.weights.m3_superseded_value"),
    "pattern without a weight": (lambda b: _drop(b["weights"]["penalty"], "recalled_fact"),
                                 "'recalled_fact' is a required property", "groupassist.weights.penalty"),
    "another score formula": (_set("score.S", "mean of the met weights"), "was expected", "groupassist.score.S"),
    "no score formula": (lambda b: _drop(b, "score"), "'score' is a required property", None),
    "longer messages than the paper's": (_set("max_message_chars", 2001), "2001 is greater than the maximum of 2000",
                                         "groupassist.max_message_chars"),
    "a tokenizer the counter lacks": (_set("tokenizer", "gpt2"), "'gpt2' is not one of", "groupassist.tokenizer"),
    "a format version the validator does not know": (_set("format_version", "2.0.0"), "'2.0.0' is not one of ['1.0.0']",
                                                     "groupassist.format_version"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_malformed_block_is_one_line_and_exit_2(tmp_path, capsys, case):
    change, message, field = CASES[case]
    root = tmp_path / "release"
    shutil.copytree(SPECIMEN, root)
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    change(descriptor["groupassist"])
    path.write_text(json.dumps(descriptor), encoding="utf-8")
    assert main(["validate", str(root)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "datapackage.json" in err and message in err
    if field:
        assert field in err


def test_the_specimen_block_meets_the_schema(capsys):
    assert main(["validate", str(SPECIMEN)]) == 0
