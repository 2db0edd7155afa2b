"""Open a release folder: its descriptor, parameters and typed tables.

Tables are read with Arrow against a schema derived from the Table Schema and
the nested JSON Schemas, so a well-formed file costs one vectorized parse.
When that typed read fails, the file is re-read line by line only to say where:
a line that is not JSON makes the package unreadable (`ReadError`, exit 2);
a record whose fields or types do not match its schema is a validation
failure, reported row by row by the structural rules.
"""
from __future__ import annotations

import codecs
import hashlib
import io
import json
import re
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.json as pajson

from .descriptor import check_block, check_table_schema
from .errors import ReadError
from .files import BOM, decode, lone_surrogate, open_regular, read_bytes
from .formats import DEFAULT, FORMATS, TITLES, no_block, part
from .jsonlines import objects
from .paths import leaves, own_file
from .schemas import RESOURCES, TRACKS, Schemas, check_read_alike, names, read_descriptor, read_json, schema_reason
from .versions import problem as version_problem

MAX_RESOURCES = 100  # the most resources a release may declare: each is read, typed and judged (a format has 5 or 8)
# the most records of one file the reader sets aside before it reads that file no further: each costs a record's
# parse and a line of the report, and past this many a file was not written to its schema at all
MAX_SET_ASIDE = 10_000
_SCALARS = {
    "string": pa.string(),
    "integer": pa.int64(),
    "number": pa.float64(),
    "boolean": pa.bool_(),
    "datetime": pa.string(),
    "date": pa.string(),
}


def arrow_type(node: dict, schemas: Schemas, inside: tuple[str, ...] = ()) -> pa.DataType:
    """Arrow type of a Table Schema field or JSON Schema node (nested schemas followed by $ref; `inside`, those
    followed to reach it: `Schemas.follow`)."""
    target, followed = schemas.follow(node, inside)
    if target is not None:
        return arrow_type(followed, schemas, (*inside, target))
    kind = node["type"]
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "array":
        return pa.list_(arrow_type(node.get("items", {"type": "string"}), schemas, inside))
    if kind == "object":
        return pa.struct([(k, arrow_type(v, schemas, inside)) for k, v in node["properties"].items()])
    return _SCALARS[kind]


def check_utf8(data: bytes, path) -> None:
    """`data` is UTF-8, checked without holding its text: ASCII in one scan, else a slice at a time (a whole
    file decoded at once would cost up to four times its size in memory). A bad byte is `decode`'s one line."""
    if data.isascii():
        return
    step, view, decoder = 1 << 22, memoryview(data), codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), step):
            decoder.decode(view[start:start + step], final=start + step >= len(data))
    except UnicodeDecodeError:
        decode(data, path)


class _Unframed(Exception):
    """A line of a file being read does not open with `{` and close with `}`: Arrow's typed read is not taken."""


class _Lines:
    """The lines of bytes fed a block at a time: how many, and whether each is framed as a record's line is, opening
    with `{` and closing with `}` (before a carriage return). Arrow parses values, not lines: it reads two records on
    one line as two rows and skips a blank line, so its row count matches the lines' beside a blank line or a record
    written over two lines; it stops the process on a first value `null`. Where every line is framed, every newline
    lies between records (a `{` cannot follow a value within one), and the counts match only for a record a line.
    A line `{}` counts as unframed: Arrow reads it as a row without a value, which the reader sets aside, so a file
    of them stops the whole file's typed read at once rather than after building a table of empty rows."""

    def __init__(self):
        self.newlines, self.framed, self.tail = 0, True, b"\n"  # `tail`: the last bytes fed; a file opens a line

    def feed(self, block: bytes) -> None:
        joined = self.tail + block
        view = np.frombuffer(joined, np.uint8)
        at = np.flatnonzero(view == ord("\n"))
        self.newlines += len(at) - self.tail.count(b"\n")
        after, before = at[at + 1 < len(view)] + 1, at[at >= 2]  # the tail's own newline was judged with its block
        opened = after[after + 1 < len(view)]
        self.framed = self.framed and bool((view[after] == ord("{")).all()) and bool(
            ((view[before - 1] == ord("}")) | ((view[before - 1] == ord("\r")) & (view[before - 2] == ord("}")))).all()
        ) and not bool((view[opened + 1] == ord("}")).any())
        self.tail = joined[-2:]

    def count(self) -> int:
        """Lines fed, the last one with or without its newline."""
        return self.newlines + (self.tail[-1:] != b"\n")

    def whole(self) -> bool:
        """Whether every line fed is framed, the last one closed too."""
        return self.framed and self.tail[-1:] in (b"\n", b"}")


