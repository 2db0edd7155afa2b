"""What the Table Schemas of every resource declare beyond fields and types: foreign keys, and the header.

These hold for every resource datapackage.json lists, the core five and any a
fork adds, so that `frictionless validate datapackage.json` passes wherever
`realcompanion validate` does. Foreign keys are the standard single-valued ones
(`foreignKeys`; an empty `reference.resource` is the resource itself); a list of
cited ids is a declared `relationships` rule (declared.py), which Frictionless
cannot express.
"""
from __future__ import annotations

import json

import pandas as pd

from realcompanion.schemas import RESOURCES

from . import structure  # noqa: F401 - registered first, its rules open the structure family
from .catalogue import combined, failure_rows, failures, release_rule


def _names(fields) -> list[str]:
    return [fields] if isinstance(fields, str) else list(fields)


def _tuples(ctx, resource: str, fields: list[str]) -> pd.DataFrame:
    return pd.DataFrame({f: pd.Series(ctx.column(resource, f).to_pylist(), dtype=object) for f in fields})


@release_rule("KEY1", "error", "structure", RESOURCES,
              "every foreign key a Table Schema declares (foreignKeys) resolves to a row of the resource it names",
              "SPEC §2 (identifiers: every reference resolves); SPEC §6 (a fork's resources are validated)")
def foreign_keys(ctx) -> pd.DataFrame:
    parts = []
    for name in ctx.release.resources:
        for key in ctx.release.table_schema(name).get("foreignKeys", []):
            fields, reference = _names(key["fields"]), key["reference"]
            target, targets = reference.get("resource") or name, _names(reference["fields"])
            mine = _tuples(ctx, name, fields)
            known = pd.MultiIndex.from_frame(_tuples(ctx, target, targets).set_axis(fields, axis=1))
            bad = mine.notna().all(axis=1) & ~pd.MultiIndex.from_frame(mine).isin(known)
            if not bad.any():
                continue
            parts.append(failures(name, ctx.row_ids(name)[bad], ",".join(fields),
                                  mine[bad].astype(str).agg(", ".join, axis=1),
                                  f"does not resolve to {target}.{','.join(targets)}"))
    return combined(parts)


@release_rule("HDR1", "error", "structure", RESOURCES,
              "every file has a first record, and it names each declared field once, in schema order (Frictionless "
              "reads it as the header; null where there is no value)",
              "SPEC §1 (one JSON record per line; Frictionless validates the same files)")
def header(ctx) -> pd.DataFrame:
    rows = []
    for name in ctx.release.resources:
        with open(ctx.release.path(name), encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
        if not first.strip():
            rows.append((name, "line 1", "(file)", "", "no record: Frictionless has no header to read"))
            continue
        try:
            keys = list(json.loads(first))
        except (ValueError, TypeError):
            continue  # an unreadable line is the reader's to report
        want = [f["name"] for f in ctx.release.table_schema(name)["fields"]]
        if keys != want:
            missing = [f for f in want if f not in keys]
            why = f"line 1 lacks {', '.join(missing)}" if missing else "line 1 names the fields in another order"
            rows.append((name, "line 1", ",".join(missing) or "(order)", ",".join(keys)[:80], why))
    return failure_rows(rows)
