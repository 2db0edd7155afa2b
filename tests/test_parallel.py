"""Large releases are validated on every core; the report must not depend on it."""
from __future__ import annotations

import json

from realcompanion.validators import run

from realcompanion.stamp import stamp


def on_two_cores(monkeypatch) -> list[str]:
    """Validate every release in parallel on two workers, whatever this machine has; return the pools started.

    run.py sizes its pool with os.cpu_count(); on a one-core machine nothing would fork and the
    parallel run would be the sequential one again.
    """
    started = []
    get_context = run.multiprocessing.get_context
    monkeypatch.setattr(run, "PARALLEL_MIN_ROWS", 0)
    monkeypatch.setattr(run.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(run.multiprocessing, "get_context", lambda method: started.append(method) or get_context(method))
    return started


def both_ways(specimen, monkeypatch, resource: str, change) -> tuple[dict, dict, list[dict]]:
    """Apply `change(rows)` to one data file, restamp, then validate sequentially and on two forked workers."""
    path = specimen / "data" / f"{resource}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    stamp(specimen)
    sequential = run.validate(specimen).to_json()
    started = on_two_cores(monkeypatch)
    parallel = run.validate(specimen).to_json()
    assert started == ["fork"]
    return sequential, parallel, rows


def test_forked_workers_give_the_same_report(specimen, monkeypatch):
    def change(rows):
        rows[3]["probe"] = "changed"
        rows[5]["trace"]["C"]["rule"] = "by intuition"

    sequential, parallel, _ = both_ways(specimen, monkeypatch, "chat", change)
    assert parallel == sequential and {"A", "CAT2"} <= {r["id"] for r in parallel["rules"] if not r["passed"]}


def test_a_view_the_release_cannot_yield_is_reported_not_raised(specimen, monkeypatch):
    """A timestamp that is not a date cannot become an instant; the workers still report FLD2."""
    sequential, parallel, rows = both_ways(specimen, monkeypatch, "source",
                                           lambda rows: rows[7].update(timestamp="yesterday"))
    assert parallel == sequential
    assert [(f["rule"], f["row"]) for f in parallel["failures"] if f["severity"] == "error"] == [
        ("FLD2", rows[7]["dayid"])]
