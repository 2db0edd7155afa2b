"""CHANGELOG.md read as Keep a Changelog (`keepachangelog`) and as Markdown (`markdown-it-py`).

The repository's changelog records the release (its records and format) and the package that reads it. What ships
to the Hub beside the data is the release's part: a version's subsection whose heading says `(records ...)` or
`(format ...)` is data-facing; any other (`(validator)`, `(reference scorer)`, `(package)`) is the code's history,
left out of the uploaded copy (`shipped`). The prose, the errata policy and every version heading stay.
"""
from __future__ import annotations

import re

DATA_FACING = re.compile(r"\((records|format)\b", re.I)  # a subsection heading that changes the data or its contract


def released_version(text: str) -> str | None:
    """The newest released version (the first version section that is not Unreleased and is a version)."""
    import keepachangelog

    from ..versions import problem

    found = keepachangelog.to_dict(text.splitlines(keepends=True), show_unreleased=True)  # a dateless [X] too
    return next((version for version in found if not problem(version)), None)


def shipped(text: str) -> str:
    """`text` without the subsections (level 3, within a version) that are not data-facing."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt().parse(text)
    lines = text.splitlines(keepends=True)
    headings = [(int(token.tag[1]), token.map[0], tokens[i + 1].content)
                for i, token in enumerate(tokens) if token.type == "heading_open"]
    dropped: set[int] = set()
    for n, (level, start, title) in enumerate(headings):
        if level == 3 and not DATA_FACING.search(title):
            end = next((line for lvl, line, _ in headings[n + 1:] if lvl <= 3), len(lines))
            dropped.update(range(start, end))
    return "".join(line for i, line in enumerate(lines) if i not in dropped)
