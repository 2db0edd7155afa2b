"""The file plan of a release (`listing.py` says which files), with their sizes and hashes, and the tag it ships
under."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..listing import release_paths
from ..release import ReadError
from ..stamp import sha256_of
from ..versions import tag_of

KEPT_ON_HUB = (".gitattributes",)  # the Hub's own file, never deleted by a release commit


@dataclass(frozen=True)
class PlannedFile:
    path: str
    size: int
    sha256: str
    content: bytes | None = None  # what is uploaded in place of the file (CHANGELOG.md's data-facing sections)


@dataclass(frozen=True)
class Plan:
    root: Path
    repo_id: str
    version: str
    files: tuple[PlannedFile, ...]
    last_tag: str | None = None  # the release tag the files are compared with (`since.changes`)
    changed: dict[str, str] = field(default_factory=dict)  # path -> "new" or "changed" since last_tag

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
        lines += [f"  {f.path:<{width}}  {f.size:>10}  sha256:{f.sha256}  "
                  f"{'(data-facing sections) ' * (f.content is not None)}{self.changed.get(f.path, '')}".rstrip()
                  for f in self.files]
        lines.append(f"  {len(self.changed)} file(s) new or changed since {self.last_tag}" if self.last_tag else
                     "  no earlier release tag (vX.Y.Z) in this folder's git repository: nothing compared")
        lines.append(f"  one commit; files on the Hub not listed above are deleted in it "
                     f"(except {', '.join(KEPT_ON_HUB)}); then tag {self.tag} on that commit")
        return "\n".join(lines)


def plan(root, repo_id: str, version: str) -> Plan:
    from ..files import read_text
    from ..formats import open_release
    from ..names import CHANGELOG
    from .changelog import shipped
    from .since import changes

    release = open_release(root)
    files = []
    for path in release_paths(release):
        full = release.root / path
        if not full.is_file():
            raise ReadError(full, "no such file (a release file)")
        if not full.resolve().is_relative_to(release.root.resolve()):
            raise ReadError(full, f"links to {full.resolve()}, outside the release folder")
        if path == CHANGELOG:
            content = shipped(read_text(full)).encode("utf-8")
            files.append(PlannedFile(path, len(content), hashlib.sha256(content).hexdigest(), content))
        else:
            files.append(PlannedFile(path, full.stat().st_size, sha256_of(full)))
    last_tag, changed = changes(release.root, [f.path for f in files])
    return Plan(release.root, repo_id, version, tuple(files), last_tag, changed)
