"""GroupAssistBench releases: the package's second format (group chats with a deployed assistant).

A release is a self-contained data package folder whose descriptor carries a
`groupassist` block (format, format version, parameters, declared counts and
hashes) instead of the `realcompanion` block; `release()` opens one with the
same machinery as a RealCompanion release.
"""
from __future__ import annotations

from pathlib import Path

from ...descriptor import check_block
from ...paths import REPO_ROOT
from ...release import Release
from ...tracks import Need, Tracks

FORMAT = "groupassist"
# what every release carries, what one may leave out, and what needs those (`realcompanion.tracks`)
TRACKS = Tracks(
    required=("messages", "members", "instances", "anchors"),
    optional=("atoms", "criteria", "feedback", "audit"),
    needs=(Need("atoms", "instances", "level", "L1", what="are L1, scored against their atoms"),
           Need("criteria", "instances", "level", "L2", what="are L2, scored against their rubric's criteria")),
)
RESOURCES = TRACKS.resources
SPECIMEN = REPO_ROOT / "specimens" / "groupassist"
SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")


class GroupAssistRelease(Release):
    """A GroupAssistBench release folder; its parameters are the descriptor's `groupassist` block."""

    BLOCK = FORMAT
    TITLE = "GroupAssistBench"
    RESOURCES = RESOURCES
    TRACKS = TRACKS
    OWNER = ("group_id", "groups")

    def check_block(self, block: dict, path) -> None:
        """The `groupassist` block meets descriptor.schema.json shipped beside this module (a release cannot loosen
        it): the parameters that decide VALID are the paper's (App. A.5, B), as FMT1 holds RealCompanion's."""
        check_block(block, path, FORMAT, SCHEMA_FILE)
