"""The validate command's contract: exit codes, one-line messages, JSON shape, read-only."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from realcompanion.validators.declared import declared_rules
from realcompanion.validators.realcompanion.catalogue import select

from realcompanion.cli import main
from realcompanion.release import Release


def digest(root):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def rule_lines(out: str) -> list[list[str]]:
    """The terminal report's per-rule lines (the block after the title), split: mark, id, severity, statement...
    (a statement wraps within its column: its further lines start with spaces)."""
    lines = out.splitlines()
    assert lines[1] == "", out
    return [line.split() for line in lines[2:lines.index("", 2)] if not line.startswith(" ")]


def test_clean_release_exits_0_and_prints_the_report(repo, capsys):
    assert main(["validate", str(repo)]) == 0
    out = capsys.readouterr().out
    lines = rule_lines(out)
    every = select(None, declared_rules(Release(repo)))
    assert [line[1] for line in lines] == [r.id for r in every]  # every rule once, coded and declared, in order
    assert {line[0] for line in lines if line[2] == "error"} == {"ok"}
    verdict = out.splitlines()[-1]
    assert verdict.startswith("0 error(s),") and verdict.endswith("release is VALID")


def test_json_report_has_the_documented_shape(repo, capsys):
    assert main(["validate", str(repo), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"package", "version", "format_version", "errors", "warnings", "examples", "rules",
                           "failures"}
    assert {"id", "severity", "statement", "passed", "failures", "listed"} <= set(report["rules"][0])
    assert {"rule", "severity", "resource", "row", "field", "value", "message"} <= set(report["failures"][0])


def break_a_probe(root):
    """A readable release that fails: one chat probe no longer reproduces its message (gate A, exit 1)."""
    path = root / "data" / "chat.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[0]["probe"] = "Not what was said."
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def break_a_line(root):
    """An unreadable release: a line that is not JSON (exit 2 before any rule runs)."""
    path = root / "data" / "qa.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")


@pytest.mark.parametrize("breakage,code", [(break_a_probe, 1), (break_a_line, 2)], ids=["invalid", "unreadable"])
def test_validation_never_writes_to_its_input(specimen, capsys, breakage, code):
    breakage(specimen)
    before = digest(specimen)
    report = specimen.parent / "r.json"
    assert main(["validate", str(specimen)]) == code
    assert main(["validate", str(specimen), "--json", str(report)]) == code
    capsys.readouterr()
    assert digest(specimen) == before
    if code == 1:  # the report was written, where asked, and names the failure
        assert "A" in {f["rule"] for f in json.loads(report.read_text(encoding="utf-8"))["failures"]}
    else:
        assert not report.exists()


@pytest.mark.parametrize("option,target", [("--json", "datapackage.json"), ("--json", "data/report.json"),
                                           ("--html", "schemas/report"), ("--html", "data"), ("--json", "README.md"),
                                           ("--json", "CITATION.cff"), ("--json", "croissant.json")])
def test_validate_refuses_to_write_into_the_release_it_reads(specimen, capsys, option, target):
    before = digest(specimen)
    assert main(["validate", str(specimen), option, str(specimen / target)]) == 2
    err = capsys.readouterr().err.strip()
    assert "refusing to write into the release" in err and "\n" not in err
    assert digest(specimen) == before


def test_missing_file_exits_2_with_one_line(specimen, capsys):
    (specimen / "data" / "persona.jsonl").unlink()
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "persona.jsonl" in err[0] and "no such file" in err[0]


def _reads(monkeypatch) -> list[tuple[str, str]]:
    """(resource, thread) of every table read from now on."""
    import threading

    seen, read = [], Release._read
    monkeypatch.setattr(Release, "_read", lambda self, name: seen.append((name, threading.current_thread().name))
                        or read(self, name))
    return seen


def test_the_tables_are_read_ahead_while_the_validator_is_imported(repo, monkeypatch, capsys):
    seen = _reads(monkeypatch)
    assert main(["validate", str(repo)]) == 0
    assert seen == [(name, "read-ahead") for name in Release(repo).resources]  # each once, in the thread


def test_nothing_is_read_ahead_when_a_path_leaves_the_folder(specimen, monkeypatch, capsys):
    descriptor = json.loads((specimen / "datapackage.json").read_text())
    descriptor["resources"][-1]["path"] = "../elsewhere.jsonl"
    (specimen / "datapackage.json").write_text(json.dumps(descriptor))
    seen = _reads(monkeypatch)
    assert main(["validate", str(specimen)]) == 1
    assert seen == [] and "INT3" in capsys.readouterr().out


def test_the_path_check_before_the_read_imports_no_document_writer(repo):
    """INT3 runs before the read starts, on the critical path: it lists the release's files without importing
    the card, datasheet, Croissant or publishing modules that write them."""
    code = (f"import sys; from realcompanion.release import Release; print(Release({str(repo)!r}).escapes()); "
            "print(sorted(m for m in sys.modules if m.split('.')[1:2] in (['card'], ['datasheet']) "
            "or m.startswith(('realcompanion.publish.plan', 'realcompanion.publish.croissant'))))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n[]\n"


def test_malformed_line_exits_2_naming_file_and_line(specimen, capsys):
    path = specimen / "data" / "chat.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = lines[4][:40]
    path.write_text("\n".join(lines) + "\n")
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err.strip()
    assert "chat.jsonl:5" in err and "malformed JSON" in err and "\n" not in err


def test_a_line_cut_inside_a_text_says_where_the_text_starts_once(specimen, capsys):
    """Python's message ends "starting at": the line read "Unterminated string starting at at column"."""
    path = specimen / "data" / "chat.jsonl"
    text = path.read_text(encoding="utf-8")
    opening = text.index('"probe":"') + len('"probe":')  # the value's quote, on the first line
    path.write_text(text[:opening + 4] + "\n", encoding="utf-8")
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {path}:1: malformed JSON (Unterminated string starting at column {opening + 1})\n", err


