"""`validate` checks strictly more than Frictionless: whatever Frictionless finds wrong in a release, `validate`
finds wrong too (an error rule fails, or the release is unreadable, exit 2), in both formats.

Random careless edits of one record (a value of another type, a field dropped, a row deleted or repeated,
identifiers swapped, bytes inserted) are judged by both; an edit Frictionless passes may pass or fail here.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from conftest import copy_release
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_fuzz import CORRUPTIONS, swap_ids
from tiny_release import build

from realcompanion.cli import main
from realcompanion.errors import ReadError
from realcompanion.groupassist import SPECIMEN
from realcompanion.groupassist import synth as groupassist
from realcompanion.schemas import RESOURCES
from realcompanion.stamp import stamp

GROUPASSIST_RESOURCES = ("messages", "members", "instances", "anchors", "criteria")
GROUPASSIST_CORRUPTIONS = [c for c in CORRUPTIONS if c is not swap_ids]  # swap_ids knows RealCompanion's keys


def frictionless_finds_errors(root: Path) -> bool:
    from frictionless import Package, system

    with system.use_context(trusted=True):
        return not Package(str(root / "datapackage.json")).validate().valid


def judged_alike(root: Path, resource: str, corrupt, draw, restamp, capsys) -> None:
    path = root / "data" / f"{resource}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    assume(len(lines) >= 2 or corrupt is not swap_ids)
    corrupt(lines, draw, **({"resource": resource} if corrupt is swap_ids else {}))
    path.write_bytes(b"".join(lines))
    try:
        restamp(root)  # the declared counts and hashes describe the edited file: the content must be caught
    except ReadError:
        pass  # a file the stamp cannot read: validate's to name (exit 2)
    code = main(["validate", str(root)])
    capsys.readouterr()
    if frictionless_finds_errors(root):
        assert code in (1, 2), f"Frictionless finds errors in {path.name} that validate passes"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resource=st.sampled_from(RESOURCES), corrupt=st.sampled_from(CORRUPTIONS), data=st.data())
def test_realcompanion(resource, corrupt, data, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        judged_alike(build(Path(tmp) / "release"), resource, corrupt, data.draw, stamp, capsys)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(resource=st.sampled_from(GROUPASSIST_RESOURCES), corrupt=st.sampled_from(GROUPASSIST_CORRUPTIONS),
       data=st.data())
def test_groupassist(resource, corrupt, data, capsys):
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_release(SPECIMEN, Path(tmp) / "release")
        judged_alike(root, resource, corrupt, data.draw, groupassist.stamp, capsys)
