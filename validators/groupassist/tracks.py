"""GT1: what needs a resource the release leaves out (`atoms` for L1, `criteria` for L2), RealCompanion's TRK1."""
from __future__ import annotations

from realcompanion.formats.groupassist import RESOURCES

from ..tracks import STATEMENT, absent_needed
from .catalogue import rule

rule("GT1", "error", "integrity", RESOURCES, STATEMENT,
     "GROUPASSIST.md §1: messages, members, instances and anchors are required; atoms (without L1), criteria and "
     "feedback (without L2) and audit may be left out")(absent_needed)
