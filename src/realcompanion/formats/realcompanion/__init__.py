"""The RealCompanion format's own parts: its resources (`TRACKS`), its block's JSON Schema (`SCHEMA_FILE`), its
generator (`synth`), its reference scorer (`scoring`), its parts of the shared scoring commands and its own
commands (`commands`)."""
from __future__ import annotations

from pathlib import Path

from ...tracks import Need, Tracks

# its resources: what every release of it carries, what one may leave out, and what needs those
TRACKS = Tracks(
    required=("source",),
    optional=("profile", "persona", "chat", "qa"),
    needs=(Need("profile", "chat", "required_context.profile_refs", what="cite a profile claim"),),
)
SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")
# the withdrawn code (Table 22) of a chat row whose every reference phase B removed: it cites nothing (SIG11)
EMPTIED_BY_B = "stage_b_empty_context"
