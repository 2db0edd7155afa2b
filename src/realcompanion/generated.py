"""Files with generated parts, and the one check-or-write contract of the commands that keep them current.

A Markdown document (README.md, DATASHEET.md) is hand-written prose with blocks
between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`, each rendered
from the release's files; `realcompanion schemas`, `card` and `datasheet` check
(exit 1 listing what is stale) or `--write` their generated parts the same way.

A marker is a marker where a Markdown parser sees one (markdown-it-py: CommonMark
with GitHub's tables, what the Hub and GitHub render): a line of an HTML block at
the top level of the document that reads exactly the marker. The same text in a
fenced or indented code block, in inline code, a quote or a list is prose, so a
document can show its own marker syntax; a card's YAML header is skipped as the
Hub skips it. A block is a start marker and the first end marker of its name
after it; rewriting replaces the lines between the two and nothing else, in the
start marker's line end (a document saved with CRLF keeps CRLF). A code fence a
hand edit left open inside a block hides the markers after it, as it hides them
from every renderer: those blocks are listed as missing, for whoever edits the
document to mend. A block's body is a table (`markdown_table`) with a sentence or
two around it, written where its numbers are computed; a template engine would add
a layer and a dependency without making one of them clearer, so none renders them.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

from .names import COMMAND

_MARKER = re.compile(r"<!-- (?P<closing>/?)generated:(?P<name>[\w-]+) -->")


@dataclass(frozen=True)
class Marker:
    line: int  # index of its line in `lines_of(text)`
    name: str
    closing: bool


@dataclass(frozen=True)
class Block:
    name: str
    start: int  # the line of its start marker
    end: int  # the line of its end marker


def lines_of(text: str) -> list[str]:
    """`text`'s lines with their line ends, split where a Markdown parser splits them (LF, CRLF, CR)."""
    return io.StringIO(text, newline="").readlines()


@cache
def _parser():
    """The Markdown parser `markers` reads the block structure with: a marker is an HTML block, so the text inside
    paragraphs, headings and table cells is left unparsed (markdown-it's `inline` core rule off: it parses nothing
    the blocks depend on; README.md and DATASHEET.md of the shipped release parse in 0.031 s instead of 0.053 s,
    validators/speed.py)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


def markers(text: str) -> list[Marker]:
    """Every start and end marker of `text` that the Markdown parser sees as one, in order."""
    from huggingface_hub.repocard import REGEX_YAML_BLOCK

    lines = lines_of(text)
    header = REGEX_YAML_BLOCK.match(text)
    skip = len(lines_of(header[0])) if header else 0
    found = []
    for token in _parser().parse("".join(lines[skip:])):
        if token.type == "html_block" and token.level == 0 and token.map:
            for line in range(skip + token.map[0], skip + token.map[1]):
                marker = _MARKER.fullmatch(lines[line].rstrip("\r\n"))
                if marker:
                    found.append(Marker(line, marker["name"], bool(marker["closing"])))
    return found


def blocks(text: str) -> list[Block]:
    """The generated blocks of `text`, in order: each start marker with the first end marker of its name after it
    (markers between the two are the block's body); a start marker never closed is no block."""
    seen, found, after = markers(text), [], -1
    for i, start in enumerate(seen):
        if start.closing or start.line <= after:
            continue
        end = next((m for m in seen[i + 1:] if m.closing and m.name == start.name), None)
        if end is not None:
            found.append(Block(start.name, start.line, end.line))
            after = end.line
    return found


def fill_blocks(text: str, renderers: dict[str, Callable[[], str]]) -> tuple[str, list[str]]:
    """`text` with every generated block re-rendered, and the blocks that changed, are unknown or are missing.

    Unknown and missing blocks cannot be fixed by rewriting, so they stay listed after a write.
    """
    lines, stale, seen, filled, done = lines_of(text), [], set(), [], 0
    for block in blocks(text):
        seen.add(block.name)
        if block.name not in renderers:
            stale.append(f"{block.name} (unknown block)")
            continue
        start = lines[block.start]
        body = (renderers[block.name]().rstrip("\n") + "\n").replace("\n", start[len(start.rstrip("\r\n")):])
        if body != "".join(lines[block.start + 1:block.end]):
            stale.append(block.name)
        filled += lines[done:block.start + 1] + [body]
        done = block.end
    filled += lines[done:]
    return "".join(filled), stale + [f"{name} (markers missing)" for name in renderers if name not in seen]


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
    lines = lines_of(text)
    return next(("".join(lines[b.start + 1:b.end]) for b in blocks(text) if b.name == name), "")


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