class _Hashed:
    """A file as Arrow reads it: each block is hashed and checked as UTF-8 on its way to the parser, so no
    whole copy of the file is held and the hashing runs beside the parse."""

    closed = False

    def __init__(self, handle, other: str | None = None):
        self.handle, self.sha256 = handle, hashlib.sha256()
        self.other, self.size = hashlib.new(other) if other else None, 0  # a resource `hash` of another algorithm
        self.decoder, self.valid = codecs.getincrementaldecoder("utf-8")(), True
        self.lines = _Lines()
        self.head = b""  # the bytes up to the first newline: the record Frictionless reads as the header

    def read(self, size: int = -1) -> bytes:
        block = self.handle.read(size)
        self.sha256.update(block)
        self.size += len(block)
        if self.other:
            self.other.update(block)
        if block:
            if self.lines.newlines == 0:
                self.head += block.split(b"\n", 1)[0]
            self.lines.feed(block)
            if not self.lines.framed:  # no typed read of the file stands: Arrow need not parse it (`_Lines`)
                raise _Unframed
        if self.valid and (self.decoder.getstate()[0] or not block.isascii()):
            try:
                self.decoder.decode(block)
            except UnicodeDecodeError:
                self.valid = False
        return block

    def utf8(self) -> bool:
        """Whether every byte read was UTF-8 (a sequence cut short at the end is not)."""
        try:
            self.decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            self.valid = False
        return self.valid

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.handle.close()


def _valueless_row(table: pa.Table) -> bool:
    """Whether a row holds no value at all: Arrow reads `{}` as one (and a `null` line, which `_Lines` keeps from
    it), and the line-by-line read says which. A column without nulls settles it at once."""
    if table.num_rows == 0 or any(column.null_count == 0 for column in table.columns):
        return False
    import pyarrow.compute as pc  # here, not at the top: opening a release comes before any read (0.05 s)

    empty = pc.is_null(table.column(0))
    for column in table.columns[1:]:
        empty = pc.and_(empty, pc.is_null(column))
    return pc.any(empty).as_py()


FLOAT_EXACT = 2 ** 53  # a 64-bit float holds every integer up to it, and only some beyond


def _beyond_float(table: pa.Table) -> bool:
    """Whether a number holds a value from ±2^53 on, where a 64-bit float holds only some integers: Arrow read the
    nearest float (9007199254740993 as 2^53), and the line-by-line read says which record wrote an integer beyond
    (`_field_problem`); or NaN or an infinity, which Arrow's parser takes and JSON has not (`files.loads` names
    them). Nested numbers too: Arrow, pandas and datasets read them as the field's."""
    import pyarrow.compute as pc

    from .nested import scalars

    return any(not pc.all(pc.less(pc.abs(values), FLOAT_EXACT)).as_py() for column in table.columns
               for _, _, values in scalars(column, [], positions=False)
               if pa.types.is_floating(values.type))


def declared_hash(res: dict) -> tuple[str | None, str | None]:
    """A resource's Data Package `hash` as (algorithm, hex digest): `algorithm:digest`, or a bare digest, which
    is MD5's (Data Package v2); (None, None) when it declares none. The digest is compared as written, in lower
    case as hashes print it: Frictionless finds an upper-case digest wrong."""
    value = res.get("hash")
    if not isinstance(value, str):
        return None, None
    algorithm, _, digest = value.rpartition(":")
    return algorithm.lower() or "md5", digest


def declared_sha256(release, name: str) -> str | None:
    """The sha256 the descriptor declares for resource `name`'s data file: its Data Package `hash` when that is a
    sha256 (what `stamp` writes; one digest per file), else the format block's `sha256` map, the copy a release
    written to an older letter of the format keeps; None when neither declares one."""
    algorithm, digest = declared_hash(release.resource(name))
    if algorithm == "sha256":
        return digest
    legacy = release.params.get("sha256")
    return legacy.get(release.resource(name)["path"]) if isinstance(legacy, dict) else None


def _reason(exc) -> str:
    """The first reason a FrictionlessException gives."""
    reasons = [r.message for r in getattr(exc, "reasons", [])] or [exc.error.message]
    return reasons[0]


# Keys Frictionless reads before its profile types them, and what the Data Package standard makes each: a `hash` of 5
# was split, a `$schema` of 5 decoded, a `stats` of 5 written into, an `extrapaths` entry of 5 opened as a path, each
# "Frictionless could not judge it (AttributeError: ...)", naming no field
_READ_BEFORE_TYPED = {
    "$schema": (lambda value: isinstance(value, str), "text (the URL of a Data Package profile)"),
    "hash": (lambda value: isinstance(value, str), "text (ALGORITHM:DIGEST)"),
    "stats": (lambda value: isinstance(value, dict), "an object"),
    "extrapaths": (lambda value: isinstance(value, list) and all(isinstance(p, str) for p in value), "a list of paths"),
}


