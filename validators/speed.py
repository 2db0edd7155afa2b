"""How one validation run goes fast: every trick the one pass (run.py) plays for speed and memory, in one place.

The pass itself (run.py) decides what runs and what is reported; nothing here changes a verdict, and every trick
below is checked by running the same release with and without it (tests/test_parallel.py, tests/test_rules.py).

* A forked judging process (`Judgement`): Frictionless judges the descriptor, and pandera runs the frame rules
  and the constraint rule, on the other core while this process computes the shared views and runs the rest;
  the validating process imports neither library. A process that has imported both already (one that validates
  again: a test, a scorer) judges a release below PARALLEL_MIN_ROWS rows itself (`judged_here`): nothing is left
  to import on the other core, and the fork cost more than the judgement (its copied pages, the shared views
  computed twice).
* Forked workers (`execute`): from PARALLEL_MIN_ROWS rows, a worker per other core takes the next unit of rules
  none has taken, inheriting the read tables and views; below it, forking costs more than the core saves. The units
  are taken heaviest first (`heaviest_first`, by the rows they read), so that the run does not end on one process
  running a large unit alone (below LARGE_MIN_ROWS rows: above, the largest units would hold their memory at
  once). The views computed before the fork (`Context.warm`) are those several rules read: a view one rule reads
  is that rule's, in the process that runs it (the second format's normalized queries, read by one rule), off the validating
  process's path before the workers start.
* Memory given back (`given_back`): from LARGE_MIN_ROWS rows, what Arrow's pool and C malloc keep of freed
  memory is returned before each fork and after each unit (Arrow's buffers come from C malloc:
  realcompanion/allocator.py); and from that size the frame rules run in the validating process beside the
  workers, where the shared views already are (run.py).
* The cyclic garbage collector paused for the run (realcompanion/collector.py): a run allocates millions of
  objects that form no cycles.
* Markdown parsed as blocks only (generated.py, `_parser`): a generated block's markers are HTML blocks, so the
  documents rule (DOC1) has markdown-it leave the text inside paragraphs and table cells unparsed (the markers
  found against those of the whole parse: tests/test_generated_blocks.py).
* A resource's pandera model built once a process for each Table Schema (structure.py, `_model`, keyed by the
  schema's JSON text): a process that validates copy after copy of a release (a test, a scorer, the explorer)
  built the same models each time, about a tenth of a specimen's validation.
* Imports: pandera imported without hypothesis (`import_pandera`); the command line reads the tables while the
  validator's libraries are imported (commands/validate.py, `Release.reading_ahead`).
* Work whose memory is given back when it ends (`in_a_fork`): a scorer's validation (scoring/checked.py), whose
  tables and libraries the scorer does not hold afterwards.
* Ctrl-C taken once processes are forked (`uninterrupted`), so that a run ends with exit 130 and nothing more.

Measured in benchmarks/RESULTS.md (benchmarks/run.py: validate at 1x, 10x and 100x paper size, as ratios to the
floor of benchmarks/floor.py).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable

import pandas as pd

from realcompanion.allocator import trimmed
from realcompanion.errors import ReadError

from .catalogue import Rule

if TYPE_CHECKING:
    from realcompanion.release import Release

# Below this many rows, forking workers costs more than the second core saves (measured: a release of 36,534 rows,
# the first format's paper size, runs 0.2 s faster in one process; one of 150,780 rows, the second's, 0.2 s slower).
PARALLEL_MIN_ROWS = 100_000
# From this many rows, memory is what a run spares: freed memory is given back (`given_back`), and the frame rules
# run in the validating process beside the workers (run.py).
LARGE_MIN_ROWS = 1_000_000


def rows(ctx) -> int:
    """The release's rows in all, which decide how a run is laid out (`PARALLEL_MIN_ROWS`, `LARGE_MIN_ROWS`)."""
    return 0 if ctx is None else sum(ctx.table(name).num_rows for name in ctx.release.resources)


def given_back(ctx) -> None:
    """Memory freed but kept by Arrow's pool and by C malloc returned to the system (`allocator.trimmed`), in a run of a
    large release (`LARGE_MIN_ROWS`). Both keep what a rule freed for its next allocation: a worker held
    what its largest unit of rules took while the next units ran (at 100x paper size, 1.0 GB of data, gate B
    took 460 MB and kept it), and the parent's freed read buffers were inherited by every forked process.
    Called before each fork and after each unit of a parallel run. The calls take milliseconds, but the pages
    handed back are faulted in again by the next unit: at 10x (365,340 rows, 0.5 GB held in all) that cost 0.1-0.16 s
    more CPU a run, for no memory that matters there."""
    if rows(ctx) >= LARGE_MIN_ROWS:
        trimmed()


def given_back_after(work: Callable, ctx, unit) -> list:
    """`work(unit)` in a process that then gives back what the unit freed (`given_back`): a forked process, or this
    one taking its share of a parallel run's units."""
    try:
        return work(unit)
    finally:
        given_back(ctx)


