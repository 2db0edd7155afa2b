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
from collections.abc import Iterator, Sequence

INDENT = 2


class Rows(Sequence):
    """A list of JSON objects, a row each, kept as its columns ({name: values}) and made into objects one at a time
    as it is read or written: a report's row per verdict (100,000 objects of nine fields) held about 70 MB as dicts.
    It is laid out as the list of its rows."""

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


_CONTAINERS = (dict, list, tuple, Rows)


def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The encoder of a container holding no container, `depth` levels in: its items each on a line of their own."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",\n" + " " * (INDENT * (depth + 1)), ": "))


def pieces(obj, depth: int = 0, encoders: dict | None = None) -> Iterator[str]:
    """The text of `json.dumps(obj, indent=2, ensure_ascii=False)`, in pieces to write as they come."""
    encoders = {} if encoders is None else encoders
    if isinstance(obj, Rows) and not obj:
        obj = []
    is_dict = isinstance(obj, dict)
    values = obj.values() if is_dict else obj if isinstance(obj, (list, tuple, Rows)) else ()
    if not any(isinstance(v, _CONTAINERS) for v in values):  # a scalar, or an empty or flat container
        if depth not in encoders:
            encoders[depth] = _flat_encoder(depth)
        text = encoders[depth].encode(obj)
        if values:
            text = f"{text[0]}\n{' ' * (INDENT * (depth + 1))}{text[1:-1]}\n{' ' * (INDENT * depth)}{text[-1]}"
        yield text
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
