"""The benchmark scripts run on a release of each format and account for every unit of rules a run evaluates."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from realcompanion.validators.declared import declared_rules
from realcompanion.validators.run import planned

from realcompanion.formats import format_of, part
from realcompanion.paths import REPO_ROOT


@pytest.mark.parametrize("release", [".", "specimens/groupassist"])
def test_rule_costs_name_each_unit_of_a_run_once(release, tmp_path):
    root = REPO_ROOT / release
    out = tmp_path / "costs.json"
    subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "rules.py"), str(root), "--json", str(out)],
                   check=True, capture_output=True)
    found = json.loads(out.read_text(encoding="utf-8"))
    runner = part(format_of(root), "runner")
    rules = planned(None, declared_rules(runner.release(root)), runner)
    assert list(found["units"]) == sorted(found["units"], key=lambda unit: -found["units"][unit])
    assert set(found["units"]) == {rule.resource or rule.id for rule in rules}
    assert all(seconds >= 0 for seconds in [*found["units"].values(), *found["steps"].values()])


def test_the_table_states_the_ceiling_of_frictionless_over_validate():
    """Frictionless ÷ floor bounds frictionless ÷ validate: validate reads and hashes the files, as the floor does."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_run", REPO_ROOT / "benchmarks" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_run)
    timed = {"min_s": 1.0, "median_s": 2.0, "cpu_median_s": 3.0, "peak_mb": 100.0, "pss_mb": 90.0}
    result = {"release": "R", "rows": 10, "data_mb": 50.0, "load_average": (0.0, 0.0, 0.0),
              "validate": timed, "floor": {**timed, "median_s": 0.8}, "frictionless": {**timed, "median_s": 12.0},
              "validate_over_floor": {"min": 1.2, "median": 2.5}, "frictionless_over_validate": 6.0,
              "frictionless_over_floor": 15.0}
    header, _, row = bench_run.table([result]).splitlines()
    cells = dict(zip(header.strip("|").split(" | "), row.strip("|").split(" | ")))
    assert cells["frictionless ÷ validate"].strip() == "6.0" and cells["frictionless ÷ floor"].strip() == "15.0"


def test_the_suite_benchmark_counts_each_whole_validation_of_a_test(tmp_path):
    """`benchmarks/suite.py` over one test that validates the shipped release once and one that validates nothing."""
    out = tmp_path / "suite.json"
    chosen = ["tests/test_rules.py::test_the_shipped_release_passes_with_zero_errors",
              "tests/test_benchmarks.py::test_the_table_states_the_ceiling_of_frictionless_over_validate"]
    subprocess.run([sys.executable, str(REPO_ROOT / "benchmarks" / "suite.py"), "--json", str(out), "--", "-n", "0",
                    "--basetemp", str(tmp_path / "run"), *chosen], check=True, capture_output=True)
    found = json.loads(out.read_text(encoding="utf-8"))
    assert (found["tests"], found["validations"], found["tests_validating"], found["exit"]) == (2, 1, 1, 0)
    assert 0 < found["validations_cpu_s"] <= found["tests_cpu_s"]
    assert found["floor_s"] == found["validations_cpu_s"] / found["cores"]


def test_the_suite_benchmark_times_one_validation_as_a_test_process_runs_it():
    """In this process, which imported the judging libraries as the benchmark's does."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_suite", REPO_ROOT / "benchmarks" / "suite.py")
    bench_suite = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_suite)
    found = bench_suite.one_validation(REPO_ROOT / "specimens" / "groupassist", 1)
    assert found["repeats"] == 1 and found["cpu_median_s"] > 0 and found["wall_median_s"] > 0
