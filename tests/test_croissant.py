"""`realcompanion croissant`: Croissant 1.0 + RAI that mlcroissant accepts offline and that reads the release."""
from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from realcompanion.cli import main
from realcompanion.publish import rai
from realcompanion.release import Release

mlc = pytest.importorskip("mlcroissant")


def write_card(root, omit=None, header="pretty_name: RealCompanion\n"):
    """A card with one paragraph under every heading the RAI fields quote, and the citation file citeAs reads."""
    headings = sorted({h for hs in rai.SECTIONS.values() for h in hs} - {omit})
    body = "\n\n".join(f"## {h}\n\nWhat the card says under {h}." for h in headings)
    (root / "README.md").write_text(f"---\n{header}---\n\n# Card\n\n{body}\n", encoding="utf-8")
    (root / "CITATION.cff").write_text("cff-version: 1.2.0\ntitle: RealCompanion\nauthors:\n  - name: Quis Lab\n",
                                       encoding="utf-8")


@pytest.fixture
def offline(monkeypatch):
    """Any connection other than to this machine fails the test."""
    connect = socket.socket.connect

    def guarded(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"network access to {address}")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture
def described(specimen, offline, capsys):
    write_card(specimen)
    assert main(["croissant", str(specimen)]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and "0 mlcroissant warning(s)" in out
    return specimen


def test_mlcroissant_validates_it_offline(described):
    dataset = mlc.Dataset(jsonld=described / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors
    assert not dataset.metadata.ctx.issues.warnings


def test_mlcroissant_command_line_validates_it(described):
    command = shutil.which("mlcroissant", path=str(Path(sys.executable).parent)) or shutil.which("mlcroissant")
    if command is None:
        pytest.skip("the mlcroissant command is not installed")
    done = subprocess.run([command, "validate", "--jsonld", "croissant.json"], cwd=described, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_record_sets_read_every_declared_row(described):
    dataset, release = mlc.Dataset(jsonld=described / "croissant.json"), Release(described)
    records = {name: list(dataset.records(name)) for name in release.resources}
    assert {name: len(rows) for name, rows in records.items()} == release.params["rows"]
    first_chat = records["chat"][0]
    expected = release.table("chat").slice(0, 1).to_pylist()[0]
    assert first_chat["chat/required_context"]["chat/required_context/recent_needed"] == \
        expected["required_context"]["recent_needed"]
    assert first_chat["chat/item_id"].decode() == expected["item_id"]


def test_it_says_what_the_schemas_and_descriptor_say(described):
    doc, release = json.loads((described / "croissant.json").read_text()), Release(described)
    assert doc["conformsTo"] == ["http://mlcommons.org/croissant/1.0", "http://mlcommons.org/croissant/RAI/1.0"]
    assert doc["version"] == release.version
    assert {d["contentUrl"]: d["sha256"] for d in doc["distribution"]} == {
        release.resource(name)["path"]: release.resource(name)["hash"].removeprefix("sha256:")
        for name in release.resources}
    sets = {r["@id"]: r for r in doc["recordSet"]}
    assert list(sets) == release.resources
    for name in release.resources:
        schema = release.table_schema(name)
        assert [f["name"] for f in sets[name]["field"]] == [f["name"] for f in schema["fields"]]
        keys = sets[name]["key"] if isinstance(sets[name]["key"], list) else [sets[name]["key"]]
        assert [k["@id"] for k in keys] == [f"{name}/{k}" for k in schema["primaryKey"]]
    probe = next(f for f in sets["chat"]["field"] if f["name"] == "probe_dayid")
    assert probe["references"] == {"field": {"@id": "source/dayid"}}
    timestamp = next(f for f in sets["source"]["field"] if f["name"] == "timestamp")
    assert timestamp["dataType"] == "sc:DateTime"
    evidence = next(f for f in sets["qa"]["field"] if f["name"] == "evidence")
    assert evidence["repeated"] is True


def test_rai_fields_quote_the_card(described):
    doc = json.loads((described / "croissant.json").read_text())
    for key in ("dataCollection", "dataLimitations", "dataBiases", "personalSensitiveInformation",
                "dataUseCases", "dataReleaseMaintenancePlan"):
        assert "What the card says under" in json.dumps(doc[f"rai:{key}"]), key
    assert doc["rai:dataUseCases"] == ["What the card says under Direct Use.",
                                       "What the card says under Out-of-Scope Use."]


@pytest.mark.parametrize("header, languages", [("language:\n- zh\n- en\n", ["zh", "en"]), ("language: en\n", "en"),
                                               ("", None)], ids=["list", "one", "none"])
def test_in_language_is_the_cards(specimen, offline, capsys, header, languages):
    """Croissant said nothing of the language the card's header states (a converted Chinese dataset's `zh`)."""
    write_card(specimen, header=f"pretty_name: RealCompanion\n{header}")
    assert main(["croissant", str(specimen)]) == 0 and "0 mlcroissant warning(s)" in capsys.readouterr().out
    assert json.loads((specimen / "croissant.json").read_text()).get("inLanguage") == languages


def test_a_missing_card_section_is_named(specimen, capsys):
    write_card(specimen, omit="Personal and Sensitive Information")
    assert main(["croissant", str(specimen)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no section 'Personal and Sensitive Information'" in err
    assert not (specimen / "croissant.json").exists()


def test_a_description_croissant_rejects_is_one_line(specimen, capsys):
    write_card(specimen)
    path = specimen / "schemas" / "chat.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["foreignKeys"][0]["reference"]["fields"] = ["no_such_field"]
    path.write_text(json.dumps(schema), encoding="utf-8")
    assert main(["croissant", str(specimen)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"error: {specimen / 'croissant.json'}: Croissant rejects the description: ")
    assert not (specimen / "croissant.json").exists()


def test_the_repository_card_has_every_quoted_section(repo):
    assert rai.statements(repo / "README.md")


def test_card_configs_never_match_the_metadata_files(specimen, repo, offline):
    """Every data_files pattern of the repository card's configs, resolved as `datasets` resolves it, matches data
    files only."""
    from datasets.data_files import DataFilesDict, sanitize_patterns
    from huggingface_hub import DatasetCard

    write_card(specimen)
    assert main(["croissant", str(specimen)]) == 0
    configs = DatasetCard.load(repo / "README.md").data["configs"]
    data_files = {(specimen / p).resolve().as_posix() for p in
                  [r["path"] for r in json.loads((specimen / "datapackage.json").read_text())["resources"]]}
    for config in configs:
        resolved = DataFilesDict.from_patterns(sanitize_patterns(config["data_files"]), base_path=str(specimen))
        matched = {str(f) for f in itertools.chain.from_iterable(resolved.values())}
        assert matched and matched <= data_files, config["config_name"]
        assert not any(f.endswith(("datapackage.json", "croissant.json")) for f in matched)


@pytest.mark.parametrize("contributors, creators", [
    ([{"givenName": "Ada", "familyName": "Lovelace", "roles": ["author"]}], {"@type": "sc:Person", "name": "Ada Lovelace"}),
    ([{"title": "Quis Lab", "roles": ["author", "contact"]}, {"title": "Editor", "roles": ["dataCurator"]}],
     {"@type": "sc:Person", "name": "Quis Lab"}),
    ([{"title": "Quis Lab", "roles": "author"}, {"title": "Editor", "roles": "coauthor"}],
     {"@type": "sc:Person", "name": "Quis Lab"}),
    ([{"title": "Quis Lab", "role": "author"}], {"@type": "sc:Person", "name": "Quis Lab"}),
], ids=["v2-given-and-family-name", "v2-roles", "roles-as-text", "v1-role"])
def test_creators_are_the_descriptors_authors_as_data_package_v2_writes_them(specimen, offline, capsys,
                                                                            contributors, creators):
    """The release's descriptor is Data Package v2, which gives a contributor's roles as a list (`roles`) and its
    name as `title` or `givenName` and `familyName`: such an author was left out of the creators, or ended the
    command with a KeyError."""
    write_card(specimen)
    path = specimen / "datapackage.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "contributors": contributors}),
                    encoding="utf-8")
    assert main(["croissant", str(specimen)]) == 0 and "0 mlcroissant warning(s)" in capsys.readouterr().out
    assert json.loads((specimen / "croissant.json").read_text()).get("creator") == creators


def test_an_author_without_a_name_is_one_line(specimen, capsys):
    write_card(specimen)
    path = specimen / "datapackage.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")),
                                "contributors": [{"title": "Quis Lab", "role": "author"}, {"roles": ["author"]}]}),
                    encoding="utf-8")
    assert main(["croissant", str(specimen)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: {path} field 'contributors.1.title': an author without a name: give its title (or givenName and "
        "familyName), which croissant.json names as a creator"]


@pytest.mark.parametrize("contributor, field, reason", [
    ({"title": "Quis Lab", "roles": 5}, "roles", 'roles 5: a list of role names (such as ["author"])'),
    ({"title": "Quis Lab", "roles": {"author": 1}}, "roles",
     "roles {'author': 1}: a list of role names (such as [\"author\"])"),
    ({"title": "Quis Lab", "roles": ["author", 1]}, "roles",
     "roles ['author', 1]: a list of role names (such as [\"author\"])"),
    ({"givenName": 5, "familyName": "Lovelace", "roles": ["author"]}, "givenName", "5: a name is text"),
    ({"title": "  ", "roles": ["author"]}, "title", "an author without a name: give its title (or givenName and "
     "familyName), which croissant.json names as a creator"),
    ({"givenName": " ", "familyName": "\t", "roles": ["author"]}, "title", "an author without a name: give its "
     "title (or givenName and familyName), which croissant.json names as a creator"),
], ids=["roles-a-number", "roles-an-object", "a-role-not-text", "name-part-a-number", "title-of-spaces",
        "name-parts-of-spaces"])
def test_a_contributor_frictionless_lets_through_is_one_line(specimen, offline, capsys, contributor, field, reason):
    """Frictionless checks neither `roles` nor `givenName`: a number there ended croissant (and refresh, publish)
    with a TypeError, a dict of roles read as an author's, and a name of spaces became a creator named by nothing."""
    write_card(specimen)
    path = specimen / "datapackage.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "contributors": [contributor]}),
                    encoding="utf-8")
    assert main(["croissant", str(specimen)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"error: {path} field 'contributors.0.{field}': {reason}"]
    assert not (specimen / "croissant.json").exists()