def _read_untyped(descriptor: dict) -> tuple[str, str] | None:
    """The first key of `_READ_BEFORE_TYPED` the descriptor or one of its resources gives a value of another type, as
    (message, field)."""
    places = [(descriptor, "$schema", "$schema")] + [
        (res, key, f"resources.{res.get('name')}.{key}") for res in descriptor.get("resources", [])
        for key in ("hash", "stats", "extrapaths")]
    for owner, key, field in places:
        fits, wanted = _READ_BEFORE_TYPED[key]
        if key in owner and not fits(owner[key]):
            return f"{json.dumps(owner[key], ensure_ascii=False)[:60]} is not {wanted}", field
    return None


def _read_otherwise(res: dict) -> tuple[str, str] | None:
    """Why Frictionless would read a resource's file otherwise than as this format's UTF-8 JSON Lines, one keyed
    record a line, of one file in the folder (a declared or implied format, an encoding, a scheme, a dialect, a
    compression, extra paths whose rows it appends), as (message, field)."""
    name, kind = res.get("name"), res.get("format") or Path(res["path"]).suffix.lstrip(".")
    if kind not in ("jsonl", "ndjson"):
        return f"resource '{name}' is read as '{kind}': a release's tables are JSON Lines (format jsonl)", "format"
    encoding = res.get("encoding", "utf-8")
    if not isinstance(encoding, str) or encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
        return f"resource '{name}' declares encoding '{encoding}': a release's tables are UTF-8", "encoding"
    scheme = res.get("scheme", "file")
    if scheme != "file":
        return f"resource '{name}' declares scheme '{scheme}': a release's tables are files in its folder", "scheme"
    for key in ("dialect", "compression", "extrapaths"):
        if key in res:
            return f"resource '{name}' declares {key}, which changes how Frictionless reads its file: a " \
                   "release's tables are plain JSON Lines, one keyed record a line, and declare none", key
    return None



def canonical_definitions(block: str) -> dict:
    """The format's own definitions of its resources and nested schemas (its `format_schemas`)."""
    from .validators.kept import canonical

    return canonical(part(block, "format_schemas"))


def absent_table(release: Release, name: str) -> pa.Table:
    """The resource a release leaves out, as an empty table of the format's columns: a rule or scorer that looks a
    record up in it (a claim's evidence, an instance's atoms) finds none, as it finds none of a present resource's
    where a row cites nothing."""
    core = canonical_definitions(release.BLOCK)
    schemas = Schemas(release.root, release.BLOCK)
    schemas.__dict__["nested_schemas"] = core.get("nested", {})  # the format's own, whatever the folder keeps
    return pa.schema([(f["name"], arrow_type(f, schemas)) for f in core["resources"][name]["fields"]]).empty_table()


