"""Declared counts and hashes: what `datapackage.json` says the files hold.

A maintainer who drops the real files into `data/`, or a fork author who edits
them, runs `realcompanion stamp` to record row counts, per-participant counts
and the number of chat rows relabeled by record in the format block, and each
data file's digest as its resource's Data Package `hash` (sha256: one digest
per file; a block's older `sha256` copy is dropped); the integrity rules then
hold the files to it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from .files import write_own
from .release import Release
from .schemas import dump_json


def blocking_rules(root, progress=None) -> list[str]:
    """The error rules the release at `root` would still fail once stamped: stamping blesses the files as they
    are, so these must be fixed first. `progress` is called once per rule run. The documents' wholeness (DOC1,
    GI11) is not among them: a stamp blesses no document, and `refresh` names what in one it cannot mend."""
    from .formats import format_of, part
    from .validators.documents import documents_whole

    validate = part(format_of(root), "runner").validate
    return sorted({o.rule.id for o in validate(root, progress=progress, restamped=True).outcomes
                   if o.is_error and o.rule.check is not documents_whole})


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def participant_counts(table) -> dict[str, int]:
    """Rows per participant_id of one resource's table (rows without one are counted by no participant)."""
    counts = table.column("participant_id").value_counts().to_pylist()
    return {c["values"]: c["counts"] for c in counts if c["values"] is not None}


def declared(release: Release) -> dict:
    """The generated part of the `realcompanion` block, computed from the files."""
    rows, per_participant = {}, {}
    for name in release.resources:
        table = release.table(name)  # read once, its bytes hashed as they were parsed
        rows[name] = table.num_rows + len(release.invalid_rows.get(name, ()))  # every line is a record
        counts = participant_counts(table) if "participant_id" in table.column_names else {}
        for bad in release.invalid_rows.get(name, ()):  # a record that fails its schema is still a line of the file
            pid = bad["row"].get("participant_id")
            if isinstance(pid, str):
                counts[pid] = counts.get(pid, 0) + 1
        for pid, count in sorted(counts.items()):
            per_participant.setdefault(pid, {})[name] = count
    return {"rows": rows, "participants": per_participant, "relabeled": relabeled(release),
            "referent_exceptions": recorded(release, "A", "ungrounded"), "sessionless": sessionless(release)}


def relabeled(release: Release) -> int:
    """Chat rows whose trace C records a relabel by record (the paper's release has 3)."""
    return recorded(release, "C", "relabeled")


def recorded(release: Release, phase: str, member: str) -> int:
    """Chat rows whose trace `phase` records `member` (a relabel, a referent exception); none where the release's
    schema does not declare it (a fork's chat schema without `trace` is INT7's to name, not a count's to crash on)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chat = release.table("chat")
    trace = chat.column("trace") if "trace" in chat.column_names else None
    if trace is None or not pa.types.is_struct(trace.type) or trace.type.get_field_index(phase) < 0:
        return 0
    phases = trace.type.field(phase).type
    if not pa.types.is_struct(phases) or phases.get_field_index(member) < 0:
        return 0
    return int(pc.sum(pc.is_valid(pc.struct_field(pc.struct_field(trace, phase), member))).as_py() or 0)


def sessionless(release: Release) -> int:
    """Chat rows whose probe carries no session index (the paper's release has 13)."""
    import pyarrow.compute as pc

    source, chat = release.table("source"), release.table("chat")
    if not {"session", "dayid"} <= set(source.column_names) or "probe_dayid" not in chat.column_names:
        return 0  # a fork's schema without them: INT7 names it
    unindexed = source.filter(pc.is_null(source.column("session"))).column("dayid")
    return int(pc.sum(pc.is_in(release.table("chat").column("probe_dayid"), value_set=unindexed.combine_chunks()))
               .as_py() or 0)


DATA_PACKAGE_PROFILE = "https://datapackage.org/profiles/2.0/datapackage.json"


def restamp(release: Release, block: dict) -> None:
    """The release as `stamp` would leave it, in memory only: `block`, the generated part of its format's block
    (the format's `declared`, without the older `sha256` copy `stamp` drops), and each resource's Data Package
    `hash` and `bytes` from the bytes its table was read from (what `stamp` and `refresh` judge before writing), and
    the `rows` and `fields` a resource declares."""
    release.params.update(block)
    release.params.pop("sha256", None)
    for resource in release.descriptor.get("resources", []):
        if resource.get("name") in release.sha256:
            resource["hash"] = f"sha256:{release.sha256[resource['name']]}"
        if resource.get("name") in release.sizes:
            resource["bytes"] = release.sizes[resource["name"]]
            resource.update(declared_counts(release, resource, release.table(resource["name"]).num_rows))


STAMPED = ("hash", "bytes", "rows", "fields")  # the keys of a resource's entry `stamp` writes from its files


def declared_counts(release: Release, resource: dict, rows: int) -> dict[str, int]:
    """The Data Package `rows` and `fields` that `resource` declares, as its files bear them out: `rows` read, and
    the fields its Table Schema declares. Frictionless compares them (row-count, field-count errors); a fork may
    declare them, and `stamp` keeps them true."""
    have = {"rows": rows, "fields": len(release.table_schema(resource["name"])["fields"])}
    return {key: n for key, n in have.items() if resource.get(key) is not None}


def standard_stats(release: Release) -> dict[str, dict]:
    """Data Package v2 `hash` (sha256:...) and `bytes` of every resource, as Frictionless computes them
    (and checks them on `frictionless validate`). Taken over the bytes as a file resource, without parsing, so an
    empty or malformed data file is stamped and left to the validator to name."""
    from frictionless import resources, system

    out = {}
    with system.use_context(trusted=True):
        for name in release.resources:
            resource = resources.FileResource(path=release.resource(name)["path"], basepath=str(release.root))
            resource.infer(stats=True)
            out[name] = {"hash": f"sha256:{resource.stats.sha256}", "bytes": resource.stats.bytes}
    return out


def stamp(root) -> dict:
    release = Release(root)
    return write(release, declared(release))


def write(release: Release, block: dict) -> dict:
    """Record `block` in the descriptor's format block, with each resource's Data Package v2 `hash` and `bytes`,
    and the `rows` and `fields` it declares. The `hash` is the one digest of a file: the block's older `sha256` copy
    is dropped."""
    descriptor = release.descriptor
    descriptor[release.BLOCK].update(block)
    descriptor[release.BLOCK].pop("sha256", None)
    stats = standard_stats(release)
    for resource in descriptor["resources"]:
        resource.update(stats[resource["name"]])
        resource.update(declared_counts(release, resource, release.table(resource["name"]).num_rows))
    descriptor = {"$schema": DATA_PACKAGE_PROFILE, **descriptor}
    write_own(release.root, "datapackage.json", dump_json(descriptor))
    return block
