"""Exactly which files a release is, with their sizes and hashes, and the tag it ships under.

The list is declared once here (and described in docs/publishing.md): the
documents, croissant.json and pii-acknowledged.json when present, the schema files the release
reads (vocabulary, declared rules, each resource's Table Schema, the nested
schemas) and the data files the resources declare: every shipped file is
validated data, a schema it is validated by, or a listed document. Nothing else
in the folder (code, tests, virtual environments, git metadata) is ever part of
a release; a stray file under schemas/ makes `publish` refuse (`unread_schema_files`).
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
from .privacy import ACKNOWLEDGED

DOCUMENTS = ("datapackage.json", CARD, DATASHEET, CITATION, CHANGELOG)
OPTIONAL_DOCUMENTS = (croissant.FILE, ACKNOWLEDGED)
SCHEMA_FOLDER = "schemas"
KEPT_ON_HUB = (".gitattributes",)  # the Hub's own file, never deleted by a release commit


def tag_of(version: str) -> str:
    return f"v{version}"


def schema_files(release: Release) -> list[str]:
    """The schema files the release reads, relative to its folder, sorted."""
    schemas = release.schemas
    read = [schemas.root / release.params["vocabulary"], *schemas.table_paths(), *schemas.nested_paths()]
    read += [release.root / release.params["rules"]] if isinstance(release.params.get("rules"), str) else []
    return sorted({p.relative_to(release.root).as_posix() for p in read})


def unread_schema_files(release: Release) -> list[str]:
    """Files under schemas/ that no part of the release reads (they would ship unvalidated)."""
    read = set(schema_files(release))
    return sorted(p.relative_to(release.root).as_posix() for p in (release.root / SCHEMA_FOLDER).rglob("*")
                  if p.is_file() and p.relative_to(release.root).as_posix() not in read)


def release_paths(release: Release) -> list[str]:
    """Every file of the release, relative to its folder, in publishing order."""
    root = release.root
    paths = list(DOCUMENTS) + [d for d in OPTIONAL_DOCUMENTS if (root / d).is_file()]
    return paths + schema_files(release) + [release.resource(name)["path"] for name in release.resources]


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
        if not full.resolve().is_relative_to(release.root.resolve()):
            raise ReadError(full, f"links to {full.resolve()}, outside the release folder")
        files.append(PlannedFile(path, full.stat().st_size, sha256_of(full)))
    return Plan(release.root, repo_id, version, tuple(files))
