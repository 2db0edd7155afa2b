"""Every command that takes more than a second on the paper-scale release shows a progress bar on a terminal
(measured in benchmarks/ terms: validate, --html, stamp, refresh, synth in both formats, diff, croissant, baselines), and
none when stderr is not a terminal."""
from __future__ import annotations

import io
import re
import shutil
import sys

import pytest

from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.paths import REPO_ROOT

BAR = re.compile(r"\[\d\d:\d\d")  # tqdm's elapsed-time field, printed whether or not the total is known
SHIPPED = ("datapackage.json", "schemas", "data", "README.md", "DATASHEET.md", "CITATION.cff")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def release(tmp_path):
    out = tmp_path / "release"
    out.mkdir()
    for part in SHIPPED:
        (shutil.copytree if (REPO_ROOT / part).is_dir() else shutil.copy2)(REPO_ROOT / part, out / part)
    return out


COMMANDS = {
    "validate": lambda r, t: ["validate", str(r)],
    "validate --html": lambda r, t: ["validate", str(r), "--html", str(t / "html")],
    "stamp": lambda r, t: ["stamp", str(r)],
    "refresh": lambda r, t: ["refresh", str(r)],
    "synth": lambda r, t: ["synth", str(t / "synth")],
    "synth groupassist": lambda r, t: ["synth", str(t / "synth"), "--format", "groupassist"],
    "diff": lambda r, t: ["diff", str(r), str(r)],
    "croissant": lambda r, t: ["croissant", str(r)],
    "baselines": lambda r, t: ["baselines", str(r), "--track", "qa", "--resamples", "10"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_slow_command_shows_a_progress_bar_on_a_terminal(command, tmp_path, monkeypatch, capsys):
    root = release(tmp_path)
    if command == "refresh":
        (root / "README.md").write_text((root / "README.md").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(COMMANDS[command](root, tmp_path)) == 0
    assert BAR.search(terminal.getvalue()), terminal.getvalue()
    if command == "validate --html":  # the rendering's own bar, beside the validation's
        assert re.search(r"HTML report: +\d+%", terminal.getvalue())


@pytest.mark.parametrize("command", ["validate --html", "synth groupassist", "stamp"])
def test_no_progress_bar_off_a_terminal(command, tmp_path, capsys):
    assert main(COMMANDS[command](release(tmp_path), tmp_path)) == 0
    assert not BAR.search(capsys.readouterr().err)


def test_the_groupassist_specimen_stamps_with_a_bar(tmp_path, monkeypatch):
    root = shutil.copytree(SPECIMEN, tmp_path / "groupassist")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["stamp", str(root)]) == 0
    assert BAR.search(terminal.getvalue())
