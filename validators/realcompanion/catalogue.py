"""RealCompanion's rule catalogue: its families, and the modules whose decorators declare its rules.

Rules of the declared kinds live in the release's rules file (`realcompanion.rules`, read by validators/declared.py)
and run in the same pass; the coded ones register here, from RealCompanion's own rule modules and from the shared
checks of structure, resources and integrity.
"""
from __future__ import annotations

from ..catalogue import Catalogue

FAMILIES = ("structure", "gate", "referent", "signals", "category", "structural", "arithmetic", "validity",
            "integrity", "privacy", "coverage", "declared")
CATALOGUE = Catalogue(FAMILIES, tuple(f"realcompanion.validators.{module}" for module in (
    "realcompanion.arithmetic", "documents", "realcompanion.gates", "integrity", "realcompanion.left_out", "resources",
    "realcompanion.signals", "structure", "realcompanion.validity")))
frame_rule, release_rule = CATALOGUE.frame_rule, CATALOGUE.release_rule
all_rules, select = CATALOGUE.all_rules, CATALOGUE.select
