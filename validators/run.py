"""Run a format's catalogue over a release and collect one report.

One runner for every format: a `Runner` names what differs (the catalogue, its structure
rules, the rule that reports records of the wrong type, the path rule, the release and
context); each format's is in its folder (<format>/run.py, the registry's `runner`).
Order: resource paths are checked before anything is read (INT3); each table is
read once (an unreadable file raises `ReadError`, exit 2); then every rule runs:
the constraint rule and the frame rules (pandera checks, one schema per resource) in
the process that judges the descriptor (`speed.Judgement`), the release rules (joins)
beside it, in this process and, for large releases, a worker per other core. One pass reports every defect: a row
that fails a structure rule is set aside from the rules that read its resource
(each rule's report says how many rows it set aside), and every other row is
still checked by every rule. A failure about a set-aside row, or whose value is
a set-aside record's identifier (a citation of a malformed message), is that
row's structure failure again and is not reported twice. A rule is skipped only
when it cannot be evaluated at all. Nothing is written to the release folder.
How the run is laid out for speed (the judging process, forked workers, memory given
back, the collector paused, imports) is speed.py's.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from realcompanion.collector import paused
from realcompanion.release import Release
from realcompanion.tracks import judged_by

from . import speed
from .aside import failing_values
from .catalogue import FAILURE_COLUMNS, Rule, as_text, failures
from .context import Context
from .declared import declared_rules
from .examples import EXAMPLES, kept
from .tracks import left_to_tracks


@dataclass
class Outcome:
    rule: Rule
    failures: pd.DataFrame
    skipped: str | None = None
    crashed: bool = False
    set_aside: int = 0  # rows of the resources it reads that failed structure, left out of its verdict
    more: int = 0  # failing rows counted but not kept in `failures` (examples.py)

    @property
    def count(self) -> int:
        """Its failing rows, each counted, those kept as examples and the others."""
        return len(self.failures) + self.more

    @property
    def passed(self) -> bool:
        return self.skipped is None and self.failures.empty

    @property
    def fired(self) -> bool:
        """Found failing rows, or could not evaluate."""
        return not self.failures.empty or self.crashed

    @property
    def is_error(self) -> bool:
        """Makes the release INVALID: an error rule that fired, or any rule that could not be evaluated."""
        return self.crashed or (self.fired and self.rule.severity == "error")


@dataclass
class Report:
    package: str
    version: str
    format_version: str
    outcomes: list[Outcome] = field(default_factory=list)
    examples: int | None = EXAMPLES  # failing rows kept per rule, resource and field (None: all)

    def count(self, severity: str) -> int:
        return sum(o.count for o in self.outcomes if o.rule.severity == severity)

    @property
    def errors(self) -> int:
        """Failing rows of error rules, and every rule that could not be evaluated, whatever its severity: no rule
        passes, nor merely warns, because it did not run."""
        return self.count("error") + sum(1 for o in self.outcomes if o.crashed)

    @property
    def warnings(self) -> int:
        return self.count("warning")

    def fired(self) -> set[str]:
        """Ids of the rules that fired."""
        return {o.rule.id for o in self.outcomes if o.fired}

    def failure_frame(self) -> pd.DataFrame:
        parts = [o.failures.assign(rule=o.rule.id, severity=o.rule.severity) for o in self.outcomes
                 if not o.failures.empty]
        if not parts:
            return pd.DataFrame(columns=["rule", "severity", *FAILURE_COLUMNS])
        return pd.concat(parts, ignore_index=True)[["rule", "severity", *FAILURE_COLUMNS]]

    def to_json(self) -> dict:
        """The report as JSON: every rule's verdict, its failing rows counted, and the failing rows kept (all of them,
        or the first `examples` of each rule, resource and field; built column by column)."""
        frame = self.failure_frame()
        columns = [[_json_value(v) for v in frame[name].tolist()] for name in frame.columns]
        return {
            "package": self.package, "version": self.version, "format_version": self.format_version,
            "errors": self.errors, "warnings": self.warnings, "examples": self.examples,
            "rules": [{**o.rule.as_dict(), "passed": o.passed, "failures": o.count, "listed": len(o.failures),
                       "skipped": o.skipped, "set_aside": o.set_aside}
                      for o in self.outcomes],
            "failures": [dict(zip(frame.columns, row)) for row in zip(*columns)],
        }


def _json_value(value):
    """A failure frame's cell as JSON holds it: numbers as they are, missing values null, anything else text."""
    if value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and value != value):
        return None
    return value if isinstance(value, (int, float)) else str(value)


