"""The release's schemas, read from the release folder they describe.

`schemas/vocabulary.json` is the one source of every closed vocabulary and
identifier pattern. Table Schemas and nested JSON Schemas name a vocabulary
(`"vocabulary": "tier"`) or an identifier (`"identifier": "dayid"`) and carry
the resolved `enum` / `pattern` as a generated copy, so that Frictionless and
any JSON Schema tool read them without our code. `render()` rewrites those
copies; `stale()` says which files are out of date (tested).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin

from .descriptor import check_vocabulary
from .errors import ReadError
from .files import read_json
from .formats import DEFAULT, part
from .paths import own_file
from .writing import write_text

TRACKS = part(DEFAULT, "tracks")  # the default format's resources, which `Release` opens (and `RESOURCES` names)
RESOURCES = TRACKS.resources
BASE = "https://realcompanion.dataset/schemas/"  # the URI a nested schema's path gives, when it has no `$id`
# RFC 3339 with an explicit offset; Table Schema has no pattern for datetime fields, so the format carries it.
# Without RFC 3339's leap second (:60): Python's datetime, pandas and Frictionless read none, so no rule could date it
RFC3339 = r"^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$"


def read_descriptor(root, block: str) -> dict:
    """datapackage.json, an object whose format block (when present) is an object and whose resources are a list:
    any other shape is one line, before a command reads a key of it."""
    path = Path(root) / "datapackage.json"
    descriptor = read_json(path)
    shapes = ((None, dict, "an object"), (block, dict, "an object"), ("resources", list, "a list of resources"))
    for key, kind, shape in shapes:
        value = descriptor if key is None else descriptor.get(key, kind())
        if not isinstance(value, kind):
            raise ReadError(path, f"must be {shape}", field=key)
    return descriptor


def names(value) -> list[str]:
    """Field names as a Table Schema gives them (`primaryKey`, a foreign key's `fields`): one name or a list."""
    return [value] if isinstance(value, str) else list(value)


def missing_values(table_schema: dict, field: dict) -> list[str]:
    """The text values Frictionless reads as null in a field: its own `missingValues`, else its Table Schema's, else
    Table Schema's default `[""]`; an entry may be `{"value": ..., "label": ...}` (Data Package v2). The format's own
    resources declare none; a fork's new one may."""
    values = field.get("missingValues", table_schema.get("missingValues", [""]))
    return [v["value"] if isinstance(v, dict) else v for v in values]


# What a JSON value of each type prints as: Frictionless compares a cell's Python str() with the missing values
NUMBER = r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
PRINTED = {"integer": NUMBER, "number": NUMBER, "boolean": "True|False", "array": r"\[.*", "object": r"\{.*"}


def check_read_alike(table_schema: dict, path) -> None:
    """Frictionless reads each field's values as this package does: no `arrayItem` (Frictionless types an array's
    items by it; this format, by the field's nestedSchema), no missing value that a number, boolean, list or
    object prints as (Frictionless would read that value as null, and Arrow's reading of a number cannot tell `1`
    from `1.0`: a record writes null where it has no value), a `pattern` that compiles as Frictionless anchors it
    and, on a string, as RE2 matches it (`arrow_pattern`), and no unique or key array or object, which Frictionless
    cannot compare (both stop it with an exception)."""
    keyed = _keyed(table_schema)
    for i, field in enumerate(table_schema["fields"]):
        if "arrayItem" in field:
            raise ReadError(path, f"field '{field['name']}' declares arrayItem, by which Frictionless reads each item: "
                            "an array's items are typed by its nestedSchema", field=f"fields.{i}.arrayItem")
        constraints = field.get("constraints") or {}
        pattern = constraints.get("pattern")
        try:
            re.compile(f"^{pattern}$") if isinstance(pattern, str) else None
        except re.error as exc:
            raise ReadError(path, f"field '{field['name']}': pattern {pattern!r} does not compile as Frictionless "
                            f"anchors it, ^{pattern}$ ({exc})", field=f"fields.{i}.constraints.pattern") from None
        try:
            _compiles(arrow_pattern(pattern)) if isinstance(pattern, str) and field["type"] == "string" else None
        except ValueError as exc:
            raise ReadError(path, f"field '{field['name']}': pattern {pattern!r} cannot be matched in time linear in "
                            f"the value ({exc})", field=f"fields.{i}.constraints.pattern") from None
        if field["type"] in ("array", "object") and (constraints.get("unique") or field["name"] in keyed):
            where = f"fields.{i}.constraints.unique" if constraints.get("unique") else keyed[field["name"]]
            raise ReadError(path, f"field '{field['name']}' is an {field['type']}, which Frictionless cannot compare "
                            "as a unique or key field: it hashes each value, and stops (TypeError: unhashable type: "
                            f"'{'list' if field['type'] == 'array' else 'dict'}')", field=where)
        printed = PRINTED.get(field["type"])
        for value in missing_values(table_schema, field) if printed else ():
            if re.fullmatch(printed, value, re.DOTALL):
                where = f"fields.{i}.missingValues" if "missingValues" in field else "missingValues"
                raise ReadError(path, f"missing value {value!r} is how a value of the {field['type']} field "
                                f"'{field['name']}' prints, which Frictionless would read as null: a record writes "
                                "null where it has no value", field=where)


# Python's `re` reads these classes by Unicode, RE2 by ASCII: each is written as the Unicode class Python reads, outside
# a set and inside one (None inside: no RE2 set holds it, so a set holding it is an alternation; `\b` inside is a
# backspace, and RE2 has no Unicode word boundary)
_SPACE = r"\t-\r\x{1c}-\x{1f}\x{85}\p{Z}"  # what str.isspace() holds
_UNICODE = {"d": (r"\p{Nd}", r"\p{Nd}"), "D": (r"\P{Nd}", r"\P{Nd}"), "w": (r"[\p{L}\p{N}_]", r"\p{L}\p{N}_"),
            "W": (r"[^\p{L}\p{N}_]", None), "s": (f"[{_SPACE}]", _SPACE), "S": (f"[^{_SPACE}]", None),
            "b": (None, r"\x{8}"), "B": (None, None)}


def arrow_pattern(pattern: str) -> str:
    """A string field's `pattern` as Arrow's regular expressions (RE2) match it, anchored as Frictionless anchors it
    and matched from the start as Python's `re.match` is: RE2 takes time linear in the value, where Python's
    backtracking search, which pandas falls back to for a pattern holding `\\s`, or `\\w` once a value holds a
    character past ASCII, ran for ever on `(a+\\s?)+` and forty a's. Raises ValueError on a class RE2 cannot write."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "[":
            i, written = _set(pattern, i)
        elif pattern[i] == "\\" and pattern[i + 1:i + 2] in _UNICODE:
            written, i = _UNICODE[pattern[i + 1]][0], i + 2
            if written is None:
                raise ValueError(f"RE2 has no Unicode {pattern[i - 2:i]}")
        elif bound := _UP_TO.match(pattern, i):  # RE2 reads `{,n}` as text
            written, i = f"{{0,{bound[1]}}}", bound.end()
        else:
            written, i = _escape(pattern, i)
        out.append(written)
    return f"^(?:^{''.join(out)}$)"


def _set(pattern: str, i: int) -> tuple[int, str]:
    """(where it ends, RE2 text) of the set `pattern` opens at `i`: its Unicode classes written as members, and a
    negated class (`[\\s\\S]`) as an alternative to the set, which a negated set cannot take."""
    j = i + 1 + len(re.match(r"\^?\]?", pattern[i + 1:])[0])  # a `]` first in a set (after its `^`) is a member
    members, negated, alternatives = [pattern[i + 1:j]], pattern[i + 1:i + 2] == "^", []
    while j < len(pattern) and pattern[j] != "]":
        if pattern[j] == "\\" and pattern[j + 1:j + 2] in _UNICODE:
            inside = _UNICODE[pattern[j + 1]][1]
            if inside is None and (negated or _UNICODE[pattern[j + 1]][0] is None):
                raise ValueError(f"RE2 has no Unicode {pattern[j:j + 2]} in {'a negated' if negated else 'a'} set")
            members.append(inside) if inside is not None else alternatives.append(_UNICODE[pattern[j + 1]][0])
            j += 2
            continue
        written, j = _escape(pattern, j)
        members.append(written)
    written = f"[{''.join(members)}]"
    return j + 1, f"(?:{'|'.join([written] * (len(written) > 2) + alternatives)})" if alternatives else written


_UP_TO = re.compile(r"\{,([0-9]+)\}")  # a bound with no least count, which Python reads as 0
# Python's escapes of a code point that RE2 writes otherwise: `\u4e00` (a Chinese field's `[\u4e00-\u9fff]`),
# `\U0001f600`, and `\Z`, the end of the value
_CODE_POINT = re.compile(r"\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})")


def _escape(pattern: str, i: int) -> tuple[str, int]:
    """(RE2 text, where the next token starts) of the character or escape at `i`."""
    if pattern[i] != "\\":
        return pattern[i], i + 1
    if code := _CODE_POINT.match(pattern, i):
        return f"\\x{{{code[1] or code[2]}}}", code.end()
    return ("\\z" if pattern[i + 1:i + 2] == "Z" else pattern[i:i + 2]), i + 2


def _compiles(pattern: str) -> None:
    """RE2 compiles `pattern`, else ValueError: it has no lookaround or backreference, which need a backtracking
    search (and which Table Schema's patterns, XML Schema regular expressions, do not have)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        pc.match_substring_regex(pa.array([""]), pattern)
    except pa.ArrowInvalid as exc:
        reason = str(exc).removeprefix("Invalid regular expression: ")
        raise ValueError(f"RE2, which Arrow matches patterns with, cannot compile it: {reason}") from None


def _keyed(table_schema: dict) -> dict[str, str]:
    """Each field name a key of the schema's own rows names (primaryKey, a foreign key's fields, or the fields a
    foreign key of the resource itself cites), with where; entries of another shape are Frictionless's to reject."""
    keys = [("primaryKey", table_schema.get("primaryKey"))]
    for j, key in enumerate(table_schema.get("foreignKeys") or []):
        reference = key.get("reference") if isinstance(key, dict) else None
        keys.append((f"foreignKeys.{j}.fields", key.get("fields") if isinstance(key, dict) else None))
        if isinstance(reference, dict) and reference.get("resource") == "":
            keys.append((f"foreignKeys.{j}.reference.fields", reference.get("fields")))
    return {name: where for where, value in reversed(keys) if isinstance(value, (str, list))
            for name in names(value) if isinstance(name, str)}


def dump_json(obj) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False) + "\n"


def write_json(obj, handle) -> None:
    """`dump_json`'s text, written to `handle` as it is made (a thousand pieces a write): a report of 100,000 rows
    held its text and the million pieces it is joined from at once (hundreds of megabytes). The pieces come from
    `json_layout`, json's C encoder laying out each innermost container whole."""
    from itertools import islice

    from .json_layout import pieces

    made = pieces(obj)
    while batch := "".join(islice(made, 1000)):
        handle.write(batch)
    handle.write("\n")


def same_json(obj) -> str:
    """A JSON value in one spelling (keys sorted, no layout), which tells 1, 1.0 and true apart as Python's == does
    not."""
    return json.dumps(obj, sort_keys=True)


def schema_reason(error, patterns: dict | None = None) -> tuple[str, list]:
    """One value's failure against its JSON Schema (a jsonschema-rs error) as (message, instance path). A
    nullable field is anyOf [null, X], whose own message ("... is not valid under any of the schemas listed in
    the 'anyOf' keyword") hides X's reason: X's first error is given instead, at its own (maybe deeper) path.
    A failed pattern that `patterns` names (pattern -> what it is, such as an identifier of the vocabulary)
    opens the message with that name, as SCH2 names a field's: a dataset's own id left in a list of cited
    messages reads `not a dayid`, not a pattern alone."""
    kind = error.kind
    if kind.name == "anyOf":
        null = [b for b in kind.context if len(b) == 1 and b[0].kind.as_dict().get("types") == ["null"]]
        rest = [b for b in kind.context if b not in null]
        if null and len(rest) == 1 and rest[0]:
            inner = rest[0][0]
            deeper = list(inner.instance_path) != list(error.instance_path)
            return schema_reason(inner, patterns)[0] + ("" if deeper else " (or null)"), list(inner.instance_path)
    said = (patterns or {}).get(kind.as_dict().get("pattern")) if kind.name == "pattern" else None
    return (said or "") + error.message, list(error.instance_path)


def enum_of(vocabulary: dict, name: str) -> list[str]:
    """The allowed values of a vocabulary: a list, a map's keys, or the union of a map's lists."""
    value = vocabulary[name]
    if isinstance(value, list):
        return list(value)
    if all(isinstance(v, list) for v in value.values()):
        return [item for values in value.values() for item in values]
    return list(value)


def _fetched(uri: str):
    """What jsonschema-rs would download for a `$ref` or `$schema` no schema of the release holds: nothing. A
    release's schemas are all in its folder, and validating it never reads the network (a remote document could
    change the verdict, or hang it)."""
    raise ValueError(f"{uri} is not fetched: a release's schemas are all in its folder")


def _a_json_schema(schema: dict, path) -> None:
    """A nested schema is a JSON Schema of its draft (its metaschema's verdict, named where it fails): typing and
    checking records by one that is not failed on the first node of the wrong shape, naming neither."""
    import jsonschema_rs

    try:
        jsonschema_rs.meta.validate(schema, registry=jsonschema_rs.Registry([], retriever=_fetched))
    except jsonschema_rs.ValidationError as exc:
        raise ReadError(path, f"is not a JSON Schema: {exc.message}",
                        field=".".join(map(str, exc.instance_path)) or None) from None
    except jsonschema_rs.ReferencingError:
        raise ReadError(path, f"is not a JSON Schema of a draft jsonschema-rs knows: `$schema` is "
                              f"{schema.get('$schema')!r}", field="$schema") from None
    except ValueError:  # "Recursion limit reached": jsonschema-rs reads a value only about 255 levels deep
        raise ReadError(path, "is nested too deeply for the JSON Schema validator (jsonschema-rs) to read") from None


def _refs_resolve(root: Path, named: dict[str, str], schemas: dict[str, dict]) -> None:
    """Every `$ref` of the nested schemas (`schemas` by path under schemas/, `named` the paths by the URI each is
    found by) names a schema, and a place in it, that the release holds: one that does not is one line naming the
    schema holding it (exit 2). A rule met it first, and said it "could not be evaluated" in several lines (exit 1)."""
    import jsonschema_rs

    documents = {urldefrag(uri)[0]: schemas[relpath] for uri, relpath in named.items()}

    def beside(uri: str):  # another nested schema, as an empty document: its own `$ref`s are its own to check
        return {} if urldefrag(uri)[0] in documents else _fetched(uri)

    for uri, relpath in named.items():
        try:  # the documents it names, each schema alone
            jsonschema_rs.Registry([(uri, schemas[relpath])], retriever=beside)
        except ValueError as exc:  # (a schema too deep for jsonschema-rs failed its metaschema check before)
            document = re.search(r"Resource '([^']*)'", str(exc))
            raise ReadError(root / "schemas" / relpath, f"a `$ref` names {document[1] if document else 'a document'}, "
                            "which no nested schema of the release is (by its `$id`, else by its path)",
                            field="$ref") from None
    registry = jsonschema_rs.Registry(list(documents.items()), retriever=_fetched)
    for uri, relpath in named.items():
        try:  # the places it names, each read from its URI, as the nested-field rule reads it
            jsonschema_rs.validator_for({"$ref": uri}, registry=registry)
        except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError) as exc:
            raise ReadError(root / "schemas" / relpath, f"a `$ref` names nothing: {getattr(exc, 'message', exc)}",
                            field="$ref") from None


