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

FORMATS = {"realcompanion": (REPO_ROOT, "data/chat.jsonl", "SCH1"),
           "groupassist": (SPECIMEN, "data/messages.jsonl", "GS1")}


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
