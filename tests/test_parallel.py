"""Large releases are validated on every core; the report must not depend on it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from realcompanion.validators import run, speed

from realcompanion.cli import main
from realcompanion.stamp import stamp


def on_two_cores(monkeypatch) -> list[str]:
    """Validate every release in parallel on two workers, whatever this machine has; return the pools started.

    speed.py sizes its pool with os.cpu_count(); on a one-core machine nothing would fork and the
    parallel run would be the sequential one again.
    """
    started = []
    get_context = speed.multiprocessing.get_context
    monkeypatch.setattr(speed, "PARALLEL_MIN_ROWS", 0)
    monkeypatch.setattr(speed.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(speed.multiprocessing, "get_context", lambda method: started.append(method) or get_context(method))
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


def test_a_large_releases_frame_rules_run_beside_the_workers_and_find_the_same(specimen, monkeypatch):
    """From `LARGE_MIN_ROWS` rows, the frame rules run in the validating process once the workers are forked,
    where the shared views are computed once, instead of in the judging process."""
    ran = []
    run_unit = run._run_unit
    monkeypatch.setattr(run, "_run_unit", lambda unit: ran.append((os.getpid(), unit[0])) or run_unit(unit))

    def change(rows):
        rows[3]["probe"] = "changed"
        rows[5]["trace"]["C"]["rule"] = "by intuition"

    sequential, parallel, _ = both_ways(specimen, monkeypatch, "chat", change)
    ran.clear()
    monkeypatch.setattr(speed, "LARGE_MIN_ROWS", 0)
    assert run.validate(specimen).to_json() == parallel == sequential
    assert {(pid, resource) for pid, resource in ran if resource} == {
        (os.getpid(), resource) for resource in ("source", "profile", "persona", "chat", "qa")}
    assert "CAT2" in {r["id"] for r in parallel["rules"] if not r["passed"]}


def test_a_view_the_release_cannot_yield_is_reported_not_raised(specimen, monkeypatch):
    """A timestamp that is not a date cannot become an instant; the workers still report FLD2."""
    sequential, parallel, rows = both_ways(specimen, monkeypatch, "source",
                                           lambda rows: rows[7].update(timestamp="yesterday"))
    assert parallel == sequential
    assert [(f["rule"], f["row"]) for f in parallel["failures"] if f["severity"] == "error"] == [
        ("FLD2", rows[7]["dayid"])]


def test_the_judging_process_checks_the_constraints_beside_the_workers(specimen, monkeypatch):
    """SCH2 (pandera, in the process that judges the descriptor) names the same row as in one process."""
    sequential, parallel, rows = both_ways(specimen, monkeypatch, "source",
                                           lambda rows: rows[4].update(sender="narrator"))
    assert parallel == sequential
    assert [(f["row"], f["field"]) for f in parallel["failures"] if f["rule"] == "SCH2"] == [
        (rows[4]["dayid"], "sender")]


def test_a_process_that_imported_the_judging_libraries_judges_a_small_release_itself_and_finds_the_same(specimen,
                                                                                                          monkeypatch):
    """`speed.judged_here`: a test process has imported Frictionless and pandera, so it judges the specimen and runs
    the pandera rules (SCH2, the frame rules) itself; the report is the forked judging process's."""
    for resource, change in (("source", lambda rows: rows[4].update(sender="narrator")),
                             ("chat", lambda rows: rows[5]["trace"]["C"].update(rule="by intuition"))):
        path = specimen / "data" / f"{resource}.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        change(rows)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    stamp(specimen)
    forks, fork = [], speed.os.fork
    monkeypatch.setattr(speed.os, "fork", lambda: forks.append(1) or fork())
    here = run.validate(specimen).to_json()
    assert forks == []
    monkeypatch.setattr(speed, "judged_here", lambda ctx: False)
    assert run.validate(specimen).to_json() == here and forks == [1]
    assert {"SCH2", "CAT2"} <= {r["id"] for r in here["rules"] if not r["passed"]}


def licence_without_a_name(specimen) -> Path:
    """A descriptor only Frictionless rejects (a licence's name must be a string)."""
    path = specimen / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    package["licenses"] = [{"name": 5}]
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")
    return path


def test_a_descriptor_frictionless_rejects_ends_a_run_whose_workers_started(specimen, monkeypatch, capsys):
    path = licence_without_a_name(specimen)
    started = on_two_cores(monkeypatch)
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err
    assert started == ["fork"]
    assert err.splitlines() == [f"error: {path}: The data package has an error: 5 is not of type 'string' at "
                                f"property 'licenses/0/name'"]


