"""The rule catalogue: every rule's id, severity, family, statement and its one implementation.

A rule is declared once, with a decorator, next to its code. Two kinds:

* `frame_rule`: a row-level check on one resource, returning a boolean Series
  (True = the row passes). These run as pandera checks, one DataFrameSchema per
  resource, so pandera collects every failing row lazily.
* `release_rule`: a cross-resource check (citations, windows, recomputations)
  written as vectorized joins, returning the failing rows as a frame with
  columns `resource, row, field, value, message` (the dbt "failures are rows"
  model).

The report, `realcompanion rules`, DATASHEET.md and the tests all read this
catalogue; nothing else lists rules.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pandas as pd

FAILURE_COLUMNS = ["resource", "row", "field", "value", "message"]
FAMILIES = ("structure", "gate", "referent", "signals", "category", "structural", "arithmetic", "validity",
            "integrity", "privacy", "coverage")


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    family: str
    statement: str
    reads: tuple[str, ...]
    check: Callable
    resource: str | None = None  # frame rules: the resource checked
    field: str | None = None  # frame rules: the field a failure names

    @property
    def kind(self) -> str:
        return "frame" if self.resource else "release"

    def as_dict(self) -> dict:
        """The rule as `realcompanion rules --json` and the JSON report state it."""
        return {"id": self.id, "severity": self.severity, "family": self.family, "statement": self.statement}


CATALOGUE: dict[str, Rule] = {}


def _register(rule: Rule) -> None:
    assert rule.id not in CATALOGUE, f"rule {rule.id} declared twice"
    assert rule.severity in ("error", "warning") and rule.family in FAMILIES, rule
    CATALOGUE[rule.id] = rule


def release_rule(id: str, severity: str, family: str, reads: tuple[str, ...], statement: str):
    def decorate(fn):
        _register(Rule(id, severity, family, statement, tuple(reads), fn))
        return fn

    return decorate


def frame_rule(id: str, severity: str, family: str, resource: str, field: str, statement: str):
    def decorate(fn):
        _register(Rule(id, severity, family, statement, (resource,), fn, resource, field))
        return fn

    return decorate


def failures(resource: str, rows, field: str, values, message) -> pd.DataFrame:
    """A failure frame; `values` and `message` may be scalars or aligned sequences."""
    rows = list(rows)
    frame = pd.DataFrame({"row": rows})
    frame["resource"] = resource
    frame["field"] = field
    frame["value"] = list(values) if not isinstance(values, str) and hasattr(values, "__len__") else values
    frame["message"] = list(message) if not isinstance(message, str) else message
    return frame[FAILURE_COLUMNS]


def all_rules() -> list[Rule]:
    """Every rule, family by family (importing the rule modules registers them)."""
    from . import arithmetic, gates, integrity, signals, structure, validity  # noqa: F401

    return sorted(CATALOGUE.values(), key=lambda r: FAMILIES.index(r.family))


def select(ids: str | None) -> list[Rule]:
    """Rules named by a comma-separated list of ids or families (None = all)."""
    return choose(all_rules(), ids)


def choose(rules: list[Rule], ids: str | None) -> list[Rule]:
    """The rules of a catalogue named by a comma-separated list of ids or families (None = all)."""
    if not ids:
        return rules
    wanted = {part.strip() for part in ids.split(",") if part.strip()}
    unknown = wanted - {r.id for r in rules} - {r.family for r in rules}
    if unknown:
        raise KeyError(", ".join(sorted(unknown)))
    return [r for r in rules if r.id in wanted or r.family in wanted]


def failure_rows(rows) -> pd.DataFrame:
    """A failure frame from (resource, row, field, value, message) tuples."""
    return pd.DataFrame(rows, columns=FAILURE_COLUMNS)


def combined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The failure frames of one rule as one frame (empty, with the failure columns, when there are none)."""
    return pd.concat(parts) if parts else pd.DataFrame(columns=FAILURE_COLUMNS)
