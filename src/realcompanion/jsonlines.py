"""JSON Lines as people write them: one object per line, every fault named by file and line."""
from __future__ import annotations

from pathlib import Path

from .errors import ReadError
from .files import decode, loads, read_bytes, strict_json


def objects(path, blank_lines_allowed: bool = False, data: bytes | None = None, first: int = 1,
            kept=None) -> list[tuple[int, dict]]:
    """(line number, object) for every line of `path` (or of `data`, its bytes already read, whose first line is line
    `first` of the file); with `kept`, (line number, `kept(object)`), each object passed to it as it is read (a
    reader of 100,000 rows that keeps less of each than the object holds).

    A blank line is skipped only when allowed; each line is strict JSON (`files.loads`).
    """
    path = Path(path)
    text = decode(read_bytes(path) if data is None else data, path)
    out = []
    for number, line in enumerate(_lines(text), first):
        if not line.strip():
            if blank_lines_allowed:
                continue
            raise ReadError(path, "empty line", line=number)
        row = loads(line, path, line=number)
        if not isinstance(row, dict):
            raise ReadError(path, "a line must hold one JSON object", line=number)
        out.append((number, row if kept is None else kept(row)))
    return out


def _lines(text: str):
    """The lines of `text` as `text.split("\\n")` gives them, without a last empty one, cut one at a time (the list of
    a file's lines held a copy of its text). Not splitlines(): U+2028 and friends may stand inside a JSON string."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    if start < len(text):
        yield text[start:]


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
