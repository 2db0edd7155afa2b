"""Where a `validate` run's CPU goes, rule by rule: the first place to look when a change makes validation slower.

A whole-process figure (`benchmarks/run.py`) says that a run got slower, not why: a gate whose cost
went from 0.16 s to 1.05 s of CPU on one release is one line here. The first line is what the process spent
starting Python and importing its libraries before anything else; then the release is read, judged by
Frictionless, pandera is imported and the shared views are computed, as in a run, each timed; then
each unit of rules (a resource's frame rules, evaluated by pandera together, or one release rule)
runs in turn in this one process, in the order of the run, and its CPU time is printed, largest first,
with its share of all units. A run spreads the units over two processes and the judging process, so
their sum is CPU, not wall time. The release's own declared rules are units too.

    python benchmarks/rules.py RELEASE [--top N] [--json OUT]

Nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from realcompanion.validators.declared import declared_rules
from realcompanion.validators.run import planned, unit_costs
from realcompanion.validators.speed import import_pandera

from realcompanion.allocator import from_malloc
from realcompanion.collector import paused
from realcompanion.errors import ReadError
from realcompanion.formats import format_of, part
from realcompanion.writing import write_text


def costs(path: Path) -> dict:
    """CPU seconds of the run's steps before the rules (`steps`) and of each unit of rules (`units`, largest
    first)."""
    runner = part(format_of(path), "runner")
    # the process's CPU clock starts with the process: what starting Python and importing pandas, pyarrow and the
    # validator cost, which every run pays before its first read
    steps = {"start-up (Python, pandas, pyarrow, the validator's modules)": time.process_time()}

    def step(name, work):
        start = time.process_time()
        result = work()
        steps[name] = time.process_time() - start
        return result

    from_malloc()  # as in a run: Arrow allocates from C malloc (realcompanion.allocator)
    with paused():  # and the collector never runs (realcompanion.collector)
        release = runner.release(path)
        ctx = runner.context(release)
        step("read every table", lambda: [ctx.table(name) for name in release.resources])
        step("Frictionless (import and judgement)", release.descriptor_problem)
        step("pandera (import)", import_pandera)
        step("shared views", ctx.warm)
        units = unit_costs(ctx, planned(None, declared_rules(release), runner))
    return {"release": str(path), "steps": steps, "units": dict(sorted(units, key=lambda u: -u[1]))}


def table(found: dict, top: int) -> str:
    units = list(found["units"].items())
    total = sum(seconds for _, seconds in units)
    lines = ["| step or unit | CPU | share of the units |", "|---|---:|---:|"]
    lines += [f"| {name} | {seconds:.3f} s | |" for name, seconds in found["steps"].items()]
    lines += [f"| {name} | {seconds:.3f} s | {seconds / total:.0%} |" for name, seconds in units[:top]]
    rest = units[top:]
    if rest:
        lines.append(f"| {len(rest)} more units | {sum(s for _, s in rest):.3f} s | {sum(s for _, s in rest) / total:.0%} |")
    lines.append(f"| every unit | {total:.3f} s | 100% |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--top", type=int, default=15, help="units shown one by one (default 15)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    try:
        found = costs(args.release)
    except ReadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table(found, args.top))
    if args.json:
        write_text(args.json, json.dumps(found, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
