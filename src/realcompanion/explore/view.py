"""What a format's explorer shows, declared as data: the conversation resource and the records with pages.

A `View` names fields of the format's Table Schemas; the rest (keys, foreign keys, text fields, vocabulary fields,
the messages each record cites) is read from the schemas themselves, so a fork's added resources and fields are
shown without a new declaration.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Point:
    """Where a record stands in its conversation: the field naming a message (`by="id"`) or a turn (`by="turn"`),
    and whether that message is the last one visible (`through=True`: the line is drawn after it) or the first one
    not visible (the line is drawn before it)."""

    field: str
    by: str = "id"
    through: bool = False
    label: str = "cutoff"


@dataclass(frozen=True)
class View:
    """A format's conversation (resource, the field grouping it into conversations, the field ordering it, who
    speaks, what is said, when, and an optional session number) and its record pages (resource -> Point or None)."""

    conversation: str
    group: str
    order: str
    speaker: str
    texts: tuple[str, ...]
    time: str
    session: str | None = None
    records: dict = field(default_factory=dict)
    spans: dict = field(default_factory=dict)  # resource -> the fields holding a verbatim span of its cited message

    def as_json(self) -> dict:
        return {"conversation": self.conversation, "group": self.group, "order": self.order, "speaker": self.speaker,
                "texts": list(self.texts), "time": self.time, "session": self.session,
                "records": {name: point and vars(point) for name, point in self.records.items()},
                "spans": {name: list(fields) for name, fields in self.spans.items()}}
