"""Which format a release folder is in, read from its descriptor's format block."""
from __future__ import annotations

from pathlib import Path

from .errors import ReadError
from .schemas import read_json

FORMATS = ("realcompanion", "groupassist")


def format_of(root) -> str:
    """The format whose block the descriptor carries (`realcompanion` when it carries none, so that
    opening the release reports the missing block)."""
    descriptor = Path(root) / "datapackage.json"
    if not descriptor.is_file():
        raise ReadError(descriptor, "no such file: not a release folder")
    found = read_json(descriptor)
    blocks = [name for name in FORMATS if isinstance(found, dict) and isinstance(found.get(name), dict)]
    if len(blocks) > 1:
        raise ReadError(descriptor, f"carries more than one format block ({', '.join(blocks)})")
    return blocks[0] if blocks else FORMATS[0]
