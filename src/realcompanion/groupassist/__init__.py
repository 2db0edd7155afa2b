"""GroupAssistBench releases: the package's second format (group chats with a deployed assistant).

A release is a self-contained data package folder whose descriptor carries a
`groupassist` block (format, format version, parameters, declared counts and
hashes) instead of the `realcompanion` block; `release()` opens one with the
same machinery as a RealCompanion release.
"""
from __future__ import annotations

from pathlib import Path

from ..descriptor import check_block
from ..errors import ReadError
from ..paths import REPO_ROOT
from ..release import Release

FORMAT = "groupassist"
RESOURCES = ("messages", "members", "instances", "anchors", "atoms", "criteria", "feedback", "audit")
SPECIMEN = REPO_ROOT / "specimens" / "groupassist"
SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")
ORDERED = (("delta_min", "delta_max"), ("rubric.positive_min", "rubric.positive_max"))  # (lower, upper) pairs


class GroupAssistRelease(Release):
    """A GroupAssistBench release folder; its parameters are the descriptor's `groupassist` block."""

    BLOCK = FORMAT
    RESOURCES = RESOURCES

    def check_block(self, block: dict, path) -> None:
        """The `groupassist` block meets descriptor.schema.json shipped beside this module (a release cannot loosen
        it), and each declared range is not empty."""
        check_block(block, path, FORMAT, SCHEMA_FILE)
        for low, high in ORDERED:
            values = [_at(block, key) for key in (low, high)]
            if values[0] > values[1]:
                raise ReadError(path, f"{low} {values[0]} exceeds {high} {values[1]}", field=f"{FORMAT}.{low}")


def _at(block: dict, dotted: str):
    for part in dotted.split("."):
        block = block[part]
    return block
