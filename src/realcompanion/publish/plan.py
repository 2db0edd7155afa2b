"""The file plan of a release (`listing.py` says which files), with their sizes and hashes, and the tag it ships
under."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..listing import release_paths
from ..release import ReadError
from ..stamp import sha256_of

KEPT_ON_HUB = (".gitattributes",)  # the Hub's own file, never deleted by a release commit


def tag_of(version: str) -> str:
    return f"v{version}"


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
    from ..formats import open_release

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
