"""`realcompanion cite`: the release's citation at its version and revision, as BibTeX, APA and CFF."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

from realcompanion.cli import main

CFF = """cff-version: 1.2.0
message: Cite the paper and the release you used.
title: "RealCompanion: longitudinal conversations"
type: dataset
version: "0.0.9"
authors:
  - given-names: Arman
    family-names: Behnam
  - given-names: Ludwig
    name-particle: van
    family-names: Beethoven
  - name: Quis Lab
preferred-citation:
  type: article
  title: "RealCompanion: Benchmarking Human Understanding"
  authors:
    - given-names: Arman
      family-names: Behnam
  year: 2026
"""


@pytest.fixture
def cited(specimen):
    (specimen / "CITATION.cff").write_text(CFF, encoding="utf-8")
    return specimen


def cite(capsys, *args) -> str:
    assert main(["cite", *map(str, args)]) == 0
    return capsys.readouterr().out


def git(root, *args) -> str:
    done = subprocess.run(["git", "-C", str(root), "-c", "user.name=Release", "-c", "user.email=release@example.org",
                           "-c", "init.defaultBranch=main", *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_bibtex_names_version_revision_and_hub_url(cited, capsys):
    from pybtex.database import parse_string

    entries = parse_string(cite(capsys, cited, "--repo-id", "org/realcompanion"), "bibtex").entries
    release, paper = entries["realcompanion_0_1_0"], entries["behnam2026realcompanion"]
    assert release.type == "misc"
    assert release.fields["version"] == "0.1.0"  # datapackage.json's, not the stale CITATION.cff's
    assert release.fields["url"] == "https://huggingface.co/datasets/org/realcompanion"
    assert release.fields["year"] == "2026"
    assert release.fields["note"] == "Version 0.1.0, revision v0.1.0; synthetic specimen release"
    assert [str(p) for p in release.persons["author"]] == ["Behnam, Arman", "van Beethoven, Ludwig", "{Quis Lab}"]
    assert paper.fields["title"] == "RealCompanion: Benchmarking Human Understanding"


def test_bibtex_keys_of_a_converted_dataset_parse(cited, capsys):
    """A converted dataset's own name and first author: Data Package only recommends a lower-case name without
    spaces, and a family name may hold spaces or letters outside ASCII ("van den Berg", "Müller"). BibTeX ends a key
    at a space, so the keys hold only ASCII letters, digits and `_.:-`, and the entries parse."""
    from pybtex.database import parse_string

    descriptor = json.loads((cited / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["name"] = "LongMemEval (converted)"
    (cited / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    cff = yaml.safe_load(CFF)
    cff["preferred-citation"]["authors"] = [{"given-names": "Anna", "family-names": "van den Bërg"}]
    (cited / "CITATION.cff").write_text(yaml.safe_dump(cff, allow_unicode=True), encoding="utf-8")
    entries = parse_string(cite(capsys, cited), "bibtex").entries
    assert list(entries) == ["LongMemEvalconverted_0_1_0", "vandenberg2026realcompanion"]


@pytest.mark.parametrize("title, key", [("RealCompanion: Benchmarking Human Understanding", "behnam2026realcompanion"),
                                        ("On the Memory of Companions", "behnam2026memory"),
                                        ("Éléments of Recall", "behnam2026elements"), ("¿?", "behnam2026locomo-fork")])
def test_the_papers_key_comes_from_its_title_not_the_forks_name(cited, capsys, title, key):
    """A fork keeps citing the paper it came from: the paper's key is its first author, year and first title word
    (articles and prepositions passed over), the fork's name only when the title has no word to take."""
    from pybtex.database import parse_string

    descriptor = json.loads((cited / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["name"] = "locomo-fork"
    (cited / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    cff = yaml.safe_load(CFF)
    cff["preferred-citation"]["title"] = title
    (cited / "CITATION.cff").write_text(yaml.safe_dump(cff, allow_unicode=True), encoding="utf-8")
    assert list(parse_string(cite(capsys, cited), "bibtex").entries) == ["locomo-fork_0_1_0", key]


PAPERS = {  # preferred citation (beyond title, authors, year) -> BibTeX entry type, fields, and how citeproc-py's APA ends
    "conference": ({"type": "conference-paper", "conference": {"name": "Findings of ACL 2026"}, "start": 11, "end": 24,
                    "publisher": {"name": "ACL"}},
                   "inproceedings", {"booktitle": "Findings of ACL 2026", "pages": "11--24", "publisher": "ACL"},
                   "Findings of ACL 2026, 11–24."),
    "proceedings": ({"type": "conference-paper", "collection-title": "Proceedings of the Workshop"}, "inproceedings",
                    {"booktitle": "Proceedings of the Workshop"}, "Proceedings of the Workshop."),
    "journal": ({"type": "article", "journal": "TACL", "volume": 14, "issue": 2}, "article",
                {"journal": "TACL", "volume": "14", "number": "2"}, "TACL, 14(2)."),
    "report": ({"type": "report", "institution": {"name": "Quis Lab"}}, "techreport", {"institution": "Quis Lab"},
               "Quis Lab."),
    "preprint": ({"type": "article", "url": "https://arxiv.org/abs/2611.00001"}, "misc",
                 {"url": "https://arxiv.org/abs/2611.00001"}, "https://arxiv.org/abs/2611.00001"),
}


@pytest.mark.parametrize("kind", PAPERS)
def test_the_preferred_citation_keeps_its_type_and_venue(cited, capsys, kind):
    """CITATION.cff's preferred citation is cited as what it is (a conference paper as @inproceedings in its
    proceedings, with its pages), not as a @misc; an article without a journal (a preprint) stays @misc."""
    from pybtex.database import parse_string

    extra, entry_type, fields, apa = PAPERS[kind]
    cff = yaml.safe_load(CFF)
    cff["preferred-citation"].update(extra)
    (cited / "CITATION.cff").write_text(yaml.safe_dump(cff), encoding="utf-8")
    paper = parse_string(cite(capsys, cited), "bibtex").entries["behnam2026realcompanion"]
    assert paper.type == entry_type and {k: paper.fields.get(k) for k in fields} == fields
    assert cite(capsys, cited, "--format", "apa").strip().split("\n\n")[1].endswith(apa)


def test_a_release_stating_its_provenance_is_cited_as_synthetic_not_as_the_specimen(cited, capsys):
    """A converted dataset (realcompanion.provenance) is a synthetic release, not the project's generated specimen."""
    from pybtex.database import parse_string

    descriptor = json.loads((cited / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["realcompanion"]["provenance"] = "Converted from a public corpus of model-written conversations."
    (cited / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    release = parse_string(cite(capsys, cited), "bibtex").entries["realcompanion_0_1_0"]
    assert release.fields["note"] == "Version 0.1.0, revision v0.1.0; synthetic release"
    assert "(Revision v0.1.0, synthetic; Version 0.1.0) [Dataset]." in cite(capsys, cited, "--format", "apa")


def test_url_falls_back_to_the_package_homepage(cited, capsys):
    descriptor = json.loads((cited / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["homepage"] = "https://example.org/realcompanion"
    (cited / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    assert "url = \"https://example.org/realcompanion\"" in cite(capsys, cited)


def test_apa(cited, capsys):
    out = cite(capsys, cited, "--format", "apa", "--repo-id", "org/realcompanion")
    release, paper = out.strip().split("\n\n")
    assert release.startswith("Behnam, A., van Beethoven, L., & Quis Lab. (2026). RealCompanion: longitudinal "
                              "conversations (Revision v0.1.0, synthetic specimen; Version 0.1.0) [Dataset].")
    assert release.endswith("https://huggingface.co/datasets/org/realcompanion")
    assert paper.startswith("Behnam, A. (2026). RealCompanion: Benchmarking Human Understanding")


def test_cff_carries_version_and_revision(cited, capsys):
    out = yaml.safe_load(cite(capsys, cited, "--format", "cff", "--repo-id", "org/realcompanion"))
    assert out["version"] == "0.1.0" and "commit" not in out  # outside git no commit is invented
    assert out["date-released"] == "2026-11-29"
    assert out["url"] == "https://huggingface.co/datasets/org/realcompanion"
    assert out["authors"] == yaml.safe_load(CFF)["authors"] and out["preferred-citation"]["year"] == 2026


def committed(root) -> str:
    """`root` as a new git repository with one commit of everything in it; returns that commit."""
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "release")
    return git(root, "rev-parse", "HEAD")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_revision_is_the_tagged_commit_in_a_git_checkout(cited, capsys):
    head = committed(cited)
    assert f"revision v0.1.0 (commit {head})" in cite(capsys, cited)
    git(cited, "tag", "v0.1.0")
    (cited / "notes.txt").write_text("after the release\n")
    git(cited, "add", "-A")
    git(cited, "commit", "-q", "-m", "later")
    assert yaml.safe_load(cite(capsys, cited, "--format", "cff"))["commit"] == head


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_dirty_checkout_is_marked_in_every_format(cited, capsys):
    head = committed(cited)
    assert "with uncommitted changes" not in cite(capsys, cited)
    data = cited / "data" / "qa.jsonl"
    data.write_text(data.read_text(encoding="utf-8")[:-1] + " \n", encoding="utf-8")
    assert f"commit {head} with uncommitted changes" in cite(capsys, cited)
    assert f"commit {head} with uncommitted changes" in cite(capsys, cited, "--format", "apa")
    assert yaml.safe_load(cite(capsys, cited, "--format", "cff"))["commit"] == f"{head} with uncommitted changes"


def test_missing_citation_file_is_one_line(specimen, capsys):
    assert main(["cite", str(specimen)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("CITATION.cff: no such file") and len(err.splitlines()) == 1


def test_authors_known_by_one_name_or_in_an_east_asian_script(cited, capsys):
    """CFF 1.2 requires no part of a person's name: given names alone, or an alias alone, was refused in one line
    (the shape of CITATION.cff); and citeproc-py made "王, . 小明 ." of a name in Chinese."""
    data = yaml.safe_load(CFF)
    data["authors"] += [{"given-names": "Sukarno"}, {"alias": "octocat", "orcid": "https://orcid.org/0000-0002-1825-0097"},
                        {"given-names": "小明", "family-names": "王"}]
    (cited / "CITATION.cff").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert 'author = "Behnam, Arman and van Beethoven, Ludwig and {Quis Lab} and {Sukarno} and {octocat} and 王, 小明"' \
        in cite(capsys, cited)
    assert cite(capsys, cited, "--format", "apa").startswith(
        "Behnam, A., van Beethoven, L., Quis Lab, Sukarno, octocat, & 王小明. (2026).")

