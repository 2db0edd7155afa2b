"""The versions the release's documents state, read where each document states it.

datapackage.json `version`, CITATION.cff `version`, the card's citation block
(its BibTeX `version` field, rendered by `realcompanion card`) and the newest
released section of CHANGELOG.md (`## [X.Y.Z]`, Keep a Changelog) must all name
the version being published; a release whose documents disagree is mislabelled.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..release import ReadError, Release

CHANGELOG = "CHANGELOG.md"
_RELEASED = re.compile(r"^## \[(?P<version>[^\]]+)\]", re.M)
UNRELEASED = "Unreleased"


def read_text(path: Path) -> str:
    if not path.is_file():
        raise ReadError(path, "no such file")
    return path.read_text(encoding="utf-8")


def cff(root) -> dict:
    """CITATION.cff as data; versions and dates read as YAML may be numbers or dates, so compare them as text."""
    import yaml

    from ..card import CITATION

    path = Path(root) / CITATION
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        raise ReadError(path, f"not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise ReadError(path, "not a CFF mapping")
    return data


def changelog_version(root) -> str | None:
    """The newest released version in CHANGELOG.md (the first `## [X]` heading that is not Unreleased)."""
    headings = _RELEASED.finditer(read_text(Path(root) / CHANGELOG))
    return next((m["version"] for m in headings if m["version"] != UNRELEASED), None)


def stated_versions(root) -> dict[str, str | None]:
    """Each document's statement of the release version, keyed by file name (None = not stated)."""
    from ..card import CARD, CITATION, stated_version

    cited = cff(root).get("version")
    return {
        "datapackage.json": Release(root).version or None,
        CITATION: None if cited is None else str(cited),
        CARD: stated_version(read_text(Path(root) / CARD)),
        CHANGELOG: changelog_version(root),
    }
