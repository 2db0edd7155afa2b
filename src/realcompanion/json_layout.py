"""`json.dumps(obj, indent=2, ensure_ascii=False)` made in pieces, fast enough for a report of 100,000 rows.

Python's json module lays out an indented document with its pure-Python encoder, value by value: a score report's
per-verdict block (108,000 objects of nine fields) took seconds. Here a container that holds no container (a row of
scores, a list of ids, a table of means by group) is encoded whole by json's C encoder, given the separators its
indentation needs: `",\\n" + indent` between items and `": "` after a key, then wrapped in the newline and indent
that open and close it. Only the containers around those are walked in Python. Every value is encoded by json
itself, so the text is the same, byte for byte (tests/test_json_layout.py compares the two on awkward values).
"""
from __future__ import annotations

import json
from collections.abc import Iterator

INDENT = 2


class Rows:
    """A list of JSON objects, a row each, kept as its columns ({name: values}) and made into objects one at a time
    as it is read or written: a report's row per verdict (100,000 objects of nine fields) held about 70 MB as dicts.
    It is laid out as the list of its rows. (No abstract base class: `pieces` asks every value whether it is one.)"""

    def __init__(self, columns: dict[str, list]):
        self.names, self.columns = list(columns), list(columns.values())

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [dict(zip(self.names, row)) for row in zip(*(column[k] for column in self.columns))]
        return dict(zip(self.names, (column[k] for column in self.columns)))

    def __iter__(self) -> Iterator[dict]:
        return (dict(zip(self.names, row)) for row in zip(*self.columns))

    def flat(self) -> bool:
        """Every row an object with text keys holding no container (laid out by `_flat_rows`)."""
        return all(isinstance(name, str) for name in self.names) and \
            not any(isinstance(v, _CONTAINERS) for column in self.columns for v in column)


_CONTAINERS = (dict, list, tuple, Rows)


def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The encoder of a container holding no container, `depth` levels in: its items each on a line of their own."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",\n" + " " * (INDENT * (depth + 1)), ": "))


def pieces(obj, depth: int = 0, encoders: dict | None = None) -> Iterator[str]:
    """The text of `json.dumps(obj, indent=2, ensure_ascii=False)`, in pieces to write as they come."""
    encoders = {} if encoders is None else encoders
    if isinstance(obj, Rows) and not obj:
        obj = []
    if isinstance(obj, Rows) and obj.flat():
        yield from _flat_rows(obj, depth, encoders)
        return
    is_dict = isinstance(obj, dict)
    values = obj.values() if is_dict else obj if isinstance(obj, (list, tuple, Rows)) else ()
    if not any(isinstance(v, _CONTAINERS) for v in values):  # a scalar, or an empty or flat container
        yield _flat(obj, bool(values), depth, encoders)
        return
    if is_dict and not all(isinstance(k, str) for k in obj):  # keys json must first turn into text: json's own
        # layout, indented to this depth (a JSON string holds no raw newline, so every newline is the layout's)
        yield json.dumps(obj, indent=INDENT, ensure_ascii=False).replace("\n", "\n" + " " * (INDENT * depth))
        return
    inner, outer = "\n" + " " * (INDENT * (depth + 1)), "\n" + " " * (INDENT * depth)
    yield "{" if is_dict else "["
    for k, item in enumerate(obj.items() if is_dict else obj):
        yield ("," if k else "") + inner
        if is_dict:
            key, item = item
            yield json.encoder.encode_basestring(key) + ": "
        yield from pieces(item, depth + 1, encoders)
    yield outer + ("}" if is_dict else "]")


def _flat(obj, filled: bool, depth: int, encoders: dict) -> str:
    """The text of a scalar, or of a container holding no container (`filled`: not empty), `depth` levels in."""
    if depth not in encoders:
        encoders[depth] = _flat_encoder(depth)
    text = encoders[depth].encode(obj)
    if filled:
        text = f"{text[0]}\n{' ' * (INDENT * (depth + 1))}{text[1:-1]}\n{' ' * (INDENT * depth)}{text[-1]}"
    return text


def _flat_rows(rows: Rows, depth: int, encoders: dict) -> Iterator[str]:
    """A non-empty `Rows` whose rows hold no container, as `pieces` lays out the list of them, without asking each
    value of each row whether it is a container (a third of the time of a report of 100,000 rows)."""
    inner = "\n" + " " * (INDENT * (depth + 1))
    yield "["
    for k, row in enumerate(rows):
        yield ("," if k else "") + inner + _flat(row, True, depth + 1, encoders)
    yield "\n" + " " * (INDENT * depth) + "]"
