"""The tracks a release carries: the resources a format requires, those a release may leave out, and what needs them.

A format names them once (`Tracks`, one per format: `REALCOMPANION`, `GROUPASSIST`). A release converted from
another dataset, or a fork, carries what it has: a required resource missing is one line (exit 2); an optional
one is present with at least one record (HDR1/GS5: Frictionless and `datasets` refuse an empty JSON Lines file)
or left out of `datapackage.json` altogether. What needs an absent resource (`Need`) is an error only where the
release holds it (rule TRK1/GT1, one line naming both). Everything generated from the descriptor (card configs,
datasheet, Croissant, rules, publish plan) follows the resources present; a rule reading an absent resource sees
it empty (`absent_table`), typed from the format's own definition, and runs only where it judges a resource the
release carries (`applies`).
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa


@dataclass(frozen=True)
class Need:
    """Rows of `resource` whose `field` holds `value` (any non-empty value, where `value` is None) need `absent`."""
    absent: str
    resource: str
    field: str
    value: str | None = None
    what: str = ""  # what such a row is, as the one line says it ("cite a profile claim")


@dataclass(frozen=True)
class Tracks:
    required: tuple[str, ...]
    optional: tuple[str, ...]
    needs: tuple[Need, ...] = ()

    @property
    def resources(self) -> tuple[str, ...]:
        return self.required + self.optional


REALCOMPANION = Tracks(
    required=("source",),
    optional=("profile", "persona", "chat", "qa"),
    needs=(Need("profile", "chat", "required_context.profile_refs", what="cite a profile claim"),),
)
GROUPASSIST = Tracks(
    required=("messages", "members", "instances", "anchors"),
    optional=("atoms", "criteria", "feedback", "audit"),
    needs=(Need("atoms", "instances", "level", "L1", what="are L1, scored against their atoms"),
           Need("criteria", "instances", "level", "L2", what="are L2, scored against their rubric's criteria")),
)


def applies(reads: tuple[str, ...], tracks: Tracks, present: set[str]) -> bool:
    """Whether a rule reading `reads` judges something this release carries: it reads no table, or every one of the
    format's (the rules over each resource present), or only required ones, or an optional one that is present. A
    rule whose every optional read is absent has nothing to judge (ARI5 without `profile`) and is left out of the
    run, the rules list and the datasheet."""
    optional = [r for r in reads if r not in tracks.required]
    return not reads or set(tracks.resources) <= set(reads) or not optional or any(r in present for r in optional)


def judged_by(rules, release) -> list:
    """Of `rules`, those that judge something `release` carries (`applies`); all of them without a release."""
    if release is None:
        return list(rules)
    return [r for r in rules if applies(r.reads, release.TRACKS, set(release.resources))]


def canonical_definitions(block: str) -> dict:
    """The format's own definitions of its resources and nested schemas (validators/*format_schemas.json)."""
    from .validators.kept import FORMAT_SCHEMAS, canonical

    return canonical(FORMAT_SCHEMAS[block])


def absent_table(release, name: str) -> pa.Table:
    """The resource a release leaves out, as an empty table of the format's columns: a rule or scorer that looks a
    record up in it (a claim's evidence, an instance's atoms) finds none, as it finds none of a present resource's
    where a row cites nothing."""
    from .release import arrow_type
    from .schemas import Schemas

    core = canonical_definitions(release.BLOCK)
    schemas = Schemas(release.root, release.BLOCK)
    schemas.__dict__["nested_schemas"] = core.get("nested", {})  # the format's own, whatever the folder keeps
    return pa.schema([(f["name"], arrow_type(f, schemas)) for f in core["resources"][name]["fields"]]).empty_table()
