"""A GroupAssistBench verdicts file checked column by column accepts exactly what the row checks accept: every
malformed file falls to the row checks, which name its first bad row; every good file, usual or not, reads the same
verdicts either way."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from test_groupassist_judging import JUDGE, MALFORMED, broken, write_jsonl

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease, judging
from realcompanion.formats.groupassist.judging import Instances, read_verdicts
from realcompanion.formats.groupassist.verdict_columns import judges_if_all_pass
from realcompanion.scoring.jsonl import rows as read_rows


@pytest.fixture(scope="module")
def instances():
    return Instances(GroupAssistRelease(SPECIMEN))


def good_rows(instances, conditions=("A", "B")) -> list[dict]:
    """A verdict of each condition on every eval instance, the L1 answers naming atoms, distractors and none."""
    out = []
    for condition in conditions:
        for i in instances.eval:
            if instances.rows[i]["level"] == "L1":
                atoms = instances.atoms.column(i, "atom_id")
                out.append({"instance_id": i, "condition": condition, "judge": JUDGE["L1"],
                            "facts": [{"fact": "x", "atom": a} for a in [*atoms[:2], None]]})
            else:
                out.append({"instance_id": i, "condition": condition, "judge": JUDGE["L2"],
                            "criteria": {c: k % 2 == 0 for k, c in enumerate(instances.criteria.column(
                                i, "criterion_id"))}})
    return out


def row_by_row(path, instances, monkeypatch):
    with monkeypatch.context() as patched:
        patched.setattr("realcompanion.formats.groupassist.verdict_columns.judges_if_all_pass", lambda *_: None)
        return read_verdicts(path, instances)


UNUSUAL = {
    "L2 rows first": lambda rows: sorted(rows, key=lambda r: "facts" in r),
    "a stamp with a key of its own": lambda rows: [{**r, "judge": {**r["judge"], "seed": 1}} if k == 3 else r
                                                   for k, r in enumerate(rows)],
    "a temperature written 0.0": lambda rows: [{**r, "judge": {**r["judge"], "temperature": 0.0}} for r in rows],
    "one level only": lambda rows: [r for r in rows if "facts" in r],
    "fields the verdict does not read": lambda rows: [{**r, "note": [1, {"x": None}]} for r in rows],
    "an L1 row carrying criteria too": lambda rows: [{**r, "criteria": {"c": True}} if "facts" in r else r
                                                     for r in rows],
}


@pytest.mark.parametrize("name", UNUSUAL)
def test_good_files_read_the_same_verdicts_column_by_column_and_row_by_row(tmp_path, instances, name, monkeypatch):
    path = write_jsonl(tmp_path / "v.jsonl", UNUSUAL[name](good_rows(instances)))
    fast, slow = read_verdicts(path, instances), row_by_row(path, instances, monkeypatch)
    assert fast.judge == slow.judge and list(fast.frame.columns) == list(slow.frame.columns)
    pd.testing.assert_frame_equal(fast.frame, slow.frame)


def test_a_usual_good_file_is_proved_column_by_column(tmp_path, instances):
    lines = read_rows(write_jsonl(tmp_path / "v.jsonl", good_rows(instances)))
    assert judges_if_all_pass(lines, instances, "v.jsonl") == JUDGE


TRAPS = {  # a value Python's == takes for the good one, which the row checks refuse
    "a temperature false (== 0)": (lambda row: broken(row, judge={**row["judge"], "temperature": False}), "temperature"),
    "a criterion judged 1 (== true)": (lambda row: broken(row, criteria={c: 1 for c in row["criteria"]})
                                       if "criteria" in row else row, "criteria"),
    "a blank fact": (lambda row: broken(row, facts=[{"fact": " ", "atom": None}]) if "facts" in row else row,
                     "facts"),
}


@pytest.mark.parametrize("name", [*MALFORMED, *TRAPS])
def test_a_bad_row_after_good_ones_is_named_as_the_row_checks_name_it(tmp_path, instances, name, capsys):
    """Every malformed file of the row checks' tests, and rows a comparison by == would let through, placed after a good
    row on every eval instance: the column checks refuse the file, and its first bad row is named."""
    good = good_rows(instances, ("good",))
    if name in TRAPS:
        change, field = TRAPS[name]
        bad = [change(r) for r in good_rows(instances, ("bad",))]
        changed = [json.dumps(r) != json.dumps(clean) for r, clean in zip(bad, good_rows(instances, ("bad",)))]
        bad, line = [r for r, is_changed in zip(bad, changed) if is_changed][:2], 1
    else:
        bad, line, field, _ = MALFORMED[name]
        pool = next(i for i, r in instances.rows.items() if r["split"] == "pool")
        bad = [broken(r, instance_id=pool) if r["instance_id"] == "POOL" else r for r in bad]
    line += len(good)
    path = write_jsonl(tmp_path / "v.jsonl", [*good, *bad])
    assert judges_if_all_pass(read_rows(path), instances, path) is None
    assert main(["score", str(SPECIMEN), "--verdicts", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {path}:{line} field '{field}': ") and "\n" not in err


def test_the_row_checks_still_read_a_file_the_column_checks_leave_to_them(tmp_path, instances, monkeypatch):
    """A stamp with a key of its own is not proved column by column (the stamps differ as objects): the file is read
    row by row, and read whole."""
    rows = UNUSUAL["a stamp with a key of its own"](good_rows(instances))
    path = write_jsonl(tmp_path / "v.jsonl", rows)
    assert judges_if_all_pass(read_rows(path), instances, path) is None
    called = []
    original = judging.one_judge
    monkeypatch.setattr(judging, "one_judge", lambda *a: called.append(1) or original(*a))
    assert len(read_verdicts(path, instances).frame) == len(rows) and len(called) == len(rows)
