"""A release copied into SQLite for the explorer, with sqlite-utils.

One table per resource, with the Table Schema's primary key (a key that the rows repeat, in a release that fails
its key rule, is left off so that no row is lost) and its single-field foreign keys; lists and objects are kept as
JSON text. Each table also gets `_key`, the row as the validation report names it (its key fields joined by `:`,
or `line N`), and `_line`, its line in the data file. Every string field that holds free text (no identifier,
vocabulary, enum, pattern or date) is searchable: a trigram index, so a word of three or more characters is found
inside Chinese text as well as English.

Three tables of the explorer's own sit beside them: `_cites` (every message a record cites, found by walking the
Table Schemas and nested schemas for fields typed by the conversation's identifier, so a fork's new citing field is
found too), `_failures` (the report of `validate`, row by row) and `_meta` (the format's view and what the pages
need from the schemas, as JSON).
"""
from __future__ import annotations

import json
from pathlib import Path

FREE_TEXT_EXCLUDES = ("identifier", "vocabulary", "enum", "pattern")
_META_KEYS = ("view", "resources", "release", "rules")


def text_fields(table_schema: dict) -> list[str]:
    """The string fields that hold free text: not an identifier, a vocabulary value, an enumerated or patterned
    string, nor a date."""
    out = []
    for f in table_schema.get("fields", []):
        constraints = f.get("constraints") or {}
        if f.get("type") != "string" or any(k in f or k in constraints for k in FREE_TEXT_EXCLUDES):
            continue
        out.append(f["name"])
    return out


def vocabulary_fields(table_schema: dict) -> list[str]:
    """The fields whose values come from a closed list (a vocabulary, or an enum) or are true/false: the facets."""
    return [f["name"] for f in table_schema.get("fields", [])
            if "vocabulary" in f or "enum" in (f.get("constraints") or {}) or f.get("type") == "boolean"]


def citing_paths(release, resource: str, identifier: str) -> list[str]:
    """The dotted paths of `resource`'s fields (nested members included) whose values are `identifier`s: a field or
    JSON Schema member that declares it, directly or through its list's items or a schema it refers to."""
    found: list[str] = []

    def walk(node: dict, path: str, inside: tuple[str, ...]) -> None:
        target, node = release.schemas.follow(node, inside)
        inside = (*inside, target) if target else inside
        if node.get("identifier") == identifier:
            found.append(path)
            return
        if isinstance(node.get("items"), dict):
            walk(node["items"], path, inside)
        for name, member in (node.get("properties") or {}).items():
            if isinstance(member, dict):
                walk(member, f"{path}.{name}", inside)

    for f in release.table_schema(resource).get("fields", []):
        walk(f, f["name"], ())
    return found


def values_at(value, path: list[str]) -> list:
    """The values a record holds at a dotted path, lists flattened at every step."""
    if isinstance(value, list):
        return [v for item in value for v in values_at(item, path)]
    if not path:
        return [] if value is None else [value]
    return values_at(value.get(path[0]), path[1:]) if isinstance(value, dict) else []


def row_key(record: dict, key: list[str], line: int) -> str:
    """The row as the report names it: its primary key's values joined by `:`, or `line N`."""
    values = [record.get(k) for k in key]
    return ":".join(str(v) for v in values) if key and all(v is not None for v in values) else f"line {line}"


def _cell(value):
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else value