def test_a_descriptor_frictionless_rejects_is_reported_before_an_unreadable_file(specimen, capsys):
    """The judging process is forked once the tables are read; a read that fails first still yields to its verdict."""
    path = licence_without_a_name(specimen)
    (specimen / "data" / "qa.jsonl").unlink()
    (specimen / "data" / "qa.jsonl").mkdir()
    assert main(["validate", str(specimen)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}: The data package has an error: ")


INTERRUPTED = """
import os, signal, sys
from realcompanion import cli
from realcompanion.validators import run, speed

speed.PARALLEL_MIN_ROWS = 0
speed.os.cpu_count = lambda: 2
unit, release, sent = run._run_unit, *sys.argv[1:]


def interrupted(*args, **kwargs):
    try:  # one Ctrl-C, from the first unit to start: each unit sending one also interrupted the interpreter's
        os.close(os.open(sent, os.O_CREAT | os.O_EXCL))  # shutdown now and then, a second Ctrl-C
    except FileExistsError:
        pass
    else:
        os.killpg(0, signal.SIGINT)  # Ctrl-C reaches every process of the group, a worker's first
    return unit(*args, **kwargs)


run._run_unit = interrupted
signal.signal(signal.SIGINT, signal.default_int_handler)  # as run from a terminal: a background job ignores Ctrl-C
sys.argv[1:] = ["validate", release]
cli.entry()  # as the installed program runs
"""


def test_ctrl_c_while_the_workers_run_ends_the_run_with_130_and_nothing_more(specimen):
    """A worker that took the interrupt itself printed 'Process ForkPoolWorker-1:' (and its traceback); the judging
    process, which notes interrupts, went on judging after the run had ended."""
    run = subprocess.Popen([sys.executable, "-c", INTERRUPTED, str(specimen), str(specimen.parent / "interrupted")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)  # a group of its own: the interrupt stays in it
    _, err = run.communicate(timeout=120)
    assert (run.returncode, err) == (128 + signal.SIGINT, "")
    with pytest.raises(ProcessLookupError):  # no process of the run outlives it
        os.killpg(run.pid, 0)



@pytest.mark.parametrize("folder", [".", "specimens/groupassist"])
def test_the_validating_process_imports_neither_frictionless_nor_pandera(repo, folder):
    """The judging process imports them, judges the descriptor and runs the rules pandera evaluates; the
    validating process meanwhile runs the others and reports all of them."""
    code = ("import sys; from realcompanion.cli import main; code = main(['validate', '--json', '-', sys.argv[1]]); "
            "print(code, sorted({'frictionless', 'pandera'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, str(repo / folder)], capture_output=True, text=True, check=True)
    report, last = done.stdout.rsplit("\n", 2)[:2]
    ran = {rule["id"] for rule in json.loads(report)["rules"]}
    assert last == "0 []" and ({"SCH2", "CAT2"} if folder == "." else {"GS2"}) <= ran


def test_a_judging_process_that_was_killed_is_one_line_naming_the_signal(specimen, monkeypatch, capsys):
    """The process that judges the descriptor also runs the pandera rules, which hold the most memory. Forked as the
    command line forks it: a test process has imported the judging libraries, and would judge a specimen itself."""
    def killed(release, ctx, units):
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(run, "_judged", killed)
    monkeypatch.setattr(speed, "judged_here", lambda ctx: False)
    assert main(["validate", str(specimen)]) == 2
    assert capsys.readouterr().err == (f"error: {specimen / 'datapackage.json'}: Frictionless could not judge it: the "
                                       "process judging it and running the pandera rules ended on signal SIGKILL "
                                       "(out of memory?)\n")


KILLED = """
import multiprocessing, os, signal, sys
from realcompanion import cli
from realcompanion.validators import speed

speed.PARALLEL_MIN_ROWS = 0
speed.os.cpu_count = lambda: 2
unit, release, how = speed.given_back_after, *sys.argv[1:]


def ended(work, ctx, one):
    if multiprocessing.current_process().name != "MainProcess":  # the forked worker, at its first unit
        if how == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        return [lambda: None]  # outcomes it cannot send
    return unit(work, ctx, one)


speed.given_back_after = ended
sys.argv[1:] = ["validate", "--json", "-", release]
cli.entry()
"""


@pytest.mark.parametrize("how, code", [("killed", "on signal SIGKILL (out of memory?)"), ("unsent", "with code 1")])
def test_a_worker_that_ended_early_is_its_units_not_evaluated_and_the_run_ends(specimen, how, code):
    """A worker killed (out of memory) left a pool's run waiting for ever; the unit it took is reported not
    evaluated, naming how it ended, every other unit is evaluated, and nothing else is printed."""
    done = subprocess.run([sys.executable, "-c", KILLED, str(specimen), how], capture_output=True, text=True,
                          timeout=120)
    rules = json.loads(done.stdout)["rules"]
    lost = [rule for rule in rules if rule.get("skipped")]
    assert (done.returncode, done.stderr, len(lost)) == (1, "", 1)
    assert lost[0]["skipped"] == f"could not be evaluated: the process evaluating it ended {code}"
    assert json.loads(done.stdout)["errors"] == 1  # the unit not evaluated; the specimen has no other error


def test_the_units_are_taken_heaviest_first():
    """A parallel run's units are taken by the rows their rules read, most first (`speed.heaviest_first`), each
    once: in the catalogue's order the personal-data screen of every resource came last, and one process ran it
    alone."""
    from realcompanion.formats import part
    from realcompanion.validators.declared import declared_rules

    specimen = Path(__file__).resolve().parent.parent / "specimens" / "groupassist"
    runner = part("groupassist", "runner")
    ctx = runner.context(runner.release(specimen))
    units = run._units(runner.planned(None, declared_rules(ctx.release), ctx.release))
    taken = speed.heaviest_first(ctx, units)
    read = [sum(ctx.table(name).num_rows for name in {n for rule in rules for n in rule.reads}) for _, rules in taken]
    assert sorted(map(id, taken)) == sorted(map(id, units)) and read == sorted(read, reverse=True)
    ids = [rules[0].id for _, rules in taken]
    assert ids.index("GI5") < len(ids) // 4 < [rules[0].id for _, rules in units].index("GI5")
