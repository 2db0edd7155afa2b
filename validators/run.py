"""Run a format's catalogue over a release and collect one report.

One runner for both formats: a `Runner` names what differs (the catalogue, its structure
rules, the rule that reports records of the wrong type, the path rule, the release and
context); RealCompanion's is REALCOMPANION, GroupAssistBench's is in groupassist/run.py.
Order: resource paths are checked before anything is read (INT3); each table is
read once (an unreadable file raises `ReadError`, exit 2); then every rule runs:
the constraint rule and the frame rules (pandera checks, one schema per resource) in
the process that judges the descriptor (`Judgement`), the release rules (joins)
beside it, in this process and, for large releases, a worker per other core. One pass reports every defect: a row
that fails a structure rule is set aside from the rules that read its resource
(each rule's report says how many rows it set aside), and every other row is
still checked by every rule. A failure about a set-aside row, or whose value is
a set-aside record's identifier (a citation of a malformed message), is that
row's structure failure again and is not reported twice. A rule is skipped only
when it cannot be evaluated at all. Nothing is written to the release folder.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from realcompanion.allocator import trimmed
from realcompanion.collector import paused
from realcompanion.errors import ReadError
from realcompanion.release import Release
from realcompanion.tracks import judged_by

from .catalogue import FAILURE_COLUMNS, Rule, as_text, failures, select
from .context import Context
from .declared import declared_rules
from .structure import STRUCTURE_RULES
from .tracks import left_to_tracks


@dataclass
class Outcome:
    rule: Rule
    failures: pd.DataFrame
    skipped: str | None = None
    crashed: bool = False
    set_aside: int = 0  # rows of the resources it reads that failed structure, left out of its verdict

    @property
    def passed(self) -> bool:
        return self.skipped is None and self.failures.empty

    @property
    def fired(self) -> bool:
        """Found failing rows, or could not evaluate."""
        return not self.failures.empty or self.crashed


@dataclass
class Report:
    package: str
    version: str
    format_version: str
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, severity: str) -> int:
        return sum(len(o.failures) for o in self.outcomes if o.rule.severity == severity)

    @property
    def errors(self) -> int:
        return self.count("error") + sum(1 for o in self.outcomes if o.crashed and o.rule.severity == "error")

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
        """The report as JSON: every rule's verdict and every failing row (column by column: a release whose
        every row fails has hundreds of thousands)."""
        frame = self.failure_frame()
        columns = [[_json_value(v) for v in frame[name].tolist()] for name in frame.columns]
        return {
            "package": self.package, "version": self.version, "format_version": self.format_version,
            "errors": self.errors, "warnings": self.warnings,
            "rules": [{**o.rule.as_dict(), "passed": o.passed, "failures": len(o.failures), "skipped": o.skipped,
                       "set_aside": o.set_aside}
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


def ended(code: int) -> str:
    """How a forked process ended, by its exit code (a negative code is the signal that ended it)."""
    return f"on signal {signal.Signals(-code).name} (out of memory?)" if code < 0 else f"with code {code}"


def _run_unit(unit) -> list[Outcome]:
    """One unit of work: all frame rules of a resource (one pandera schema), or one release rule."""
    resource, rules = unit
    try:
        if resource:
            return _frame_outcomes(_CTX, resource, rules)
        return [Outcome(rules[0], rules[0].check(_CTX).reset_index(drop=True))]
    except Exception as exc:  # noqa: BLE001 - see _crashed
        return [_crashed(rule, exc) for rule in rules]


def _given_back_after(unit) -> list[Outcome]:
    """A unit run by a process that then gives back what the unit freed (`given_back`): a forked process, or this
    one taking its share of a parallel run's units."""
    try:
        return _run_unit(unit)
    finally:
        given_back(_CTX)


# From this many rows, memory is what a run spares: freed memory is given back (`given_back`), and the frame rules
# run in the validating process beside the workers (`_validate`).
LARGE_MIN_ROWS = 1_000_000


def _rows(ctx: Context | None) -> int:
    """The release's rows in all, which decide how a run is laid out (`PARALLEL_MIN_ROWS`, `LARGE_MIN_ROWS`)."""
    return 0 if ctx is None else sum(ctx.table(name).num_rows for name in ctx.release.resources)


