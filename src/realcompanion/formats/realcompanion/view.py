"""What the explorer shows of a RealCompanion release: each participant's stream, a chat probe, a question's horizon.

A chat item's context is every message before its probe (Table 28): the line is drawn before the probe. A question
may see every message up to and including `asked_after` (SPEC §3): the line is drawn after it.
"""
from ...explore.view import Point, View

VIEW = View(conversation="source", group="participant_id", order="turn", speaker="sender", texts=("text",),
            time="timestamp", session="session",
            records={"chat": Point("probe_dayid", label="probe"), "qa": Point("asked_after", through=True, label="asked after")})
