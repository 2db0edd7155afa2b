"""What a release keeps of its format: the format's own declared rules, and the definitions of its core fields.

A release carries its Table Schemas, nested JSON Schemas, vocabulary and rules file as its own files, and every
rule reads them from there: a fork that loosened one (a `required` dropped, a maximum raised, a vocabulary value
added, a rule lowered to a warning) would be VALID by less than the format says. So each format declares its
rules (`format_rules.json`) and its core definitions (`format_schemas.json`) once, shipped with the package
rather than with a release, and the two rules here compare the release's copies with them.

A fork adds resources, fields, vocabularies and rules under new names; it may tighten a core field's constraint
(a larger minimum, a shorter maximum length, a constraint the format does not set), never loosen or drop one.
Prose (`description`, `title`, `example`) is the release's own and is not compared; a field is compared by the
`enum` / `pattern` it takes, whether `refresh` rendered them from a vocabulary or the schema's author wrote them.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pandas as pd

from realcompanion.formats import part
from realcompanion.schemas import names

from .catalogue import as_text, failure_rows
from .declared import read_declarations

PROSE = {"description", "title", "example", "examples", "$comment"}
LOWER_BOUNDS = {"minimum", "exclusiveMinimum", "minLength", "minItems"}  # a release may raise these
UPPER_BOUNDS = {"maximum", "exclusiveMaximum", "maxLength", "maxItems"}  # and lower these


@cache
def canonical(path: Path) -> dict:
    """A file a format ships with the package (its `format_rules` or `format_schemas`, formats.PARTS)."""
    return json.loads(path.read_text(encoding="utf-8"))


def shipped(path: Path) -> str:
    """Where a file the package ships lies, as a failure names it (realcompanion/validators/...)."""
    here = Path(__file__).parent
    return f"realcompanion/validators/{path.relative_to(here).as_posix()}" if path.is_relative_to(here) else str(path)


def definition(node):
    """A resolved schema node (`_resolved`) without its prose, and with the `enum` / `pattern` a field takes
    rather than the vocabulary or identifier that names it: what a core definition is compared by, so that a
    schema written by hand with the format's values compares equal to one `refresh` rendered."""
    if isinstance(node, list):
        return [definition(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: definition(v) for k, v in node.items() if k not in PROSE | {"vocabulary", "identifier"}}
    constraints = out.get("constraints", out)
    if constraints.get("required") is False:  # the default, written out
        constraints.pop("required")
    return out


def format_rules_kept(ctx) -> pd.DataFrame:
    """Each of the format's own declared rules that the release's rules file does not declare, or declares
    differently."""
    source = part(ctx.release.BLOCK, "format_rules")
    mine = {rule["id"]: rule for rule in read_declarations(ctx.release)}
    named = ctx.params.get("rules")
    where = (named, "rules") if isinstance(named, str) else ("(no rules file)", "")  # its list of rules, or none
    rows = [("", *where, rule["id"],
             f"the format's rule {rule['id']} is {'declared differently' if rule['id'] in mine else 'not declared'}: "
             f"a release declares it as the format does ({shipped(source)})")
            for rule in canonical(source)["rules"] if mine.get(rule["id"]) != rule]
    return failure_rows(rows)


def definitions_kept(ctx) -> pd.DataFrame:
    """Each place where the release's schemas define a core field, key, missing value, nested schema, vocabulary
    or identifier otherwise than its format: one row per difference, at the file and the path in it."""
    source = part(ctx.release.BLOCK, "format_schemas")
    format_ = canonical(source)
    release, rows = ctx.release, []

    def differs(path: str, field: str, value, why: str) -> None:
        rows.append(("", path, field, as_text(value), f"{why} (the format's definition: {shipped(source)})"))

    for name, want in format_["resources"].items():
        if name in release.absent:
            continue
        path = release.resource(name)["schema"]
        have, want = (_keyed_alike(definition(_resolved(release, release.table_schema(name))), name),
                      _keyed_alike(want, name))
        fields = {f.get("name"): f for f in have.get("fields", [])}
        for field in map(release.format_field, want["fields"]):
            if field["name"] not in fields:
                differs(path, f"fields.{field['name']}", None, "a field of the format is not declared")
                continue
            for where, value, why in _loosened(field, fields[field["name"]]):
                differs(path, f"fields.{field['name']}.{where}", value, why)
        for key in ("primaryKey", "missingValues"):
            if have.get(key) != want.get(key):
                differs(path, key, have.get(key), f"the format's {key} is {as_text(want.get(key))}")
        for key in want.get("foreignKeys", []):
            if key not in have.get("foreignKeys", []):
                differs(path, "foreignKeys", key, "a foreign key of the format is not declared")
    for relpath, want in format_.get("nested", {}).items():
        have, want = _unordered(definition(_resolved(release, release.schemas.nested_schemas.get(relpath)))), \
            _unordered(want)
        if have != want:
            where, value = first_difference(want, have)
            differs(f"schemas/{relpath}", where, value, "differs from the format's nested schema")  # "": the file as a whole
    vocabulary, named = release.schemas.vocabulary, release.params.get("vocabulary")
    for key, want in format_["vocabulary"].items():
        if vocabulary.get(key) != want:
            where, value = first_difference(want, vocabulary.get(key), key)
            differs(named, where, value, "a vocabulary of the format differs from the format's: a fork "
                    "names a new vocabulary for its own fields")
    return failure_rows(rows)


def _keyed_alike(table_schema: dict, name: str) -> dict:
    """A Table Schema with its keys in one spelling, as Frictionless and the reader take them alike: a key's fields
    given as one name or as a list, and a self-reference whose `resource` is omitted (Data Package v2), empty (v1)
    or the resource's own name."""
    out = dict(table_schema)
    if isinstance(out.get("primaryKey"), str):
        out["primaryKey"] = names(out["primaryKey"])
    if isinstance(out.get("foreignKeys"), list):
        out["foreignKeys"] = [_foreign_key(key, name) for key in out["foreignKeys"]]
    return out


def _foreign_key(key, name: str):
    """One foreign key of resource `name` in that spelling (a malformed one as it is: Frictionless names it)."""
    reference = key.get("reference") if isinstance(key, dict) else None
    if not isinstance(reference, dict) or not all(isinstance(f, (str, list)) for f in (key.get("fields"),
                                                                                         reference.get("fields"))):
        return key
    own = reference.get("resource") in (None, "", name)
    return {**key, "fields": names(key["fields"]), "reference": {
        **reference, "resource": "" if own else reference["resource"], "fields": names(reference["fields"])}}


def _unordered(node):
    """A JSON Schema with the lists that are sets in it (`enum`, `required`) in one order: a nested schema that
    lists the format's values in another order defines the same field."""
    if isinstance(node, list):
        return [_unordered(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: sorted(v, key=json.dumps) if k in ("enum", "required") and isinstance(v, list) else _unordered(v)
            for k, v in node.items()}


def _resolved(release, node):
    """`node` with the enum / pattern its vocabulary and identifier names give (a stale copy is INT5's), or as it
    is when it names one the vocabulary lacks (INT5 names that too)."""
    try:
        return release.schemas.resolved(node)
    except KeyError:
        return node


def _loosened(want: dict, have: dict):
    """(path in the field, the release's value, why) for each part of the format's field definition `want`
    that the release's `have` changes or loosens."""
    for key, value in want.items():
        if key != "constraints" and have.get(key) != value:
            yield key, have.get(key), f"the format's {key} is {as_text(value)}"
    mine = have.get("constraints") or {}
    for key, value in want.get("constraints", {}).items():
        got = mine.get(key)
        number = isinstance(got, (int, float)) and not isinstance(got, bool)
        if key in LOWER_BOUNDS and number and got >= value or key in UPPER_BOUNDS and number and got <= value:
            continue
        if key == "enum" and isinstance(got, list):
            extra = [v for v in got if v not in value]  # fewer values tighten
            if extra:
                yield "constraints.enum", extra, "admits values the format's enum does not"
        elif got != value:
            yield f"constraints.{key}", got, f"loosens the format's constraint {key}: {as_text(value)}"


def first_difference(want, have, path: str = "") -> tuple[str, object]:
    """The dotted path of the first place where `have` differs from `want` (`tier[4]`, `properties.A.required`),
    and `have`'s value there (None where it has none)."""
    if isinstance(want, dict) and isinstance(have, dict):
        for key in list(want) + [k for k in have if k not in want]:
            if want.get(key) != have.get(key):
                return first_difference(want.get(key), have.get(key), f"{path}.{key}" if path else key)
    if isinstance(want, list) and isinstance(have, list):
        for i, (a, b) in enumerate(zip(want, have)):
            if a != b:
                return first_difference(a, b, f"{path}[{i}]")
        shorter = min(len(want), len(have))
        return f"{path}[{shorter}]", have[shorter] if shorter < len(have) else None
    return path, have
