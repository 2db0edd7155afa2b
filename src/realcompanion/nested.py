"""JSON Schema validators for whole rows and for nested fields.

The row schema is derived from the Table Schema (types, required, no unknown
fields) with nested fields pointing at their files in `schemas/nested/`, so the
slow read path and the nested-field rule use the same definitions as
Frictionless and the Hugging Face features.
"""
from __future__ import annotations

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

_JSON_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean",
               "datetime": "string", "date": "string", "array": "array", "object": "object"}


def registry(schemas) -> Registry:
    resources = [(s["$id"], Resource.from_contents(s)) for s in map(_read, schemas.nested_paths())]
    return Registry().with_resources(resources)


def _read(path):
    from .schemas import read_json

    return read_json(path)


def field_schema(field: dict, schemas) -> dict:
    """JSON Schema of one Table Schema field's cell, nullable unless required."""
    if "nestedSchema" in field:
        inner = {"$ref": schemas.nested(field["nestedSchema"])["$id"]}
    else:
        inner = {"type": _JSON_TYPES[field["type"]]}
    if field.get("constraints", {}).get("required"):
        return inner
    return {"anyOf": [{"type": "null"}, inner]}


def row_validator(release, resource: str) -> Draft202012Validator:
    fields = release.table_schema(resource)["fields"]
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {f["name"]: field_schema(f, release.schemas) for f in fields},
        "required": [f["name"] for f in fields if f.get("constraints", {}).get("required")],
    }
    return Draft202012Validator(schema, registry=registry(release.schemas))


def nested_validators(release, resource: str) -> dict[str, Draft202012Validator]:
    """One validator per nested (array/object) field of a resource."""
    reg = registry(release.schemas)
    return {
        f["name"]: Draft202012Validator(field_schema(f, release.schemas), registry=reg)
        for f in release.table_schema(resource)["fields"]
        if "nestedSchema" in f
    }
