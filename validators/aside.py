"""Values that break their own field's constraints, read otherwise by every other rule.

A record that does not fit its types is set aside on reading: each field that does not fit
reads null, so no rule that joins on it blames another row for it (`Context.table`). A value
that fits its type but breaks its field's constraints (an enum, a pattern, a range, a length:
`cutoff_turn: -1`, `level: "L3"`, `instance_id: "G01:I000"`) is the constraint rule's finding
(SCH2, GS2), and it is set aside the same way: the rules that found failures judge the release
again with every such value read otherwise, and a failure they do not find again read the value,
so it is not the row's own. A judgment that reads a set-aside value is unknown, not failed: one
typo is one line, and a genuine defect of any other record is still reported in the same pass.

What a value reads as (`read_as`): the one value its field may hold that it most nearly spells,
where one is nearest alone, else null. A field may hold a member of its enum (`supersededx`
reads `superseded`), or a value the release names there that no record holds: a key typed wrong
(`G01:I000`) reads the id the foreign keys, or the citations its context lists, name
and find nowhere (`G01:I0001`), so the rows naming it resolve. A value no single choice is
nearest reads null, and the rules read a null as unknown: a count short by no more than the rows
that may be its own is not judged (a persona row whose participant is set aside may be any
participant's that lacks its slot), nor is a speaker a roster record with a set-aside group or
name may list, nor an instance on an anchor whose message is set aside.

A key field is read otherwise too, but still names its row in every line (`Context.row_ids`),
as the constraint rule's line names it; a value the constraint rule finds repeated (`unique`, a
primary key) keeps its value: the repetition is between rows, not in the value. A value that
breaks a constraint breaks it wherever it stands, so what is read otherwise is named by field
and value.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.schemas import names

from .catalogue import as_text

MAX_COMPARED = 1_000_000  # values set aside in one field times the values each may stand for (`read_as`)
# the constraint rule's lines that are about rows together, not about the value: each keeps its value
REPEATED = ("value not unique", "primary key (")


def failing_values(found: pd.DataFrame, release) -> dict[str, dict[str, set[str]]]:
    """Per resource and field, the values (as the report writes them) the constraint rule names as breaking their
    field's constraints: top-level fields of the resource's schema, its key's among them."""
    out: dict[str, dict[str, set[str]]] = {}
    if found.empty:
        return out
    # a null (a required field's failure) reads null already: "null" is left out, lest a text "null" be nulled
    own = found[~found["message"].astype(str).str.startswith(REPEATED) & found["field"].astype(str).ne("")
                & found["value"].astype(str).ne("null")]
    for (resource, field), values in own.groupby(["resource", "field"], sort=False)["value"]:
        if resource not in release.resources:
            continue
        if field not in {f["name"] for f in release.table_schema(resource)["fields"]}:
            continue  # a nested member or a file-level place: no cell of the table holds it alone
        out.setdefault(resource, {})[field] = set(values.astype(str))
    return out


def read_as(values: dict[str, dict[str, set[str]]], release, table, cited) -> dict[str, dict[str, dict[str, object]]]:
    """Per resource and field, what each of `values` reads as: the one value its field may hold that it most nearly
    spells (case aside), or null where none is nearest alone. Such a value is a member of the field's enum, or one
    the release names in the field and no record holds there, that meets the field's pattern: named by a foreign
    key, or, in a primary key, by a record's citations (`cited()`, those naming no message). `table(name)` is the
    resource as read."""
    out: dict[str, dict[str, dict[str, object]]] = {}
    named = _named_and_missing(values, release, table, cited)
    for resource, fields in values.items():
        declared = {f["name"]: f.get("constraints") or {} for f in release.table_schema(resource)["fields"]}
        for field, held in fields.items():
            pattern = declared[field].get("pattern")
            choices = declared[field].get("enum") or [v for v in named.get((resource, field), ())
                                                      if pattern is None or re.fullmatch(pattern, v)]
            if len(held) * len(choices) > MAX_COMPARED or not _text(table(resource).column(field)):
                choices = []  # more than a typo's worth, or no text: each reads null
            readings = {value: _nearest(value, choices) for value in held}
            taken = [v for v in readings.values() if v is not None]
            out.setdefault(resource, {})[field] = {value: None if taken.count(v) > 1 else v
                                                   for value, v in readings.items()}  # two records, one name: neither
    return out


def _named_and_missing(values: dict[str, dict[str, set[str]]], release, table, cited) -> dict[tuple[str, str], list]:
    """Per (resource, field) holding `values`, the values the release names there (`read_as`) that no row holds."""
    out: dict[tuple[str, str], set[str]] = {}
    for name in release.resources:
        for key in release.table_schema(name).get("foreignKeys", []):
            fields, reference = names(key["fields"]), key["reference"]
            target, targets = reference.get("resource") or name, names(reference["fields"])
            if len(fields) == 1 and targets[0] in values.get(target, {}) and fields[0] in table(name).column_names:
                out.setdefault((target, targets[0]), set()).update(_distinct(table(name).column(fields[0])))
    keys = [(resource, field) for resource, fields in values.items() for field in fields
            if field in release.primary_key(resource)]
    ids = cited() if keys else set()
    for place in keys:
        out.setdefault(place, set()).update(ids)
    return {(resource, field): sorted(named - _distinct(table(resource).column(field)))
            for (resource, field), named in out.items()}


def _text(column: pa.ChunkedArray) -> bool:
    return pa.types.is_string(column.type) or pa.types.is_large_string(column.type)


def _distinct(column: pa.ChunkedArray) -> set[str]:
    """The column's distinct values, if text (a key of another type is read null: `read_as`)."""
    return set(pc.unique(column).drop_null().to_pylist()) if _text(column) else set()


def _nearest(value: str, choices) -> object:
    """The one choice `value` most nearly spells, case aside (difflib's ratio), or None where none is nearest alone."""
    ratios = {c: SequenceMatcher(None, value.casefold(), str(c).casefold()).ratio() for c in choices}
    top = max(ratios.values(), default=None)
    best = [c for c, r in ratios.items() if r == top]
    return best[0] if len(best) == 1 else None


def read_aside(table: pa.Table, fields: dict[str, dict[str, object]]) -> pa.Table:
    """`table` with every cell of `fields` whose value, as the report writes it, is one of that field's set aside
    read as `read_as` reads it."""
    for field, readings in fields.items():
        if field not in table.column_names:
            continue
        at = table.column_names.index(field)
        column = table.column(at)
        texts = [as_text(v) for v in column.to_pylist()]
        hit = np.fromiter((t in readings for t in texts), bool, len(texts))
        if hit.any():
            read = pa.array([readings[t] if h else None for t, h in zip(texts, hit)], column.type)
            table = table.set_column(at, field, pc.if_else(pa.array(hit), read, column))
    return table