def given_back(ctx: Context | None) -> None:
    """Memory freed but kept by Arrow's pool and by C malloc returned to the system (`allocator.trimmed`), in a run of a
    large release (`LARGE_MIN_ROWS`). Both keep what a rule freed for its next allocation: a worker held
    what its largest unit of rules took while the next units ran (at 100x paper size, 1.0 GB of data, gate B
    took 460 MB and kept it), and the parent's freed read buffers were inherited by every forked process.
    Called before each fork and after each unit of a parallel run. The calls take milliseconds, but the pages
    handed back are faulted in again by the next unit: at 10x (365,340 rows, 0.5 GB held in all) that cost 0.1-0.16 s
    more CPU a run, for no memory that matters there."""
    if _rows(ctx) >= LARGE_MIN_ROWS:
        trimmed()


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


# Below this many rows, forking workers costs more than the second core saves (measured: RealCompanion at paper
# size, 36,534 rows, runs 0.2 s faster in one process; GroupAssistBench at paper size, 150,780 rows, 0.2 s slower).
PARALLEL_MIN_ROWS = 100_000
_CTX: Context | None = None


@contextmanager
def _uninterrupted():
    """Ctrl-C taken once processes are forked, and left to this one by the processes forked then: Python ignores
    an interrupt that lands in its at-fork handlers (the run went on to the end), and a worker's own interrupt
    printed 'Process ForkPoolWorker-1:' before the parent's. Meanwhile an interrupt is only noted (the forked
    processes inherit that), then handled as it would have been; the workers are ended by `_execute`."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread takes signals
        yield
        return
    noted = []
    handler = signal.signal(signal.SIGINT, lambda *caught: noted.append(caught))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if noted and callable(handler):
            handler(*noted[0])


def _execute(ctx: Context, units: list, progress, parallel: bool = False, here: list = ()) -> list[Outcome]:
    """Run units, on every core when `parallel`: this process runs the units `here`, then it and a worker forked
    per other core (inheriting the read tables and views) each take the next unit none has taken, until none is
    left. A pool of a worker per core kept this process waiting, one process more on the cores with its own
    copied pages (GroupAssistBench at paper size: 0.1 s of 1.7 s), and left the run waiting for ever when a
    worker was killed (out of memory); a unit a worker took and never sent back is reported not evaluated."""
    global _CTX
    helpers = min((os.cpu_count() or 1) - 1, len(units) - 1) if parallel else 0
    _CTX = ctx
    try:
        if helpers < 1:
            return _in_turn([*units, *here], progress)
        forking = multiprocessing.get_context("fork")
        taken, workers = forking.Value("l", 0), []
        given_back(ctx)
        try:
            with _uninterrupted():
                for _ in range(helpers):
                    results, sender = forking.Pipe(duplex=False)
                    workers.append((forking.Process(target=_worker, args=(units, taken, sender), daemon=True), results))
                    workers[-1][0].start()
                    sender.close()
            out, done = _in_turn(here, progress), {}
            while (at := _take(taken, len(units))) is not None:
                done[at] = _given_back_after(units[at])
                if progress:
                    progress(len(units[at][1]))
                _received(workers, done, progress, wait=False)
            _received(workers, done, progress, wait=True)
        finally:
            for worker, results in workers:
                worker.kill()  # ended by now, unless this process was interrupted
                worker.join()
                results.close()
        lost = f"the process evaluating it ended {ended(next((w.exitcode for w, _ in workers if w.exitcode), 0))}"
        return out + [o for at, (_, rules) in enumerate(units)
                      for o in (done[at] if at in done else [_crashed(rule, lost) for rule in rules])]
    finally:
        _CTX = None


def _take(taken, count: int) -> int | None:
    """The position of the next unit none has taken, now taken; None when every unit is."""
    with taken.get_lock():
        at = taken.value
        taken.value += 1
    return at if at < count else None


def _worker(units: list, taken, sender) -> None:
    """A forked worker: takes the next unit in turn and sends its outcomes back, until every unit is taken. A unit
    whose outcomes it cannot send ends it with code 1, without a traceback; that unit is reported not evaluated."""
    with sender:
        while (at := _take(taken, len(units))) is not None:
            try:
                sender.send((at, _given_back_after(units[at])))
            except Exception:  # noqa: BLE001 - reported by the validating process, naming the exit code
                sys.exit(1)


def _received(workers: list, done: dict, progress, wait: bool) -> None:
    """The outcomes the workers sent back since last asked, into `done` by unit position; with `wait`, every one
    until each worker has ended."""
    pending = [results for _, results in workers if not results.closed]
    while pending:
        for results in multiprocessing.connection.wait(pending, timeout=None if wait else 0):
            try:
                at, outcomes = results.recv()
            except EOFError:  # the worker ended: every unit it sent is here
                results.close()
                continue
            done[at] = outcomes
            if progress:
                progress(len(outcomes))
        pending = [results for results in pending if not results.closed] if wait else []


def _in_turn(units: list, progress) -> list[Outcome]:
    out = []
    for unit in units:
        out += _run_unit(unit)
        if progress:
            progress(len(unit[1]))
    return out


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
    tracks: str = "TRK1"  # the rule naming what needs a resource the release leaves out (`tracks.left_to_tracks`)


def _declared(release: Release) -> dict:
    from realcompanion.stamp import declared

    return declared(release)


REALCOMPANION = Runner(select, STRUCTURE_RULES, "SCH1", "INT3", "SCH2", lambda path: Release(path, check=False), Context,
                       _declared)


def planned(rules: str | None, declared: list[Rule] = (), runner: Runner = REALCOMPANION,
            release: Release | None = None) -> list[Rule]:
    """The rules a run evaluates: the chosen ones (among the catalogue and the release's declared rules), and the
    structure rules always (they decide what is set aside); of `release`'s, those that judge a resource it carries
    (`tracks.applies`)."""
    every, chosen = runner.select(None, declared), {r.id for r in runner.select(rules, declared)}
    every = judged_by(every, release)
    return [r for r in every if r.id in runner.structure] + [r for r in every if r.id in chosen
                                                             and r.id not in runner.structure]


class Judgement:
    """Frictionless's judgement of the descriptor, and the rules pandera evaluates, in a process forked once the
    tables are read, on the other core.

    Importing frictionless and loading its plugins costs about 0.3 s of CPU, far more than the
    judgement, and importing pandera 0.3 s more; in a thread of the validating process either
    would hold the GIL its own work needs. pandera builds its models with frictionless's Table Schema reader, so
    the process that judges the descriptor imports pandera too and runs the rules that use it:
    the constraint rule (SCH2, GS2) and the frame rules. The validating process imports neither
    library: it computes the shared views and runs every other rule meanwhile, on its workers or
    itself, and takes this process's outcomes with its verdict. A large release's frame rules are
    the exception: they read the shared views, so the validating process runs them (`_validate`).
    """

    def __init__(self, release: Release):
        self.release, self.path, self._verdict, self.pid = release, release.root / "datapackage.json", None, None
        self.rules: dict[str, Rule] = {}
        self.pipe: int | None = None

    def start(self, ctx: Context | None = None, units: list = ()) -> None:
        """Fork the judging process (once, when no other thread runs); after a clean verdict it runs `units` over
        `ctx`, whose tables are read."""
        if self.pid is not None:
            return
        self.rules = {rule.id: rule for _, rules in units for rule in rules}
        read, write = os.pipe()
        given_back(ctx)
        with _uninterrupted():
            self.pid = os.fork()
            if self.pid == 0:  # pragma: no cover - the child: it reports through the pipe and never returns, nor
                try:  # runs the parent's code (a parent that went away, a broken pipe, ends it too)
                    os.close(read)
                    with os.fdopen(write, "wb") as out:
                        pickle.dump(_judged(self.release, ctx, units), out)
                finally:
                    os._exit(0)
        os.close(write)
        self.pipe = read

    def stop(self) -> None:
        """End the judging process when its verdict is no longer awaited (Ctrl-C): it notes interrupts
        (`_uninterrupted`), so it went on judging, and running the pandera rules, after the run had ended."""
        if self.pid is None or self._verdict is not None:
            return
        if self.pipe is not None:
            os.close(self.pipe)
            self.pipe = None
        try:
            if os.waitpid(self.pid, os.WNOHANG)[0] == 0:  # not ended: until reaped here it keeps its pid
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except ChildProcessError:  # reaped already, as its verdict was taken
            pass

    def result(self, progress=None) -> list[Outcome]:
        """Wait for the verdict (once, forking the judging process if nothing has); a rejected descriptor is a
        `ReadError` (exit 2). Returns the outcomes of the units it ran."""
        if self._verdict is None:
            self.start()
            pipe, self.pipe = self.pipe, None  # closed with the file reading it
            with os.fdopen(pipe, "rb") as verdict:
                data = verdict.read()
            code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
            self._verdict = pickle.loads(data) if data else {"problem": (
                "Frictionless could not judge it: the process judging it and running the pandera rules ended "
                + ended(code),
                None)}
            if progress:
                progress(len(self._verdict.get("outcomes", ())))
        if self._verdict["problem"]:
            message, field = self._verdict["problem"]
            raise ReadError(self.path, message, field=field)
        return [Outcome(self.rules[rule], *found) for rule, *found in self._verdict.get("outcomes", ())]


def _judged(release: Release, ctx: Context | None, units: list) -> dict:
    """The child's work: what Frictionless finds wrong with the descriptor, then (when nothing) the outcomes of
    `units`, which read pandera, each without its rule (a rule's check need not pickle: the parent has it)."""
    global _CTX
    try:
        verdict = {"problem": release.descriptor_problem()}
    except BaseException as exc:  # noqa: BLE001 - any failure to judge is the parent's one line
        return {"problem": (f"Frictionless could not judge it ({type(exc).__name__}: {exc})", None)}
    if not verdict["problem"] and units:
        import_pandera()
        _CTX = ctx
        verdict["outcomes"] = [(o.rule.id, o.failures, o.skipped, o.crashed) for unit in units
                               for o in _given_back_after(unit)]
    return verdict


def import_pandera() -> None:
    """pandera, imported (by the judging process) with its pandas backends registered, but without
    hypothesis: pandera registers data-synthesis strategies when hypothesis is installed, which validation never
    uses (about 0.1 s a run). A process that imported hypothesis itself keeps pandera's strategies."""
    blocked = "hypothesis" not in sys.modules
    if blocked:
        sys.modules["hypothesis"] = None  # import hypothesis raises ImportError, as if it were not installed
    try:
        import pandera.pandas as pa

        pa.DataFrameSchema().validate(pd.DataFrame())  # registers the pandas backends
    finally:
        if blocked:
            del sys.modules["hypothesis"]


def validate(path=".", rules: str | None = None, progress=None, restamped: bool = False,
             runner: Runner = REALCOMPANION, opened: Release | None = None) -> Report:
    """Validate the release at `path` (in `runner`'s format), or the release `opened` there already (the command
    line opens it to read its tables ahead while this module's libraries are imported); `rules` is a
    comma-separated list of ids or families; `restamped` judges it as `stamp` would leave it (declared counts,
    hashes and relabels taken from the files, in memory only).

    Once the tables are read, a forked process judges the descriptor with Frictionless and runs the rules
    that read pandera (`Judgement`), while this one computes the shared views and runs the others. Its
    verdict is awaited before the report is returned: a descriptor Frictionless rejects is reported
    (exit 2) in preference to anything else, a read that failed before it was forked included; but not
    awaited after Ctrl-C.
    """
    with paused():  # a run allocates millions of objects and frees them by reference counting (`collector`)
        ctx = runner.context(opened or runner.release(path))
        if restamped:
            from realcompanion.stamp import restamp

            restamp(ctx.release, runner.declared(ctx.release))
        judgement = Judgement(ctx.release)
        try:
            report = _validate(ctx, rules, progress, judgement, runner)
        except KeyboardInterrupt:
            judgement.stop()  # the verdict is no longer awaited
            raise
        except BaseException:
            judgement.result()
            raise
        judgement.result()
        return report


def _validate(ctx: Context, rules: str | None, progress, judgement: Judgement, runner: Runner) -> Report:
    release = ctx.release
    report = Report(release.descriptor.get("name", ""), release.version, release.params.get("format_version", ""))
    declared = declared_rules(release)
    chosen, every = runner.select(rules, declared), runner.select(None, declared)
    if release.escapes():
        report.outcomes = _execute(ctx, _units([r for r in every if r.id == runner.contained]), progress)
        return report
    ctx.vocab  # noqa: B018 - read and typed once it is known to lie inside; unreadable: exit 2
    rows = _rows(ctx)
    parallel = rows >= PARALLEL_MIN_ROWS
    units = _units(planned(rules, declared, runner, release))
    judged = [u for u in units if u[0] or u[1][0].id == runner.pandera]  # the units pandera evaluates
    # A large release's frame rules run here, where the shared views are computed once: the judging process,
    # forked before them, computed them again (at 100x paper size 1.5 s of CPU and 176 MB, held at the peak).
    here = [u for u in judged if u[0]] if rows >= LARGE_MIN_ROWS and parallel else []
    judgement.start(ctx, [u for u in judged if u not in here])  # every table read: no other thread runs
    if parallel:
        ctx.warm()
    if here:
        import_pandera()
    outcomes = _execute(ctx, [u for u in units if u not in judged], progress, parallel, here)
    outcomes += judgement.result(progress)
    structure_ids = set(runner.structure)
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
    return report
