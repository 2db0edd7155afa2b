"""Reading the files a command is given: regular files only, never blocking, strict JSON, one line per fault.

A FIFO, socket or device in place of a file would block or stream forever, so a
file is opened without blocking and its type is checked on the open handle before
a byte is read. JSON is read strictly (RFC 8259 with I-JSON's unique keys): a
repeated key, `NaN` or `Infinity`, or nesting deeper than Python can parse is a
`ReadError` naming the file, the line and, where there is one, the field.
"""
from __future__ import annotations

import json
import math
import os
import stat
import sys
from pathlib import Path

from .errors import ReadError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_bytes(path, limit: int = -1) -> bytes:
    """The bytes of the regular file at `path` (its first `limit` bytes when given)."""
    path = Path(path)
    with open_regular(path) as handle:
        try:
            return handle.read(limit)
        except OSError as exc:
            raise ReadError(path, f"cannot read ({exc.strerror or exc})") from None


def open_regular(path):
    """The regular file at `path`, open for reading in binary; anything else is refused before a byte is read."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ReadError(path, "no such file") from None
    except OSError as exc:  # a socket cannot be opened at all (ENXIO): named by its type, read without opening it
        raise ReadError(path, _unopened(path) or f"cannot open ({exc.strerror or exc})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ReadError(path, f"is {kind_of(mode)}, not a regular file")
    return os.fdopen(fd, "rb")


def not_regular(path) -> str | None:
    """What `path` is when it is no regular file (`is a FIFO (named pipe), not a regular file`, a link that leads
    nowhere), else None: judged without opening it, for a file listed rather than read."""
    if os.path.lexists(path) and not os.path.exists(path):
        return "is a link that leads to no file"
    return _unopened(Path(path))


def _unopened(path: Path) -> str | None:
    """What a path that could not be opened is, when it is no regular file (`is a socket, ...`)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"is {kind_of(mode)}, not a regular file"


