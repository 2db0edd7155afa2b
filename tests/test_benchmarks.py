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
