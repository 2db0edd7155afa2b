"""Scores on degenerate hand-built releases: empty populations, one participant. Each figure is written out by
hand; an undefined figure is null (JSON) or "-" / "(no rows)" (terminal) with its count, never NaN or 0."""
from __future__ import annotations

import json

import pytest
import tiny_release
from tiny_release import build

from realcompanion.cli import main


@pytest.fixture(scope="module")
def no_memory(tmp_path_factory):
    """The tiny release without its three memory-bearing rows (U01:C0002, U01:C0003, U02:C0002)."""
    items = tiny_release.ITEMS
    try:
        tiny_release.ITEMS = [row for row in items if not row[7][0]]
        return build(tmp_path_factory.mktemp("no_memory") / "release")
    finally:
        tiny_release.ITEMS = items


def test_no_distant_item_gives_empty_tables_with_their_count(no_memory, tmp_path, capsys):
    assert main(["validate", str(no_memory)]) == 0
    capsys.readouterr()
    out = tmp_path / "b.json"
    assert main(["baselines", str(no_memory), "--track", "chat", "--resamples", "20", "--json", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "Baselines, distant items (n=0), pooled" in shown
    assert "Empty DataFrame" not in shown
    assert "hit@5 on distant items by participant (Table 38; items per participant: none)\n(no rows)" in shown
    report = json.loads(out.read_text(), parse_constant=pytest.fail)
    distant = report["baselines"]["recency"]["actual"]["distant"]
    assert distant["n"] == 0 and distant["hit@5"] == {"pooled": None, "macro": None, "by_participant": {},
                                                      "n_by_participant": {}}
    # recency, all items: the threads of U01:C0001, U02:C0001, U02:C0003 are in the top 5, U02:C0004's turn 8 is
    # 11th most recent: 3 of 4
    assert report["baselines"]["recency"]["actual"]["all"]["hit@5"]["pooled"] == 0.75
    # no positive label among the 5 scored proportional rows: detectability is undefined, not 0.5
    assert report["detectability"]["bm25_top1"] == {"n": 5, "positives": 0, "auroc": None, "ci": None}
    assert "AUROC undefined: one class only (n=5, 0 positive)" in shown


@pytest.mark.parametrize("option, row", [
    ("--detector", {"item_id": "U01:C0001", "probability": 10 ** 400}),
    ("--run", {"item_id": "U01:C0001", "ranking": ["U01:d001:007"], "scores": [10 ** 400]}),
])
def test_a_number_no_float_holds_is_one_line(no_memory, tmp_path, capsys, option, row):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert main(["score", str(no_memory), "--track", "chat", option, str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}:1 field '") and "overflows a 64-bit float" in err and "\n" not in err


def test_undefined_auroc_resamples_are_counted_silently():
    """One participant holds the only positive, the other the only negative: AUROC 1 (0.9 above 0.1); a resample
    drawing one participant twice lacks a class. The interval is taken over the other resamples, counted, and
    scipy's warning (which names the BCa method, not used) does not reach the terminal; with no defined resample
    there is no interval, never NaN."""
    import warnings

    from realcompanion.formats.realcompanion.scoring.auroc import auroc_summary

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        block = auroc_summary([0.9, 0.1], [True, False], ["U01", "U02"], seed=0, resamples=200)
        assert block["auroc"] == 1.0 and (block["ci"]["low"], block["ci"]["high"]) == (1.0, 1.0)
        assert 0 < block["ci"]["undefined_resamples"] < 200
        single = [auroc_summary([0.9, 0.1], [True, False], ["U01", "U02"], seed=s, resamples=2)["ci"]
                  for s in range(20)]
    assert None in single and all(ci is None or (ci["low"], ci["high"]) == (1.0, 1.0) for ci in single)


@pytest.mark.parametrize("command", [["baselines", "--track", "chat"], ["score", "--track", "chat", "--verdicts", "v"]])
def test_one_resample_is_a_usage_error_not_a_flood_of_warnings(no_memory, command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command[0], str(no_memory), *command[1:], "--resamples", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and "--resamples: '1' is not a whole number >= 2" in err[-1]
