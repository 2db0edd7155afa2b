"""The documents a release ships are whole: an emptied or cut README.md, DATASHEET.md, CITATION.cff, CHANGELOG.md or
croissant.json is not a valid release, though every data file is.

A document is judged when it is there (whether the documents a publication needs are all there is `publish`'s
check). Whole means: not empty; UTF-8; ending with a line break, as every text file the package writes does (a file
cut by a full disk or a killed writer stops mid-line, almost always); README.md opening with its YAML header and
closing it, and carrying each generated block of its format, opened and closed; DATASHEET.md too; CITATION.cff
reading as its schema, with every key CFF 1.2 requires; croissant.json reading as one JSON object. A cut that falls
on a line end between two generated blocks drops a block, which is named; one at a line end in the prose after the
last block of README.md, or in CITATION.cff after its required keys, is the cut this cannot see.
"""
from __future__ import annotations

import re

import pandas as pd

from realcompanion.errors import ReadError
from realcompanion.files import decode, loads, read_bytes
from realcompanion.generated import markers
from realcompanion.names import CARD, CHANGELOG, CITATION, CROISSANT, DATASHEET
from realcompanion.publish.documents import cff

from .catalogue import failure_rows

_HEADER = re.compile(r"\A---\r?\n.*?^---\r?$", re.S | re.M)


def _blocks(text: str, names) -> list[str]:
    """What is wrong with the generated blocks `names` in `text`: each must be opened and closed after (markers as
    `generated.markers` finds them: a marker quoted in a code block is prose)."""
    problems, seen = [], markers(text)
    for name in names:
        start, end = (next((m.line for m in seen if m.name == name and m.closing is closing), None)
                      for closing in (False, True))
        if start is None and end is None:
            problems.append(f"has no generated block '{name}': cut short, or its markers were removed")
        elif start is None or end is None or end < start:
            problems.append(f"opens the generated block '{name}' and never closes it: cut short")
    return problems


def _card(release, text: str) -> list[str]:
    from realcompanion.card import read_card, renderers

    if not _HEADER.match(text):
        return ["has no YAML header (--- ... ---) closed before its text: cut short, or not a dataset card"]
    try:
        read_card(release.root / CARD, text)
    except ReadError as exc:
        return [_said(exc, release.root / CARD)]
    return _blocks(text, renderers(release))


def _datasheet(release, text: str) -> list[str]:
    from realcompanion.formats import part

    return _blocks(text, part(release.BLOCK, "renderers")(release))


CFF_REQUIRED = ("cff-version", "message", "title", "authors")  # the keys CFF 1.2's schema requires


def _citation(release, text: str) -> list[str]:
    try:
        data = cff(release.root)
    except ReadError as exc:
        return [_said(exc, release.root / CITATION)]
    return [f"has no '{key}', which CFF 1.2 requires: cut short?" for key in CFF_REQUIRED if key not in data]


def _croissant(release, text: str) -> list[str]:
    try:
        return [] if isinstance(loads(text, release.root / CROISSANT), dict) else ["is not a JSON object"]
    except ReadError as exc:
        return [_said(exc, release.root / CROISSANT)]


# each document, and what else makes it whole
DOCUMENT_CHECKS = {CARD: _card, DATASHEET: _datasheet, CITATION: _citation, CHANGELOG: None, CROISSANT: _croissant}


def _said(exc: ReadError, path) -> str:
    """A reader's one line without the file it names (the failure's row names it): `line 2 field 'encoding': ...`."""
    rest = str(exc).removeprefix(str(path))
    return rest[2:] if rest.startswith(": ") else f"line {rest.lstrip(':')}"


def problems(release, name: str) -> list[str]:
    """What keeps the document `name` of `release` from being whole; [] when it is whole or absent."""
    path = release.root / name
    if not path.exists() and not path.is_symlink():
        return []
    try:
        text = decode(read_bytes(path), path)
    except ReadError as exc:
        return [_said(exc, path)]
    if not text.strip():
        return ["is empty"]
    if not text.endswith("\n"):
        return ["ends in the middle of a line: cut short (every text file ends with a line break)"]
    check = DOCUMENT_CHECKS[name]
    return check(release, text) if check else []


STATEMENT = ("every document the release ships (README.md, DATASHEET.md, CITATION.cff, CHANGELOG.md, croissant.json) "
             "is whole: not empty, ending with a line break, the card's YAML header and every generated block of the "
             "card and the datasheet opened and closed, CITATION.cff and croissant.json readable")


def documents_whole(ctx) -> pd.DataFrame:
    """A line per fault of a document, naming the document as its row (a line about a file, not a row)."""
    return failure_rows([("", name, "", "", problem) for name in DOCUMENT_CHECKS
                         for problem in problems(ctx.release, name)])
