"""What needs a resource the release leaves out: one line per need, naming both (`realcompanion.tracks`).

A required resource left out is the report's one line and the only rule run (every other rule reads it): `validate`
judges such a release INVALID (exit 1), where every other command refuses to open it (exit 2). A format's optional
resources may be left out whole; what needs one (a chat row citing a profile claim, an L2 instance scored against its
rubric) is an error only where the release holds it. The rule reports each need once,
with how many rows have it and the first of them; the rules that read the absent resource leave those rows to it
(`needing_rows`), as every rule leaves a set-aside row to its structure failure: a citation of a claim in a
profile the release does not carry is one defect, not one per rule that looks the claim up.
"""
from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from .catalogue import as_text, failure_rows

STATEMENT = ("the release carries every resource its format requires, and nothing it holds needs a resource "
             "it leaves out (each need one line, naming both)")


def needing_rows(ctx) -> dict:
    """(need, positions in its resource of the rows that have it) of each need whose resource is absent and held by
    at least one row of a resource present."""
    release, out = ctx.release, {}
    for need in release.TRACKS.needs:
        if need.absent not in release.absent or need.resource not in release.resources:
            continue
        column = ctx.column(need.resource, need.field)
        has = pc.fill_null(pc.greater(pc.list_value_length(column), 0) if need.value is None else
                           pc.equal(column, need.value), False)
        at = np.flatnonzero(has.to_numpy(zero_copy_only=False))
        if at.size:
            out[need] = at
    return out


def absent_needed(ctx):
    """One line per required resource the release leaves out (then nothing else is judged), or per need of an
    optional one it leaves out: each format's rule (TRK1, GT1)."""
    release = ctx.release
    rows = [(name, "", "resources", ", ".join(release.resources), f"the release carries no '{name}' resource: {release.carries()}")
            for name in release.missing]
    for need, at in needing_rows(ctx).items():
        first = int(at[0])
        rows.append((need.resource, ctx.row_ids(need.resource).iloc[first], need.field,
                     as_text(ctx.values(need.resource, need.field, [first]).iloc[0])[:80],
                     f"this row and {at.size - 1} other(s) of {need.resource} {need.what}, but the release carries no "
                     f"'{need.absent}' resource: add it, or leave those rows out"))
    return failure_rows(rows)


def left_to_tracks(ctx, outcomes, rule_id: str) -> None:
    """Drop, from every rule but `rule_id` that reads an absent resource, its failures on the rows `rule_id` names
    as needing that resource."""
    needs = needing_rows(ctx)
    for o in outcomes:
        if o.rule.id == rule_id or o.failures.empty:
            continue
        for need, at in needs.items():
            if need.absent in o.rule.reads:
                named = set(ctx.row_ids(need.resource).iloc[at].astype(str))
                mine = (o.failures["resource"] == need.resource) & o.failures["row"].astype(str).isin(named)
                o.failures = o.failures[~mine]