def test_wrong_type_and_unknown_field_exit_1_naming_row_and_field(specimen, capsys):
    path = specimen / "data" / "qa.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[2]["answerable"] = "yes"
    rows[3]["mood"] = "happy"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["validate", str(specimen), "--json", "-"]) == 1
    failures = json.loads(capsys.readouterr().out)["failures"]
    found = {(f["rule"], f["row"], f["field"]) for f in failures}
    assert ("SCH1", rows[2]["item_id"], "answerable") in found and ("SCH1", rows[3]["item_id"], "mood") in found


def test_not_a_release_exits_2(tmp_path, capsys):
    assert main(["validate", str(tmp_path)]) == 2
    assert "datapackage.json" in capsys.readouterr().err


def test_unknown_rule_id_exits_2(repo, capsys):
    assert main(["validate", str(repo), "--rules", "Z9"]) == 2


def test_rules_lists_the_catalogue_and_the_declared_rules(repo, capsys):
    assert main(["rules", str(repo)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    every = select(None, declared_rules(Release(repo)))
    assert [line[:3] for line in lines] == [[r.id, r.severity, r.family] for r in every]
    assert {r.id for r in every} >= set("ABCDEF") | {"SIG1", "ARI7"}


@pytest.mark.parametrize("fmt, release", [("realcompanion", "."), ("groupassist", "specimens/groupassist")])
def test_rules_without_a_release_lists_what_every_release_of_the_format_is_judged_by(repo, tmp_path, capsys, fmt,
                                                                                     release):
    """Outside a release, `rules --format F` lists the coded catalogue and the format's own declared rules (GM5,
    SIG1...), which every release of F declares: the ids of its datasheet's rule table, as `rules RELEASE` lists."""
    assert main(["rules", str(repo / release)]) == 0
    at_release = capsys.readouterr().out
    assert main(["rules", str(tmp_path), "--format", fmt]) == 0
    assert capsys.readouterr().out == at_release


def test_the_program_flushes_its_whole_report_before_it_ends(repo):
    """`realcompanion` ends without tearing its objects down (cli.entry): what it printed is all there, and its
    exit code is the command's."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "realcompanion.cli", "validate", str(repo), "--json", "-"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["errors"] == 0


def test_a_validation_pauses_the_garbage_collector_and_leaves_it_as_it_was(repo, monkeypatch):
    """The run's rules see the collector off (`collector.paused`); a program that validates gets it back on."""
    import dataclasses
    import gc

    from realcompanion.validators import run
    from realcompanion.validators.realcompanion.catalogue import CATALOGUE, all_rules

    all_rules()
    seen = []
    check = CATALOGUE.rules["FMT1"].check
    monkeypatch.setitem(CATALOGUE.rules, "FMT1", dataclasses.replace(
        CATALOGUE.rules["FMT1"], check=lambda ctx: seen.append(gc.isenabled()) or check(ctx)))
    assert gc.isenabled()
    assert run.validate(repo).errors == 0
    assert seen == [False] and gc.isenabled()


def test_the_validate_command_reads_the_tables_from_c_malloc(repo):
    """Arrow allocates from C malloc (`allocator`) from before the first table is read: its default pool
    (mimalloc) held 130-200 MB more at 100 times paper size, and took more system time."""
    script = ("import sys, pyarrow as pa\nfrom realcompanion.cli import main\ncode = main(['validate', sys.argv[1]])\n"
              "print(code, pa.default_memory_pool().backend_name, pa.system_memory_pool().max_memory())")
    done = subprocess.run([sys.executable, "-c", script, str(repo)], capture_output=True, text=True)
    code, backend, peak = done.stdout.split()[-3:]
    data = sum(path.stat().st_size for path in (repo / "data").iterdir())
    assert (code, backend) == ("0", "system") and int(peak) > data / 2, done.stdout[-300:] + done.stderr