class Release:
    """A release folder: `datapackage.json`, `schemas/`, `data/`; `BLOCK` names the descriptor's format block.

    Frictionless judges the descriptor on opening; `validate` opens with `check=False` and
    calls `check_descriptor` beside the table reads, where its Python work costs no wall time.
    A descriptor without one of the format's required resources (`TRACKS`) is refused, naming
    it; an optional one may be left out (`absent`: its table is empty, `absent_table`);
    `partial=True` opens it all the same (`missing`), for `diff`, which compares such a work in
    progress with the release before it, and for `validate`, which reports it (TRK1, GT1).
    """

    BLOCK = DEFAULT  # `Release` opens the default format's releases; another format's class extends it
    TITLE = TITLES[BLOCK]  # the format's name, as the card's and datasheet's opening notice gives it
    RESOURCES = RESOURCES  # the format's resources, required and optional (a fork may add more)
    TRACKS = TRACKS
    OWNER = ("participant_id", "participants")  # the field naming whose records a row holds, and what they are called

    def __init__(self, root=".", *, check: bool = True, partial: bool = False):
        self.root = Path(root)
        descriptor = self.root / "datapackage.json"
        if not descriptor.exists():
            raise ReadError(descriptor, "no such file: not a release folder")
        self.descriptor = read_descriptor(self.root, self.BLOCK)
        if self.BLOCK not in self.descriptor:
            other = [name for name in FORMATS if name != self.BLOCK and isinstance(self.descriptor.get(name), dict)]
            raise ReadError(descriptor, f"no '{self.BLOCK}' block: a {other[0]} release, which this command does "
                            "not read" if other else no_block(self.BLOCK), field=self.BLOCK)
        self.check_block(self.descriptor[self.BLOCK], descriptor)
        if len(self.descriptor.get("resources") or []) > MAX_RESOURCES:  # each is read, typed and judged
            raise ReadError(descriptor, f"declares {len(self.descriptor['resources']):,} resources, more than the "
                            f"{MAX_RESOURCES} a release may", field="resources")
        if "version" in self.descriptor and (problem := version_problem(self.descriptor["version"])):
            raise ReadError(descriptor, problem, field="version")  # shown as given in every report and page
        for res in self.descriptor.get("resources", []):
            if not isinstance(res, dict) or not isinstance(res.get("path"), str):
                raise ReadError(descriptor, f"resource '{res.get('name') if isinstance(res, dict) else res}' must have "
                                "one file as its path (a string)", field="path")
        if self.missing and not partial:
            raise ReadError(descriptor, f"no resource '{self.missing[0]}': {self.carries()}", field="resources")
        self._table_schemas: dict[str, dict] = {}
        if check:
            self.check_descriptor()
        self.params = self.descriptor[self.BLOCK]
        self.schemas = Schemas(self.root, self.BLOCK)
        self.invalid_rows: dict[str, list[dict]] = {}
        self.lines: dict[str, list[int]] = {}  # file line of each table row, where rows were set aside on reading
        self._tables: dict[str, pa.Table] = {}
        self.sha256: dict[str, str] = {}  # resource name -> sha256 of the bytes its table was read from
        self.sizes: dict[str, int] = {}  # resource name -> how many bytes its table was read from
        self.digests: dict[str, str] = {}  # resource name -> their digest by its `hash`'s algorithm, if not sha256
        self.heads: dict[str, bytes] = {}  # resource name -> its file's bytes up to the first newline
        self._ahead: threading.Thread | None = None  # the thread reading every table (`reading_ahead`)
        self._stop, self._stopped = threading.Event(), None  # asked to stop; (name, exception) where it stopped

    def check_block(self, block: dict, path: Path) -> None:
        """The format block meets the JSON Schema shipped in the format's folder, so a release cannot loosen it."""
        check_block(block, path, self.BLOCK)

    def format_field(self, field: dict) -> dict:
        """A core field of the format's definitions as this release keeps it (GI8, INT7): as written, unless a
        parameter of the format's makes part of it another rule's to check."""
        return field

    def card_header(self) -> dict:
        """Keys of the card's YAML header a parameter of the format's decides, generated beside `card.GENERATED_KEYS`
        (none: the card's author writes the rest)."""
        return {}

    def check_descriptor(self) -> None:
        """Frictionless judges the descriptor (a rejection is a `ReadError`)."""
        problem = self.descriptor_problem()
        if problem:
            raise ReadError(self.root / "datapackage.json", problem[0], field=problem[1])

    def descriptor_problem(self) -> tuple[str, str | None] | None:
        """What Frictionless finds wrong with the descriptor, as (message, field), or None. Paths are trusted:
        whether one leaves the folder is rule INT3's call."""
        from frictionless import FrictionlessException, Package, system

        untyped = _read_untyped(self.descriptor)
        if untyped:
            return untyped
        try:
            with system.use_context(trusted=True):
                Package.from_descriptor(self.descriptor, basepath=str(self.root))
        except FrictionlessException as exc:
            return _reason(exc), None
        read = self._table_schemas_read()
        for name, path, schema in read if self._schema_problem(read) else ():  # which one, once one is wrong
            reason = self._schema_problem([(name, path, schema)])
            if reason:
                fields = schema.get("fields") if isinstance(schema, dict) else None
                where = next((f"fields.{i} ('{f.get('name')}'): " for i, f in enumerate(fields or []) if isinstance(f, dict)
                              and self._schema_problem([(name, path, {"fields": [f]})])), "")
                return f"its Table Schema {self.resource(name)['schema']}: {where}{reason}", f"resources.{name}.schema"
        for res in self.descriptor.get("resources", []):
            if not isinstance(res.get("schema"), (str, dict)):
                return f"resource '{res.get('name')}' declares no schema", "schema"
            problem = _read_otherwise(res)
            if problem:
                return problem
        return None

    def _schema_problem(self, read: list[tuple[str, str, dict]]) -> str | None:
        """What Frictionless finds wrong with the Table Schemas of resources (name, path, schema), judged together
        in the descriptor's Data Package version (`exclusiveMinimum` is v2's), or None."""
        from frictionless import FrictionlessException, Package, system

        try:
            with system.use_context(trusted=True):
                package = Package.from_descriptor({**self.descriptor, "resources": [
                    {"name": name, "path": path, "schema": schema} for name, path, schema in read]},
                    basepath=str(self.root))
                return None if all(res.schema for res in package.resources) else "no schema"  # reading is judging
        except FrictionlessException as exc:
            return _reason(exc)

    def _table_schemas_read(self) -> list[tuple[str, str, dict]]:
        """(name, path, Table Schema) of each resource whose schema this package's reader reads (a file inside the
        folder, a regular file, strict JSON, of the shape `check_table_schema` and `check_read_alike` ask), for
        Frictionless to judge in the descriptor's Data Package version without opening a file itself; a schema
        the reader refuses is the reader's to name, more precisely."""
        out = []
        for res in self.descriptor.get("resources", []):
            try:
                out.append((res["name"], res["path"], self.table_schema(res["name"])))
            except ReadError:
                continue
        return out

    @property
    def version(self) -> str:
        return self.descriptor.get("version", "")

    @property
    def resources(self) -> list[str]:
        return [r["name"] for r in self.descriptor.get("resources", [])]

    @property
    def absent(self) -> list[str]:
        """The format's optional resources this release leaves out."""
        return [name for name in self.TRACKS.optional if name not in self.resources]

    @property
    def missing(self) -> list[str]:
        """The format's required resources this release leaves out (opened `partial` only)."""
        names = {res.get("name") for res in self.descriptor.get("resources", []) if isinstance(res, dict)}
        return [name for name in self.TRACKS.required if name not in names]

    def carries(self) -> str:
        """What a release of the format carries, as a refusal names it."""
        return (f"a {self.BLOCK} release carries {', '.join(self.TRACKS.required)} (and may carry "
                f"{', '.join(self.TRACKS.optional)})")

    def resource(self, name: str) -> dict:
        for res in self.descriptor.get("resources", []):
            if res["name"] == name:
                return res
        raise ReadError(self.root / "datapackage.json", f"no resource '{name}'", field="resources")

    def path(self, name: str) -> Path:
        return own_file(self.root, self.resource(name)["path"], f"resources.{name}.path")

    def table_schema(self, name: str) -> dict:
        if name not in self._table_schemas and name in self.absent:  # the format's own, for its key and columns
            self._table_schemas[name] = canonical_definitions(self.BLOCK)["resources"][name]
        if name not in self._table_schemas:
            schema = self.resource(name)["schema"]
            path = own_file(self.root, schema, f"resources.{name}.schema") if isinstance(schema, str) else \
                self.root / "datapackage.json"
            schema = read_json(path) if isinstance(schema, str) else schema
            check_table_schema(schema, path)
            check_read_alike(schema, path)
            self._table_schemas[name] = schema
        return self._table_schemas[name]

    def primary_key(self, name: str) -> list[str]:
        """The resource's primary key fields (Table Schema allows one name or a list)."""
        return names(self.table_schema(name).get("primaryKey", []))

    def arrow_schema(self, name: str) -> pa.Schema:
        typed = []
        for f in self.table_schema(name)["fields"]:
            try:
                typed.append((f["name"], arrow_type(f, self.schemas)))
            except (KeyError, TypeError, AttributeError, StopIteration) as exc:  # a node with no type Arrow can hold
                where = f.get("nestedSchema")  # (`true`, a type list of nulls): the field's nested schema, if any
                raise ReadError(self.root / "schemas" / where if isinstance(where, str) else self.root / "schemas",
                                f"cannot type field '{f.get('name')}' of resource '{name}' from its schemas: a node "
                                f"gives no JSON type Arrow can hold ({type(exc).__name__}: {exc})",
                                field=f.get("name")) from None
        return pa.schema(typed)

    def line(self, name: str, position: int) -> int:
        """The file line (1-based) of the table row at `position`."""
        lines = self.lines.get(name)
        return lines[position] if lines else position + 1

    def escapes(self) -> list[tuple[str, str, str]]:
        """(name, path, why) of each path that leaves the package folder (`paths.leaves`): a resource's path or
        schema, the vocabulary, the declared rules, or any file the release would publish that is a link to outside
        (rule INT3, checked before any file is read)."""
        from .listing import release_paths

        named = [(res.get("name", "?"), res.get(key), f"resource {key}") for res in self.descriptor.get("resources", [])
                 if isinstance(res, dict) for key in ("path", "schema")]
        named += [("", self.params.get(key), f"{key} path") for key in ("vocabulary", "rules")]
        out = [(name, path, f"{what} is {why}, outside the package folder") if why else
               (name, path, f"{what} goes through '..': name the file from the package folder down (the Hub "
                            "refuses such a path)")
               for name, path, what in named if isinstance(path, str)
               and ((why := leaves(self.root, path)) or ".." in Path(path).parts)]
        if out:  # the files to publish are listed from these paths: the first escape is reason enough
            return out
        return [("", path, f"is {why}, outside the package folder") for path in release_paths(self)
                if (why := leaves(self.root, path))]

    def refuse_escapes(self, consequence: str) -> None:
        """One line naming the first path that leaves the folder (`escapes`) and its `consequence`, for a command that
        reads nothing of such a release and whose answer would otherwise leave out what it did not read."""
        leaving = self.escapes()
        if leaving:
            _, path, why = leaving[0]
            raise ReadError(self.root / "datapackage.json", f"'{path}': {why}; {consequence}")

    @contextmanager
    def reading_ahead(self):
        """Within the block, every table is read in a thread, in the descriptor's order, when no path leaves the
        folder. Arrow parses without the GIL, so `validate` imports pandas and its rules meanwhile (the two took
        turns before). `table` waits for the thread and raises what stopped it; leaving the block stops it after
        the table it is reading."""
        try:
            contained = not self.escapes()
        except Exception:  # noqa: BLE001 - INT3 reports what it cannot judge; nothing is read ahead
            contained = False
        if contained:
            self._ahead = threading.Thread(target=self._read_every, name="read-ahead")
            self._ahead.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._settle()

    def _read_every(self) -> None:
        for name in self.resources:
            if self._stop.is_set():
                return
            try:
                self.table(name)
            except BaseException as exc:  # noqa: BLE001 - raised again where the table is asked for
                self._stopped = (name, exc)
                return

    def _settle(self) -> None:
        if self._ahead is not None and self._ahead is not threading.current_thread():
            self._ahead.join()
            self._ahead = None

    def table(self, name: str) -> pa.Table:
        self._settle()
        if name not in self._tables and (name in self.absent or name in self.missing):  # as the format types it
            self._tables[name] = absent_table(self, name)
        if name not in self._tables:
            if self._stopped and self._stopped[0] == name:
                raise self._stopped[1]
            self._tables[name] = self._read(name)
        return self._tables[name]

    def frame(self, name: str):
        """The resource as a pandas frame with Arrow-backed columns (nullable ints, lists, structs)."""
        import pandas as pd

        return self.table(name).to_pandas(types_mapper=pd.ArrowDtype)

    def _read(self, name: str) -> pa.Table:
        """The file's bytes, read once as Arrow parses them: hashed (rule INT1 holds what was read, not a later
        state of the file) and checked as UTF-8 (Arrow does not check it) block by block, beside the parse.
        A file that does not parse as typed, or is not UTF-8, is read again to say where."""
        path, schema = self.path(name), self.arrow_schema(name)
        options = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
        other = declared_hash(self.resource(name))[0]
        other = other if other != "sha256" and other in hashlib.algorithms_guaranteed else None
        with open_regular(path) as handle:
            source = _Hashed(handle, other)
            try:
                table = pajson.read_json(source, parse_options=options)
            except (pa.ArrowInvalid, pa.ArrowTypeError, _Unframed):
                table = None
        if source.head.startswith(codecs.BOM_UTF8):  # Arrow, Frictionless and datasets skip it; json.loads does not
            raise ReadError(path, BOM, line=1, field="encoding")
        if table is not None and source.utf8() and _as_read(table, source.lines):
            self.sha256[name], self.heads[name], self.sizes[name] = source.sha256.hexdigest(), source.head, source.size
            if other:
                self.digests[name] = source.other.hexdigest()
            return table
        data = read_bytes(path)
        self.sha256[name], self.heads[name] = hashlib.sha256(data).hexdigest(), data.split(b"\n", 1)[0]
        self.sizes[name] = len(data)
        if other:
            self.digests[name] = hashlib.new(other, data).hexdigest()
        check_utf8(data, path)
        parts, lines = [], []  # a slice of lines at a time: a slice Arrow reads as typed is taken as it reads it
        validate = None  # the records' JSON Schema validator, built for the first slice read line by line
        for first, piece in _slices(data):
            table = _typed(piece, options)
            if table is None:
                from .nested import row_validator

                validate = validate or row_validator(self, name)
                table, good_lines = self._line_by_line(name, path, piece, first, schema, validate)
            else:
                good_lines = range(first, first + table.num_rows)
            parts.append(table)
            lines += good_lines
            _refuse_past_limit(path, self.invalid_rows.get(name, ()))
        self.lines[name] = lines
        return pa.concat_tables(parts) if parts else schema.empty_table()

    def _line_by_line(self, name: str, path, piece: bytes, first: int, schema: pa.Schema,
                      validate) -> tuple[pa.Table, list]:
        """The records of the lines `piece` (the first is line `first`) that fit their types, and their lines; each
        other one set aside with its first problem (`invalid_rows`): its JSON Schema's, else the first field (in the
        schema's order) that does not fit its Arrow type. A record is set aside where the typed read refuses it (a key
        its schema lacks, no value at all, a value that does not fit its Arrow type), so a slice read line by line
        leaves a record's constraints (a required field's null, a nested pattern) to SCH2 and SCH3 as a typed slice
        does. Fields are judged a column at once where every value is of a type Arrow holds as it is (a record at a
        time, one bad record in a 10x source took 17 s)."""
        rows = objects(path, data=piece, first=first)
        names = set(schema.names)
        refused = [bool(row.keys() - names) or all(row.get(n) is None for n in names) for _, row in rows]
        problems = [None] * len(rows)
        for field in schema:
            at = [i for i, problem in enumerate(problems) if problem is None and not refused[i]]
            values = [rows[i][1].get(field.name) for i in at]
            if at and as_is(values, field.type) is None:
                for i, value in zip(at, values):
                    problems[i] = None if fits(value, field.type) else _field_problem(value, field) or {
                        "field": field.name, "message": f"Arrow reads it as {field.type} otherwise than it is written"}
        problems = [_against_schema(validate, row) or problem if problem or no else None
                    for problem, no, (_, row) in zip(problems, refused, rows)]
        good, lines = [], []
        for (line, row), problem in zip(rows, problems):
            if problem:
                self.invalid_rows.setdefault(name, []).append({"line": line, "row": row, **problem})
            else:
                good.append(row)
                lines.append(line)
        return pa.Table.from_pylist(good, schema=schema), lines


