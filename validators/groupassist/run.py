"""Run the GroupAssistBench catalogue over a release: one pass, the same `Report` as RealCompanion's.

The RealCompanion runner's machinery is reused: Frictionless judges the descriptor in a
thread beside the reads, and the rules run as units on every core for large releases
(forked workers inherit the read tables). Paths are checked before anything is read
(GI3); each table is read once; a rule reading a resource that failed structure is
reported as skipped, so a type error is reported once, as itself.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import pandas as pd

from realcompanion.groupassist import GroupAssistRelease

from ..catalogue import FAILURE_COLUMNS, Rule
from ..declared import declared_rules
from ..integrity import escapes
from ..run import PARALLEL_MIN_ROWS, Judgement, Outcome, Report, _execute, import_pandera
from .catalogue import select
from .context import Context
from .structure import STRUCTURE_RULES


def planned(rules: str | None, declared: list[Rule] = ()):
    """The rules a run evaluates: the chosen ones (coded or declared by the release), and the structure rules
    always."""
    chosen = {r.id for r in select(rules, declared)}
    return [r for r in select(None, declared) if r.id in STRUCTURE_RULES or r.id in chosen]


def validate(path=".", rules: str | None = None, progress=None, restamped: bool = False) -> Report:
    """Validate the release at `path`; `restamped` judges it as `stamp` would leave it (in memory only)."""
    release = GroupAssistRelease(path, check=False)
    if restamped:
        from realcompanion.groupassist.synth import declared

        release.params.update(declared(release))
    judgement = Judgement(release)  # Frictionless judges the descriptor in a forked process, as for RealCompanion
    try:
        with ThreadPoolExecutor(1) as beside:
            return _validate(Context(release), rules, progress, beside.submit(import_pandera), judgement)
    finally:
        judgement.result()


def _validate(ctx: Context, rules: str | None, progress, imported: Future, judgement: Judgement) -> Report:
    release = ctx.release
    report = Report(release.descriptor.get("name", ""), release.version, release.params.get("format_version", ""))
    if escapes(release):
        report.outcomes = _execute(ctx, [r for r in select(None) if r.id == "GI3"], progress)
        return report
    ctx.warm()  # every table read once, before GS1 reports the records that did not fit and workers fork
    parallel = sum(len(ctx.frame(name)) for name in release.resources) >= PARALLEL_MIN_ROWS
    imported.result()  # before any rule runs: no other thread may be running when the workers fork, nor importing
    judgement.result()  # pandera while GS2 does (two threads importing one module can deadlock)
    declared = declared_rules(release)
    plan = planned(rules, declared)
    outcomes = {o.rule.id: o for o in _execute(ctx, plan, progress, parallel)}
    structure = [outcomes[r] for r in STRUCTURE_RULES]
    blocked = {res for o in structure for res in o.failures["resource"].unique()} | set(release.invalid_rows)
    chosen = {r.id for r in select(rules, declared)}
    for r in plan:
        o = outcomes[r.id]
        if r.id in STRUCTURE_RULES:
            if r.id in chosen or not o.passed:
                report.outcomes.append(o)
        elif set(r.reads) & blocked:
            reason = "skipped: " + ", ".join(sorted(set(r.reads) & blocked)) + " failed structure"
            report.outcomes.append(Outcome(r, pd.DataFrame(columns=FAILURE_COLUMNS), skipped=reason))
        else:
            report.outcomes.append(o)
    return report
