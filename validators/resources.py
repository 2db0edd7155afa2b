"""What the Table Schemas of every resource declare beyond fields and types: foreign keys, and the header.

These hold for every resource datapackage.json lists, the core five and any a
fork adds, so that `frictionless validate datapackage.json` passes wherever
`realcompanion validate` does. Foreign keys are the standard single-valued ones
(`foreignKeys`; an empty `reference.resource` is the resource itself); a list of
cited ids is a declared `relationships` rule (declared.py), which Frictionless
cannot express.
"""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.nested import arrays
from realcompanion.schemas import missing_values, names

from . import structure  # registered first: its rules open the structure family
from .catalogue import combined, failure_rows, failures


def _as_read(ctx, name: str, field: str, numbers: bool = False) -> pa.ChunkedArray | pa.Array:
    """A key column as Frictionless reads it: a text cell that is one of its field's missing values (Table Schema's
    default: `""`) is null, and a null key is not looked up. The format's own resources declare none. With
    `numbers` (a key with a number field on either side), a number or integer is the text of the value
    Frictionless compares (`_exact`): 64-bit floats do not compare with integers as it does."""
    column = ctx.column(name, field)
    if numbers and _field(ctx, name, field).get("type") in ("number", "integer"):
        return pa.array(map(_exact, column.to_pylist()), pa.string())
    missing = missing_values(ctx.release.table_schema(name), _field(ctx, name, field))
    if missing and pa.types.is_string(column.type):
        return pc.if_else(pc.is_in(column, value_set=pa.array(missing, pa.string())), None, column)
    return column


def _exact(value) -> str | None:
    """A number as the text of the value Frictionless reads (an integer as written, a float as the decimal it prints
    as, `structure.frictionless_number`), one text for each value: 1 and 1.0 are `1`, -0.0 is `0`."""
    if value is None:
        return None
    value = structure.frictionless_number(value)
    return str(int(value)) if value == int(value) else str(value.normalize())


def _field(ctx, name: str, field: str) -> dict:
    """A field's definition in its resource's Table Schema ({} where it has none)."""
    return next((f for f in ctx.release.table_schema(name)["fields"] if f["name"] == field), {})


def _unlike(ctx, name: str, fields: list[str], target: str, targets: list[str]) -> str:
    """Why no value of a key can resolve, or "": a target field its resource lacks, or one of another type
    (Frictionless compares typed values: a text never equals a number or a date; an integer equals a number of the
    same value)."""
    for field, other in zip(fields, targets):
        kinds = (_field(ctx, name, field).get("type", ""), _field(ctx, target, other).get("type", ""))
        if not kinds[1]:
            return f": {target} has no field {other}"
        if kinds[0] != kinds[1] and not set(kinds) <= {"integer", "number"}:
            return f": {name}.{field} is {kinds[0]}, {target}.{other} {kinds[1]}, and Frictionless finds no value of " \
                   "one type among values of another"
    return ""


def _one_key(known: list, mine: list) -> tuple:
    """A composite key's columns as one integer column on each side, equal exactly where every part is (a null part
    equal to a null: Frictionless looks up a key with a null part whole, only an all-null key is not looked up):
    each part numbered among the values both sides hold, the numbers combined part by part and numbered again, so
    they stay below the rows' count whatever the parts."""
    code_known, code_mine = None, None
    for k, m in zip(known, mine):
        values = pc.unique(pa.chunked_array([*arrays(k), *arrays(m)], m.type))
        part_known, part_mine = pc.index_in(k, value_set=values), pc.index_in(m, value_set=values)
        if code_known is None:
            code_known, code_mine = part_known, part_mine
            continue
        code_known, code_mine = (pc.add(pc.multiply(pc.cast(code, pa.int64()), len(values)), part)
                                 for code, part in ((code_known, part_known), (code_mine, part_mine)))
        values = pc.unique(pa.chunked_array([*arrays(code_known), *arrays(code_mine)], pa.int64()))
        code_known, code_mine = pc.index_in(code_known, value_set=values), pc.index_in(code_mine, value_set=values)
    return code_known, code_mine


