"""Exactly which files a release is: its documents, the schema files it reads and its data files.

The list is declared once here (its names in names.py; described in docs/publishing.md): the
documents, croissant.json and pii-acknowledged.json when present, the schema files the release
reads (vocabulary, declared rules, each resource's Table Schema, the nested
schemas) and the data files the resources declare: every shipped file is
validated data, a schema it is validated by, or a listed document. Nothing else
in the folder (code, tests, virtual environments, git metadata) is ever part of
a release; a stray file under data/ or schemas/ makes `publish` refuse (`unread_files`).
Nothing heavy is imported here: `validate` checks, before it reads a byte, that none of
these paths leaves the folder (rule INT3).
"""
from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from .names import DATA_FOLDER, DOCUMENTS, OPTIONAL_DOCUMENTS, SCHEMA_FOLDER

if TYPE_CHECKING:
    from .release import Release



def schema_files(release: Release) -> list[str]:
    """The schema files the release reads, relative to its folder, sorted."""
    schemas = release.schemas
    read = [schemas.root / release.params["vocabulary"], *schemas.table_paths(), *schemas.nested_paths()]
    read += [release.root / release.params["rules"]] if isinstance(release.params.get("rules"), str) else []
    return sorted({p.relative_to(release.root).as_posix() for p in read})


def unread_files(release: Release) -> list[str]:
    """Files under data/ and schemas/ that no part of the release reads: a data file no resource declares (a fork's
    new resource left out of datapackage.json), a schema no resource uses, and anything there that is neither a file
    nor a folder (a FIFO, a socket, a link to a device or to a folder, a link to nothing), which `validate` and
    `publish` passed over in silence. They are neither validated nor published."""
    read = {*schema_files(release), *(posixpath.normpath(p) for name in release.resources
                                      if isinstance(p := release.resource(name).get("path"), str))}
    return sorted(relpath for folder in (DATA_FOLDER, SCHEMA_FOLDER) for p in (release.root / folder).rglob("*")
                  if (p.is_symlink() or not p.is_dir()) and (relpath := p.relative_to(release.root).as_posix()) not in read)


def release_paths(release: Release) -> list[str]:
    """Every file of the release, relative to its folder, in publishing order."""
    root = release.root
    paths = list(DOCUMENTS) + [d for d in OPTIONAL_DOCUMENTS if (root / d).is_file()]
    return paths + schema_files(release) + [release.resource(name)["path"] for name in release.resources]
