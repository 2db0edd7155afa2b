"""The versions the release's documents state, read where each document states it; CITATION.cff read and written.

datapackage.json `version`, CITATION.cff `version`, the card's citation block
(its BibTeX `version` field, rendered by `realcompanion card`) and the newest
released section of CHANGELOG.md (`## [X.Y.Z]`, Keep a Changelog) must all name
the version being published; a release whose documents disagree is mislabelled.
Nothing heavy is imported here, so the command line can name the citation styles.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ReadError
from ..files import read_text, yaml_loads
from ..generated import block_body
from ..names import CARD, CHANGELOG, CITATION

if TYPE_CHECKING:
    from ..release import Release

STYLES = ("bibtex", "apa", "cff")  # the forms `realcompanion cite` prints, as `publish.cite.RENDERERS` renders them


def cff(root) -> dict:
    """CITATION.cff as data, of the shape `$defs/citation` of descriptor.schema.json gives the parts read; versions
    and dates read as YAML may be numbers or dates, so compare them as text."""
    from ..descriptor import check_citation

    path = Path(root) / CITATION
    data = yaml_loads(read_text(path), path)
    if not isinstance(data, dict):
        raise ReadError(path, "not a CFF mapping")
    check_citation(data, path)
    return data


def dump_cff(data: dict) -> str:
    """CFF data as CITATION.cff text, keys in their given order."""
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def changelog_version(root) -> str | None:
    """The newest released version in CHANGELOG.md (the first version section that is not Unreleased)."""
    from .changelog import released_version

    return released_version(read_text(Path(root) / CHANGELOG))


def stated_versions(release: Release) -> dict[str, str | None]:
    """Each document's statement of the release version, keyed by file name (None = not stated)."""
    cited = cff(release.root).get("version")
    return {
        "datapackage.json": release.version or None,
        CITATION: None if cited is None else str(cited),
        CARD: stated_version(read_text(release.root / CARD)),
        CHANGELOG: changelog_version(release.root),
    }


def stated_version(text: str) -> str | None:
    """The release version the card's citation block states: the `version` field of the first entry of its BibTeX
    code (found by markdown-it, read by pybtex); None when the block, its BibTeX or the field is missing."""
    from markdown_it import MarkdownIt
    from pybtex.database import parse_string
    from pybtex.scanner import PybtexError

    code = [token.content for token in MarkdownIt().parse(block_body(text, "citation"))
            if token.type == "fence" and token.info.strip() == "bibtex"]
    try:
        entries = parse_string(code[0], "bibtex").entries if code else {}
    except PybtexError:
        return None
    first = next(iter(entries.values()), None)
    return first.fields.get("version") if first is not None else None


def released(release: Release) -> str:
    """Release date: the date part of datapackage.json `created`."""
    created = str(release.descriptor.get("created", ""))[:10]
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", created):
        raise ReadError(release.root / "datapackage.json", "no RFC 3339 'created' date", field="created")
    return created


def stated(release: Release, key: str):
    """The descriptor's `key` (`name`, `title`, `licenses`), which the card, the datasheet and the citation state:
    Data Package leaves each optional, so a release without one gets a line naming it, not a traceback."""
    value = release.descriptor.get(key)
    if not value:
        raise ReadError(release.root / "datapackage.json", f"no '{key}', which the card and the citation state "
                        "(docs/forking.md, Converting another dataset)", field=key)
    return value
