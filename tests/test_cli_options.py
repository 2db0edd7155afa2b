"""Every command answers --help, and every bad option is refused with exit 2 before any work is done."""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import pytest

from realcompanion.cli import main, parser


def commands() -> list[str]:
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


@pytest.mark.parametrize("command", commands())
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: realcompanion {command}")


def test_registering_the_commands_imports_no_heavy_library():
    """`--help` and an unknown command build every command's parser, so what registration imports they pay for."""
    code = ("import sys; from realcompanion.cli import parser; parser(); "
            "print(sorted({'numpy', 'pandas', 'pyarrow', 'frictionless', 'pandera', 'datasets'} & set(sys.modules)))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


@pytest.mark.parametrize("command", commands())
def test_a_run_builds_only_its_own_commands_parser(command):
    """Each command's module is named as the command, so a run imports that module alone."""
    sub = next(a for a in parser(command)._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [command]


def test_the_command_list_says_what_baselines_scores_in_each_format(capsys):
    """`realcompanion --help` describes a command both formats run in the terms of each: `baselines` was described
    by RealCompanion's rankers alone."""
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = " ".join(capsys.readouterr().out.split())
    assert "(RealCompanion, Tables 4, 33, 38); full context, BM25 and dense top 20 (GroupAssistBench)" in listed


def test_every_command_is_covered():
    assert set(commands()) == {c for c, *_ in USAGE} | {a[0] for a, _ in PATHS} | {"cite", "croissant", "rules"}


URL = "http://127.0.0.1:9/v1"
# argparse refuses these: usage, then one `error:` line naming the option (an endpoint that is no http(s) URL with a
# host, or a timeout longer than can be waited, was refused after the release was read, or a traceback)
USAGE = [
    ("baselines", "--track", "chat", "--resamples", "0"),
    ("baselines", "--track", "chat", "--resamples", "-5"),
    ("baselines", "--track", "chat", "--seed", "-1"),
    ("score", "--track", "chat", "--run", "r.jsonl", "--resamples", "x"),
    ("score-reconstruction", "--pred", "p", "--match", "loose"),
    ("windows", "--plot"),
    ("contexts", "--condition", "C9", "--out", "x.jsonl"),
    ("judge", "--track", "chat", "--replies", "r", "--endpoint", URL, "--model", "m", "--out", "o", "--timeout", "0"),
    ("judge", "--track", "chat", "--replies", "r", "--endpoint", URL, "--model", "m", "--out", "o", "--timeout", "nan"),
    ("judge", "--track", "chat", "--replies", "r", "--endpoint", URL, "--model", "m", "--out", "o", "--timeout", "1e19"),
    ("judge", "--track", "chat", "--replies", "r", "--endpoint", "http://[::1", "--model", "m", "--out", "o"),
    ("judge", "--track", "chat", "--replies", "r", "--endpoint", "file:///etc/passwd", "--model", "m", "--out", "o"),
    ("score-reconstruction", "--pred", "p", "--match", "judge", "--endpoint", "127.0.0.1:8000/v1", "--model", "m"),
    ("baselines", "--dense-endpoint", "http://localhost:99999/v1"),
    ("respond", "--track", "chat", "--endpoint", URL, "--model", "m", "--out", "o", "--concurrency", "0"),
    ("respond", "--track", "chat", "--endpoint", URL, "--model", "m", "--out", "o", "--retries", "-1"),
    ("evaluate", "--endpoint", URL, "--model", "m", "--judge-endpoint", "ftp://x", "--judge-model", "j", "--out", "o"),
    ("validate", "--max-examples", "-1"),
    ("validate", "--rules", ""),  # it ran every rule
    ("validate", "--rules", " , "),  # it ran the structure rules alone, and said VALID
    ("synth", "out", "--participants", "0"),
    ("synth", "out", "--scale", "0"),
    ("synth", "out", "--scale", "inf"),
    ("synth", "out", "--scale", "1e308"),  # an OverflowError traceback
    ("publish", "--repo-id", "org/rc", "--version", "v1"),
    ("publish", "--repo-id", "no-slash", "--version", "1.0.0"),
    ("stamp", "--forse"),
    ("refresh", "--forse"),
    ("diff", "only-one"),
    ("card", "--check", "--write"),
    ("datasheet", "--wirte"),
    ("schemas", "--check", "--write"),
    ("explore", "--port", "-1"),
    # each a traceback or a run without end: numpy's MemoryError, the server's refusal of the port once the site was
    # built, a NaN the request body cannot carry
    ("score", "--track", "chat", "--run", "r.jsonl", "--resamples", "99999999999999"),
    ("baselines", "--resamples", "100001"),
    ("explore", "--port", "70000"),
    ("respond", "--track", "chat", "--endpoint", URL, "--model", "m", "--out", "o", "--temperature", "nan"),
    ("evaluate", "--endpoint", URL, "--model", "m", "--judge-endpoint", URL, "--judge-model", "j", "--out", "o",
     "--temperature", "-inf"),
    ("synth", "out", "--participants", "10000"),  # U10000: no participant id
    ("windows", "--plot", "-"),  # a file named '-' in the working folder, where --json - is stdout
]


@pytest.mark.parametrize("argv", USAGE, ids=[" ".join(a) for a in USAGE])
def test_bad_option_is_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(list(argv))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert re.match(rf"realcompanion( {argv[0]})?: error: ", err[-1]), err


# paths to write that cannot be written: one `error:` line naming the path, exit 2, before any work
PATHS = [
    (("validate", "{repo}", "--json", "{tmp}/missing/report.json"), "does not exist"),
    (("validate", "{repo}", "--json", "{tmp}"), "is a directory"),
    (("validate", "{repo}", "--html", "{tmp}/file.txt"), "is not a directory"),
    (("validate", "{repo}", "--html", "{repo}"), "is the release being read"),  # its pages among the release's files
    (("explore", "{repo}", "--build", "{repo}"), "is the release being read"),
    (("baselines", "{repo}", "--track", "qa", "--json", "{tmp}"), "is a directory"),
    (("baselines", "{repo}", "--track", "qa", "--plot", "{tmp}/missing/p.png"), "does not exist"),
    (("windows", "{repo}", "--plot", "{tmp}/missing/p.png"), "does not exist"),
    (("score", "{repo}", "--track", "qa", "--run", "{tmp}/file.txt", "--json", "{tmp}/missing/r.json"), "does not exist"),
    (("score-reconstruction", "{repo}", "--pred", "{repo}", "--plot", "{tmp}"), "is a directory"),
    (("contexts", "{repo}", "--condition", "C1", "--out", "{tmp}"), "is a directory"),
    (("judge", "{repo}", "--track", "chat", "--replies", "{tmp}/file.txt", "--endpoint", "http://127.0.0.1:9",
      "--model", "m", "--out", "{tmp}/missing/v.jsonl"), "does not exist"),
    (("respond", "{repo}", "--track", "chat", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--out",
      "{tmp}/missing/r.jsonl"), "does not exist"),
    (("evaluate", "{repo}", "--track", "chat", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--judge-endpoint",
      "http://127.0.0.1:9", "--judge-model", "j", "--out", "{tmp}/file.txt"), "exists and is not a directory"),
    (("stamp", "{tmp}/file.txt"), "not a release folder"),
    (("refresh", "{tmp}/file.txt"), "not a release folder"),
    (("diff", "{repo}", "{tmp}/missing"), "not a release folder"),
    (("synth", "{tmp}/file.txt"), "exists and is not a directory"),
    # an output onto an input: the report or verdicts would replace what the command read
    (("score", "{repo}", "--track", "chat", "--verdicts", "{tmp}/file.txt", "--json", "{tmp}/file.txt"), "an input"),
    (("score", "{repo}/specimens/groupassist", "--verdicts", "{tmp}/file.txt", "--plot", "{tmp}/file.txt"), "an input"),
    (("score-reconstruction", "{repo}", "--pred", "{tmp}", "--json", "{tmp}/usage.json"), "an input"),
    (("baselines", "{repo}", "--track", "qa", "--json", "{tmp}/out", "--plot", "{tmp}/out"), "also the --json report"),
    (("judge", "{repo}", "--track", "chat", "--replies", "{tmp}/file.txt", "--endpoint", "http://127.0.0.1:9",
      "--model", "m", "--out", "{tmp}/file.txt"), "an input"),
    (("judge", "{repo}/specimens/groupassist", "--replies", "{tmp}/file.txt", "--endpoint", "http://127.0.0.1:9",
      "--model", "m", "--out", "{tmp}/file.txt"), "an input"),
]


@pytest.mark.parametrize("argv,needle", PATHS, ids=[" ".join(a[:1] + a[2:]) for a, _ in PATHS])
def test_bad_path_is_one_line(argv, needle, repo, tmp_path, capsys):
    (tmp_path / "file.txt").write_text("x\n", encoding="utf-8")
    args = [a.format(repo=repo, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err
    assert "Traceback" not in err
    assert (tmp_path / "file.txt").read_text(encoding="utf-8") == "x\n"


def test_a_reader_that_stops_reading_ends_the_run_quietly(repo):
    """`realcompanion rules | head -1`: when the reader of the output has gone, the run ends with no error line."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line is written
    listing = subprocess.run([sys.executable, "-m", "realcompanion.cli", "rules", str(repo)], stdout=write,
                             stderr=subprocess.PIPE, timeout=60)
    os.close(write)
    assert (listing.returncode, listing.stderr) == (141, b"")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs a device that is always full")
@pytest.mark.parametrize("args", [["rules", "."], ["--version"], ["--help"], ["validate", "--max-examples", "0", "."]])
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(repo, args):
    """`realcompanion rules > /dev/full`: the write fails with no file name to give; the line says what failed. A
    short output fails only when it is flushed at the end (`--version` exited 0)."""
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # unbuffered, argparse's own
    with open("/dev/full", "wb") as full:  # write of --version fails at once, and argparse ignores it
        listing = subprocess.run([sys.executable, "-m", "realcompanion.cli", *args], stdout=full, cwd=repo,
                                 stderr=subprocess.PIPE, timeout=120, env=buffered)
    assert (listing.returncode, listing.stderr.decode()) == (2, "error: writing the output: No space left on device\n")


@pytest.mark.parametrize("argv", [("--scale", "0.5"), ("--scale", "1.7"), ("--scale", "1000"),
                                  ("--format", "groupassist", "--scale", "3")])
def test_a_paper_scale_that_is_not_a_number_of_copies_is_refused(tmp_path, capsys, argv):
    """--paper-scale copies the paper's release: 0.5 made no copy (a traceback), 1.7 one copy unsaid, 1,000 copies
    named participants U10000 on (no participant id), and a GroupAssistBench release ignored the scale."""
    assert main(["synth", str(tmp_path / "out"), "--paper-scale", *argv]) == 2
    assert capsys.readouterr().err.startswith("error: argument --scale: with --paper-scale, ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("module, argv, extra", [
    ("bm25s", ["baselines", "{repo}", "--track", "chat"], "score"),
    ("mlcroissant", ["croissant", "{release}"], "publish"),
    ("datasette", ["explore", "{repo}", "--build", "{release}/site"], "explore"),
])
def test_a_missing_optional_extra_is_one_line_naming_it(repo, specimen, monkeypatch, capsys, module, argv, extra):
    """`pip install -e .` alone installs no extra: a command that needs one says which, in one line, exit 2."""
    for name in [m for m in sys.modules if m == module or m.startswith(f"{module}.")] + [module]:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ModuleNotFoundError, as if not installed
    assert main([a.format(repo=repo, release=specimen) for a in argv]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"error: this command needs '{module}', from the optional extra '{extra}': "
                   f"pip install 'realcompanion[{extra}]' (from a clone: pip install -e '.[{extra}]')"]
