"""Shared fixtures: the shipped release, and throwaway copies of it to break."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from realcompanion.paths import REPO_ROOT

RELEASE_PARTS = ("datapackage.json", "schemas", "data")

# `python -m pytest` puts the working directory first on sys.path: run from the repository, its validators/ folder
# (installed as realcompanion.validators) would stand in for the `validators` package Frictionless checks string
# formats with (a uuid field's rows failed with "module 'validators' has no attribute 'uuid'").
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != REPO_ROOT]


def copy_release(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for part in RELEASE_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, dst / part)
        else:
            shutil.copy2(src / part, dst / part)
    return dst


def built_once(tmp_path_factory, name: str, build) -> tuple[Path, object]:
    """A folder `name` and what `build(folder)` returned (JSON), built once per run however many pytest-xdist
    workers ask: the first builds it in the run's shared temporary folder while a file lock holds the others, which
    then read the recorded result (pytest-xdist's "Making session-scoped fixtures execute only once"). For what
    costs more than a test; read-only for the tests."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder, result = base / name, base / f"{name}.json"
    with FileLock(f"{folder}.lock"):
        if not result.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a build that raised part-way
            folder.mkdir()
            result.write_text(json.dumps(build(folder)), encoding="utf-8")
        return folder, json.loads(result.read_text(encoding="utf-8"))


@pytest.fixture(scope="session", autouse=True)
def judging_libraries_imported() -> None:
    """Frictionless (with its plugins) and pandera imported once in each test process: `validate` forks the process
    that judges the descriptor and runs the pandera rules (validators/speed.py, `Judgement`), where a fresh one paid
    about 0.5 s of CPU each validation, hundreds of times a run; a process that holds them judges a small release
    itself, without forking (`judged_here`). The judgement runs the same code either way (`import_pandera` keeps pandera's
    strategies in a process that imported hypothesis, as every test process has); that the validating process of
    the command line imports neither is checked in processes of their own (tests/test_parallel.py)."""
    from frictionless import system

    from realcompanion.validators.speed import import_pandera

    system.methods  # noqa: B018 - loads the plugins, which the first judgement of a process would
    import_pandera()


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO_ROOT


@pytest.fixture
def specimen(tmp_path) -> Path:
    """A writable copy of the shipped release (descriptor, schemas, data)."""
    return copy_release(REPO_ROOT, tmp_path / "release")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network and a throwaway cache, also for modules imported before the variables were set."""
    import datasets
    import huggingface_hub

    cache = tmp_path / "hf"
    for name, value in {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(cache),
                        "HF_DATASETS_CACHE": str(cache / "datasets")}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache / "datasets")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    return cache / "datasets"


@pytest.fixture(scope="session")
def paper_release(tmp_path_factory) -> Path:
    """The paper-scale synthetic release (`synth --paper-scale`), generated once a run; read-only (copy to break)."""
    def synth(folder: Path) -> int:
        from realcompanion.cli import main

        return main(["synth", "--paper-scale", str(folder / "release")])

    folder, code = built_once(tmp_path_factory, "paper-scale", synth)
    assert code == 0
    return folder / "release"
