"""The JSON Schemas of a format's block and of the vocabulary, checked before anything else is read.

A parameter of the wrong type or range (a NaN or negative window, a digit run
given as text) would not fail a rule: it would quietly turn one off. So the
block is typed by its format's `descriptor.schema.json`, which ships with the
package (a release cannot loosen it), and a release whose block breaks it is
unreadable; the definitions every format shares are this folder's.
"""
from __future__ import annotations

import json
import re
from datetime import date
from functools import cache
from pathlib import Path

from .errors import ReadError
from .formats import DEFAULT, part

SCHEMA_FILE = Path(__file__).with_name("descriptor.schema.json")


@cache
def loaded(schema_file: Path) -> dict:
    """A JSON Schema shipped with the package, read once a process (each judge of each part of it reads it)."""
    return json.loads(schema_file.read_text(encoding="utf-8"))


def _schema(ref: str, schema_file: Path) -> dict:
    schema = loaded(schema_file)
    return {**schema, "$ref": ref, "properties": {}, "required": [], "type": "object"} if ref else schema


def _is_regex(value) -> bool:
    try:  # a repetition past 2^32 overflows, parentheses nested a thousand deep recurse past Python's limit
        return not isinstance(value, str) or bool(re.compile(value))
    except (re.error, OverflowError, RecursionError):
        return False


def _is_date(value) -> bool:
    try:
        return not isinstance(value, str) or bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value, re.ASCII)
                                                  and date.fromisoformat(value))
    except ValueError:
        return False


# The formats the schemas name, judged alike by both validators: a pattern as Python's `re` compiles it (the rules
# compile it so), a date as ISO digits; a value of another type is the type keyword's to refuse
FORMATS = {"regex": _is_regex, "date": _is_date}


def judged(screen, instance, worded) -> tuple[str, list] | None:
    """(message, path) of the error of `instance` against a schema, or None when it has none. jsonschema-rs's
    validator of the schema (`screen`) judges: it passes a document in microseconds, where importing jsonschema
    alone took 0.06-0.12 s at the start of each run, before any table was read; and a pattern's `$` is the end
    of the text there, where Python's also matches before a final newline. jsonschema words the error (`worded`:
    its best match, or None), which reads more plainly; where it finds none, the screen's own words are given: of
    the pattern the two disagree on (`_disputed`), else of its first error."""
    try:
        if screen.is_valid(instance):
            return None
        errors = list(screen.iter_errors(instance))
        first = next(iter(_disputed(errors)), errors[0])
        own = first.message, list(first.instance_path)
    except ValueError:  # a value jsonschema-rs cannot take (a lone surrogate, nesting past its limit)
        own = None
    error = worded()
    return (error.message, list(error.absolute_path)) if error is not None else own


def _disputed(errors: list) -> list:
    """The screen's pattern errors, at any depth of a oneOf's or anyOf's branches, whose value Python's `re` finds
    the pattern in (a final newline before `$`, a digit other than 0-9 for `\\d`): the error jsonschema does not see.
    A branch's error alone names the field; the oneOf's own words are the whole object, on one line."""
    from jsonschema_rs import ValidationErrorKind

    found = []
    for error in errors:
        if isinstance(error.kind, ValidationErrorKind.Pattern):
            found += [error] if re.search(error.kind.pattern, error.instance) else []
        else:
            found += _disputed([e for branch in getattr(error.kind, "context", None) or [] for e in branch])
    return found


@cache
def _screen(ref: str, schema_file: Path):
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(_schema(ref, schema_file), validate_formats=True, formats=FORMATS)


@cache
def _validator(ref: str, schema_file: Path = SCHEMA_FILE):
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(())
    for name, check in FORMATS.items():
        checker.checks(name)(check)
    return Draft202012Validator(_schema(ref, schema_file), format_checker=checker)


def _check(instance, path, where: str, ref: str = "", schema_file: Path = SCHEMA_FILE) -> None:
    def worded():
        from jsonschema.exceptions import best_match

        return best_match(_validator(ref, schema_file).iter_errors(instance))

    found = judged(_screen(ref, schema_file), instance, worded)
    if found is not None:
        message, at = found
        field = ".".join([where, *map(str, at)]) if where else ".".join(map(str, at))
        raise ReadError(path, message, field=field or None)


def check_block(block, path, name: str = DEFAULT, schema_file: Path | None = None) -> None:
    """The format block `name` of the descriptor at `path` meets its JSON Schema (`schema_file`; by default the
    format's `block_schema`, in its folder)."""
    _check(block, path, name, schema_file=schema_file or part(name, "block_schema"))


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
