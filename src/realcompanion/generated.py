"""Files with generated parts, and the one check-or-write contract of the commands that keep them current.

A Markdown document (README.md, DATASHEET.md) is hand-written prose with blocks
between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`, each rendered
from the release's files; `realcompanion schemas`, `card` and `datasheet` check
(exit 1 listing what is stale) or `--write` their generated parts the same way.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from .names import COMMAND

# a document saved with CRLF line ends keeps them: its blocks are found, and rendered with its line end
_BLOCK = re.compile(r"(?P<start><!-- generated:(?P<name>[\w-]+) -->(?P<eol>\r?\n))(?P<body>.*?)"
                    r"(?P<end><!-- /generated:(?P=name) -->)", re.S)


def fill_blocks(text: str, renderers: dict[str, Callable[[], str]]) -> tuple[str, list[str]]:
    """`text` with every generated block re-rendered, and the blocks that changed, are unknown or are missing.

    Unknown and missing blocks cannot be fixed by rewriting, so they stay listed after a write.
    """
    stale, seen = [], set()

    def replace(match):
        name = match["name"]
        seen.add(name)
        if name not in renderers:
            stale.append(f"{name} (unknown block)")
            return match.group(0)
        body = (renderers[name]().rstrip("\n") + "\n").replace("\n", match["eol"])
        if body != match["body"]:
            stale.append(name)
        return match["start"] + body + match["end"]

    filled = _BLOCK.sub(replace, text)
    return filled, stale + [f"{name} (markers missing)" for name in renderers if name not in seen]


def by_hand(parts: list[str]) -> list[str]:
    """The stale parts no rewrite fixes, a block whose markers are missing or that nothing renders: still stale after
    a write, they are left to whoever edits the document."""
    return [part for part in parts if part.endswith(("(markers missing)", "(unknown block)"))]


def markdown_table(rows: list[dict]) -> str:
    """A GitHub-flavoured Markdown table (cells with `|` escaped)."""
    import pandas as pd

    frame = pd.DataFrame(rows).map(lambda v: str(v).replace("|", "\\|") if isinstance(v, str) else v)
    return frame.to_markdown(index=False)


def block_body(text: str, name: str) -> str:
    """The current body of one generated block ('' when the block is absent)."""
    return next((m["body"] for m in _BLOCK.finditer(text) if m["name"] == name), "")


def add_mode(p, written: str) -> None:
    """The arguments of a check-or-write command: PATH, then --check (the default) or --write."""
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 listing each stale part (the default)")
    mode.add_argument("--write", action="store_true", help=f"regenerate {written}")


def check_or_write(args, stale, write) -> int:
    """Print what `write` rewrote (with --write), then what is still stale; exit 1 while anything is. A part `write`
    cannot rewrite (`by_hand`) is listed as stale only."""
    if args.write:
        written = write(args.path)
        left = by_hand(written)
        for part in [part for part in written if part not in left]:
            print(f"rewrote: {part}")
    problems = stale(args.path)
    for part in problems:
        print(f"stale: {part}")
    if problems and not args.write:
        print(f"run `{COMMAND}` to bring every generated part up to date")
    return 1 if problems else 0
