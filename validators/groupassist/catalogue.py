"""Declaring GroupAssistBench rules: one registry, one decorator, the shared `Rule` and failure frames.

Rules of the declared kinds live in the release's rules file (`groupassist.rules`, read by
validators/declared.py) and run in the same pass; the coded ones are registered here.
"""
from __future__ import annotations

from ..catalogue import Catalogue

FAMILIES = ("structure", "history", "gate", "invariant", "provenance", "integrity", "privacy")
CATALOGUE = Catalogue(FAMILIES, tuple(f"realcompanion.validators.groupassist.{module}" for module in (
    "changes", "gates", "history", "integrity", "invariants", "construction", "languages", "requester", "restatements",
    "structure", "tracks")))
# `rule(id, severity, family, reads, statement, paper)`: `paper` says where the GroupAssistBench paper (or
# GROUPASSIST.md) states it
rule = CATALOGUE.release_rule
all_rules, select = CATALOGUE.all_rules, CATALOGUE.select
