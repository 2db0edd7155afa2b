"""CITATION.cff is valid CFF 1.2 and states the version, date, licence and authors of datapackage.json."""
from __future__ import annotations

from realcompanion import card
from realcompanion.publish.documents import cff
from realcompanion.release import Release

# Citation File Format 1.2.0: keys required at the top level, in a reference, and in a person.
REQUIRED = {"cff-version", "message", "title", "authors"}
REFERENCE_REQUIRED = {"type", "title", "authors"}
PERSON_KEYS = {"family-names", "given-names", "name-particle", "name-suffix", "affiliation", "orcid", "email",
               "alias", "address", "city", "country", "post-code", "region", "tel", "fax", "website"}


def test_it_is_cff_1_2_with_the_required_keys(repo):
    data = cff(repo)
    assert data["cff-version"] == "1.2.0" and REQUIRED <= set(data)
    assert data["type"] == "dataset"
    assert REFERENCE_REQUIRED <= set(data["preferred-citation"])
    for person in data["authors"] + data["preferred-citation"]["authors"]:
        assert set(person) <= PERSON_KEYS and "family-names" in person


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
    assert card.stated_version(text) == Release(repo).version == str(cff(repo)["version"])
