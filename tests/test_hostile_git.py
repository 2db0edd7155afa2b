"""A release folder's own git configuration is never obeyed (docs/validating.md, "Git"): a folder shared as an
archive carries its `.git`, whose config can name a smudge or clean filter (applied through `.gitattributes`), an
fsmonitor hook or other hooks; `load(..., revision=...)` and `cite` read the repository without running any."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import copy_release
from test_fuzz import run_quietly

import realcompanion
from realcompanion.errors import ReadError
from realcompanion.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root, *args) -> str:
    """git as the test's own user runs it, with nothing the folder's config sets that runs a command."""
    done = subprocess.run(["git", "-C", str(root), "-c", "user.name=Release", "-c", "user.email=release@example.org",
                           "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def hostile(root, marker) -> None:
    """The repository at `root` made hostile: every file goes through a filter (its committed `.gitattributes`)
    whose smudge and clean commands create `marker`, as do an fsmonitor hook and hooks run when the index changes."""
    command = f"touch {marker}; cat"
    for key, value in {"filter.evil.smudge": command, "filter.evil.clean": command, "filter.evil.required": "true",
                       "core.fsmonitor": f"{root}/.git/hooks/fsmonitor", "core.untrackedCache": "true"}.items():
        git(root, "config", key, value)
    for hook in ("fsmonitor", "post-index-change", "post-checkout"):
        path = root / ".git" / "hooks" / hook
        path.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
        path.chmod(0o755)


@pytest.fixture
def repository(tmp_path):
    """A documented release committed and tagged in a git repository of its own, then made hostile."""
    root = copy_release(REPO_ROOT, tmp_path / "release")
    for name in ("README.md", "CITATION.cff"):
        shutil.copy2(REPO_ROOT / name, root / name)
    (root / ".gitattributes").write_text("* filter=evil\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "release")
    git(root, "tag", "v0.1.0")
    hostile(root, tmp_path / "MARKER")
    return root


def test_the_hostile_repository_would_run_its_commands_under_plain_git(repository, tmp_path):
    """The fixture is what it claims: git's own archive, and its status, each obey the folder: the marker appears."""
    subprocess.run(["git", "-C", str(repository), "archive", "v0.1.0"], capture_output=True, check=True)
    assert (tmp_path / "MARKER").exists()
    (tmp_path / "MARKER").unlink()
    (repository / "data" / "qa.jsonl").touch()
    subprocess.run(["git", "-C", str(repository), "status", "--porcelain"], capture_output=True, check=True)
    assert (tmp_path / "MARKER").exists()


def test_load_at_a_revision_runs_nothing_the_folder_configures(repository, tmp_path, offline):
    loaded = realcompanion.load(repository, "qa", revision="v0.1.0", cache_dir=str(offline))
    first = json.loads((repository / "data" / "qa.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert loaded[0]["item_id"] == first["item_id"]
    assert not (tmp_path / "MARKER").exists()


def test_cite_runs_nothing_the_folder_configures_and_still_sees_a_change(repository, tmp_path):
    head = git(repository, "rev-parse", "HEAD")
    code, out, err = run_quietly(["cite", str(repository)])
    assert code == 0 and f"commit {head})" in out, out + err
    qa = repository / "data" / "qa.jsonl"
    qa.write_text(qa.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    code, out, err = run_quietly(["cite", str(repository)])
    assert code == 0 and f"commit {head} with uncommitted changes" in out, out + err
    assert not (tmp_path / "MARKER").exists()


def test_a_new_file_git_does_not_ignore_is_a_change_and_an_ignored_one_is_not(tmp_path):
    root = copy_release(REPO_ROOT, tmp_path / "release")
    shutil.copy2(REPO_ROOT / "CITATION.cff", root / "CITATION.cff")
    (root / ".gitignore").write_text("*.log\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "release")
    (root / "run.log").write_text("ignored\n", encoding="utf-8")
    assert "uncommitted" not in run_quietly(["cite", str(root)])[1]
    (root / "notes.txt").write_text("not ignored\n", encoding="utf-8")
    assert "with uncommitted changes" in run_quietly(["cite", str(root)])[1]


def test_a_revision_whose_card_is_missing_is_one_line(tmp_path, offline):
    """`datasets` said `BuilderConfig 'qa' not found`: the revision's card is named instead."""
    root = copy_release(REPO_ROOT, tmp_path / "release")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "without a card")
    git(root, "tag", "v0.0.1")
    with pytest.raises(ReadError, match=r"README.md: no such file at revision 'v0.0.1'"):
        realcompanion.load(root, "qa", revision="v0.0.1", cache_dir=str(offline))
