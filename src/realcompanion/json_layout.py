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
_CONTAINERS = (dict, list, tuple)


def _flat_encoder(depth: int) -> json.JSONEncoder:
    """The encoder of a container holding no container, `depth` levels in: its items each on a line of their own."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",\n" + " " * (INDENT * (depth + 1)), ": "))


def pieces(obj, depth: int = 0, encoders: dict | None = None) -> Iterator[str]:
    """The text of `json.dumps(obj, indent=2, ensure_ascii=False)`, in pieces to write as they come."""
    encoders = {} if encoders is None else encoders
    is_dict = isinstance(obj, dict)
    values = obj.values() if is_dict else obj if isinstance(obj, (list, tuple)) else ()
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