class Unanswered(Exception):
    """A forked process of `in_a_fork` ended without sending its answer (killed, out of memory)."""


def in_a_fork(work: Callable, *args):
    """`work(*args)` in a forked process, whose memory (what it read, imported and built) is given back to the system
    when it ends: its result, or the exception it raised, raised here (one that does not pickle as a RuntimeError
    naming it); a process that ends without answering is `Unanswered`, saying how (`ended`). An interrupt ends
    both once the work has ended."""
    forking = multiprocessing.get_context("fork")
    results, sender = forking.Pipe(duplex=False)
    process = forking.Process(target=_answered, args=(work, args, sender))
    process.start()
    sender.close()
    try:
        outcome, value = results.recv()
    except EOFError:  # its exit code is known once it is joined (before, it was read as None, "with code 0")
        process.join()
        raise Unanswered(ended(process.exitcode)) from None
    finally:
        process.join()
        results.close()
    if outcome == "raised":
        raise value
    return value


def _answered(work: Callable, args: tuple, sender) -> None:
    """The forked process of `in_a_fork`: ("passed", the result) or ("raised", the exception), sent back."""
    with sender:
        try:
            sender.send(("passed", work(*args)))
        except BaseException as exc:  # noqa: BLE001 - raised by the process that forked this one
            try:
                sender.send(("raised", exc))
            except Exception:  # noqa: BLE001 - an exception that does not pickle: its line
                sender.send(("raised", RuntimeError(f"{type(exc).__name__}: {exc}")))


def ended(code: int) -> str:
    """How a forked process ended, by its exit code (a negative code is the signal that ended it)."""
    return f"on signal {signal.Signals(-code).name} (out of memory?)" if code < 0 else f"with code {code}"


@contextmanager
def uninterrupted():
    """Ctrl-C taken once processes are forked, and left to this one by the processes forked then: Python ignores
    an interrupt that lands in its at-fork handlers (the run went on to the end), and a worker's own interrupt
    printed 'Process ForkPoolWorker-1:' before the parent's. Meanwhile an interrupt is only noted (the forked
    processes inherit that), then handled as it would have been; the workers are ended by `execute`."""
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


def execute(ctx, units: list, work: Callable, crashed: Callable, progress, parallel: bool = False,
            here: list = ()) -> list:
    """The outcomes of `work(unit)` for each unit (a unit: (resource or None, its rules)), on every core when
    `parallel`: this process runs the units `here`, then it and a worker forked per other core (inheriting the read
    tables and views of `ctx`) each take the next unit none has taken, until none is left. A pool of a worker per core
    kept this process waiting, one process more on the cores with its own copied pages (150,780 rows: 0.1 s of
    1.7 s), and left the run waiting for ever when a worker was killed (out of memory); a unit a worker took and
    never sent back is reported not evaluated (`crashed(rule, why)`)."""
    helpers = min((os.cpu_count() or 1) - 1, len(units) - 1) if parallel else 0
    if helpers < 1:
        return _in_turn([*units, *here], work, progress)
    units = heaviest_first(ctx, units)
    forking = multiprocessing.get_context("fork")
    taken, workers = forking.Value("l", 0), []
    given_back(ctx)
    try:
        with uninterrupted():
            for _ in range(helpers):
                results, sender = forking.Pipe(duplex=False)
                workers.append((forking.Process(target=_worker, args=(units, work, ctx, taken, sender), daemon=True),
                                results))
                workers[-1][0].start()
                sender.close()
        out, done = _in_turn(here, work, progress), {}
        while (at := _take(taken, len(units))) is not None:
            done[at] = given_back_after(work, ctx, units[at])
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
                  for o in (done[at] if at in done else [crashed(rule, lost) for rule in rules])]


def heaviest_first(ctx, units: list) -> list:
    """The units, those whose rules read the most rows first (the rows of the resources they read, a unit's cost as
    far as it is known before it runs): taken in the catalogue's order, the personal-data screen of every resource
    (0.25 s of 2.0 s on the second format's paper-scale release) came last, and one process ran it alone while
    the other had ended; taken largest first, what is left at the end is small units, which even out. From
    LARGE_MIN_ROWS rows they keep the catalogue's order: there memory is what a run spares, and the largest units
    taken first would run side by side, each holding what it builds (at 100x paper size gate B took 460 MB)."""
    if rows(ctx) >= LARGE_MIN_ROWS:
        return units
    counts = {name: ctx.table(name).num_rows for name in ctx.release.resources}
    return sorted(units, key=lambda unit: -sum(counts.get(name, 0) for name in {n for rule in unit[1] for n in rule.reads}))


def _take(taken, count: int) -> int | None:
    """The position of the next unit none has taken, now taken; None when every unit is."""
    with taken.get_lock():
        at = taken.value
        taken.value += 1
    return at if at < count else None