def _refuse_past_limit(path, aside: list[dict]) -> None:
    """A file with more than MAX_SET_ASIDE records that fit neither their types nor their schema is unreadable as a
    whole, one line naming the first (a million `{}` lines cost a minute and gigabytes to list)."""
    if len(aside) > MAX_SET_ASIDE:
        first = aside[0]
        raise ReadError(path, f"more than {MAX_SET_ASIDE:,} records fit neither their types nor their schema, read "
                              f"no further; the first: {first['message']}", line=first["line"],
                        field=first.get("field") or None)


_SLICE_BYTES, _SLICE_LINES = 1 << 20, MAX_SET_ASIDE


def _slices(data: bytes):
    """(first line number, bytes) of whole lines, about a megabyte and at most _SLICE_LINES at a time: a file Arrow
    could not read as typed is read again a slice at a time, so that one bad record sends only its slice line by
    line, and a file of bad records is given up (MAX_SET_ASIDE) a slice past its limit."""
    start, first = 0, 1
    while start < len(data):
        end = data.find(b"\n", start + _SLICE_BYTES)
        end = len(data) if end < 0 else end + 1
        newlines = np.flatnonzero(np.frombuffer(data, np.uint8, count=end - start, offset=start) == ord("\n"))
        if len(newlines) > _SLICE_LINES:
            end = start + int(newlines[_SLICE_LINES - 1]) + 1
        piece = data[start:end]
        yield first, piece
        start, first = end, first + piece.count(b"\n")


