"""TRK1: a required resource left out, or what needs an optional one the release leaves out (a chat row citing a
claim of an absent profile)."""
from __future__ import annotations

from realcompanion.schemas import RESOURCES

from ..tracks import STATEMENT, absent_needed
from .catalogue import release_rule

release_rule("TRK1", "error", "integrity", RESOURCES, STATEMENT,
             "SPEC §1: source is required; a fork or conversion may leave out profile, persona, chat or qa")(absent_needed)
