"""JSON Lines as people write them: one object per line, every fault named by file and line."""
from __future__ import annotations

import json
from pathlib import Path

from .errors import ReadError


def objects(path, blank_lines_allowed: bool = False) -> list[tuple[int, dict]]:
    """(line number, object) for every line of `path`; a blank line is skipped only when allowed."""
    path = Path(path)
    if not path.is_file():
        raise ReadError(path, "no such file")
    out = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    if blank_lines_allowed:
                        continue
                    raise ReadError(path, "empty line", line=number)
                try:
                    row = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ReadError(path, f"malformed JSON ({exc.msg} at column {exc.colno})", line=number) from None
                if not isinstance(row, dict):
                    raise ReadError(path, "a line must hold one JSON object", line=number)
                out.append((number, row))
    except UnicodeDecodeError as exc:
        raise ReadError(path, f"not UTF-8 ({exc.reason})") from None
    return out