def build(release, view, report: dict, path: Path, progress=None) -> dict:
    """Write the SQLite copy of `release` to `path` (a new file); `view` is its format's View, `report` the JSON
    report of `validate` on it. Returns what was written, per table, for the command's summary."""
    import sqlite_utils

    db = sqlite_utils.Database(path, recreate=True)
    # A new file, built once and read only after: no journal, no waiting for the disk at each batch's commit (the
    # largest paper-scale copy took 94 s with them, most of it waiting)
    db.conn.execute("PRAGMA journal_mode = OFF")
    db.conn.execute("PRAGMA synchronous = OFF")
    identifier = _conversation_identifier(release, view)
    counts, foreign, cites, resources = {}, [], [], {}
    for name in release.resources:
        schema = release.table_schema(name)
        key = release.primary_key(name)
        records = release.table(name).to_pylist()
        lines = release.lines.get(name) or range(1, len(records) + 1)
        keys = [row_key(r, key, n) for r, n in zip(records, lines)]
        rows = [{**{k: _cell(v) for k, v in r.items()}, "_key": k, "_line": n} for r, k, n in zip(records, keys, lines)]
        unique = bool(key) and len({tuple(r.get(k) for k in key) for r in records}) == len(records)
        columns = {f["name"]: _sql_type(f) for f in schema.get("fields", [])} | {"_key": str, "_line": int}
        db[name].create(columns, pk=(key[0] if len(key) == 1 else tuple(key)) if unique else None)
        db[name].insert_all(rows, batch_size=2000)
        db[name].create_index(["_key"], if_not_exists=True)
        searchable = [f for f in text_fields(schema) if f in db[name].columns_dict]
        if searchable and rows:
            db[name].enable_fts(searchable, tokenize="trigram", replace=True)
        foreign += _foreign_keys(release, name, schema)
        own = set(key) if name == view.conversation else set()  # a message's own identifier cites nothing
        for path_ in [p for p in citing_paths(release, name, identifier) if p not in own]:
            steps = path_.split(".")
            cites += [{"message": m, "resource": name, "record": k, "field": path_}
                      for r, k in zip(records, keys) for m in values_at(r, steps) if isinstance(m, str)]
        resources[name] = {"key": key, "texts": searchable, "facets": vocabulary_fields(schema),
                           "fields": [f["name"] for f in schema.get("fields", [])], "keyed": unique,
                           "booleans": [f["name"] for f in schema.get("fields", []) if f.get("type") == "boolean"],
                           "parents": {fields[0]: other for fields, other in _references(schema, name)}}
        counts[name] = len(rows)
        if progress:
            progress(1)
    db.add_foreign_keys([fk for fk in foreign if fk[2] in counts and fk[0] in counts])
    db[view.conversation].create_index([view.group, view.order], if_not_exists=True)  # a conversation, in order
    db["_cites"].create({"message": str, "resource": str, "record": str, "field": str})
    db["_cites"].insert_all(cites)
    db["_cites"].create_index(["message"])
    db["_cites"].create_index(["resource", "record"])
    failures = report.get("failures", [])
    db["_failures"].create({"rule": str, "severity": str, "resource": str, "row": str, "field": str, "value": str,
                            "message": str})
    db["_failures"].insert_all([{k: _cell(v) for k, v in f.items()} for f in failures])
    db["_failures"].create_index(["resource", "row"])
    meta = {"view": view.as_json(), "resources": resources,
            "release": {"name": release.descriptor.get("name"), "title": release.descriptor.get("title"),
                        "version": release.version, "format": release.BLOCK, "synthetic": release.params.get("synthetic")},
            "rules": [{k: r.get(k) for k in ("id", "severity", "statement", "paper", "passed", "failures")}
                      for r in report.get("rules", [])]}
    db["_meta"].insert_all([{"name": k, "value": json.dumps(meta[k], ensure_ascii=False)} for k in _META_KEYS], pk="name")
    db.conn.commit()
    db.close()
    return counts | {"_cites": len(cites), "_failures": len(failures)}


def _conversation_identifier(release, view) -> str:
    """The identifier the conversation's messages are cited by: its key field's declared `identifier` (or its name)."""
    key = release.primary_key(view.conversation)
    field = next(f for f in release.table_schema(view.conversation)["fields"] if f["name"] == key[0])
    return field.get("identifier", field["name"])


def _references(schema: dict, name: str) -> list[tuple[list[str], str]]:
    """The schema's foreign keys as (fields, referenced resource); `""` names the resource itself."""
    out = []
    for fk in schema.get("foreignKeys") or []:
        fields = [fk["fields"]] if isinstance(fk["fields"], str) else list(fk["fields"])
        out.append((fields, fk["reference"].get("resource") or name))
    return out


def _foreign_keys(release, name: str, schema: dict) -> list[tuple[str, str, str, str]]:
    """The single-field foreign keys sqlite-utils can declare (a composite one, such as a group and member pair,
    is left to the schema: SQLite would not enforce it either)."""
    out = []
    for fk in schema.get("foreignKeys") or []:
        fields = [fk["fields"]] if isinstance(fk["fields"], str) else list(fk["fields"])
        other = fk["reference"].get("resource") or name
        cited = fk["reference"]["fields"]
        cited = [cited] if isinstance(cited, str) else list(cited)
        if len(fields) == 1 and other in release.resources and release.primary_key(other) == cited:
            out.append((name, fields[0], other, cited[0]))
    return out


def _sql_type(field: dict):
    return {"integer": int, "number": float, "boolean": int}.get(field.get("type"), str)
