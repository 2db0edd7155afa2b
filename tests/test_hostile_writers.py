"""Every file a command writes is the old version or the new one, never a mix (docs/validating.md, "What is
written, and how"): a writer killed at its first write, or stopped by a file-size limit, leaves every file of the
release as it was; the new file is a new inode (a `cp -al` fork refreshed leaves the original untouched); `synth`
writes only into a new or empty folder."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copy_release
from test_fuzz import run_quietly

from realcompanion.formats.groupassist import SPECIMEN as GROUPASSIST
from realcompanion.paths import REPO_ROOT

DOCUMENTS = ("README.md", "DATASHEET.md", "CITATION.cff", "CHANGELOG.md")

# The child: a command run with a fault at its writes. `kill`: SIGKILL the moment a file of the release has been
# opened for writing (an audit hook sees the open before it happens and sets a profile function, which kills the
# process at the next Python event, once the open, and any truncation, is done; the old writers had emptied the file
# right there). A number: a file-size limit of that many bytes (RLIMIT_FSIZE; Python ignores SIGXFSZ, so the write
# that crosses it fails with EFBIG, as on a full disk).
CHILD = """
import os, resource, signal, sys
root, fault, *argv = sys.argv[1:]
WRITES = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
def kill(*_):
    os.kill(os.getpid(), signal.SIGKILL)
def hook(event, args):
    if event != "open" or not isinstance(args[0], (str, bytes)):
        return
    path, mode, flags = args
    writes = (flags or 0) & WRITES or any(c in (mode or "") for c in "wax+")
    if writes and os.path.realpath(os.fsdecode(path)).startswith(root + os.sep):
        sys.setprofile(kill)
if fault == "kill":
    sys.addaudithook(hook)
else:
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(fault), int(fault)))
from realcompanion.cli import main
sys.exit(main(argv))
"""


def contents(root: Path) -> dict[str, bytes]:
    """Every file of the folder, but a killed writer's temporary file (`.NAME.*.part`, left beside the file)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".part")}


def documented(source: Path, folder: Path) -> Path:
    copy_release(source, folder)
    for name in DOCUMENTS:
        shutil.copy2(source / name, folder / name)
    return folder


def stale_schema_copy(root: Path) -> None:
    """One enum copy of a Table Schema edited, so that `schemas --write` (and `refresh`) has a copy to rewrite."""
    path = root / "schemas" / "source.schema.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"companion"', '"companion", "bot"'), encoding="utf-8")


def with_croissant(root: Path) -> None:
    assert run_quietly(["croissant", str(root)])[0] == 0


WRITERS = {  # command: (release, preparation, argv after the folder)
    "stamp": (REPO_ROOT, None, ["stamp", "--force"]),
    "refresh": (REPO_ROOT, stale_schema_copy, ["refresh", "--force"]),
    "card": (REPO_ROOT, None, ["card", "--write"]),
    "datasheet": (REPO_ROOT, None, ["datasheet", "--write"]),
    "schemas": (REPO_ROOT, stale_schema_copy, ["schemas", "--write"]),
    "croissant": (REPO_ROOT, with_croissant, ["croissant"]),
    "croissant-groupassist": (GROUPASSIST, with_croissant, ["croissant"]),
}


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """One documented copy of each release a writer is tried on, prepared, made once: each test copies it."""
    made = {}
    for name, (source, prepare, _) in WRITERS.items():
        folder = documented(source, tmp_path_factory.mktemp(name) / "release")
        if prepare:
            prepare(folder)
        made[name] = folder
    return made


def faulted(release: Path, fault: str, argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", CHILD, str(release.resolve()), fault, argv[0], str(release),
                           *argv[1:]], capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_killed_at_its_first_write_leaves_every_file_whole(writer, releases, tmp_path):
    release = shutil.copytree(releases[writer], tmp_path / "release", symlinks=True)
    before = contents(release)
    done = faulted(release, "kill", WRITERS[writer][2])
    assert done.returncode == -signal.SIGKILL, done.stderr  # it was killed while writing
    assert contents(release) == before


@pytest.mark.parametrize("writer", WRITERS)
def test_a_file_size_limit_leaves_every_file_whole_and_names_the_file(writer, releases, tmp_path):
    release = shutil.copytree(releases[writer], tmp_path / "release", symlinks=True)
    before = contents(release)
    done = faulted(release, "2048", WRITERS[writer][2])
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]  # --force warns first
    assert done.returncode == 2 and len(errors) == 1 and done.stderr.endswith(errors[0] + "\n"), done.stderr
    assert errors[0].endswith(": cannot write (File too large): the file is left as it was")
    assert Path(errors[0].removeprefix("error: ").split(": ")[0]).relative_to(release).as_posix() in before
    assert contents(release) == before
    assert not [p for p in release.rglob("*.part")]  # the temporary file is removed


