"""Exactly which files a release is: its documents, the schema files it reads and its data files.

The list is declared once here (and described in docs/publishing.md): the
documents, croissant.json and pii-acknowledged.json when present, the schema files the release
reads (vocabulary, declared rules, each resource's Table Schema, the nested
schemas) and the data files the resources declare: every shipped file is
validated data, a schema it is validated by, or a listed document. Nothing else
in the folder (code, tests, virtual environments, git metadata) is ever part of
a release; a stray file under schemas/ makes `publish` refuse (`unread_schema_files`).
Nothing heavy is imported here: `validate` checks, before it reads a byte, that none of
these paths leaves the folder (rule INT3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .documents import CHANGELOG, CITATION
from .privacy import ACKNOWLEDGED

if TYPE_CHECKING:
    from ..release import Release

CARD = "README.md"  # the dataset card (card.py writes its generated parts)
DATASHEET = "DATASHEET.md"
CROISSANT = "croissant.json"
DOCUMENTS = ("datapackage.json", CARD, DATASHEET, CITATION, CHANGELOG)
OPTIONAL_DOCUMENTS = (CROISSANT, ACKNOWLEDGED)
SCHEMA_FOLDER = "schemas"


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