def _frame_outcomes(ctx: Context, resource: str, rules: list[Rule]) -> list[Outcome]:
    """All frame rules of one resource as checks of one pandera schema, evaluated lazily."""
    import pandera.pandas as pa
    from pandera.errors import SchemaErrors

    frame = ctx.frame(resource)
    checks = [pa.Check(lambda df, r=r: r.check(ctx, df).fillna(False).astype(bool), name=r.id) for r in rules]
    cases = pd.DataFrame(columns=["check", "index"])
    try:
        pa.DataFrameSchema(checks=checks).validate(frame, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases.drop_duplicates(["check", "index"])
    # rows are named only when some fail: every row's name (its key as text) was built for every resource, which
    # at 100x paper size held 57 MB for `source` in the validating process all run
    ids = ctx.row_ids(resource) if not cases.empty else None
    out = []
    for rule in rules:
        own = cases[cases["check"] == rule.id]
        if own["index"].isna().any():  # pandera caught an exception, or the check named no row
            out.append(_crashed(rule, own.loc[own["index"].isna(), "failure_case"].iloc[0]))
            continue
        index = own["index"].astype(int).to_numpy()
        head = rule.field.split(".")[0]  # the member the field names, not its whole struct
        values = [as_text(v)[:80] for v in ctx.values(resource, rule.field, index)] if head in frame else ""
        found = failures(resource, ids.iloc[index] if len(index) else [], rule.field, values, rule.statement)
        out.append(Outcome(rule, found))
    return out


def _crashed(rule: Rule, exc) -> Outcome:
    """A rule that cannot evaluate this release is a failure to report, not a crash."""
    return Outcome(rule, pd.DataFrame(columns=FAILURE_COLUMNS), skipped=f"could not be evaluated: {exc}",
                   crashed=True)


def _run_unit(unit) -> list[Outcome]:
    """One unit of work: all frame rules of a resource (one pandera schema), or one release rule."""
    resource, rules = unit
    try:
        if resource:
            return _frame_outcomes(_CTX, resource, rules)
        return [Outcome(rules[0], rules[0].check(_CTX).reset_index(drop=True))]
    except Exception as exc:  # noqa: BLE001 - see _crashed
        return [_crashed(rule, exc) for rule in rules]


_CTX: Context | None = None  # the context `_run_unit` reads: set by the run, inherited by the processes it forks


def _execute(ctx: Context, units: list, progress, parallel: bool = False, here: list = ()) -> list[Outcome]:
    """Run units by `_run_unit` over `ctx`, on every core when `parallel` (`speed.execute`)."""
    global _CTX
    _CTX = ctx
    try:  # `_run_unit` looked up at each call, as a test replaces it
        return speed.execute(ctx, units, lambda unit: _run_unit(unit), _crashed, progress, parallel, here)
    finally:
        _CTX = None


def _units(rules: list[Rule]) -> list[tuple[str | None, list[Rule]]]:
    """The rules as units of work: each resource's frame rules together, each release rule alone."""
    frame_units: dict[str, list[Rule]] = {}
    units = []
    for rule in rules:
        if rule.kind == "frame":
            frame_units.setdefault(rule.resource, []).append(rule)
        else:
            units.append((None, [rule]))
    return [*frame_units.items(), *units]


def unit_costs(ctx: Context, rules: list[Rule]) -> list[tuple[str, float]]:
    """(unit, CPU seconds) of each unit of `rules` run in turn in this process, as a run forms them: a resource's
    frame rules (named by the resource) or one release rule (`benchmarks/rules.py`)."""
    global _CTX
    _CTX, out = ctx, []
    try:
        for unit in _units(rules):
            start = time.process_time()
            _run_unit(unit)
            out.append((unit[0] or unit[1][0].id, time.process_time() - start))
    finally:
        _CTX = None
    return out


def set_aside(structure_failures: list[pd.DataFrame]) -> dict[str, set[str]]:
    """Per resource, the rows (as the report names them) that failed a structure rule."""
    aside: dict[str, set[str]] = {}
    for found in structure_failures:
        named = found.loc[found["row"].astype(str) != "(table)", ["resource", "row"]]
        for resource, rows in named.groupby("resource", sort=False, dropna=False)["row"]:
            aside.setdefault(resource, set()).update(rows.astype(str))
    return aside


def _about_set_aside(found: pd.DataFrame, aside: dict[str, set[str]], cited: set[str] | None = None) -> pd.Series:
    """Failures that repeat a structure failure: on a set-aside row, or citing one of the set-aside records' ids
    `cited` (every resource's, gathered once a run: gathering them for each rule's failures took seconds when every
    row of a large release was set aside). A failure naming no row (a rule named it by its key, which is null) of
    a resource with rows set aside is about one of them: a null key is a structure failure itself."""
    rows, named = pd.Series(False, index=found.index), found["row"].astype(str)
    for resource, ids in aside.items():
        rows |= (found["resource"] == resource) & (found["row"].isna() | named.map(ids.__contains__).astype(bool))
    if cited is not None:
        rows |= found["value"].astype(str).map(cited.__contains__).astype(bool)
    return rows


def _without_failing_values(ctx: Context, outcomes: list[Outcome], structure: set[str], runner: Runner
                            ) -> list[Outcome]:
    """The outcomes, each rule that found failures in a resource holding a value that breaks its field's constraints
    judged again with those values read otherwise (validators/aside.py): a failure it finds again (the same resource,
    row and field) is its own, one it does not read those values and is dropped. Judging again only takes judgments
    away: what a rule finds only with them read otherwise (a count of what the file holds, GI2) is not a finding. A
    release no value of which breaks its constraints is judged once."""
    found = next((o.failures for o in outcomes if o.rule.id == runner.pandera), None)
    values = failing_values(found, ctx.release) if found is not None else {}
    again = [o.rule for o in outcomes if o.rule.id not in structure and not o.failures.empty
             and set(o.rule.reads) & set(values)]
    if not again:
        return outcomes
    units = _units(again)
    if any(resource for resource, _ in units):
        speed.import_pandera()
    judged = {o.rule.id: o for o in _execute(ctx.without(values), units, None)}
    for o in outcomes:
        if o.rule.id in judged and not judged[o.rule.id].crashed:
            keys = ["resource", "row", "field"]
            kept = set(judged[o.rule.id].failures[keys].astype(str).itertuples(index=False, name=None))
            o.failures = o.failures[[k in kept for k in o.failures[keys].astype(str).itertuples(index=False, name=None)]]
    return outcomes


@dataclass(frozen=True)
class Runner:
    """What one format's run needs beyond the shared machinery: its catalogue, and which of its rules play the
    parts the one pass gives them."""
    select: Callable  # (ids, declared rules) -> the rules named, among the format's catalogue and the declared ones
    structure: tuple[str, ...]  # rules whose failing rows are set aside from every other rule's verdict
    typed: str  # the structure rule naming the records that did not fit their types (each reported once, by it)
    contained: str  # the rule checking, before anything is read, that no resource path leaves the folder
    pandera: str  # the rule checking the Table Schemas' constraints with pandera (the judging process runs it, and
    # the frame rules)
    release: Callable  # path -> the format's release, opened unchecked
    context: Callable  # release -> the format's Context over it
    declared: Callable  # release -> the generated part of its format block, as `stamp` would write it
    tracks: str = ""  # the rule naming what needs a resource the release leaves out (`tracks.left_to_tracks`), if any

    def validate(self, path=".", rules: str | None = None, progress=None, restamped: bool = False,
                 opened: Release | None = None, examples: int | None = EXAMPLES) -> Report:
        """`validate` in this format: what a command reaches through the registry (`formats.part`)."""
        return validate(path, rules, progress, restamped, self, opened, examples)

    def planned(self, rules: str | None, declared: list[Rule] = (), release: Release | None = None) -> list[Rule]:
        return planned(rules, declared, self, release)


def _first(runner: Runner | None) -> Runner:
    """`runner`, or the first format's (the one a release without a format block is read as)."""
    from realcompanion.formats import FORMATS, part

    return runner or part(FORMATS[0], "runner")


def planned(rules: str | None, declared: list[Rule] = (), runner: Runner | None = None,
            release: Release | None = None) -> list[Rule]:
    """The rules a run evaluates: the chosen ones (among the catalogue and the release's declared rules), and the
    structure rules always (they decide what is set aside); of `release`'s, those that judge a resource it carries
    (`tracks.applies`), and only the one naming it where it leaves out a required resource."""
    runner = _first(runner)
    every, chosen = runner.select(None, declared), {r.id for r in runner.select(rules, declared)}
    if release is not None and release.missing:  # every other rule reads a required resource
        return [r for r in every if r.id == runner.tracks]
    every = judged_by(every, release)
    return [r for r in every if r.id in runner.structure] + [r for r in every if r.id in chosen
                                                             and r.id not in runner.structure]


def _judged(release: Release, ctx: Context | None, units: list) -> dict:
    """The child's work: what Frictionless finds wrong with the descriptor, then (when nothing) the outcomes of
    `units`, which read pandera, each without its rule (a rule's check need not pickle: the parent has it)."""
    global _CTX
    try:
        verdict = {"problem": release.descriptor_problem()}
    except BaseException as exc:  # noqa: BLE001 - any failure to judge is the parent's one line
        return {"problem": (f"Frictionless could not judge it ({type(exc).__name__}: {exc})", None)}
    if not verdict["problem"] and units:
        speed.import_pandera()
        _CTX = ctx
        try:  # the validating process's own, when it judges (`speed.judged_here`)
            verdict["outcomes"] = [(o.rule.id, o.failures, o.skipped, o.crashed) for unit in units
                                   for o in speed.given_back_after(_run_unit, ctx, unit)]
        finally:
            _CTX = None
    return verdict


def validate(path=".", rules: str | None = None, progress=None, restamped: bool = False,
             runner: Runner | None = None, opened: Release | None = None, examples: int | None = EXAMPLES) -> Report:
    """Validate the release at `path` (in `runner`'s format), or the release `opened` there already (the command
    line opens it to read its tables ahead while this module's libraries are imported); `rules` is a
    comma-separated list of ids or families; `restamped` judges it as `stamp` would leave it (declared counts,
    hashes and relabels taken from the files, in memory only); `examples`: the failing rows kept of each rule,
    resource and field, every one counted (examples.py; None keeps them all).

    Once the tables are read, a forked process judges the descriptor with Frictionless and runs the rules
    that read pandera (`speed.Judgement`), while this one computes the shared views and runs the others. Its
    verdict is awaited before the report is returned: a descriptor Frictionless rejects is reported
    (exit 2) in preference to anything else, a read that failed before it was forked included; but not
    awaited after Ctrl-C.
    """
    runner = _first(runner)
    with paused():  # a run allocates millions of objects and frees them by reference counting (`collector`)
        ctx = runner.context(opened or runner.release(path))
        if restamped:
            from realcompanion.stamp import restamp

            restamp(ctx.release, runner.declared(ctx.release))
        judgement = speed.Judgement(ctx.release, _judged)
        try:
            report = _validate(ctx, rules, progress, judgement, runner, examples)
        except KeyboardInterrupt:
            judgement.stop()  # the verdict is no longer awaited
            raise
        except BaseException:
            judgement.result()
            raise
        judgement.result()
        return report


def _validate(ctx: Context, rules: str | None, progress, judgement: speed.Judgement, runner: Runner,
              examples: int | None) -> Report:
    release = ctx.release
    report = Report(release.descriptor.get("name", ""), release.version, release.params.get("format_version", ""),
                    examples=examples)
    declared = declared_rules(release)
    chosen, every = runner.select(rules, declared), runner.select(None, declared)
    if release.escapes():
        report.outcomes = _execute(ctx, _units([r for r in every if r.id == runner.contained]), progress)
        return report
    if release.missing:
        report.outcomes = _execute(ctx, _units(planned(rules, declared, runner, release)), progress)
        return report
    ctx.vocab  # noqa: B018 - read and typed once it is known to lie inside; unreadable: exit 2
    rows = speed.rows(ctx)
    parallel = rows >= speed.PARALLEL_MIN_ROWS
    units = _units(planned(rules, declared, runner, release))
    judged = [u for u in units if u[0] or u[1][0].id == runner.pandera]  # the units pandera evaluates
    # A large release's frame rules run here, where the shared views are computed once: the judging process,
    # forked before them, computed them again (at 100x paper size 1.5 s of CPU and 176 MB, held at the peak).
    here = [u for u in judged if u[0]] if rows >= speed.LARGE_MIN_ROWS and parallel else []
    judgement.start(ctx, [u for u in judged if u not in here])  # every table read: no other thread runs
    if parallel:
        ctx.warm()
    if here:
        speed.import_pandera()
    outcomes = _execute(ctx, [u for u in units if u not in judged], progress, parallel, here)
    outcomes += [Outcome(*found) for found in judgement.result(progress)]
    structure_ids = set(runner.structure)
    outcomes = _without_failing_values(ctx, outcomes, structure_ids, runner)
    unread = set_aside([o.failures for o in outcomes if o.rule.id == runner.typed])
    # a record that did not fit its types is reported once, by the typed rule (SCH1); the constraint rule (SCH2)
    # drops its own cases on such records by position, so a good record sharing one's key still fails `unique`
    for o in outcomes:
        if o.rule.id in structure_ids - {runner.typed, runner.pandera} and unread and not o.failures.empty:
            o.failures = o.failures[~_about_set_aside(o.failures, unread)]
    if release.absent:
        left_to_tracks(ctx, outcomes, runner.tracks)
    aside = set_aside([o.failures for o in outcomes if o.rule.id in structure_ids])
    cited = set().union(*aside.values())
    chosen_ids = {r.id for r in chosen}
    for o in outcomes:
        if o.rule.id in structure_ids:
            if o.rule.id in chosen_ids or not o.passed:
                report.outcomes.append(o)
            continue
        o.set_aside = sum(len(aside.get(name, ())) for name in set(o.rule.reads))
        if aside and not o.failures.empty:
            o.failures = o.failures[~_about_set_aside(o.failures, aside, cited)]
        report.outcomes.append(o)
    order = {r.id: i for i, r in enumerate(every)}
    report.outcomes.sort(key=lambda o: order[o.rule.id])
    if examples is not None:
        for o in report.outcomes:
            o.failures, o.more = kept(o.failures, examples)
    return report
