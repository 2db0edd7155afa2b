"""Run the GroupAssistBench catalogue over a release: one pass, the same `Report` as RealCompanion's.

Paths are checked before anything is read (GI3); each table is read once; a rule reading a
resource that failed structure is reported as skipped, so a type error is reported once, as itself.
"""
from __future__ import annotations

import pandas as pd

from realcompanion.groupassist import GroupAssistRelease

from ..catalogue import FAILURE_COLUMNS
from ..integrity import escapes
from ..run import Outcome, Report, _crashed
from .catalogue import select
from .context import Context
from .structure import STRUCTURE_RULES


def planned(rules: str | None):
    """The rules a run evaluates: the chosen ones, and the structure rules always."""
    every = select(None)
    chosen = {r.id for r in select(rules)}
    return [r for r in every if r.id in STRUCTURE_RULES or r.id in chosen]


def _run(ctx: Context, rule) -> Outcome:
    try:
        return Outcome(rule, rule.check(ctx).reset_index(drop=True))
    except Exception as exc:  # noqa: BLE001 - a rule that cannot evaluate is reported, not raised
        return _crashed(rule, exc)


def validate(path=".", rules: str | None = None, progress=None, restamped: bool = False) -> Report:
    """Validate the release at `path`; `restamped` judges it as `stamp` would leave it (in memory only)."""
    release = GroupAssistRelease(path)
    if restamped:
        from realcompanion.groupassist.synth import declared

        release.params.update(declared(release))
    ctx = Context(release)
    report = Report(release.descriptor.get("name", ""), release.version, release.params.get("format_version", ""))
    every = select(None)
    if escapes(release):
        report.outcomes = [_run(ctx, r) for r in every if r.id == "GI3"]
        return report
    chosen = {r.id for r in select(rules)}
    plan = planned(rules)
    ctx.warm()  # every table read once, before GS1 reports the records that did not fit
    structure = [_run(ctx, r) for r in plan if r.id in STRUCTURE_RULES]
    blocked = {res for o in structure for res in o.failures["resource"].unique()} | set(release.invalid_rows)
    for o in structure:
        if o.rule.id in chosen or not o.passed:
            report.outcomes.append(o)
    if progress:
        progress(len(structure))
    for r in plan:
        if r.id in STRUCTURE_RULES:
            continue
        if set(r.reads) & blocked:
            reason = "skipped: " + ", ".join(sorted(set(r.reads) & blocked)) + " failed structure"
            report.outcomes.append(Outcome(r, pd.DataFrame(columns=FAILURE_COLUMNS), skipped=reason))
        else:
            report.outcomes.append(_run(ctx, r))
        if progress:
            progress(1)
    return report
