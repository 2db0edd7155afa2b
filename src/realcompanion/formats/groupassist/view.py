"""What the explorer shows of a GroupAssistBench release: each group's history, and an instance's cutoff.

History visible to a system is the turns before `cutoff_turn` (GROUPASSIST.md §2, App. E.1): the line is drawn
before the first message at or after it. An anchor's verbatim spans are highlighted in the message it cites, each
in its language's text.
"""
from ...explore.view import Point, View

VIEW = View(conversation="messages", group="group_id", order="turn", speaker="speaker", texts=("text_zh", "text_en"),
            time="timestamp", records={"instances": Point("cutoff_turn", by="turn", label="cutoff")},
            spans={"anchors": ("span_zh", "span_en")})
