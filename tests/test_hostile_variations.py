"""Releases that differ from the specimens in ways the format allows, and must pass.

A fork's schema files are its own text: laid out by its editor or by git's autocrlf, they hold the copies the
vocabulary renders all the same (INT5; GI6).
"""
from __future__ import annotations

import json
import shutil

import pytest
from realcompanion.validators.groupassist.run import validate as validate_groupassist
from realcompanion.validators.run import validate

from realcompanion.groupassist import SPECIMEN


@pytest.fixture
def groupassist(tmp_path):
    """A writable copy of the GroupAssistBench specimen."""
    return shutil.copytree(SPECIMEN, tmp_path / "groupassist")


@pytest.fixture(scope="module")
def baseline(repo):
    return validate(repo).fired()


def each_schema_file(root, change) -> None:
    for path in sorted((root / "schemas").rglob("*.json")):
        path.write_bytes(change(path.read_bytes()))


LAYOUTS = {
    "crlf": lambda text: text.replace(b"\n", b"\r\n"),  # a checkout with git's core.autocrlf
    "no-final-newline": lambda text: text.rstrip(b"\n"),
    "indent-4-ascii": lambda text: (json.dumps(json.loads(text), indent=4) + "\n").encode(),
    "one-line-keys-sorted": lambda text: json.dumps(json.loads(text), sort_keys=True).encode()
    if b'"fields"' in text or b'"$schema"' in text else text,  # the vocabulary's order is the enum copies' order
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_schema_file_laid_out_otherwise_holds_no_stale_copy(specimen, groupassist, baseline, layout):
    each_schema_file(specimen, LAYOUTS[layout])
    each_schema_file(groupassist, LAYOUTS[layout])
    assert validate(specimen).fired() == baseline
    assert validate_groupassist(groupassist).fired() == set()
