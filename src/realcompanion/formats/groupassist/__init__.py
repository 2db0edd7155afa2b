"""GroupAssistBench releases: the package's second format (group chats with a deployed assistant).

A release is a self-contained data package folder whose descriptor carries a
`groupassist` block (format, format version, parameters, declared counts and
hashes) instead of the `realcompanion` block; `release()` opens one with the
same machinery as a RealCompanion release.
"""
from __future__ import annotations

from pathlib import Path

from ...descriptor import check_block, loaded
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


def default(*path: str):
    """The format's value of a block parameter a release may leave out (`still_current`, `words.assistant_mention`),
    declared once, as its `default` in the block's JSON Schema."""
    schema = loaded(SCHEMA_FILE)
    for key in path:
        schema = schema["properties"][key]
    return schema["default"]


ASSISTANT_MENTION = default("words", "assistant_mention")  # how a member mentions the assistant, where undeclared
LANGUAGES = ("zh", "en")  # the suffixes of the text fields: `text_zh`, `text_en`, ... (GROUPASSIST.md §2)


class GroupAssistRelease(Release):
    """A GroupAssistBench release folder; its parameters are the descriptor's `groupassist` block."""

    BLOCK = FORMAT
    TITLE = "GroupAssistBench"
    RESOURCES = RESOURCES
    TRACKS = TRACKS
    OWNER = ("group_id", "groups")

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the release declares (`groupassist.languages`; both, Chinese first, by default), the
        language of evaluation first."""
        return tuple(self.params.get("languages", LANGUAGES))

    @property
    def evaluation_language(self) -> str:
        """The language the judge, the systems and the headline baselines read: the first one declared."""
        return self.languages[0]

    def format_field(self, field: dict) -> dict:
        """A core field's definition as GI8 compares it: a text field's `required` is left to GL2, which asks it
        of a declared language's fields only (an undeclared language's are null)."""
        if language_of(field["name"]) is None:
            return field
        return {**field, "constraints": {k: v for k, v in field.get("constraints", {}).items() if k != "required"}}

    def card_header(self) -> dict:
        """The card states the languages the release carries (`language`, the Hub's key; Croissant's inLanguage)."""
        return {"language": list(self.languages)}

    def check_block(self, block: dict, path) -> None:
        """The `groupassist` block meets descriptor.schema.json shipped beside this module (a release cannot loosen
        it): the parameters that decide VALID are the paper's (App. A.5, B), as FMT1 holds RealCompanion's."""
        check_block(block, path, FORMAT, SCHEMA_FILE)


def language_of(name: str) -> str | None:
    """The language a field's name says it holds text in (`query_en`: en), or None."""
    head, _, suffix = name.rpartition("_")
    return suffix if head and suffix in LANGUAGES else None
