"""Structure: declared fields and types, Table Schema constraints, relationships and timestamps."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.groupassist import RESOURCES

from ..catalogue import combined, failures
from ..resources import header
from ..structure import calendar, constraint_failures, declared_fields
from .catalogue import rule

STRUCTURE_RULES = ("GS1", "GS2")

rule("GS1", "error", "structure", RESOURCES,
     "every record has only declared fields, each of its declared type (a field a record after the first omits "
     "reads as null, as Frictionless and datasets read it)",
     "GROUPASSIST.md §1-§2 (resources and field types)")(declared_fields)


@rule("GS2", "error", "structure", RESOURCES,
      "every field meets its Table Schema constraints: required, enum, pattern, range, unique, primary key",
      "GROUPASSIST.md §2 (fields and their constraints)")
def table_constraints(ctx) -> pd.DataFrame:
    return constraint_failures(ctx, RESOURCES)


@rule("GS3", "error", "structure", RESOURCES,
      "every foreign key the Table Schemas declare resolves (instances, messages, members)",
      "GROUPASSIST.md §1 (resources and their keys)")
def relationships(ctx) -> pd.DataFrame:
    parts = []
    for name in RESOURCES:
        frame, ids = ctx.frame(name), ctx.row_ids(name)
        for key in ctx.release.table_schema(name).get("foreignKeys", []):
            target = key["reference"]["resource"] or name
            here, there = key["fields"], key["reference"]["fields"]
            mine = _keys(ctx.release.table(name), here)
            found = pc.is_in(mine, value_set=_keys(ctx.release.table(target), there))
            bad = pc.and_(pc.is_valid(mine), pc.invert(found)).to_numpy(zero_copy_only=False)
            values = [":".join(map(str, v)) for v in frame.loc[bad, here].itertuples(index=False)]
            parts.append(failures(name, ids[bad], ",".join(here), values,
                                  f"no {target} row with this {','.join(there)}"))
    return combined(parts)


def _keys(table: pa.Table, fields: list[str]) -> pa.ChunkedArray:
    """Each row's key as one string (fields joined; null when one of them is null), for Arrow's hash lookup."""
    columns = [pc.cast(table.column(f), pa.string()) for f in fields]
    return columns[0] if len(columns) == 1 else pc.binary_join_element_wise(*columns, "\x1f")


rule("GS4", "error", "structure", RESOURCES,
     "every date is a calendar day and every datetime RFC 3339 with an explicit UTC offset on a calendar day",
     "GROUPASSIST.md §2 (timestamp)")(calendar)


rule("GS5", "error", "structure", RESOURCES,
     "every file has a first record, and it names each declared field once, in schema order (Frictionless reads "
     "it as the header)", "GROUPASSIST.md §1 (one JSON record per line; Frictionless validates the same files)")(header)