def _worker(units: list, work: Callable, ctx, taken, sender) -> None:
    """A forked worker: takes the next unit in turn and sends its outcomes back, until every unit is taken. A unit
    whose outcomes it cannot send ends it with code 1, without a traceback; that unit is reported not evaluated."""
    with sender:
        while (at := _take(taken, len(units))) is not None:
            try:
                sender.send((at, given_back_after(work, ctx, units[at])))
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


def _in_turn(units: list, work: Callable, progress) -> list:
    out = []
    for unit in units:
        out += work(unit)
        if progress:
            progress(len(unit[1]))
    return out


def judged_here(ctx) -> bool:
    """Whether `Judgement` judges in this process instead of a forked one: when this process has imported Frictionless
    and pandera (it validated before) and the release is below `PARALLEL_MIN_ROWS` rows. Measured in a process that had
    imported both, 5 validations each, load 4 to 5: the first format's specimen in 0.36 s instead of 0.61 s (CPU, the
    forked process's included: 0.34 s instead of 0.51 s), the second's in 0.57 s instead of 0.85 s (0.52 s instead of
    0.84 s), the first's paper size (36,534 rows) in 0.80 s instead of 0.98 s (0.46 s instead of 0.70 s); at the
    second's (150,780 rows) the two were even. The command line's validating process imports neither, so it forks."""
    return all(name in sys.modules for name in ("frictionless", "pandera")) and rows(ctx) < PARALLEL_MIN_ROWS


class Judgement:
    """Frictionless's judgement of the descriptor, and the rules pandera evaluates, in a process forked once the
    tables are read, on the other core (or in this process, `judged_here`).

    Importing frictionless and loading its plugins costs about 0.3 s of CPU, far more than the
    judgement, and importing pandera 0.3 s more; in a thread of the validating process either
    would hold the GIL its own work needs. pandera builds its models with frictionless's Table Schema reader, so
    the process that judges the descriptor imports pandera too and runs the rules that use it:
    the constraint rule (SCH2, GS2) and the frame rules. The validating process imports neither
    library: it computes the shared views and runs every other rule meanwhile, on its workers or
    itself, and takes this process's outcomes with its verdict. A large release's frame rules are
    the exception: they read the shared views, so the validating process runs them (run.py). `work(release, ctx,
    units)` is the judging process's: the verdict and the units' outcomes, as (rule id, *outcome) (run._judged).
    """

    def __init__(self, release: Release, work: Callable):
        self.release, self.path, self._verdict, self.pid = release, release.root / "datapackage.json", None, None
        self.work = work
        self.rules: dict[str, Rule] = {}
        self.pipe: int | None = None
        self.here: dict | None = None  # the verdict, when judged in this process (`judged_here`)

    def start(self, ctx=None, units: list = ()) -> None:
        """Fork the judging process (once, when no other thread runs), or judge in this one (`judged_here`); after a
        clean verdict it runs `units` over `ctx`, whose tables are read."""
        if self.pid is not None or self.here is not None:
            return
        self.rules = {rule.id: rule for _, rules in units for rule in rules}
        if judged_here(ctx):
            self.here = self.work(self.release, ctx, units)
            return
        read, write = os.pipe()
        given_back(ctx)
        with uninterrupted():
            self.pid = os.fork()
            if self.pid == 0:  # pragma: no cover - the child: it reports through the pipe and never returns, nor
                try:  # runs the parent's code (a parent that went away, a broken pipe, ends it too)
                    os.close(read)
                    with os.fdopen(write, "wb") as out:
                        pickle.dump(self.work(self.release, ctx, units), out)
                finally:
                    os._exit(0)
        os.close(write)
        self.pipe = read

    def stop(self) -> None:
        """End the judging process when its verdict is no longer awaited (Ctrl-C): it notes interrupts
        (`uninterrupted`), so it went on judging, and running the pandera rules, after the run had ended."""
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

    def result(self, progress=None) -> list[tuple]:
        """Wait for the verdict (once, forking the judging process if nothing has); a rejected descriptor is a
        `ReadError` (exit 2). Returns the outcomes of the units it ran, as (rule, *outcome)."""
        if self._verdict is None:
            self.start()
            self._verdict = self.here if self.here is not None else self._received()
            if progress:
                progress(len(self._verdict.get("outcomes", ())))
        if self._verdict["problem"]:
            message, field = self._verdict["problem"]
            raise ReadError(self.path, message, field=field)
        return [(self.rules[rule], *found) for rule, *found in self._verdict.get("outcomes", ())]

    def _received(self) -> dict:
        """The forked process's verdict, once it has ended."""
        pipe, self.pipe = self.pipe, None  # closed with the file reading it
        with os.fdopen(pipe, "rb") as verdict:
            data = verdict.read()
        code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return pickle.loads(data) if data else {"problem": (
            "Frictionless could not judge it: the process judging it and running the pandera rules ended " + ended(code),
            None)}


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