def test_a_refreshed_fork_made_with_hard_links_leaves_the_original_untouched(tmp_path):
    original = documented(REPO_ROOT, tmp_path / "original")
    before = contents(original)
    fork = tmp_path / "fork"
    subprocess.run(["cp", "-al", str(original), str(fork)], check=True)
    qa = fork / "data" / "qa.jsonl"
    rows = [json.loads(line) for line in qa.read_text(encoding="utf-8").splitlines()]
    rows[0]["question"] = "Edited: " + rows[0]["question"]
    qa.unlink()  # the fork's own edit: a new file, as an editor writes it
    qa.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    code, out, err = run_quietly(["refresh", str(fork), "--force"])
    assert code == 0, out + err
    assert contents(original) == before
    assert contents(fork)["datapackage.json"] != before["datapackage.json"]
    assert os.stat(fork / "datapackage.json").st_ino != os.stat(original / "datapackage.json").st_ino


def test_an_appended_verdicts_file_is_a_new_file_when_judging_starts_over(tmp_path):
    """A writer that appends (judge's --out) starts a run that keeps nothing with a new, empty file: a hard link to
    the verdicts of another run keeps them."""
    from realcompanion.scoring.verdicts import VerdictsOut

    kept = tmp_path / "kept.jsonl"
    kept.write_text('{"item_id": "x"}\n', encoding="utf-8")
    os.link(kept, tmp_path / "out.jsonl")
    with VerdictsOut(tmp_path / "out.jsonl", "item_id", [], lambda reply: {}) as out:
        out.write({"item_id": "y", "condition": "c"})
    assert kept.read_text(encoding="utf-8") == '{"item_id": "x"}\n'
    assert json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))["item_id"] == "y"


@pytest.mark.parametrize("fmt", ["realcompanion", "groupassist"])
def test_synth_refuses_a_folder_that_is_not_empty(tmp_path, fmt):
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "source.jsonl").write_text('{"edited": "by the user"}\n', encoding="utf-8")
    before = contents(out)
    code, _, err = run_quietly(["synth", str(out), "--format", fmt])
    assert code == 2 and err.strip().splitlines() == [f"error: {out}: is not empty: a release is generated into a "
                                                      "new or empty folder, never over files"], err
    assert contents(out) == before


def test_synth_never_writes_through_a_link_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("the user's own file\n", encoding="utf-8")
    out = tmp_path / "out"
    (out / "data").mkdir(parents=True)
    (out / "data" / "source.jsonl").symlink_to(outside)
    code, _, err = run_quietly(["synth", str(out)])
    assert code == 2 and "is not empty" in err
    assert outside.read_text(encoding="utf-8") == "the user's own file\n"


@pytest.mark.parametrize("case", ["other-format", "schema-linked-from-outside"])
def test_synth_refuses_a_template_it_cannot_copy_before_writing(tmp_path, case):
    """A template of the other format was a KeyError traceback once part of the release was written; a template's
    schema linked to a file outside it was copied into the new release."""
    if case == "other-format":
        template, needle = GROUPASSIST, "no 'realcompanion' block: a groupassist release"
    else:
        template = copy_release(REPO_ROOT, tmp_path / "template")
        outside = tmp_path / "outside.schema.json"
        shutil.move(template / "schemas" / "qa.schema.json", outside)
        (template / "schemas" / "qa.schema.json").symlink_to(outside)
        needle = f"'schemas/qa.schema.json': resource schema is a link to {outside}, outside the package folder; " \
                 "a template's files are copied only when none leaves it"
    out = tmp_path / "out"
    code, out_text, err = run_quietly(["synth", str(out), "--template", str(template)])
    assert code == 2 and err.count("\n") == 1 and needle in err, err
    assert not out.exists()


def test_synth_writes_into_an_empty_folder(tmp_path):
    """The near miss: a folder made for the release, still empty."""
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run_quietly(["synth", str(out), "--participants", "1"])
    assert code == 0, err
    assert (out / "datapackage.json").is_file() and not [p for p in out.rglob("*.part")]
    assert run_quietly(["validate", str(out)])[0] == 0


def test_a_new_file_gets_the_umask_permissions_and_a_rewritten_one_keeps_its_own(tmp_path):
    from realcompanion.writing import write_text

    umask = os.umask(0o027)
    try:
        write_text(tmp_path / "new.txt", "new\n")
    finally:
        os.umask(umask)
    assert (tmp_path / "new.txt").stat().st_mode & 0o777 == 0o640
    (tmp_path / "kept.txt").write_text("old\n")
    os.chmod(tmp_path / "kept.txt", 0o604)
    write_text(tmp_path / "kept.txt", "new\n")
    assert (tmp_path / "kept.txt").stat().st_mode & 0o777 == 0o604
