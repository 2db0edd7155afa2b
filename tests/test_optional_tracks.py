"""A release that leaves out an optional resource, in each format: it validates, every config it has loads with
`datasets`, Frictionless passes it, refresh, Croissant and publish --dry-run follow the resources present; a
required resource left out is one line (tests/test_forks.py); a scorer asked for an absent track says so in one line.

Each copy is built once a run (stamped and refreshed as a fork author would) and shared by the checks.
"""
from __future__ import annotations

import json
import shutil

import pytest
from conftest import built_once
from left_out import leave_out

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.paths import REPO_ROOT

RELEASE_FILES = ("datapackage.json", "schemas", "data", "README.md", "DATASHEET.md", "CITATION.cff", "CHANGELOG.md")


def _rows(root, name):
    return [json.loads(line) for line in (root / "data" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def _write(root, name, rows):
    (root / "data" / f"{name}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows), encoding="utf-8")


def _without_level(root, level):
    """The GroupAssistBench copy without its `level` instances and what is theirs: what a release without L1 (or
    L2) holds."""
    gone = {i["instance_id"] for i in _rows(root, "instances") if i["level"] == level}
    for name in ("instances", "anchors", "atoms", "criteria", "audit"):
        _write(root, name, [r for r in _rows(root, name) if r["instance_id"] not in gone])


# (format, resource left out): what else the copy leaves out or drops so that nothing needs it
CASES = {
    ("realcompanion", "profile"): lambda root: leave_out(root, "chat"),  # the specimen's chat cites profile claims
    ("realcompanion", "persona"): None,
    ("realcompanion", "chat"): None,
    ("realcompanion", "qa"): None,
    ("groupassist", "atoms"): lambda root: _without_level(root, "L1"),
    ("groupassist", "criteria"): lambda root: _without_level(root, "L2"),
    ("groupassist", "feedback"): None,
    ("groupassist", "audit"): None,
}
IDS = [f"{fmt}-{name}" for fmt, name in CASES]


def _copy(fmt, root):
    if fmt == "groupassist":
        return shutil.copytree(SPECIMEN, root)
    root.mkdir()
    for part in RELEASE_FILES:
        (shutil.copytree if (REPO_ROOT / part).is_dir() else shutil.copy2)(REPO_ROOT / part, root / part)
    return root


@pytest.fixture(scope="session")
def left_out_copies(tmp_path_factory):
    """Each case's copy, built on first use, once a run (shared by the workers); read-only."""
    def copy(case):
        fmt, name = case

        def build(folder):
            root = _copy(fmt, folder / "release")
            if CASES[case]:
                CASES[case](root)
            leave_out(root, name)
            return [main(["refresh", str(root)]), main(["croissant", str(root)])]

        folder, codes = built_once(tmp_path_factory, f"without-{fmt}-{name}", build)
        assert codes == [0, 0]
        return folder / "release"

    return copy


def _present(root) -> list[str]:
    return [r["name"] for r in json.loads((root / "datapackage.json").read_text(encoding="utf-8"))["resources"]]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_it_validates_and_its_rules_and_documents_follow_the_resources_present(case, left_out_copies, capsys):
    root = left_out_copies(case)
    capsys.readouterr()
    code, said = main(["validate", str(root)]), capsys.readouterr().out
    assert code == 0, said[-2000:]
    assert main(["rules", str(root), "--json"]) == 0
    listed = {r["id"] for r in json.loads(capsys.readouterr().out)}
    only_absent = {"realcompanion": {"profile": "ARI5", "persona": "ARI8", "chat": "A", "qa": "STR2"},
                   "groupassist": {"atoms": None, "criteria": None, "feedback": None, "audit": None}}[case[0]][case[1]]
    assert only_absent is None or only_absent not in listed
    for command in ("card", "datasheet"):
        assert main([command, str(root)]) == 0  # refresh left them current
    for document in ("README.md", "DATASHEET.md"):
        text = (root / document).read_text(encoding="utf-8")
        assert f"config_name: {case[1]}\n" not in text and f"data/{case[1]}.jsonl" not in text, document


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_config_it_has_loads_with_datasets_and_frictionless_passes_it(case, left_out_copies, tmp_path,
                                                                            monkeypatch):
    import datasets
    from frictionless import Package, system

    from realcompanion.card import read_card

    root = left_out_copies(case)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    configs = [c["config_name"] for c in read_card(root / "README.md").data["configs"]]
    assert sorted(configs) == sorted(_present(root))
    for config in configs:
        loaded = datasets.load_dataset(str(root), config, split="test", cache_dir=str(tmp_path))
        assert loaded.num_rows == len(_rows(root, config)) > 0
    with system.use_context(trusted=True):
        report = Package(str(root / "datapackage.json")).validate()
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type"])[:5]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_its_croissant_has_a_record_set_per_resource_present_and_publish_plans_them(case, left_out_copies, capsys):
    mlc = pytest.importorskip("mlcroissant")
    root = left_out_copies(case)
    dataset = mlc.Dataset(jsonld=root / "croissant.json")
    assert not dataset.metadata.ctx.issues.errors
    sets = [r.name for r in dataset.metadata.record_sets]
    assert sorted(sets) == sorted(_present(root))
    for name in sets:  # every record set present reads, its first record at least
        assert next(iter(dataset.records(name))), name
    capsys.readouterr()
    assert main(["publish", str(root), "--dry-run", "--repo-id", "someone/fork", "--version", "0.1.0"]) == 0
    planned = capsys.readouterr().out
    assert f"data/{case[1]}.jsonl" not in planned and all(f"data/{name}.jsonl" in planned for name in sets)


@pytest.mark.parametrize("command", [["baselines", "--track", "chat"], ["windows"]])
def test_a_scorer_asked_for_a_track_the_release_leaves_out_says_so_in_one_line(command, left_out_copies, capsys):
    root = left_out_copies(("realcompanion", "chat"))
    capsys.readouterr()
    assert main([command[0], str(root), *command[1:]]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "leaves out 'chat'" in err and "profile, persona, qa" in err