def _typed(piece: bytes, options) -> pa.Table | None:
    """The lines read as typed by Arrow, when it reads them as the whole file's read is taken (`_as_read`)."""
    lines = _Lines()
    lines.feed(piece)
    if not lines.whole():
        return None
    try:
        table = pajson.read_json(io.BytesIO(piece), parse_options=options)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return table if _as_read(table, lines) else None


def _as_read(table: pa.Table, lines: _Lines) -> bool:
    """Whether Arrow's typed read of `lines` stands as the release's: every line framed and a row (`_Lines`), no
    row without a value, no number beyond a float's exact integers; else they are read line by line."""
    return lines.whole() and table.num_rows == lines.count() and not _valueless_row(table) \
        and not _beyond_float(table)


def _against_schema(validate, row: dict) -> dict | None:
    """The first field of a record that breaks its JSON Schema, as {field, message}, or None: its first error
    on the shortest path. The validator's first error is taken when it is about the record itself (a missing
    required field, the commonest): no other comes before it, and collecting every error of a record that lacks
    them all made a million `{}` lines fifteen million errors."""
    try:
        first = _first_error(validate, row)
        errors = [first] if first is None or not first.instance_path else list(validate.iter_errors(row))
    except ValueError as exc:  # jsonschema-rs: nesting past its recursion limit, a lone surrogate in a key
        return {"field": "", "message": f"cannot be checked against its schema ({exc})"}
    if first is None:
        return None
    error = min(errors, key=lambda e: [str(p) for p in e.instance_path]) if len(errors) > 1 else errors[0]
    if error.instance_path:
        field = error.instance_path[0]
    else:
        quoted = _QUOTED.search(error.message)
        field = quoted.group(1) if quoted else ""
    return {"field": str(field), "message": schema_reason(error)[0]}


