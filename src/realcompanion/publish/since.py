"""Which files of a planned release differ from the last version published, so `publish --dry-run` can mark them.

The last version is the highest release tag (`vX.Y.Z`, by `packaging.version`) of the git repository holding the
folder; a file is `new` when that tag's tree lacks it and `changed` when its bytes differ (git's blob id, computed
with no filter of the folder's `.gitattributes`). Git runs as `git_objects` runs it: reading a tag never runs a
program the folder's own config names. Outside git, or without a tag, nothing is marked and the plan says so.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import ReadError
from ..git_objects import git
from ..versions import tag_of


def _git(root: Path, *args: str) -> str | None:
    """What git prints, or None where it fails or is not installed."""
    try:
        done = git(root, *args)
    except ReadError:
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None


def last_tag(root: Path) -> str | None:
    """The highest `vX.Y.Z` tag of the repository holding `root`, or None."""
    from ..versions import problem

    listed = _git(root, "tag", "--list", tag_of("*"))
    versions = [line.strip()[1:] for line in (listed or "").splitlines() if not problem(line.strip()[1:])]
    if not versions:
        return None
    from packaging.version import Version

    return tag_of(max(versions, key=Version))


def changes(root: Path, paths: list[str]) -> tuple[str | None, dict[str, str]]:
    """(the last tag, {path: "new" | "changed"} for each planned path that differs from it); (None, {}) when the
    folder has no tag to compare with."""
    tag = last_tag(root)
    if tag is None:
        return None, {}
    prefix = (_git(root, "rev-parse", "--show-prefix") or "").strip()
    listed = _git(root, "ls-tree", "-r", "-z", "--full-tree", tag, "--", *[prefix + path for path in paths]) or ""
    tagged = {entry.split("\t", 1)[1].removeprefix(prefix): entry.split()[2] for entry in listed.split("\0") if entry}
    found = {}
    for path in paths:
        blob = (_git(root, "hash-object", "--no-filters", "--", str(Path(root) / path)) or "").strip()
        if path not in tagged:
            found[path] = "new"
        elif blob != tagged[path]:
            found[path] = "changed"
    return tag, found
