"""Shared fixtures: the shipped release, and throwaway copies of it to break."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from realcompanion.paths import REPO_ROOT

RELEASE_PARTS = ("datapackage.json", "schemas", "data")


def copy_release(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for part in RELEASE_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, dst / part)
        else:
            shutil.copy2(src / part, dst / part)
    return dst


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO_ROOT


@pytest.fixture
def specimen(tmp_path) -> Path:
    """A writable copy of the shipped release (descriptor, schemas, data)."""
    return copy_release(REPO_ROOT, tmp_path / "release")
