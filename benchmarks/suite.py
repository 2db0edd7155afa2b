"""Where the test suite's time goes: the whole validations its cases run, against everything else.

Most cases break a copy of a release and validate it end to end, as a user would, and every such case is kept;
so the least CPU the suite can take is that of its validations. This runs the README's test command (pytest on
every core) with this module as a plugin (`-p suite`), which times each test and each whole validation a test
runs in its own process (`validators.run.validate`, which every format's runner calls): wall, and CPU of the
process and of the processes it waited for (a validation's judging process). A validation run by a process a test
starts (the command line) is counted in the test's CPU, not as a validation.

It prints the suite's wall time, its tests' CPU, the validations' count and CPU, the CPU of the rest, and the
floor: the validations' CPU spread over the cores, the least wall time of a suite that keeps every case.
`--validation RELEASE` times instead what one such validation costs: in a process that imported Frictionless and
pandera as a test process does (tests/conftest.py), one validation, then `--repeats` more, each timed (wall; CPU of
the process and the processes it waited for).

    python benchmarks/suite.py [--json OUT] [-- PYTEST ARGS]
    python benchmarks/suite.py --validation specimens/groupassist [--repeats 5]

Nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
RECORDS = "REALCOMPANION_SUITE_RECORDS"  # the folder each test process writes its records to; unset, the plugin is inert
_records: list[dict] = []
_test: dict = {"id": None}


def _cpu() -> float:
    return sum(getattr(resource.getrusage(who), field) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for field in ("ru_utime", "ru_stime"))


def _timed(kind: str, name: str, start: float, cpu: float) -> None:
    _records.append({"kind": kind, "test": name, "wall": time.perf_counter() - start, "cpu": _cpu() - cpu})


def pytest_configure(config) -> None:
    if not os.environ.get(RECORDS):
        return
    from realcompanion.validators import run

    whole, inside = run.validate, []

    def validate(*args, **kwargs):
        if inside:  # a validation within a validation is the outer one's
            return whole(*args, **kwargs)
        inside.append(True)
        start, cpu = time.perf_counter(), _cpu()
        try:
            return whole(*args, **kwargs)
        finally:
            inside.pop()
            _timed("validation", _test["id"], start, cpu)

    run.validate = validate


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _test["id"] = item.nodeid
    start, cpu = time.perf_counter(), _cpu()
    yield
    if os.environ.get(RECORDS):
        _timed("test", item.nodeid, start, cpu)


def pytest_unconfigure(config) -> None:
    if os.environ.get(RECORDS) and _records:
        Path(os.environ[RECORDS], f"{os.getpid()}.json").write_text(json.dumps(_records), encoding="utf-8")


def summary(records: list[dict], wall: float, cores: int) -> dict:
    """The suite's figures from the records of every test process."""
    tests = [r for r in records if r["kind"] == "test"]
    validations = [r for r in records if r["kind"] == "validation"]
    tests_cpu, validations_cpu = sum(r["cpu"] for r in tests), sum(r["cpu"] for r in validations)
    floor = validations_cpu / cores
    return {"wall_s": wall, "cores": cores, "tests": len(tests), "tests_cpu_s": tests_cpu,
            "validations": len(validations), "validations_cpu_s": validations_cpu,
            "validation_cpu_median_s": statistics.median(r["cpu"] for r in validations) if validations else 0.0,
            "tests_validating": len({r["test"] for r in validations}), "rest_cpu_s": tests_cpu - validations_cpu,
            "floor_s": floor, "wall_over_floor": wall / floor if floor else None}


def one_validation(release: Path, repeats: int) -> dict:
    """Wall and CPU seconds of each of `repeats` validations of `release` in this process, after a first."""
    from frictionless import system

    from realcompanion.formats import format_of, part
    from realcompanion.validators.speed import import_pandera

    system.methods  # noqa: B018 - loads the plugins, as tests/conftest.py does
    import_pandera()
    runner = part(format_of(release), "runner")
    runner.validate(release)
    runs = []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), _cpu()
        runner.validate(release)
        runs.append({"wall": time.perf_counter() - start, "cpu": _cpu() - cpu})
    return {"release": str(release), "repeats": repeats, "wall_median_s": statistics.median(r["wall"] for r in runs),
            "cpu_median_s": statistics.median(r["cpu"] for r in runs), "load_average": os.getloadavg()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--validation", type=Path, metavar="RELEASE", help="time one validation of RELEASE instead")
    parser.add_argument("--repeats", type=int, default=5, help="with --validation: how many (default 5)")
    parser.add_argument("pytest_args", nargs="*", help="after --: what pytest is given besides this plugin")
    args = parser.parse_args(argv)
    if args.validation:
        return _said(one_validation(args.validation, args.repeats), args.json, 0)
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, RECORDS: folder, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE),
                                                                                          os.environ.get("PYTHONPATH")]))}
        start = time.perf_counter()
        ended = subprocess.run([str(Path(sys.executable).parent / "pytest"), "-p", "suite", "-p", "no:cacheprovider",
                                *args.pytest_args], env=env, cwd=HERE.parent)
        wall = time.perf_counter() - start
        records = [r for path in Path(folder).glob("*.json") for r in json.loads(path.read_text(encoding="utf-8"))]
    found = {**summary(records, wall, os.cpu_count() or 1), "exit": ended.returncode, "load_average": os.getloadavg()}
    return _said(found, args.json, ended.returncode)


def _said(found: dict, out: Path | None, code: int) -> int:
    print("\n".join(f"{key}: {round(value, 3) if isinstance(value, float) else value}" for key, value in found.items()))
    if out:
        out.write_text(json.dumps(found, indent=2), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main())
