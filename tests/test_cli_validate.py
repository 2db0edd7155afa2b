"""The validate command's contract: exit codes, one-line messages, JSON shape, read-only."""
from __future__ import annotations

import hashlib
import json

from realcompanion.cli import main


def digest(root):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


def test_clean_release_exits_0_and_prints_the_report(repo, capsys):
    assert main(["validate", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "0 error(s)" in out and "ok   A " in out


def test_json_report_has_the_documented_shape(repo, capsys):
    assert main(["validate", str(repo), "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"package", "version", "format_version", "errors", "warnings", "rules", "failures"}
    assert {"id", "severity", "statement", "passed", "failures"} <= set(report["rules"][0])
    assert {"rule", "severity", "resource", "row", "field", "value", "message"} <= set(report["failures"][0])


def test_validation_never_writes_to_its_input(specimen):
    (specimen / "data" / "qa.jsonl").write_text((specimen / "data" / "qa.jsonl").read_text() + "{broken\n")
    before = digest(specimen)
    main(["validate", str(specimen)])
    main(["validate", str(specimen), "--json", str(specimen.parent / "r.json")])
    assert digest(specimen) == before


def test_missing_file_exits_2_with_one_line(specimen, capsys):
    (specimen / "data" / "persona.jsonl").unlink()
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "persona.jsonl" in err[0] and "no such file" in err[0]


def test_malformed_line_exits_2_naming_file_and_line(specimen, capsys):
    path = specimen / "data" / "chat.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = lines[4][:40]
    path.write_text("\n".join(lines) + "\n")
    assert main(["validate", str(specimen)]) == 2
    err = capsys.readouterr().err.strip()
    assert "chat.jsonl:5" in err and "malformed JSON" in err and "\n" not in err


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


def test_rules_lists_the_catalogue(capsys):
    from realcompanion.validators.catalogue import all_rules

    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert all(f"{r.id} " in out for r in all_rules()) and {r.id for r in all_rules()} >= set("ABCDEF")
