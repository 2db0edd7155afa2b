"""The tracks a release carries: the resources a format requires, those a release may leave out, and what needs them.

A format names them once (`Tracks`, its release class's `TRACKS`, beside its resources). A release converted from
another dataset, or a fork, carries what it has: a required resource missing is one line (exit 2); an optional
one is present with at least one record (HDR1/GS5: Frictionless and `datasets` refuse an empty JSON Lines file)
or left out of `datapackage.json` altogether. What needs an absent resource (`Need`) is an error only where the
release holds it (rule TRK1/GT1, one line naming both). Everything generated from the descriptor (card configs,
datasheet, Croissant, rules, publish plan) follows the resources present; a rule reading an absent resource sees
it empty (`release.absent_table`), typed from the format's own definition, and runs only where it judges a resource the
release carries (`applies`).
"""
from __future__ import annotations

from dataclasses import dataclass


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
