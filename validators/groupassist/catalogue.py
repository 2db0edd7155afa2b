"""Declaring GroupAssistBench rules: one registry, one decorator, the shared `Rule` and failure frames.

Rules of the declared kinds live in the release's rules file (`groupassist.rules`, read by
validators/declared.py) and run in the same pass; the coded ones are registered here.
"""
from __future__ import annotations

from ..catalogue import Rule, choose

FAMILIES = ("structure", "history", "gate", "invariant", "provenance", "integrity", "privacy")
CATALOGUE: dict[str, Rule] = {}


def rule(id: str, severity: str, family: str, reads: tuple[str, ...], statement: str, paper: str):
    """Register a release rule: `fn(ctx)` returns its failing rows (resource, row, field, value, message); `paper`
    says where the GroupAssistBench paper (or GROUPASSIST.md) states it."""
    def decorate(fn):
        assert id not in CATALOGUE and severity in ("error", "warning") and family in FAMILIES, id
        CATALOGUE[id] = Rule(id, severity, family, statement, tuple(reads), fn, paper)
        return fn

    return decorate


def all_rules() -> list[Rule]:
    from . import gates, history, integrity, invariants, languages, structure, tracks  # noqa: F401 - registers the rules

    return sorted(CATALOGUE.values(), key=lambda r: FAMILIES.index(r.family))


def select(ids: str | None, declared: list[Rule] = ()) -> list[Rule]:
    """Rules named by a comma-separated list of ids or families (None = all), among the catalogue and the rules the
    release declares (listed with their family, or last under `declared`)."""
    order = {family: n for n, family in enumerate(FAMILIES)}
    return choose(sorted(all_rules() + list(declared), key=lambda r: order.get(r.family, len(FAMILIES))), ids)
