"""What a release must pass before it is published; the first failure is the refusal.

Cheap checks run first so a mislabelled release is refused before the full
validator runs: every document present, every document stating the version
being published, the card and datasheet current, croissant.json (when shipped)
current, then `validate` with zero errors and every personal-data finding
acknowledged (`privacy`). The release is opened once, after
the documents are found, and every check reads that one `Release`.
"""
from __future__ import annotations

from pathlib import Path

from ..files import read_json
from ..formats import open_release
from ..names import COMMAND, DOCUMENTS
from ..release import Release


def missing_documents(root: Path) -> str | None:
    missing = [d for d in DOCUMENTS if not (root / d).is_file()]
    return f"missing release file(s): {', '.join(missing)}" if missing else None


def versions_disagree(release: Release, version: str) -> str | None:
    from .documents import stated_versions

    stated = stated_versions(release)
    if all(v == version for v in stated.values()):
        return None
    listed = ", ".join(f"{doc} {v or '(none)'}" for doc, v in stated.items())
    return (f"version mismatch: --version {version}, {listed}: set datapackage.json `version` and the newest "
            f"heading of CHANGELOG.md to {version}, then run `{COMMAND}` (it writes the version into CITATION.cff "
            "and the card)")


def card_stale(release: Release, version: str) -> str | None:
    from .. import card

    parts = card.check(release)
    return f"card out of date ({'; '.join(parts)}): run `{COMMAND}`" if parts else None


def datasheet_stale(release: Release, version: str) -> str | None:
    from .. import datasheet

    blocks = datasheet.check(release)
    return f"DATASHEET.md out of date ({', '.join(blocks)}): run `{COMMAND}`" if blocks else None


def croissant_stale(release: Release, version: str) -> str | None:
    from .croissant import FILE, build

    path = release.root / FILE
    if not path.is_file():
        return None
    current = read_json(path) == build(release)
    return None if current else f"{FILE} out of date: run `{COMMAND}`"


def unread_files(release: Release, version: str) -> str | None:
    from ..listing import unread_files

    stray = unread_files(release)
    return (f"file(s) under data/ or schemas/ that the release does not read, so neither validated nor published: "
            f"{', '.join(stray)}") if stray else None


def invalid(release: Release, version: str) -> str | None:
    from ..formats import part
    from .privacy import unacknowledged

    report = part(release.BLOCK, "runner").validate(release.root, examples=None)  # the open release knows its format;
    # every finding is kept, each matched with its acknowledgment
    if report.errors:
        return f"`realcompanion validate` reports {report.errors} error(s)"
    return unacknowledged(report, release.root)


CHECKS = (versions_disagree, unread_files, card_stale, datasheet_stale, croissant_stale, invalid)


def refusal(root, version: str) -> str | None:
    """Why the release at `root` may not be published as `version`, or None when it may."""
    root = Path(root)
    missing = missing_documents(root)
    if missing:
        return missing
    release = open_release(root)
    return next((reason for check in CHECKS if (reason := check(release, version))), None)