def _first_error(validate, row: dict):
    """The validator's first error on `row` (the first `iter_errors` yields, without the others), or None."""
    from jsonschema_rs import ValidationError

    try:
        validate.validate(row)
    except ValidationError as error:
        error.__traceback__ = None  # its traceback holds this frame, which holds it: a cycle, and the cyclic
        return error  # collector is paused for a run (collector.py)
    return None


# The Python types whose every value an Arrow column of the type holds as it is, once it takes them
_HELD_AS_IS = {pa.string(): {str, type(None)}, pa.int64(): {int, type(None)}, pa.float64(): {float, type(None)},
               pa.bool_(): {bool, type(None)}}


def _held_as_is(values: list, kind: pa.DataType) -> bool:
    """Whether every value is of a Python type an Arrow column of `kind` holds as it is, once it takes it: no
    value need be compared with what Arrow made of it (`_unfit` finds nothing in such a column)."""
    return set(map(type, values)) <= _HELD_AS_IS.get(kind, set())


def as_is(values: list, kind: pa.DataType) -> pa.Array | None:
    """The values as one Arrow column of `kind` when it holds every one as it is (`held`), else None; judged at once
    where every value is of a Python type such a column holds as it is (`_held_as_is`). The reader takes a field's
    values so where it can (any other field is judged value by value, `_field_problem`), and so do the set-aside
    records' columns."""
    try:
        column = pa.array(values, type=kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeEncodeError):
        return None
    return column if _held_as_is(values, kind) or all(map(held, values, column.to_pylist())) else None


