"""JSON Lines as people write them: one object per line, every fault named by file and line."""
from __future__ import annotations

from pathlib import Path

from .errors import ReadError
from .files import decode, loads, read_bytes


def objects(path, blank_lines_allowed: bool = False, data: bytes | None = None, first: int = 1) -> list[tuple[int, dict]]:
    """(line number, object) for every line of `path` (or of `data`, its bytes already read, whose first line is line
    `first` of the file).

    A blank line is skipped only when allowed; each line is strict JSON (`files.loads`).
    """
    path = Path(path)
    text = decode(read_bytes(path) if data is None else data, path)
    lines = text.split("\n")  # not splitlines(): U+2028 and friends may stand inside a JSON string
    if lines[-1] == "":
        lines.pop()
    out = []
    for number, line in enumerate(lines, first):
        if not line.strip():
            if blank_lines_allowed:
                continue
            raise ReadError(path, "empty line", line=number)
        row = loads(line, path, line=number)
        if not isinstance(row, dict):
            raise ReadError(path, "a line must hold one JSON object", line=number)
        out.append((number, row))
    return out
