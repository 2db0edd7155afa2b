"""Values that break their own field's constraints, read as null by every other rule.

A record that does not fit its types is set aside on reading: each field that does not fit
reads null, so no rule that joins on it blames another row for it (`Context.table`). A value
that fits its type but breaks its field's constraints (an enum, a pattern, a range, a length:
`cutoff_turn: -1`, `level: "L3"`) is the constraint rule's finding (SCH2, GS2), and it is set
aside the same way: the rules judge the release again with every such value null, so the one
root cause is one line, and every other row, and every other field of its own record, is still
judged. A value that breaks a constraint breaks it wherever it stands, so what is read as null
is named by field and value. A key field keeps its value (it is the record's name in every
line), and so does a value the constraint rule finds repeated (`unique`, a primary key): the
repetition is between rows, not in the value.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .catalogue import as_text

# the constraint rule's lines that are about rows together, not about the value: each keeps its value
REPEATED = ("value not unique", "primary key (")


def failing_values(found: pd.DataFrame, release) -> dict[str, dict[str, set[str]]]:
    """Per resource and field, the values (as the report writes them) the constraint rule names as breaking their
    field's constraints: top-level, non-key fields of the resource's schema."""
    out: dict[str, dict[str, set[str]]] = {}
    if found.empty:
        return out
    # a null (a required field's failure) reads null already: "null" is left out, lest a text "null" be nulled
    own = found[~found["message"].astype(str).str.startswith(REPEATED) & found["field"].astype(str).ne("")
                & found["value"].astype(str).ne("null")]
    for (resource, field), values in own.groupby(["resource", "field"], sort=False)["value"]:
        if resource not in release.resources or field in (release.primary_key(resource) or []):
            continue
        if field not in {f["name"] for f in release.table_schema(resource)["fields"]}:
            continue  # a nested member or a file-level place: no cell of the table holds it alone
        out.setdefault(resource, {})[field] = set(values.astype(str))
    return out


def nulled(table: pa.Table, fields: dict[str, set[str]]) -> pa.Table:
    """`table` with every cell of `fields` whose value, as the report writes it, is one of that field's set null."""
    for field, values in fields.items():
        if field not in table.column_names:
            continue
        at = table.column_names.index(field)
        column = table.column(at)
        hit = np.fromiter((as_text(v) in values for v in column.to_pylist()), bool, len(column))
        if hit.any():
            table = table.set_column(at, field, pc.if_else(pa.array(hit), pa.nulls(len(column), column.type), column))
    return table
