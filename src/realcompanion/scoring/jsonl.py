"""Reading the JSON Lines files users bring (runs, verdicts, replies, predictions), one clear line per fault.

A fault is a `ReadError` naming the file, the line and the field; the
command line prints it as one line and exits 2. Field checks are small
declarations - (name, accepted types, required) - read by `field`.
"""
from __future__ import annotations

import json
import sys

from ..jsonlines import objects
from ..release import ReadError


def rows(path, data: bytes | None = None, kept=None) -> list[tuple[int, dict]]:
    """(line number, object) for every non-blank line of `path` (of `data`, its bytes, when given); with `kept`, each
    object as `kept(object)` returns it (`jsonlines.objects`)."""
    return objects(path, blank_lines_allowed=True, data=data, kept=kept)


def problem(value, kinds: tuple, choices=None) -> str | None:
    """Why `value` is not one of `kinds` (a bool is not an int) among `choices`; None when it is."""
    if value is None:
        return "missing"
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        return f"expected {' or '.join(k.__name__ for k in kinds)}, got {json.dumps(value)[:60]}"
    if float in kinds and isinstance(value, int) and abs(value) > sys.float_info.max:
        return f"{str(value)[:20]}... overflows a 64-bit float"
    if choices is not None and value not in choices:
        return f"{json.dumps(value)[:60]} is not one of {sorted(choices)}"
    return None


def field(row: dict, name: str, kinds: tuple, path, line: int, required: bool = True, choices=None):
    """row[name], checked with `problem`; None when absent and not required."""
    value = row.get(name)
    if value is None and not required:
        return None
    why = problem(value, kinds, choices)
    if why:
        raise ReadError(path, why if value is not None else "missing field", line=line, field=name)
    return value


def condition(row: dict, path, line: int, choices=None) -> str:
    """row["condition"]: the name a reply or verdict is pooled under. An empty or blank name pools a verdict under
    no condition anyone can name (nor tell from a missing one in a terminal table): refused, naming the row."""
    value = field(row, "condition", (str,), path, line, choices=choices)
    if not value.strip():
        raise ReadError(path, "condition is empty: name the system or setting judged", line=line, field="condition")
    return value


def known_item(row: dict, track, path, line: int):
    """The track's item named by row["item_id"]; an unknown id is an error naming the file and line."""
    item_id = field(row, "item_id", (str,), path, line)
    if item_id not in track.by_id:
        raise ReadError(path, f"unknown item_id '{item_id}' (not in the {track.name} track)", line=line,
                        field="item_id")
    return track.by_id[item_id]
