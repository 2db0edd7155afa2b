"""Refusals that say what to do next, and descriptor values that are not what their field holds."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from realcompanion.cli import main
from realcompanion.publish import gate

GROUPASSIST = Path(__file__).resolve().parents[1] / "specimens" / "groupassist"


def edit_descriptor(root: Path, edit) -> Path:
    path = root / "datapackage.json"
    descriptor = json.loads(path.read_text(encoding="utf-8"))
    edit(descriptor)
    path.write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    return root


@pytest.fixture
def gab(tmp_path):
    return Path(shutil.copytree(GROUPASSIST, tmp_path / "groupassist"))


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_a_generic_data_package_is_told_the_formats_and_what_checks_it(specimen, capsys):
    """A Data Package of no format read "no 'realcompanion' block (an object)", as if a release were broken."""
    edit_descriptor(specimen, lambda d: d.pop("realcompanion"))
    assert main(["validate", str(specimen)]) == 2
    err = one_line(capsys)
    assert "RealCompanion: a 'realcompanion' block; GroupAssistBench: a 'groupassist' block" in err
    assert "`frictionless validate datapackage.json` checks a generic data package" in err


def test_a_format_block_that_is_not_an_object_is_named(gab, capsys):
    """`"groupassist": []` read "no 'realcompanion' block"."""
    edit_descriptor(gab, lambda d: d.update(groupassist=[]))
    assert main(["validate", str(gab)]) == 2
    assert one_line(capsys) == (f"error: {gab / 'datapackage.json'} field 'groupassist': 'groupassist' must be an "
                                "object: the GroupAssistBench format's block")


@pytest.mark.parametrize("release", ["specimen", "gab"])
def test_a_missing_format_version_is_named(release, request, capsys):
    root = request.getfixturevalue(release)
    block = "realcompanion" if release == "specimen" else "groupassist"
    edit_descriptor(root, lambda d: d[block].pop("format_version"))
    assert main(["validate", str(root)]) == 2
    err = one_line(capsys)
    assert f"field '{block}'" in err and "'format_version' is a required property" in err


@pytest.mark.parametrize("version", ["0.1.0<script>alert(1)</script>", "v0.1.0", "0.1", "0.1.0+local", "1.0.0rc1"])
def test_a_version_that_is_not_a_version_is_refused(specimen, capsys, version):
    """`0.1.0<script>alert(1)</script>` validated VALID and reached the HTML report's pages."""
    edit_descriptor(specimen, lambda d: d.update(version=version))
    assert main(["validate", str(specimen)]) == 2
    err = one_line(capsys)
    assert "field 'version'" in err and "is not a version" in err


@pytest.mark.parametrize("version", ["0.1.0", "10.20.30"])
def test_a_version_near_miss_is_read(specimen, capsys, version):
    edit_descriptor(specimen, lambda d: d.update(version=version))
    assert main(["validate", str(specimen)]) in (0, 1)
    assert "is not a version" not in capsys.readouterr().err


def test_a_version_mismatch_at_publish_says_to_run_refresh(specimen, repo):
    from realcompanion.release import Release

    for name in ("README.md", "CITATION.cff", "DATASHEET.md", "CHANGELOG.md"):
        shutil.copy2(repo / name, specimen / name)
    reason = gate.versions_disagree(Release(specimen), "0.2.0")
    assert reason.endswith("then run `realcompanion refresh` (it writes the version into CITATION.cff and the card)")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   check=True, capture_output=True)


