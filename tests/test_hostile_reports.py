"""A hostile value in every report form: the terminal report, the JSON report and the HTML report carry it escaped,
never as a terminal escape sequence, a line of its own, or markup."""
from __future__ import annotations

import json

import pytest
from test_fuzz import edit_line, restamp, run_quietly

HOSTILE = "x\x1b[2J\x1b]0;owned\x07\r\u2028\u202e<script>alert(1)</script>\x00"
RAW = ("\x1b", "\x07", "\x00", "\u2028", "\u202e", "\r")


def test_a_hostile_value_is_escaped_in_every_report(specimen, tmp_path):
    edit_line("chat", 3, lambda line: json.dumps({**json.loads(line), "probe": HOSTILE}).encode() + b"\n")(specimen)
    restamp(specimen)
    # one run writes the three forms of one report: the terminal's (stdout), the JSON file and the HTML pages
    code, out, err = run_quietly(["validate", str(specimen), "--json", str(tmp_path / "report.json"), "--html",
                                  str(tmp_path / "docs")])
    assert code == 1 and not [c for c in RAW if c in out + err], repr(out[-300:])
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert HOSTILE in [f["value"] for f in report["failures"]]  # JSON escapes it itself
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "docs").rglob("*.html"))
    assert "\\x1b[2J" in pages and not [c for c in (*RAW, "<script>alert") if c in pages]


def test_diff_escapes_a_hostile_key_and_refuses_a_null_one(specimen, tmp_path):
    from conftest import copy_release

    old = copy_release(specimen, tmp_path / "old")
    edit_line("qa", 1, lambda line: line.replace(b'"item_id":"', b'"item_id":"\\u001b[2J\\u2028', 1))(specimen)
    code, out, err = run_quietly(["diff", str(old), str(specimen)])
    assert code == 0 and "+ \\x1b[2J\\u2028U01:Q0001" in out and not [c for c in RAW if c in out], repr(out)
    edit_line("qa", 2, lambda line: json.dumps({**json.loads(line), "item_id": None}).encode() + b"\n")(specimen)
    code, out, err = run_quietly(["diff", str(old), str(specimen)])
    assert code == 2 and "qa.jsonl:2 field 'item_id': has no primary key value" in err, err


def test_an_unknown_rule_named_on_the_command_line_is_escaped(specimen):
    code, out, err = run_quietly(["validate", str(specimen), "--rules", "\x1b[2Jx"])
    assert code == 2 and err == "error: unknown rule or family: \\x1b[2Jx\n", repr(err)


@pytest.mark.parametrize("argv", [["validate", ".", "--max-examples", HOSTILE], ["validate", ".", HOSTILE],
                                  ["rules", f"--{HOSTILE}"]], ids=["option-value", "argument", "option"])
def test_a_usage_error_echoes_the_command_line_escaped(argv, capsys):
    """argparse echoes a bad value, or an argument it does not know, in its usage error: on one line, escaped as
    every report escapes a value (it printed the escape sequences and line breaks raw), exit 2 as before."""
    from realcompanion.cli import main

    with pytest.raises(SystemExit) as ended:
        main(argv)
    err = capsys.readouterr().err
    said = err.splitlines()[-1]  # the usage, then the error on the last line
    assert ended.value.code == 2 and ": error: " in said and not [c for c in RAW if c in err], repr(err)
    assert "x\\x1b[2J\\x1b]0;owned\\x07\\r\\u2028\\u202e<script>alert(1)</script>\\x00" in said, repr(err)


def test_a_warning_rule_that_could_not_be_evaluated_is_an_error_in_every_report(specimen, monkeypatch, tmp_path):
    """No rule passes, nor merely warns, because it did not run: PII1 raising is FAIL and an error (it was counted
    as a warning, and the release VALID)."""
    import dataclasses

    from realcompanion.validators.realcompanion.catalogue import CATALOGUE, all_rules

    all_rules()

    def crash(ctx):
        raise ValueError("the screen's pattern does not compile")

    monkeypatch.setitem(CATALOGUE.rules, "PII1", dataclasses.replace(CATALOGUE.rules["PII1"], check=crash))
    code, out, _ = run_quietly(["validate", str(specimen), "--json", str(tmp_path / "report.json")])  # both forms
    assert code == 1 and out.strip().endswith("release is INVALID"), out
    assert next(line for line in out.splitlines() if " PII1 " in line).startswith("FAIL")
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["errors"] == 1


def test_a_citation_and_a_refused_publication_print_the_release_escaped(specimen):
    """`cite` prints CITATION.cff's values and `publish` the names of the release's files, each with its control
    characters escaped as every report prints them: a title, or a file's name under data/, cleared the terminal."""
    import shutil

    from realcompanion.paths import REPO_ROOT

    for name in ("README.md", "DATASHEET.md", "CITATION.cff", "CHANGELOG.md"):
        shutil.copy2(REPO_ROOT / name, specimen / name)
    (specimen / "data" / "x\x1b[2J.jsonl").write_bytes(b"{}\n")
    code, out, err = run_quietly(["publish", str(specimen), "--repo-id", "org/rc", "--version", "0.1.0", "--dry-run"])
    assert code == 1 and "data/x\\x1b[2J.jsonl" in err and not [c for c in RAW if c in err], repr(err)
    text = (specimen / "CITATION.cff").read_text(encoding="utf-8")
    title = text.splitlines()[4]
    (specimen / "CITATION.cff").write_text(text.replace(title, 'title: "x\\e[2J\\e]0;owned\\a"'), encoding="utf-8")
    for style, shown in (("bibtex", "x\\x1b[2J\\x1b]0;owned\\x07"), ("apa", "x\\x1b[2J"), ("cff", "x\\e[2J")):
        code, out, err = run_quietly(["cite", str(specimen), "--format", style])  # YAML escapes it itself
        assert code == 0 and shown in out and not [c for c in RAW if c in out], repr(out)
