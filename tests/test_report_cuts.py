"""A value is cut where the difference is, and a statement is never cut without a mark."""
from __future__ import annotations

import json

from realcompanion.cli import main
from realcompanion.stamp import stamp


def rows(root, name):
    return [json.loads(line) for line in (root / "data" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def write(root, name, records):
    (root / "data" / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                                                 encoding="utf-8")


def test_gate_a_shows_the_part_of_the_probe_that_differs(specimen, capsys):
    """The line cut the probe at 60 characters while its message said the difference was at character 76, in the
    terminal, JSON and HTML alike."""
    chat, source = rows(specimen, "chat"), rows(specimen, "source")
    message = next(m for m in source if m["dayid"] == chat[0]["probe_dayid"])
    message["text"] = chat[0]["probe"] = "word " * 15 + "the same start, then ORIGINAL ending of the message"
    chat[0]["probe"] = chat[0]["probe"].replace("ORIGINAL", "EDITED")
    write(specimen, "chat", chat)
    write(specimen, "source", source)
    stamp(specimen)
    assert main(["validate", str(specimen), "--json", "-"]) == 1
    failure = next(f for f in json.loads(capsys.readouterr().out)["failures"] if f["rule"] == "A")
    assert failure["message"].endswith("from character 97")
    assert "EDITED" in failure["value"] and failure["value"].startswith("…")
    assert main(["validate", str(specimen)]) == 1
    line = next(line for line in capsys.readouterr().out.splitlines() if f"{chat[0]['item_id']} probe=" in line)
    assert "EDITED" in line


def test_no_statement_is_cut_off_a_terminal(specimen, capsys, monkeypatch):
    """Off a terminal, statements were cut at 60 columns mid-word, without a mark: they wrap, whole."""
    monkeypatch.setenv("COLUMNS", "80")
    statement = "every question of the qa track carries its question text, " * 4 + "ending here"
    rules_path = specimen / "schemas" / "rules.json"
    declared = json.loads(rules_path.read_text(encoding="utf-8"))
    declared["rules"].append({"id": "LONG1", "severity": "warning", "kind": "not_null", "resource": "qa",
                              "fields": ["question"], "statement": statement})
    rules_path.write_text(json.dumps(declared), encoding="utf-8")
    stamp(specimen)
    assert main(["validate", str(specimen)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[1:2] == ["LONG1"])
    block = [lines[start]] + [line for line in lines[start + 1:start + 8] if line.startswith(" ")]
    shown = " ".join(" ".join(line.split()[3:] if n == 0 else line.split()) for n, line in enumerate(block))
    assert shown == statement
    assert all(len(line) <= 80 for line in lines[:lines.index("", 2)])
