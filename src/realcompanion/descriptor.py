"""The JSON Schema of the `realcompanion` block and of the vocabulary, checked before anything else is read.

A parameter of the wrong type or range (a NaN or negative window, a digit run
given as text) would not fail a rule: it would quietly turn one off. So the
block is typed by `descriptor.schema.json`, which ships with the package (a
release cannot loosen it), and a release whose block breaks it is unreadable.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from .errors import ReadError

SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")


@cache
def _validator(ref: str, schema_file: Path = SCHEMA_FILE):
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    if ref:
        schema = {**schema, "$ref": ref, "properties": {}, "required": [], "type": "object"}
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _check(instance, path, where: str, ref: str = "", schema_file: Path = SCHEMA_FILE) -> None:
    from jsonschema.exceptions import best_match

    error = best_match(_validator(ref, schema_file).iter_errors(instance))
    if error is not None:
        field = ".".join([where, *map(str, error.absolute_path)]) if where else ".".join(map(str, error.absolute_path))
        raise ReadError(path, error.message, field=field or None)


def check_block(block, path, name: str = "realcompanion", schema_file: Path = SCHEMA_FILE) -> None:
    """The format block `name` of the descriptor at `path` meets its JSON Schema (descriptor.schema.json for the
    `realcompanion` block)."""
    _check(block, path, name, schema_file=schema_file)


def check_vocabulary(vocabulary, path) -> None:
    """The vocabulary file at `path` meets `$defs/vocabulary` of descriptor.schema.json."""
    _check(vocabulary, path, "", "#/$defs/vocabulary")


def check_acknowledged(listed, path) -> None:
    """The acknowledged personal-data findings at `path` meet `$defs/acknowledged` of descriptor.schema.json."""
    _check(listed, path, "", "#/$defs/acknowledged")


def check_citation(citation, path) -> None:
    """CITATION.cff's data, read from `path`, has the parts the citation renderers read (`$defs/citation`)."""
    _check(citation, path, "", "#/$defs/citation")


def check_table_schema(schema, path) -> None:
    """The Table Schema at `path` has the shape of `$defs/table_schema` of descriptor.schema.json."""
    _check(schema, path, "", "#/$defs/table_schema")