def _found(mine: pa.ChunkedArray, known: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Whether each value of `mine` is one of `known` (a null is not), hashing the smaller side: Arrow's lookup
    hashes its value set, and a release cites far fewer dayids than it holds."""
    if len(mine) >= len(known):
        return pc.fill_null(pc.is_in(mine, value_set=known), False).to_numpy(zero_copy_only=False)
    encoded = pc.dictionary_encode(mine.combine_chunks())
    found = np.zeros(len(encoded.dictionary) + 1, dtype=bool)  # the last: a null of `mine`
    found[pc.index_in(known, value_set=encoded.dictionary).drop_null().to_numpy()] = True
    return found[pc.fill_null(encoded.indices, len(encoded.dictionary)).to_numpy()]


def _unresolved(ctx, keys: list[tuple[str, list[str]]], target: str, targets: list[str],
                numbers: bool) -> list[np.ndarray]:
    """Per key (resource, fields) citing the same target fields: per row, whether a field is set and the key matches
    no row of `target` as Frictionless reads both (missing values null). One Arrow hash lookup for them all: no join
    (Acero's import alone, which loads Arrow's datasets and filesystems, cost a worker more than the lookup)."""
    mine = [pa.chunked_array([c for column in parts for c in arrays(column)], parts[0].type)  # part by part
            for parts in zip(*[[_as_read(ctx, name, f, numbers) for f in fields] for name, fields in keys])]
    known = [pc.cast(_as_read(ctx, target, t, numbers), m.type) for t, m in zip(targets, mine)]
    some = np.logical_or.reduce([k.is_valid().to_numpy(zero_copy_only=False) for k in known])
    known = [k.filter(some) for k in known]  # an all-null row of the target is no value to find
    looked_up = np.logical_or.reduce([m.is_valid().to_numpy(zero_copy_only=False) for m in mine])
    known, mine = _one_key(known, mine) if len(mine) > 1 else (known[0], mine[0])
    resolved = _found(mine, known)
    bad = looked_up & ~resolved
    return np.split(bad, np.cumsum([len(ctx.table(name)) for name, _ in keys])[:-1])


def foreign_keys(ctx) -> pd.DataFrame:
    by_target: dict[tuple, list[tuple[str, list[str]]]] = {}  # keys citing the same fields, with the same types
    for name in ctx.release.resources:
        for key in ctx.release.table_schema(name).get("foreignKeys", []):
            fields, reference = names(key["fields"]), key["reference"]
            target, targets = reference.get("resource") or name, names(reference["fields"])
            types = tuple(str(ctx.column(name, f).type) for f in fields)
            numbers = "number" in {_field(ctx, *side).get("type") for side in
                                   [*((name, f) for f in fields), *((target, t) for t in targets)]}
            by_target.setdefault((target, tuple(targets), types, numbers,
                                  _unlike(ctx, name, fields, target, targets)), []).append((name, fields))
    parts = []
    for (target, targets, _, numbers, unlike), keys in by_target.items():
        if unlike:  # every key with a value fails
            results = [np.logical_or.reduce([ctx.column(name, f).is_valid().to_numpy(zero_copy_only=False)
                                             for f in fields]) for name, fields in keys]
        else:
            results = _unresolved(ctx, keys, target, list(targets), numbers)
        for (name, fields), bad in zip(keys, results):
            if not bad.any():
                continue
            values = [", ".join(map(str, row.values())) for row in
                      pa.table([ctx.column(name, f) for f in fields], names=fields).filter(bad).to_pylist()]
            parts.append(failures(name, ctx.row_ids(name)[bad], ",".join(fields), values,
                                  f"does not resolve to {target}.{','.join(targets)}{unlike}"))
    return combined(parts)


def header(ctx) -> pd.DataFrame:
    rows = []
    for name in ctx.release.resources:
        first = io.StringIO(ctx.release.heads[name].decode("utf-8", errors="replace"), newline=None).readline()
        if not first.strip():
            rows.append((name, "line 1", "", "", "no record: Frictionless has no header to read"))
            continue
        try:
            keys = list(json.loads(first))
        except (ValueError, TypeError):
            continue  # an unreadable line is the reader's to report
        want = [f["name"] for f in ctx.release.table_schema(name)["fields"]]
        if keys != want:
            missing, extra = [f for f in want if f not in keys], [k for k in keys if k not in want]
            why = (f"line 1 lacks {', '.join(missing)}" if missing else
                   f"line 1 names fields the schema does not declare: {', '.join(extra)}" if extra else
                   f"line 1 names the fields in another order; the schema's is {', '.join(want)}")
            rows.append((name, "line 1", ",".join(missing or extra), ",".join(keys)[:80], why))
    return failure_rows(rows)