def test_dry_run_marks_the_files_changed_since_the_last_tag(specimen, repo, monkeypatch, capsys):
    """`publish --dry-run` listed all 21 files alike: those new or changed since the last release tag are marked."""
    for name in ("README.md", "CITATION.cff", "DATASHEET.md", "CHANGELOG.md"):
        shutil.copy2(repo / name, specimen / name)
    monkeypatch.setattr(gate, "CHECKS", ())
    _git(specimen, "init", "-q")
    _git(specimen, "add", "-A")
    _git(specimen, "commit", "-qm", "release")
    assert main(["publish", str(specimen), "--repo-id", "org/rc", "--version", "0.1.0", "--dry-run"]) == 0
    assert "no earlier release tag (vX.Y.Z)" in capsys.readouterr().out
    _git(specimen, "tag", "v0.1.0")
    _git(specimen, "tag", "v0.0.9", "HEAD")
    (specimen / "DATASHEET.md").write_text("# Datasheet, corrected\n", encoding="utf-8")
    assert main(["publish", str(specimen), "--repo-id", "org/rc", "--version", "0.1.0", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = {line.split()[0]: line.split()[-1] for line in lines if line.endswith(("changed", "new"))}
    assert marked == {"DATASHEET.md": "changed"}
    assert "  1 file(s) new or changed since v0.1.0" in lines


def test_the_changelog_labels_the_version_the_files_are(repo):
    """`[0.1.0]` said format 1.0.0 while the files labelled 0.1.0 are format 2.0.0."""
    from realcompanion.publish.changelog import released_version

    text = (repo / "CHANGELOG.md").read_text(encoding="utf-8")
    descriptor = json.loads((repo / "datapackage.json").read_text(encoding="utf-8"))
    assert released_version(text) == descriptor["version"]
    section = text.split(f"## [{descriptor['version']}]", 1)[1]
    assert f"format version {descriptor['realcompanion']['format_version']}." in section.split("\n###")[0]


def test_the_changelog_ships_its_data_facing_sections_alone(specimen, repo):
    """The code's history (a 520-line section) shipped to the Hub with the data: the uploaded copy keeps the
    sections headed `(records ...)` or `(format ...)`, every line of them, and the prose."""
    from realcompanion.publish.changelog import shipped
    from realcompanion.publish.plan import plan

    text = (repo / "CHANGELOG.md").read_text(encoding="utf-8")
    copy = shipped(text)
    headings = [line for line in copy.splitlines() if line.startswith("### ")]
    assert headings and all("(records" in h or "(format" in h for h in headings)
    assert "(validator)" in text and "(validator)" not in copy
    assert "## [Unreleased]" in copy and "## Errata policy" in copy
    data_part = text[text.index("### Added (records and format)"):]
    assert data_part in copy
    for name in ("README.md", "CITATION.cff", "DATASHEET.md", "CHANGELOG.md"):
        shutil.copy2(repo / name, specimen / name)
    planned = next(f for f in plan(specimen, "org/rc", "0.1.0").files if f.path == "CHANGELOG.md")
    assert planned.content == copy.encode("utf-8") and planned.size == len(planned.content)


def test_cite_with_the_repository_id_gives_its_address(specimen, repo, capsys):
    for name in ("README.md", "CITATION.cff"):
        shutil.copy2(repo / name, specimen / name)
    assert main(["cite", str(specimen), "--repo-id", "org/rc", "--format", "cff"]) == 0
    out = capsys.readouterr().out
    assert "url: https://huggingface.co/datasets/org/rc" in out
    assert "repository: https://huggingface.co/datasets/org/rc" in out
    with (specimen / "CITATION.cff").open("a", encoding="utf-8") as cff:
        cff.write("doi: 10.57967/hf/0001\n")
    assert main(["cite", str(specimen), "--repo-id", "org/rc"]) == 0
    assert 'doi = "10.57967/hf/0001"' in capsys.readouterr().out


def test_the_paper_citation_names_its_venue(repo):
    import yaml

    for root in (repo, GROUPASSIST):
        paper = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))["preferred-citation"]
        assert paper.get("journal"), root


def test_each_shipped_changelog_keeps_the_release_it_describes(repo):
    """Both formats' changelogs: the copy that ships keeps the section of the version the files carry."""
    from realcompanion.publish.changelog import released_version, shipped

    for root in (repo, GROUPASSIST):
        text = (root / "CHANGELOG.md").read_text(encoding="utf-8")
        copy = shipped(text)
        version = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))["version"]
        assert released_version(copy) == version
        assert "### " in copy.split(f"## [{version}]", 1)[1], root
