"""JSON Lines as people write them: one object per line, every fault named by file and line."""
from __future__ import annotations

from pathlib import Path

from .errors import ReadError
from .files import decode, loads, read_bytes, strict_json


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


def whole_lines(path) -> tuple[bytes, int | None]:
    """The bytes of `path` without a last line that a run writing it line by line left torn, and that line's number
    (None: the file ends whole). Torn: cut mid-line (no newline ends it, and it is not one JSON value) or holding
    zero bytes (a file system that grew the file before the crash and never wrote the bytes). A last line without
    its newline that reads whole is kept; a bad line before the last is no crash's doing and stays for the reader."""
    data = read_bytes(path)
    body = data.rstrip(b"\x00")
    ended = body.endswith(b"\n")
    start = body.rfind(b"\n", 0, len(body) - ended) + 1
    last = body[start:len(body) - ended]
    number = body.count(b"\n", 0, start) + 1
    zeros = len(body) < len(data)
    if zeros and ended:  # zero bytes after the last newline: the next line's bytes were lost
        return body, number + 1
    if zeros or b"\x00" in last:
        return body[:start], number
    if ended or not last.strip():
        return body, None
    try:
        strict_json(last.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return body[:start], number
    return body + b"\n", None
