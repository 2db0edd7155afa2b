"""JSON Schema validators for whole rows and for nested fields.

The row schema is derived from the Table Schema (types, required, no unknown
fields) with nested fields pointing at their files in `schemas/nested/`, so the
slow read path and the nested-field rule use the same definitions as
Frictionless and the Hugging Face features. The engine is jsonschema-rs: one
call validates a whole column (an array of cells), measured at 10 ms for 6,102
traces where the pure-Python validator took 5.2 s.
"""
from __future__ import annotations

from collections.abc import Iterator

import jsonschema_rs
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .collector import paused

_JSON_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
               "datetime": "string", "date": "string", "array": "array", "object": "object"}


def field_schema(field: dict, schemas) -> dict:
    """JSON Schema of one Table Schema field's cell, nullable unless required."""
    if "nestedSchema" in field:
        inner = {"$ref": schemas.nested_uri(field["nestedSchema"])}
    else:
        inner = {"type": _JSON_TYPES[field["type"]]}
    if field.get("constraints", {}).get("required"):
        return inner
    return {"anyOf": [{"type": "null"}, inner]}


def row_validator(release, resource: str):
    fields = release.table_schema(resource)["fields"]
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {f["name"]: field_schema(f, release.schemas) for f in fields},
        "required": [f["name"] for f in fields if f.get("constraints", {}).get("required")],
    }
    return jsonschema_rs.Draft202012Validator(schema, registry=release.schemas.registry)


def column_validators(release, resource: str, types: pa.Schema) -> dict[str, tuple]:
    """Per nested (array/object) field: a validator taking the whole column as an array of cells, and the Arrow
    type to cast the column to before converting it (`checked_part`: what can fail, nothing more)."""
    reg = release.schemas.registry
    out = {}
    for f in release.table_schema(resource)["fields"]:
        if "nestedSchema" not in f:
            continue
        kind = types.field(f["name"]).type
        part, kind = checked_part(release.schemas.nested(f["nestedSchema"]), kind)
        cell = field_schema(f, release.schemas) if kind == types.field(f["name"]).type else \
            part if f.get("constraints", {}).get("required") else {"anyOf": [{"type": "null"}, part]}
        out[f["name"]] = (jsonschema_rs.Draft202012Validator({"type": "array", "items": cell}, registry=reg), kind)
    return out


# JSON Schema types every non-null value of an Arrow type has, as `to_pylist` gives it
_ALWAYS = {pa.string(): "string", pa.large_string(): "string", pa.bool_(): "boolean"}
# object keywords whose verdict a value's other properties cannot change once a property is left out of both
_PROJECTABLE = {"$schema", "$id", "title", "description", "$comment", "type", "required", "properties",
                "additionalProperties"}


def checked_part(node: dict, kind: pa.DataType) -> tuple[dict, pa.DataType]:
    """The part of an object schema that values of Arrow struct type `kind` can fail, and its Arrow type.

    A property whose schema is only a nullable `type` that Arrow's type already is (`{"type":
    ["string", "null"]}` read as string) is met by every value the column can hold: `to_pylist`
    gives a str or None, and always gives the key, so `required` and `additionalProperties` hold
    too. Such properties (the traces' long texts) are left out of the schema and of the cast,
    so they are never turned into Python objects; every other keyword is checked as before.
    Descends into struct properties; anything else (a `$ref`, an array) is kept whole.
    """
    if not pa.types.is_struct(kind) or set(node) - _PROJECTABLE or not isinstance(node.get("properties"), dict) \
            or {f.name for f in kind} != set(node["properties"]):
        return node, kind
    kept, fields = {}, []
    for field in kind:
        sub = node["properties"][field.name]
        if _always_met(sub, field.type):
            continue
        kept[field.name], sub_kind = checked_part(sub, field.type)
        fields.append(pa.field(field.name, sub_kind, field.nullable))
    if len(kept) == len(node["properties"]) and all(a.type == b.type for a, b in zip(fields, kind)):
        return node, kind
    dropped = set(node["properties"]) - set(kept)
    part = {**node, "properties": kept}
    if "required" in node:
        part["required"] = [name for name in node["required"] if name not in dropped]
    return part, pa.struct(fields)


def _always_met(node: dict, kind: pa.DataType) -> bool:
    types = node.get("type")
    return isinstance(types, list) and "null" in types and _ALWAYS.get(kind) in types and \
        not set(node) - {"type", "title", "description", "$comment"}


def cells(column, size: int = 1 << 16) -> Iterator[tuple[int, list]]:
    """A column's cells as Python values, `size` rows at a time: (offset of the first row, cells).

    Converting Arrow lists and structs to Python allocates millions of containers that form no
    cycles, so the garbage collector, which would scan them again and again, is paused meanwhile
    (measured 4x faster on traces); slices bound the memory the Python copy takes.
    """
    for start in range(0, len(column), size):
        with paused():
            values = column.slice(start, size).to_pylist()
        yield start, values


def scalars(array: pa.Array | pa.ChunkedArray, path: list, rows: pa.Array | None = None, positions: bool = True):
    """(path, rows, values) of each scalar leaf of `array`: a struct's members by key, a list's items as 0, each
    value with the row it lies in (`rows`, the positions of `array`'s values; None: 0, 1, ...), or None without
    `positions`, which also takes a column as read, in chunks, without copying it into one array."""
    if positions and rows is None:
        rows = pa.array(np.arange(len(array), dtype=np.int64))
    if pa.types.is_struct(array.type):
        for member, values in zip(array.type, array.flatten()):  # flatten: a null struct's members are null
            yield from scalars(values, [*path, member.name], rows, positions)
    elif pa.types.is_list(array.type):
        parents = pc.take(rows, pc.list_parent_indices(array)) if positions else None
        yield from scalars(pc.list_flatten(array), [*path, 0], parents, positions)
    else:
        yield path, rows, array


def arrays(column: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    """A column's arrays as read (one per chunk), to walk or join columns without copying them into one."""
    return column.chunks if isinstance(column, pa.ChunkedArray) else [column]
