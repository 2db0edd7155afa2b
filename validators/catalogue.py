"""The rule catalogue: every rule's id, severity, family, statement and its one implementation.

A rule is declared once, with a decorator of its format's `Catalogue`, next to its code. Two kinds:

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

import json
from dataclasses import dataclass
from importlib import import_module
from typing import Callable

import numpy as np
import pandas as pd

FAILURE_COLUMNS = ["resource", "row", "field", "value", "message"]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    family: str
    statement: str
    reads: tuple[str, ...]
    check: Callable
    paper: str  # where the paper (or, where it is silent, SPEC.md) states the rule: table and row
    resource: str | None = None  # frame rules: the resource checked
    field: str | None = None  # frame rules: the field a failure names

    @property
    def kind(self) -> str:
        return "frame" if self.resource else "release"

    def as_dict(self) -> dict:
        """The rule as `realcompanion rules --json` and the JSON report state it."""
        return {"id": self.id, "severity": self.severity, "family": self.family, "statement": self.statement,
                "paper": self.paper}


class Catalogue:
    """One format's coded rules: declared by the decorators of its rule modules, listed family by family.

    `modules` names those modules; the first listing imports them, which registers their rules, so the catalogue
    imports none of the modules that import it. A family only a release declares lists after the format's."""

    def __init__(self, families: tuple[str, ...], modules: tuple[str, ...]):
        self.families, self.modules = families, modules
        self.rules: dict[str, Rule] = {}

    def register(self, rule: Rule) -> None:
        assert rule.id not in self.rules, f"rule {rule.id} declared twice"
        assert rule.severity in ("error", "warning") and rule.family in self.families, rule
        self.rules[rule.id] = rule

    def release_rule(self, id: str, severity: str, family: str, reads: tuple[str, ...], statement: str, paper: str):
        """Register a release rule: `fn(ctx)` returns its failing rows (resource, row, field, value, message)."""
        def decorate(fn):
            self.register(Rule(id, severity, family, statement, tuple(reads), fn, paper))
            return fn

        return decorate

    def frame_rule(self, id: str, severity: str, family: str, resource: str, field: str, statement: str, paper: str,
                   also_reads: tuple[str, ...] = ()):
        """Register a frame rule: `fn(frame)` returns a boolean Series over the rows of `resource` (True passes)."""
        def decorate(fn):
            self.register(Rule(id, severity, family, statement, (resource, *also_reads), fn, paper, resource, field))
            return fn

        return decorate

    def all_rules(self) -> list[Rule]:
        """Every rule, family by family."""
        for module in self.modules:
            import_module(module)
        return sorted(self.rules.values(), key=self.order)

    def order(self, rule: Rule) -> tuple[int, int]:
        """Family, then the rule's module as `modules` lists it (a module imported early by another, a shared
        module a second format's rules import, lists in its place all the same), then declaration order."""
        family = self.families.index(rule.family) if rule.family in self.families else len(self.families)
        module = getattr(rule.check, "__module__", None)
        return family, self.modules.index(module) if module in self.modules else len(self.modules)

    def select(self, ids: str | None, declared: list[Rule] = ()) -> list[Rule]:
        """Rules named by a comma-separated list of ids or families (None = all), among the catalogue and the
        rules a release declares."""
        return choose(sorted(self.all_rules() + list(declared), key=self.order), ids)


def as_text(value) -> str:
    """A value as the file writes it: `null`, `true`/`false`, lists and objects as JSON, numbers and strings as
    they are, a whole number whole: Arrow reads a column of JSON numbers as floats, and `weight=2.0` was not what the
    file wrote (JSON has one number type, so `2.0` in a file reads `2` too)."""
    if type(value) is str:  # most values: as they are, without the checks below (a quarter of a second a million)
        return value
    if isinstance(value, (list, tuple, dict, np.ndarray)):
        return json.dumps(_plain(value), ensure_ascii=False)
    if value is None or pd.isna(value):
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)) and value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    return str(value)


def _plain(value):
    """A cell read back into JSON's types (Arrow hands lists over as arrays, numbers as numpy scalars)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return value.item() if isinstance(value, np.generic) else value


def failures(resource: str, rows, field, values, message) -> pd.DataFrame:
    """A failure frame; `field`, `values` and `message` may be scalars or aligned sequences; values read as the
    file has them. Built in one constructor call: every rule makes one per run, most of them empty.

    A line names the resource whose row failed, the row's key, and the field that holds the wrong value (a nested
    member as a dotted path, `trace.C.rationale`; a key's fields joined by commas; a key the schema does not
    declare as the row writes it), or "" when the failure is the row's as a whole or its resource's (a count over
    an instance's criteria, a participant's rows, a data file's hash): never a name of the rule's own, which a
    reader would look for in the row in vain. A line about a file rather than a row (a schema, the rules file, a
    file no resource reads) has an empty resource, the file's path as its row, and the place in the file
    (`fields.level.constraints.enum[2]`) or "" as its field."""
    rows = list(rows)
    n = len(rows)
    many = not isinstance(values, str) and hasattr(values, "__len__")
    return pd.DataFrame({
        "resource": [resource] * n, "row": rows,
        "field": [field] * n if isinstance(field, str) else list(field),
        "value": [as_text(v) for v in values] if many else [as_text(values)] * n,
        "message": [message] * n if isinstance(message, str) else list(message),
    }, columns=FAILURE_COLUMNS)


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
