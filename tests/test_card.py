"""The Hugging Face card: its header is generated from the schemas and kept current, and it says what it must."""
from __future__ import annotations

import json
import shutil

import pytest
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from realcompanion import card
from realcompanion.cli import main
from realcompanion.publish.documents import stated_version
from realcompanion.release import Release

QUICK_START = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/realcompanion validate .",
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/pip install --no-deps cffconvert==2.0.0 '
    '&& .venv/bin/pytest',
)
TEMPLATE_SECTIONS = ("Dataset Details", "Uses", "Out-of-Scope Use", "Dataset Structure", "Dataset Creation",
                     "Personal and Sensitive Information", "Bias, Risks, and Limitations", "Recommendations",
                     "Citation", "Glossary", "Dataset Card Contact", "Versions and errata", "Quick start")


@pytest.fixture
def documented(specimen, repo):
    """The specimen copy with its card and citation file."""
    for name in (card.CARD, card.CITATION):
        shutil.copy2(repo / name, specimen / name)
    return specimen


def test_shipped_card_is_current(repo):
    assert card.stale(repo) == []


def test_configs_name_exactly_the_data_files(repo):
    release = Release(repo)
    configs = MetadataConfigs.from_dataset_card_data(DatasetCard.load(repo / card.CARD).data)
    assert set(configs) == set(release.resources)
    for name, config in configs.items():
        assert config["data_files"] == [{"split": "test", "path": release.resource(name)["path"]}]
        assert (repo / release.resource(name)["path"]).is_file()


def test_declared_features_are_the_release_schema(repo):
    release = Release(repo)
    infos = DatasetInfosDict.from_dataset_card_data(DatasetCard.load(repo / card.CARD).data)
    for name in release.resources:
        assert infos[name].features == card.features(release, name)
        assert infos[name].features.arrow_schema.names == release.arrow_schema(name).names
    trace = infos["chat"].features["trace"]
    assert isinstance(trace, dict) and isinstance(trace["D"], dict)
    assert trace["D"]["grounding_dayids"].feature.dtype == "string"



