"""Exactly which files a release is, with their sizes and hashes, and the tag it ships under.

The list is declared once here (and described in docs/publishing.md): the
documents, croissant.json when it has been written, everything under schemas/
and the data files the resources declare. Nothing else in the folder (code,
tests, virtual environments, git metadata) is ever part of a release.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..card import CARD
from ..datasheet import DATASHEET
from ..release import ReadError, Release
from ..stamp import sha256_of
from . import croissant
from .documents import CHANGELOG, CITATION

DOCUMENTS = ("datapackage.json", CARD, DATASHEET, CITATION, CHANGELOG)
OPTIONAL_DOCUMENTS = (croissant.FILE,)
SCHEMA_FOLDER = "schemas"
KEPT_ON_HUB = (".gitattributes",)  # the Hub's own file, never deleted by a release commit


def tag_of(version: str) -> str:
    return f"v{version}"


def release_paths(release: Release) -> list[str]:
    """Every file of the release, relative to its folder, in publishing order."""
    root = release.root
    paths = list(DOCUMENTS) + [d for d in OPTIONAL_DOCUMENTS if (root / d).is_file()]
    paths += sorted(p.relative_to(root).as_posix() for p in (root / SCHEMA_FOLDER).rglob("*") if p.is_file())
    return paths + [release.resource(name)["path"] for name in release.resources]


@dataclass(frozen=True)
class PlannedFile:
    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Plan:
    root: Path
    repo_id: str
    version: str
    files: tuple[PlannedFile, ...]

    @property
    def tag(self) -> str:
        return tag_of(self.version)

    @property
    def paths(self) -> set[str]:
        return {f.path for f in self.files}

    def render(self) -> str:
        width = max(len(f.path) for f in self.files)
        lines = [f"publish {self.repo_id} (dataset) version {self.version}, tag {self.tag}: "
                 f"{len(self.files)} files, {sum(f.size for f in self.files)} bytes"]
        lines += [f"  {f.path:<{width}}  {f.size:>10}  sha256:{f.sha256}" for f in self.files]
        lines.append(f"  one commit; files on the Hub not listed above are deleted in it "
                     f"(except {', '.join(KEPT_ON_HUB)}); then tag {self.tag} on that commit")
        return "\n".join(lines)


def plan(root, repo_id: str, version: str) -> Plan:
    from ..card import open_release

    release = open_release(root)
    files = []
    for path in release_paths(release):
        full = release.root / path
        if not full.is_file():
            raise ReadError(full, "no such file (a release file)")
        files.append(PlannedFile(path, full.stat().st_size, sha256_of(full)))
    return Plan(release.root, repo_id, version, tuple(files))