def decode(data: bytes, path) -> str:
    """`data` as UTF-8 text; invalid bytes are an encoding error naming the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadError(path, f"not UTF-8: {exc.reason} (byte {data[exc.start:exc.start + 1]!r})", line=line,
                        field="encoding") from None


def read_text(path) -> str:
    return decode(read_bytes(path), path)


class _Refused(ValueError):
    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _unique_keys(pairs):
    obj = dict(pairs)  # in C; the pairs are walked in Python only to name the first key that repeats
    if len(obj) < len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"duplicate key '{key}' in one object", field=key)
            seen.add(key)
    return obj


def _no_constant(name):
    raise _Refused(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"{text[:20]} overflows a 64-bit float")
    return value


_STRICT = {"object_pairs_hook": _unique_keys, "parse_constant": _no_constant, "parse_float": _finite}
_DECODER = json.JSONDecoder(**_STRICT)


# a data file's first line, a descriptor or a schema saved by an editor that writes one: the same line for each
BOM = "starts with a UTF-8 byte order mark, which JSON text must not carry (RFC 8259 §8.1): save the file as UTF-8 without one"


def loads(text: str, path, line: int | None = None):
    """Strict JSON: unique keys, finite numbers, nesting Python can hold, no byte order mark."""
    if text.startswith("\ufeff"):
        raise ReadError(path, BOM, line=line or 1, field="encoding")
    try:  # one decoder for every line (json.loads builds one a call, 40% of the time)
        return _DECODER.decode(text)
    except _Refused as exc:
        raise ReadError(path, str(exc), line=line, field=exc.field or _holding(text)) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} " if line is None else ""
        at = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at" read "at at column"
        raise ReadError(path, f"malformed JSON ({exc.msg}{at} {where}column {exc.colno})", line=line) from None
    except ValueError as exc:  # an integer longer than Python reads (sys.get_int_max_str_digits), as Frictionless
        raise ReadError(path, f"an integer too long for Python's JSON reader, and so for Frictionless "
                              f"({str(exc).split(';')[0]})", line=line, field=_holding(text)) from None
    except RecursionError:
        raise ReadError(path, "JSON nested too deeply to read", line=line) from None


def strict_json(text: str, prefix: bool = False):
    """`text` read as strictly as `loads` reads a file, for text no file holds (an endpoint's answer); with `prefix`,
    the value `text` starts with, whatever follows it (a model's verdict, then its prose). Any fault is a
    `ValueError` saying what it is: an answer holding a key twice was read as its last value, a verdict guessed."""
    try:
        return _DECODER.raw_decode(text)[0] if prefix else _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise ValueError(exc.msg) from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    except ValueError as exc:  # a key twice, NaN, an overflowing float or an integer longer than Python reads
        raise ValueError(str(exc).split(";")[0]) from None


def _holding(text: str) -> str | None:
    """The top-level key whose value holds NaN, an infinity or a number no 64-bit float holds (or an integer too
    long to read), for the error line to name: the text read again, leniently, each such number as infinity."""
    longest = sys.get_int_max_str_digits()

    def holds(value) -> bool:
        value = list(value.values()) if isinstance(value, dict) else value
        return any(map(holds, value)) if isinstance(value, list) else isinstance(value, float) and not math.isfinite(value)
    try:
        obj = json.loads(text, parse_int=lambda digits: math.inf if len(digits.lstrip("-")) > longest else 0)
        return next((key for key, value in obj.items() if holds(value)), None) if isinstance(obj, dict) else None
    except (ValueError, RecursionError):
        return None


def read_json(path):
    """A JSON file, strictly read; one that cannot be read makes the command's input unreadable."""
    return unicode_only(loads(read_text(path), path), path)


def lone_surrogate(exc: UnicodeEncodeError) -> str:
    """What a text holding a lone surrogate (JSON's or YAML's `\\ud800` escape) is, from the error of encoding it."""
    return (f"holds a lone surrogate ({exc.object[exc.start]!r} at character {exc.start}), which is not Unicode "
            "text: write the whole pair or drop it")


def unicode_only(document, path):
    """`document` (a file's JSON or YAML, read) if every key and text in it is Unicode, else a ReadError naming the
    first one holding a lone surrogate, as `keys.0.name`: a descriptor's title holding one passed validation, then
    `stamp` stopped writing it, and `cite` rendering it, each with a traceback."""
    stack = [((), document)]
    while stack:
        at, value = stack.pop()
        texts = [(at, value)] if isinstance(value, str) else [(at + (key,), key) for key in value
                                                              if isinstance(key, str)] if isinstance(value, dict) else []
        for where, text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ReadError(path, lone_surrogate(exc), field=".".join(map(str, where)) or None) from None
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        stack += reversed([(at + (key,), item) for key, item in items])
    return document


YAML_NODES = 100_000  # the most values a YAML file (a rules file, CITATION.cff) may expand to, an alias counted each
# time it is used


def yaml_loads(text: str, path):
    """YAML read safely and as strictly as `loads` reads JSON: no key twice in one mapping (YAML forbids it; PyYAML
    keeps the last value, which hides the first: an `expression` or a `title` written twice), and no more than
    YAML_NODES values once aliases are expanded. Aliases are shared nodes: a kilobyte of nested ones expands to
    billions of values, which every reader that walks the data (a schema check, a renderer) visits; CITATION.cff's
    took 23 GB before the system killed `cite`. Any fault is a ReadError naming `path`."""
    import yaml

    class Strict(yaml.SafeLoader):
        def compose_document(self):
            node = super().compose_document()
            if _expanded(node) > YAML_NODES:
                raise ReadError(path, f"expands to more than {YAML_NODES:,} values (an alias counts each time it "
                                "is used)")
            return node

        def construct_mapping(self, node, deep=False):
            nodes = [key for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"]  # a `<<: *base` merge
            keys = [self.construct_object(key, deep=deep) for key in nodes]  # key's keys may be overridden
            for n, key in enumerate(keys):
                if key in keys[:n]:
                    raise ReadError(path, f"duplicate key '{key}' in one object", line=nodes[n].start_mark.line + 1,
                                    field=key)
            return super().construct_mapping(node, deep)

    try:
        return unicode_only(yaml.load(text, Loader=Strict), path)  # noqa: S506 - a SafeLoader
    except (yaml.YAMLError, ValueError, RecursionError) as exc:  # a date YAML cannot construct is a ValueError
        raise ReadError(path, f"not valid YAML ({str(exc).splitlines()[0]})") from None


def _expanded(node) -> int:
    """How many values a composed YAML document holds, an alias counted each time it is used, counted only to just
    past YAML_NODES."""
    stack, total = [node], 0
    while stack and total <= YAML_NODES:
        node = stack.pop()
        total += 1
        if isinstance(node.value, list):
            stack += [part for item in node.value for part in (item if isinstance(item, tuple) else (item,))]
    return total


def write_own(root, name: str, text: str) -> None:
    """Write `text` to `name`, a file of the release at `root` (datapackage.json, a document): one that is a link out
    of the folder is refused (`paths.own_file`), not followed; `card --write`, `stamp --force` and the like rewrote
    the file it linked to, wherever it lay. Written whole or not at all (`writing`)."""
    from .paths import own_file
    from .writing import write_text

    write_text(own_file(root, name), text)


def output_file(path, release=None, reads=()) -> Path:
    """`path` if a file can be written there (its folder exists; it is not a folder), checked before any work;
    never into `release`, the folder being read, nor over the command's other inputs `reads` (`_into`)."""
    path = _into(release, path, reads)
    if path.is_dir():
        raise ReadError(path, "is a directory: give a file path to write")
    if not path.parent.is_dir():
        raise ReadError(path, f"cannot write: folder {path.parent} does not exist")
    if path.exists() and not path.is_file():
        raise ReadError(path, f"cannot write: is {kind_of(path.stat().st_mode)}")
    return path


def output_folder(path, release=None) -> Path:
    """`path` if a folder can be written there: an existing folder, or a new one (parents made as needed); never
    inside `release`'s data/ or schemas/ (`_into`), nor `release`'s folder itself, where a report's pages or an
    evaluation's files would lie among the release's own."""
    path = _into(release, path)
    if release is not None and path.resolve() == Path(release).resolve():
        raise ReadError(path, "is the release being read: give the output a folder of its own")
    if path.exists() and not path.is_dir():
        raise ReadError(path, "exists and is not a directory: give a folder to write into")
    return path


def empty_folder(path) -> Path:
    """`path` if a new release can be written there: a new folder or an empty one. One that holds anything is
    refused before any work: the generator never writes over files it did not make (a user's edited release), nor
    through a link one of them is (`OUT/data/source.jsonl` linking outside)."""
    path = output_folder(path)
    if path.is_dir() and any(path.iterdir()):
        raise ReadError(path, "is not empty: a release is generated into a new or empty folder, never over files")
    return path


def _into(release, path, reads=()) -> Path:
    """`path`, refused when it is one of the documents (descriptor, card, datasheet, citation, changelog, ...) or
    lies under data/ or schemas/ of the release folder `release` (None: no release is read), or is one of the files
    `reads` (None: an option not given): a command never writes to the files it reads, nor over a file `publish`
    uploads."""
    from .names import DOCUMENTS, OPTIONAL_DOCUMENTS

    path = Path(path)
    target = path.resolve()
    if release is not None:
        root = Path(release).resolve()
        if target in {root / d for d in (*DOCUMENTS, *OPTIONAL_DOCUMENTS)} or any(
                target.is_relative_to(root / p) for p in ("data", "schemas")):
            raise ReadError(path, "refusing to write into the release being read (its data/, schemas/ or documents)")
    for read in filter(None, reads):
        if target == Path(read).resolve():
            raise ReadError(path, f"refusing to write over an input of this command ({read})")
    return path