@pytest.mark.parametrize("path", ["data/qa[1].jsonl", "data/qa?.jsonl", "data/qa*.jsonl"])
def test_a_config_names_its_one_file_whatever_characters_its_path_holds(specimen, path):
    """`datasets` globs a config's path: `data/qa[1].jsonl` matched `data/qa1.jsonl` beside it, which it loaded."""
    from datasets.data_files import DataFilesDict, sanitize_patterns

    (specimen / "data" / "qa.jsonl").rename(specimen / path)
    shutil.copy2(specimen / path, specimen / "data" / "qa1.jsonl")
    descriptor = json.loads((specimen / "datapackage.json").read_text(encoding="utf-8"))
    next(r for r in descriptor["resources"] if r["name"] == "qa")["path"] = path
    (specimen / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")
    config = next(c for c in card.header(Release(specimen))["configs"] if c["config_name"] == "qa")
    resolved = DataFilesDict.from_patterns(sanitize_patterns(config["data_files"]), base_path=str(specimen))
    assert [str(f) for f in resolved["test"]] == [(specimen / path).as_posix()]

def test_header_carries_license_and_size_from_the_package(repo):
    data = DatasetCard.load(repo / card.CARD).data
    release = Release(repo)
    assert data["license"] == release.descriptor["licenses"][0]["name"].lower() == "cc-by-nc-4.0"
    assert data["tags"] == release.descriptor["keywords"]
    total = sum(release.params["rows"].values())
    assert data["size_categories"] == card.size_category(total)
    assert {"language", "task_categories", "pretty_name"} <= set(data.to_dict())


@pytest.mark.parametrize("title, name", [("RealCompanion: longitudinal conversations", "RealCompanion"),
                                         ("记忆库：与 AI 伙伴的长期对话", "记忆库"), ("No colon", "No colon")])
def test_pretty_name_is_the_title_up_to_its_colon(specimen, title, name):
    descriptor = json.loads((specimen / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["title"] = title
    (specimen / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    assert card.header(Release(specimen))["pretty_name"] == name


@pytest.mark.parametrize("total, label", [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (36_534, "10K<n<100K"),
                                          (10**12, "n>1T")])
def test_size_category_buckets(total, label):
    assert card.size_category(total) == label


def test_card_says_what_a_user_needs(repo):
    text = (repo / card.CARD).read_text(encoding="utf-8")
    sections = {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}
    assert set(TEMPLATE_SECTIONS) <= sections
    for command in QUICK_START:
        assert command in text
    assert "realcompanion validate . --html report/" in text and "report/index.html" in text
    for name in ("baselines", "score", "contexts", "judge", "windows", "score-reconstruction", "publish",
                 "croissant", "diff", "cite"):
        assert f"`{name}`" in text or f"realcompanion {name}" in text, name
    assert "docs/scoring.md" in text and "docs/publishing.md" in text and "CHANGELOG.md" in text


def test_status_notice_follows_the_synthetic_flag(documented):
    assert "Synthetic specimen" in card.status(Release(documented))
    descriptor = json.loads((documented / "datapackage.json").read_text())
    descriptor["realcompanion"]["synthetic"] = False
    (documented / "datapackage.json").write_text(json.dumps(descriptor))
    assert "Synthetic specimen" not in card.status(Release(documented))
    assert f"{card.CARD} block: status" in card.stale(documented)


@pytest.mark.parametrize("synthetic", [True, False])
def test_status_notice_tells_the_provenance_a_release_declares(documented, synthetic):
    """A converted dataset is neither the project's generated specimen nor real participants' records: the notice
    says what realcompanion.provenance says, under the synthetic flag's label, and `card --write` keeps it."""
    said = "Converted from a public corpus of model-written conversations (CC BY-NC 4.0)."
    descriptor = json.loads((documented / "datapackage.json").read_text())
    descriptor["realcompanion"].update(synthetic=synthetic, provenance=said)
    (documented / "datapackage.json").write_text(json.dumps(descriptor))
    notice = card.status(Release(documented))
    assert said in notice and "realcompanion synth" not in notice and "real participants" not in notice
    assert notice.startswith("> **Synthetic release" if synthetic else "> **RealCompanion release")
    assert main(["card", "--write", str(documented)]) == 0 and card.stale(documented) == []
    assert said in (documented / card.CARD).read_text(encoding="utf-8")


def test_a_changed_schema_makes_the_card_stale_until_written(documented):
    path = documented / "schemas" / "qa.schema.json"
    schema = json.loads(path.read_text())
    schema["fields"][2]["description"] = "An authored question, reworded."
    path.write_text(json.dumps(schema))
    assert card.stale(documented) == [f"{card.CARD} block: fields"]
    assert main(["card", str(documented)]) == 1
    assert main(["card", str(documented), "--write"]) == 0
    assert card.stale(documented) == []
    assert "An authored question, reworded." in (documented / card.CARD).read_text()


def test_a_new_version_reaches_the_card_and_citation_file(documented):
    descriptor = json.loads((documented / "datapackage.json").read_text())
    descriptor.update(version="0.2.0", created="2027-01-15T00:00:00Z")
    (documented / "datapackage.json").write_text(json.dumps(descriptor))
    assert set(card.stale(documented)) == {f"{card.CARD} block: citation", f"{card.CARD} block: status",
                                           f"{card.CITATION}: version", f"{card.CITATION}: date-released"}
    card.write(documented)
    assert card.stale(documented) == []
    assert stated_version((documented / card.CARD).read_text()) == "0.2.0"
    cff = (documented / card.CITATION).read_text()
    assert "version: 0.2.0" in cff and "date-released: 2027-01-15" in cff


def test_damaged_markers_are_reported_not_repaired(documented):
    path = documented / card.CARD
    text = path.read_text().replace("<!-- generated:fields -->", "<!-- generated:feelds -->")
    path.write_text(text.replace("<!-- /generated:fields -->", "<!-- /generated:feelds -->"))
    assert main(["card", str(documented), "--write"]) == 1
    assert {f"{card.CARD} block: feelds (unknown block)", f"{card.CARD} block: fields (markers missing)"} <= set(
        card.stale(documented))


def test_missing_card_is_one_line_exit_2(specimen, capsys):
    assert main(["card", str(specimen)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "README.md" in err[0]


@pytest.mark.parametrize("format_", ["realcompanion", "groupassist"])
def test_each_config_states_its_split_size(repo, format_):
    from realcompanion.formats.groupassist import SPECIMEN

    repo = SPECIMEN if format_ == "groupassist" else repo
    release = card.open_release(repo)
    infos = DatasetInfosDict.from_dataset_card_data(DatasetCard.load(repo / card.CARD).data)
    assert set(infos) == set(release.resources)  # every config, no other
    for name in release.resources:
        assert infos[name].splits["test"].num_examples == release.params["rows"][name]
        assert infos[name].download_size == (repo / release.resource(name)["path"]).stat().st_size
