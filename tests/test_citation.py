"""CITATION.cff is valid CFF 1.2 (checked by cffconvert) and states the version, date, licence and authors of datapackage.json."""
from __future__ import annotations

import pytest

from realcompanion import card
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.paths import REPO_ROOT
from realcompanion.publish.documents import cff, stated_version
from realcompanion.release import Release

CFFCONVERT = "pip install --no-deps cffconvert==2.0.0"


def cffconvert_citation():
    """cffconvert's Citation class. cffconvert 2.0.0, its newest release, pins jsonschema<4, which no environment
    holding frictionless (jsonschema>=4.20) can satisfy, so the test command installs it with --no-deps (its other
    imports, ruamel.yaml and pykwalify, are in the test extra); its 1.2.0 check is one
    `jsonschema.validate(..., FormatChecker())` over the CFF schema it ships, which jsonschema 4 runs unchanged."""
    try:
        from cffconvert.citation import Citation
    except ImportError:
        pytest.fail(f"cffconvert is not installed: the test command (README, Quick start) runs `{CFFCONVERT}`")
    return Citation


@pytest.mark.parametrize("folder", [REPO_ROOT, SPECIMEN], ids=["realcompanion", "groupassist"])
def test_cffconvert_validates_the_citation(folder):
    citation = cffconvert_citation()((folder / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation.cffversion == "1.2.0"
    citation.validate()  # raises jsonschema.ValidationError on a file CFF 1.2.0 rejects


@pytest.mark.parametrize("change", [
    lambda text: text.replace("date-released: ", "date-released: not-a-date # "),
    lambda text: text.replace("family-names:", "surname:", 1),
    lambda text: text.replace("type: dataset", "type: benchmark"),
], ids=["date", "person", "type"])
def test_cffconvert_rejects_a_broken_citation(change):
    import jsonschema

    text = change((REPO_ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        cffconvert_citation()(text).validate()


def test_it_is_a_dataset_citing_the_paper(repo):
    data = cff(repo)
    assert data["type"] == "dataset" and data["preferred-citation"]["type"] == "article"


def test_version_date_and_licence_are_those_of_the_package(repo):
    data, release = cff(repo), Release(repo)
    assert str(data["version"]) == release.version
    assert str(data["date-released"]) == release.descriptor["created"][:10]
    assert data["license"] == release.descriptor["licenses"][0]["name"]


def test_authors_are_the_package_authors(repo):
    names = [f"{a['given-names']} {a['family-names']}" for a in cff(repo)["authors"]]
    release = Release(repo)
    assert names == [c["title"] for c in release.descriptor["contributors"] if c["role"] == "author"]


def test_preferred_citation_is_the_paper(repo):
    paper = cff(repo)["preferred-citation"]
    assert paper["title"] == ("RealCompanion: Benchmarking Human Understanding from Reasoning over Longitudinal "
                              "Real-World Conversations")
    assert paper["year"] == 2026


def test_card_states_the_same_version(repo):
    text = (repo / card.CARD).read_text(encoding="utf-8")
    assert stated_version(text) == Release(repo).version == str(cff(repo)["version"])
