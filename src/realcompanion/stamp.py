"""Declared counts and hashes: what `datapackage.json` says the files hold.

A maintainer who drops the real files into `data/`, or a fork author who edits
them, runs `realcompanion stamp` to record row counts, per-participant counts
and a sha256 per data file; the integrity rules then hold the files to it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from .release import Release
from .schemas import dump_json


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def participant_counts(table) -> dict[str, int]:
    """Rows per participant_id of one resource's table."""
    return {c["values"]: c["counts"] for c in table.column("participant_id").value_counts().to_pylist()}


def declared(release: Release) -> dict:
    """The generated part of the `realcompanion` block, computed from the files."""
    rows, per_participant, hashes = {}, {}, {}
    for name in release.resources:
        table = release.table(name)
        with open(release.path(name), "rb") as handle:
            rows[name] = sum(1 for _ in handle)
        counts = participant_counts(table) if "participant_id" in table.column_names else {}
        for pid, count in sorted(counts.items()):
            per_participant.setdefault(pid, {})[name] = count
        hashes[release.resource(name)["path"]] = sha256_of(release.path(name))
    return {"rows": rows, "participants": per_participant, "sha256": hashes}


def stamp(root) -> dict:
    release = Release(root)
    block = declared(release)
    descriptor = release.descriptor
    descriptor["realcompanion"].update(block)
    Path(root, "datapackage.json").write_text(dump_json(descriptor), encoding="utf-8")
    return block
