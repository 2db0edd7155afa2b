"""RealCompanion's rule catalogue: its families, and the modules whose decorators declare its rules.

Rules of the declared kinds live in the release's rules file (`realcompanion.rules`, read by validators/declared.py)
and run in the same pass; the coded ones register here, from RealCompanion's own rule modules and, for the
engine's shared checks (structure, resources, documents, integrity), from `shared_checks`, which declares them
under this format's ids; the engine's modules stay listed for the place their checks take in the list.
"""
from __future__ import annotations

from ..catalogue import Catalogue

FAMILIES = ("structure", "gate", "referent", "signals", "category", "structural", "arithmetic", "validity",
            "integrity", "privacy", "coverage", "declared")
CATALOGUE = Catalogue(FAMILIES, tuple(f"realcompanion.validators.{module}" for module in (
    # `shared_checks` first: rules whose checks no listed module holds list in the order they were declared
    "realcompanion.shared_checks", "realcompanion.arithmetic", "documents", "realcompanion.gates", "integrity",
    "realcompanion.left_out", "resources", "realcompanion.signals", "structure", "realcompanion.validity")))
frame_rule, release_rule = CATALOGUE.frame_rule, CATALOGUE.release_rule
all_rules, select = CATALOGUE.all_rules, CATALOGUE.select