@dataclass(frozen=True)
class Schemas:
    """Vocabulary, Table Schemas and nested JSON Schemas of one release folder."""

    root: Path
    block: str = DEFAULT  # the descriptor block that names the vocabulary file

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root))

    @cached_property
    def vocabulary(self) -> dict:
        """The vocabulary file the descriptor names (`<block>.vocabulary`)."""
        descriptor = self.root / "datapackage.json"
        path = read_descriptor(self.root, self.block).get(self.block, {}).get("vocabulary")
        if not isinstance(path, str):
            raise ReadError(descriptor, "no vocabulary path (a string)", field=f"{self.block}.vocabulary")
        path = own_file(self.root, path, f"{self.block}.vocabulary")
        vocabulary = read_json(path)
        check_vocabulary(vocabulary, path)
        return vocabulary

    def table_path(self, resource: str) -> Path:
        return self.root / "schemas" / f"{resource}.schema.json"

    def table_paths(self) -> list[Path]:
        """The Table Schema file of every resource datapackage.json lists (any format; a fork's resources too)."""
        resources = read_descriptor(self.root, self.block).get("resources", [])
        return [own_file(self.root, r["schema"], f"resources.{r.get('name')}.schema") for r in resources
                if isinstance(r, dict) and isinstance(r.get("schema"), str)]

    def nested_paths(self) -> list[Path]:
        """Every file schemas/nested/*.schema.json, links out of the folder too (INT3 lists them): `own` before
        reading or writing one."""
        return sorted((self.root / "schemas" / "nested").glob("*.schema.json"))

    def own(self, path: Path) -> Path:
        """`path`, a file found under the release folder, refused when it is a link out of it: `schemas --write`
        and `refresh` rewrote the file a nested schema linked to, wherever it lay."""
        return own_file(self.root, path.relative_to(self.root).as_posix())

    @cached_property
    def nested_schemas(self) -> dict[str, dict]:
        """Every nested JSON Schema, read once, by its path under `schemas/` (`nested/trace.schema.json`). The nested
        rule finds each by its URI (`nested_uri`), so no two may share one: a schema copied with its `$id` kept
        would be checked in place of the one it was copied from."""
        schemas, named = {}, {}
        for path in self.nested_paths():
            relpath = f"nested/{path.name}"
            schemas[relpath] = read_json(self.own(path))
            if not isinstance(schemas[relpath], dict):  # `true` is a JSON Schema, but it gives its field no type
                raise ReadError(path, "is not a JSON object: a nested schema types the field it describes, so it "
                                      "must be a JSON Schema object")
            _a_json_schema(schemas[relpath], path)
            uri = self.nested_uri(relpath, schemas[relpath])
            if uri in named:
                raise ReadError(path, f"'{uri}' also names schemas/{named[uri]}: each nested schema has an `$id` "
                                "of its own, else one is checked in place of the other", field="$id")
            named[uri] = relpath
        _refs_resolve(self.root, named, schemas)
        return schemas

    def nested_uri(self, relpath: str, schema=None) -> str:
        """The URI a nested schema is found by: its `$id`, else the one its path gives (the specimen's own form), so
        that a relative `$ref` in it resolves beside it."""
        schema = self.nested(relpath) if schema is None else schema
        uri = schema.get("$id") if isinstance(schema, dict) else None
        return uri if isinstance(uri, str) and uri else f"{BASE}{relpath}"

    def nested(self, relpath: str) -> dict:
        if relpath not in self.nested_schemas:  # not listed: reading it says why (missing, unreadable folder)
            read_json(self.own(self.root / "schemas" / relpath))
            raise ReadError(self.root / "schemas" / relpath, "not among schemas/nested/*.schema.json")
        return self.nested_schemas[relpath]

    def follow(self, node: dict, inside: tuple[str, ...] = ()) -> tuple[str | None, dict]:
        """A Table Schema field or JSON Schema member with the nested schema it refers to followed, keeping its own
        description, and where that is (`reference`); (None, the node) for a node that refers to none. `inside`:
        where the node lies, outermost first; one of them again is a value nested without end, which no Arrow type
        holds (it recursed until Python stopped, naming no file)."""
        target = self.reference(node, inside)
        if target is None:
            return None, node
        if target in inside:
            chain = " -> ".join(f"schemas/{p}" for p in (*inside[inside.index(target):], target))
            raise ReadError(self.root / "schemas" / inside[-1].partition("#")[0], "refers back to a nested schema it "
                            f"lies in ({chain}): a value nested without end, which no Arrow type holds", field="$ref")
        relpath, _, pointer = target.partition("#")
        found = self.nested(relpath)
        for step in filter(None, pointer.split("/")):
            step = unquote(step).replace("~1", "/").replace("~0", "~")
            found = found.get(step) if isinstance(found, dict) else \
                found[int(step)] if isinstance(found, list) and step.isdigit() and int(step) < len(found) else None
        if not isinstance(found, dict):
            raise ReadError(self.root / "schemas" / relpath, f"holds no schema object at '#{pointer}', which a `$ref` "
                            "names: a member is typed by the object it refers to", field=pointer or None)
        return target, found | ({"description": node["description"]} if "description" in node else {})

    def reference(self, node: dict, inside: tuple[str, ...] = ()) -> str | None:
        """Where a node refers to: `nestedSchema`, a path under schemas/; `$ref`, a URI resolved as JSON Schema (and
        the registry) resolves it, against the URI of the nested schema it lies in (`nested_uri`), and found by that
        schema's URI, as `nested/trace.schema.json`, with `#` and a JSON Pointer when it points inside one. A `$ref`
        naming a schema by its `$id`, `./` or a place in a document (`#/$defs/x`) was read as a file name."""
        if "nestedSchema" in node:
            return node["nestedSchema"]
        if "$ref" not in node:
            return None
        holder = inside[-1].partition("#")[0] if inside else None
        uri, pointer = urldefrag(urljoin(self.nested_uri(holder) if holder else f"{BASE}nested/", node["$ref"]))
        relpath = self._by_uri.get(uri)
        if relpath is None:
            raise ReadError(self.root / "schemas" / (holder or ""), f"$ref {node['$ref']!r} is {uri}, which no nested "
                            "schema is (by its `$id`, else by its path)", field="$ref")
        return relpath + (f"#{pointer}" if pointer else "")

    @cached_property
    def _by_uri(self) -> dict[str, str]:
        """Each nested schema's path under schemas/, by the URI it is found by (without a fragment)."""
        return {urldefrag(self.nested_uri(p, s))[0]: p for p, s in self.nested_schemas.items()}

    @cached_property
    def registry(self):
        """The nested schemas as a jsonschema-rs registry, by URI (`nested_uri`)."""
        import jsonschema_rs

        return jsonschema_rs.Registry([(self.nested_uri(path, s), s) for path, s in self.nested_schemas.items()],
                                      retriever=_fetched)

    def tier_of(self, has_profile_refs, has_episode_refs):
        """Tier as a function of the context shape (vocabulary `tier_rule`); works on bools or boolean arrays."""
        import numpy as np

        p, e = np.asarray(has_profile_refs, bool), np.asarray(has_episode_refs, bool)
        return np.select([p & e, e, p], ["edge", "hard", "intermediate"], "basic")

    # -- generated copies -------------------------------------------------

    def resolved(self, node):
        """`node` with every vocabulary/identifier reference expanded into enum/pattern (a KeyError names a
        vocabulary or identifier the vocabulary file does not declare)."""
        if isinstance(node, list):
            return [self.resolved(n) for n in node]
        if not isinstance(node, dict):
            return node
        out = {k: self.resolved(v) for k, v in node.items()}
        is_table_field = "constraints" in out
        target = out["constraints"] if is_table_field else out
        if "vocabulary" in out:
            target["enum"] = enum_of(self.vocabulary, out["vocabulary"])
        if "identifier" in out:
            target["pattern"] = self.vocabulary["identifier"][out["identifier"]]
        return out

    def copies(self) -> dict[Path, tuple[object, object]]:
        """Every schema file, keyed by path: what it holds, and what it should hold (each file read once)."""
        out = {}
        for path in self.table_paths() + [self.own(p) for p in self.nested_paths()]:
            held = read_json(path)
            try:
                out[path] = held, self.resolved(held)
            except KeyError as exc:
                raise ReadError(path, f"names the vocabulary or identifier {exc}, which "
                                f"{self.block}.vocabulary does not declare", field="vocabulary") from None
        return out

    def stale_copies(self) -> dict[Path, tuple[object, object]]:
        """The schema files whose copies differ from their rendering, each with what it holds and its rendering.
        Compared as JSON, not as text: how a file is laid out (line endings, indentation, key order, escapes: a
        checkout with git's autocrlf, an editor's formatter) does not make a copy stale."""
        return {p: pair for p, pair in self.copies().items() if same_json(pair[0]) != same_json(pair[1])}

    def stale(self) -> list[Path]:
        return list(self.stale_copies())

    def render(self) -> list[Path]:
        changed = self.stale_copies()
        for path, (_, rendered) in changed.items():
            write_text(path, dump_json(rendered))
        return list(changed)
