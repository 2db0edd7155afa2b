"""GroupAssistBench releases: the package's second format (group chats with a deployed assistant).

A release is a self-contained data package folder whose descriptor carries a
`groupassist` block (format, format version, parameters, declared counts and
hashes) instead of the `realcompanion` block; `release()` opens one with the
same machinery as a RealCompanion release.
"""
from __future__ import annotations

from ..paths import REPO_ROOT
from ..release import Release

FORMAT = "groupassist"
RESOURCES = ("messages", "members", "instances", "anchors", "atoms", "criteria", "feedback", "audit")
SPECIMEN = REPO_ROOT / "specimens" / "groupassist"


class GroupAssistRelease(Release):
    """A GroupAssistBench release folder; its parameters are the descriptor's `groupassist` block."""

    BLOCK = FORMAT

    def check_block(self, block: dict, path) -> None:
        """The `groupassist` block has no JSON Schema of its own yet: each rule names a parameter it cannot read."""
