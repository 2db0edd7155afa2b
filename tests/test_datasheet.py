"""DATASHEET.md: Gebru et al.'s sections, every number generated from the files, and `--check` catching drift."""
from __future__ import annotations

import json
import shutil

import pytest
from realcompanion.validators.declared import declared_rules
from realcompanion.validators.realcompanion.catalogue import select

from realcompanion import datasheet
from realcompanion.cli import main
from realcompanion.generated import block_body as block
from realcompanion.release import Release

SECTIONS = ("Motivation", "Composition", "Collection process", "Preprocessing, cleaning and labelling", "Uses",
            "Distribution", "Maintenance", "Format decisions", "Validation rules")


def table(text: str) -> list[dict[str, str]]:
    """Rows of the first Markdown table in `text`, keyed by header."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return [dict(zip(cells[0], row)) for row in cells[2:]]


@pytest.fixture
def documented(specimen, repo):
    shutil.copy2(repo / datasheet.DATASHEET, specimen / datasheet.DATASHEET)
    return specimen


def test_shipped_datasheet_is_current(repo):
    assert datasheet.stale(repo) == []


def test_it_answers_the_datasheet_questions(repo):
    text = (repo / datasheet.DATASHEET).read_text(encoding="utf-8")
    headings = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("## ")}
    assert set(SECTIONS) <= headings
    for name in datasheet.renderers(Release(repo)):
        assert block(text, name).strip(), name


def test_decisions_are_recorded(repo):
    text = (repo / datasheet.DATASHEET).read_text(encoding="utf-8")
    decisions = text.split("## Format decisions")[1]
    for phrase in ("JSON Lines for all five files", "local calendar day", "Sessions are 1-based",
                   "Confidence bands are cut points", "empty persona slot", "Scale multiplies participants",
                   "CC BY-NC 4.0", "code MIT", "Tier rule"):
        assert phrase in decisions, phrase
    vocab = Release(repo).schemas.vocabulary
    for tier in ("hard", "edge"):
        for category in vocab["chat_category"][tier]:
            assert f"`{category}`" in block(text, "vocabulary")
    assert "`low < 0.5 ≤ medium < 0.8 ≤ high`" in block(text, "parameters")


def test_every_rule_of_the_catalogue_is_listed(repo):
    rows = table(block((repo / datasheet.DATASHEET).read_text(encoding="utf-8"), "rules"))
    assert [(r["id"].strip("`"), r["severity"], r["family"]) for r in rows] == [
        (rule.id, rule.severity, rule.family) for rule in select(None, declared_rules(Release(repo)))]


def test_counts_are_those_of_the_generated_files(tmp_path, repo):
    out = tmp_path / "three"
    assert main(["synth", str(out), "--participants", "3", "--seed", "7"]) == 0
    shutil.copy2(repo / datasheet.DATASHEET, out / datasheet.DATASHEET)
    assert main(["datasheet", str(out), "--write"]) == 0
    rows = table(block((out / datasheet.DATASHEET).read_text(encoding="utf-8"), "counts"))
    release = Release(out)
    assert [r["participant"] for r in rows] == ["U01", "U02", "U03", "**total**"]
    assert {name: int(rows[-1][name]) for name in release.resources} == {
        name: release.table(name).num_rows for name in release.resources}
    first = {name: sum(json.loads(line)["participant_id"] == "U01"
                       for line in release.path(name).read_text(encoding="utf-8").splitlines())
             for name in release.resources}
    assert {name: int(rows[0][name]) for name in release.resources} == first


def test_check_fails_naming_the_block_when_the_files_change(documented, capsys):
    assert main(["datasheet", str(documented), "--check"]) == 0
    qa = documented / "data" / "qa.jsonl"
    qa.write_text("".join(qa.read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    assert main(["datasheet", str(documented), "--check"]) == 1
    out = capsys.readouterr().out
    assert {"stale: counts", "stale: distributions", "stale: files"} <= set(out.splitlines())
    assert main(["datasheet", str(documented), "--write"]) == 0
    assert datasheet.stale(documented) == []


def test_a_parameter_change_reaches_the_datasheet(documented):
    path = documented / "datapackage.json"
    path.write_text(path.read_text().replace('"recent_window": 10', '"recent_window": 12'))
    assert datasheet.stale(documented) == ["parameters"]


def test_damaged_markers_are_reported(documented):
    path = documented / datasheet.DATASHEET
    path.write_text(path.read_text().replace("<!-- generated:spans -->\n", "").replace(
        "<!-- /generated:spans -->", "<!-- generated:spam -->\n<!-- /generated:spam -->"))
    assert set(datasheet.stale(documented)) == {"spam (unknown block)", "spans (markers missing)"}
    assert main(["datasheet", str(documented), "--write"]) == 1


def test_missing_datasheet_is_one_line_exit_2(specimen, capsys):
    assert main(["datasheet", str(specimen)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "DATASHEET.md" in err[0]
