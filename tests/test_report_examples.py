"""A file whose every line fails: each failing row is counted, the first EXAMPLES of a rule's failures in each
resource and field are listed (terminal, JSON), and a caller that must see every finding gets them all."""
from __future__ import annotations

import json

import pytest
from conftest import copy_release
from realcompanion.validators.examples import EXAMPLES

from realcompanion.cli import main
from realcompanion.formats import part
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.paths import REPO_ROOT
from realcompanion.release import MAX_SET_ASIDE

FORMATS = {"realcompanion": (REPO_ROOT, "data/chat.jsonl", "SCH1"),
           "groupassist": (SPECIMEN, "data/messages.jsonl", "GS1")}
FIRST_REQUIRED = {"realcompanion": "item_id", "groupassist": "group_id"}  # the first a `{}` record lacks


def empty_records(tmp_path, fmt: str, lines: int):
    """A copy of the format's release whose data file holds `lines` records `{}`: each lacks every required field."""
    source, data, typed = FORMATS[fmt]
    root = copy_release(source, tmp_path / fmt)
    (root / data).write_text("{}\n" * lines, encoding="utf-8")
    return root, typed


def reported(root, capsys) -> dict:
    assert main(["validate", str(root), "--json", "-"]) == 1
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_failing_row_is_counted_and_the_first_of_each_field_listed(tmp_path, capsys, fmt):
    lines = EXAMPLES + 1_500
    root, typed = empty_records(tmp_path, fmt, lines)
    report = reported(root, capsys)
    rule = next(r for r in report["rules"] if r["id"] == typed)
    assert report["examples"] == EXAMPLES and rule["failures"] == lines and rule["listed"] == EXAMPLES
    assert sum(f["rule"] == typed for f in report["failures"]) == EXAMPLES
    assert report["errors"] >= lines
    assert main(["validate", str(root)]) == 1
    out = capsys.readouterr().out
    assert f"{lines} row(s)" in out and f"  ... {lines - 5} more" in out


def test_as_many_failing_rows_as_the_bound_are_all_listed(tmp_path, capsys):
    root, typed = empty_records(tmp_path, "realcompanion", EXAMPLES)
    rule = next(r for r in reported(root, capsys)["rules"] if r["id"] == typed)
    assert rule["failures"] == rule["listed"] == EXAMPLES


def test_what_must_see_every_finding_keeps_them_all(tmp_path):
    lines = EXAMPLES + 1
    root, typed = empty_records(tmp_path, "groupassist", lines)
    report = part("groupassist", "runner").validate(root, examples=None)
    outcome = next(o for o in report.outcomes if o.rule.id == typed)
    assert len(outcome.failures) == outcome.count == lines and outcome.more == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_of_more_bad_records_than_the_reader_sets_aside_is_one_line(tmp_path, capsys, fmt):
    """A million `{}` lines cost a minute and gigabytes to list: past MAX_SET_ASIDE records that fit neither their
    types nor their schema, the file is read no further, and the release is unreadable in one line naming it."""
    root, _ = empty_records(tmp_path, fmt, MAX_SET_ASIDE + 1)
    assert main(["validate", str(root)]) == 2
    data, first = FORMATS[fmt][1], FIRST_REQUIRED[fmt]
    assert capsys.readouterr().err.splitlines() == [
        f"error: {root / data}:1 field '{first}': more than {MAX_SET_ASIDE:,} records fit neither their types nor "
        f"their schema, read no further; the first: \"{first}\" is a required property"]


def test_as_many_bad_records_as_the_reader_sets_aside_are_all_judged(tmp_path, capsys):
    root, typed = empty_records(tmp_path, "groupassist", MAX_SET_ASIDE)
    rule = next(r for r in reported(root, capsys)["rules"] if r["id"] == typed)
    assert rule["failures"] == MAX_SET_ASIDE
