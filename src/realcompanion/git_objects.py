"""The one place the package runs git: reading a release folder's repository without obeying it.

A folder shared as an archive carries its `.git`, and git's own documentation (gitsecurityboundary(7)) warns that
a repository's configuration and hooks can make git run any command: a smudge or clean filter that `.gitattributes`
names (run by `git archive`, `checkout`, `status`), `core.fsmonitor` (run by any command that reads the index), a
hook, a promisor remote's transport. So the package runs only plumbing that reads objects as they are stored:
`rev-parse`, `ls-tree`, `cat-file` without `--filters` or `--textconv`, `hash-object --no-filters`, `ls-files`,
never a command that converts a blob to or from the working tree; and every call overrides, on its command line
(which git ranks above the repository's own configuration), what could still run something: no fsmonitor, hooks
from an empty folder, no untracked cache, no transport at all (`GIT_ALLOW_PROTOCOL` empty: a missing object is
never fetched), no replace refs (a commit reads as itself), no optional index write, no pager, no prompt.
"""
from __future__ import annotations

import io
import os
import stat
import subprocess
import tarfile
from pathlib import Path

from .errors import ReadError

_OVERRIDES = ("core.fsmonitor=false", f"core.hooksPath={os.devnull}", "core.untrackedCache=false",
              "core.pager=cat", "core.attributesFile=" + os.devnull)
_ENVIRONMENT = {"GIT_ALLOW_PROTOCOL": "", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_OPTIONAL_LOCKS": "0",
                "GIT_TERMINAL_PROMPT": "0", "GIT_ATTR_NOSYSTEM": "1", "GIT_NO_LAZY_FETCH": "1"}
_BLOB, _LINK, _EXECUTABLE, _GITLINK = "100644", "120000", "100755", "160000"


def git(folder: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    """`git -C folder ARGS` as every call of the package runs it (module docstring); output as bytes."""
    overrides = [part for setting in _OVERRIDES for part in ("-c", setting)]
    try:
        return subprocess.run(["git", "--no-pager", *overrides, "-C", str(folder), *args], input=input,
                              capture_output=True, check=False, env={**os.environ, **_ENVIRONMENT})
    except OSError:
        raise ReadError(folder, "reading a revision of a local folder needs git, which is not installed") from None


def _text(done: subprocess.CompletedProcess) -> str | None:
    return done.stdout.decode("utf-8", "surrogateescape").strip() if done.returncode == 0 else None


def commit_of(folder: Path, revision: str) -> str | None:
    """The commit `revision` names in the repository holding `folder`; None outside git or when it names none."""
    return _text(git(folder, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"))


def _entries(folder: Path, commit: str) -> dict[str, tuple[str, str]]:
    """Each file of `folder` (a folder of the repository, at any depth) as `commit` holds it: path relative to the
    folder -> (mode, object id)."""
    prefix = _text(git(folder, "rev-parse", "--show-prefix")) or ""
    done = git(folder, "ls-tree", "-r", "-z", "--full-tree", f"{commit}:{prefix}")
    if done.returncode != 0:
        raise ReadError(folder, f"cannot list the files of commit {commit}: "
                        f"{done.stderr.decode(errors='replace').strip()}", field="revision")
    entries = {}
    for record in filter(None, done.stdout.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        mode, _, oid = meta.decode().split(" ")
        entries[path.decode("utf-8", "surrogateescape")] = mode, oid
    return entries


def _contents(folder: Path, oids: list[str]) -> list[bytes]:
    """The stored bytes of each object, as `cat-file --batch` gives them: no filter, no conversion."""
    done = git(folder, "cat-file", "--batch", input="".join(f"{oid}\n" for oid in oids).encode())
    if done.returncode != 0:
        raise ReadError(folder, f"cannot read git objects: {done.stderr.decode(errors='replace').strip()}",
                        field="revision")
    out, at, found = done.stdout, 0, []
    for _ in oids:
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        if len(header) != 3:
            raise ReadError(folder, f"git object {header[0].decode(errors='replace')} is missing", field="revision")
        size = int(header[2])
        found.append(out[end + 1:end + 1 + size])
        at = end + 1 + size + 1
    return found


def extract(folder: Path, commit: str, into: Path) -> None:
    """Write the files `folder` holds at `commit` into the new folder `into`, byte for byte as committed (no
    `.gitattributes` conversion, no `export-subst`), through tarfile's `data` filter: a link that leads outside
    `into`, or an absolute one, is refused as `git archive`'s tar was."""
    entries = _entries(folder, commit)
    blobs = {path: entry for path, entry in entries.items() if entry[0] != _GITLINK}
    contents = dict(zip(blobs, _contents(folder, [oid for _, oid in blobs.values()])))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path, (mode, _) in sorted(entries.items()):
            info = tarfile.TarInfo(path)
            if mode == _GITLINK:  # a submodule: an empty folder, as git archive writes it
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif mode == _LINK:
                info.type, info.linkname = tarfile.SYMTYPE, contents[path].decode("utf-8", "surrogateescape")
                tar.addfile(info)
            else:
                info.size, info.mode = len(contents[path]), 0o755 if mode == _EXECUTABLE else 0o644
                tar.addfile(info, io.BytesIO(contents[path]))
    buffer.seek(0)
    with tarfile.open(fileobj=buffer) as tar:
        tar.extractall(into, filter="data")


def changed(folder: Path) -> bool:
    """Whether the files under `folder` differ from its repository's HEAD: a committed file changed (its bytes hashed
    as they are, no filter), its executable bit flipped, turned into or from a link, or gone; or a file HEAD lacks
    that git does not ignore (staged or not). True outside git, or when git cannot tell."""
    head = commit_of(folder, "HEAD")
    if head is None:
        return True
    committed = _entries(folder, head)
    listed = git(folder, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
    if listed.returncode != 0 or any(p.decode("utf-8", "surrogateescape") not in committed
                                     for p in filter(None, listed.stdout.split(b"\0"))):
        return True
    files, links = [], []
    for path, (mode, oid) in committed.items():
        if mode == _GITLINK:
            continue
        try:
            found = os.lstat(folder / path).st_mode
        except OSError:
            return True
        if stat.S_ISLNK(found) != (mode == _LINK) or (mode != _LINK and (
                not stat.S_ISREG(found) or bool(found & stat.S_IXUSR) != (mode == _EXECUTABLE))):
            return True
        (links if mode == _LINK else files).append((path, oid))
    hashed = git(folder, "hash-object", "--no-filters", "--stdin-paths",
                 input=b"".join(os.fsencode(folder.absolute() / path) + b"\n" for path, _ in files))
    if hashed.returncode != 0 or hashed.stdout.decode().split() != [oid for _, oid in files]:
        return True
    return any(_text(git(folder, "hash-object", "--no-filters", "--stdin",
                         input=os.fsencode(os.readlink(folder / path)))) != oid for path, oid in links)