_NOT_TEXT = (pa.int64(), pa.float64(), pa.bool_())


def fits(value, kind: pa.DataType) -> bool:
    """Whether an Arrow column of `kind` holds `value` as it is (`held`): JSON's own types decide where that is
    certain (text is never a number or boolean, ASCII text is a string), Arrow the rest."""
    if value is None or (type(value) is str and value.isascii() and kind == pa.string()):
        return True
    if type(value) is str and kind in _NOT_TEXT:
        return False
    try:
        return held(value, pa.array([value], type=kind).to_pylist()[0])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeEncodeError):
        return False


def held(value, as_held) -> bool:
    """Whether Arrow holds `value` as it is: it truncates 1.5 to the integer 1, reads true as the number 1.0 and
    drops a key its struct lacks, and a rule would judge what the record does not say (a cutoff of 1)."""
    if isinstance(value, bool) or isinstance(as_held, bool):
        return type(value) is type(as_held) and value == as_held
    if isinstance(value, dict):
        return isinstance(as_held, dict) and set(value) <= set(as_held) and all(
            held(value.get(k), v) for k, v in as_held.items())
    if isinstance(value, list):
        return isinstance(as_held, list) and len(value) == len(as_held) and all(map(held, value, as_held))
    return value == as_held


def _field_problem(value, field: pa.Field) -> dict | None:
    """How a record's value of `field` does not fit its Arrow type, as {field, message}, or None."""
    if unfit := _unfit(value, field.type, field.name):
        return {"field": field.name, "message": unfit}
    try:
        pa.array([value], type=field.type)
    except UnicodeEncodeError as exc:  # JSON's \ud800 escape reads as a lone surrogate, which no UTF-8 holds
        return {"field": field.name, "message": lone_surrogate(exc)}
    except OverflowError:
        return {"field": field.name, "message": f"an integer beyond ±2^63, which no {field.type} holds: Arrow, "
                "pandas and datasets cannot read it, Frictionless reads it whole; write it as text"}
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        text = pa.types.is_list(field.type) and pa.types.is_string(field.type.value_type)
        return {"field": field.name, "message": f"does not fit {field.type}: {exc}" + (
            " (an array field's items are text unless its nestedSchema types them)" if text else "")}
    return None


_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")  # the first quoted name of a schema error's message


def _unfit(value, kind: pa.DataType, path: str) -> str | None:
    """What Arrow would read otherwise than `value` holds, without an error, at any depth: an object key its struct
    type has no member for (a nested schema may allow more properties than it declares; Arrow drops them, and
    `datasets` cannot cast them away), or an integer beyond ±2^53 read as a 64-bit float (the nearest one)."""
    if isinstance(value, dict) and pa.types.is_struct(kind):
        for key, member in value.items():
            index = kind.get_field_index(key)
            found = f"holds '{path}.{key}', which its nested schema does not declare: the typed tables would drop it " \
                    "and datasets.load_dataset fails on it (declare it, or leave it out)" if index < 0 else \
                _unfit(member, kind.field(index).type, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list) and pa.types.is_list(kind):
        return next((found for item in value if (found := _unfit(item, kind.value_type, path))), None)
    elif pa.types.is_floating(kind) and isinstance(value, int) and abs(value) > FLOAT_EXACT:
        where = "" if "." not in path else f"'{path}' holds "
        return f"{where}an integer beyond ±2^53, where a 64-bit float (a number to Arrow, pandas, datasets) is not " \
               "exact but Frictionless is: declare it integer"
    return None
