"""Writing a file whole or not at all: every reader finds the old version or the new one, never a mix.

Every file a command writes (the descriptor, README.md, DATASHEET.md, CITATION.cff, croissant.json, the schema
copies, a generated release, a report) goes through `Replacing`: the text goes to a temporary file in the same
folder (created exclusively, so no planted file or link is written through; given the old file's permissions, or
those the umask leaves to a new one), which is flushed, fsynced and then renamed over the path in one system call.
A process killed meanwhile, a full disk or a file-size limit leaves the old file whole (a killed one leaves its
`.NAME.*.part` file beside it too); the new file is a new inode, so a fork made with hard links (`cp -al`) keeps
the original release's files when the fork is rewritten. A file that cannot be written is one line naming it.

A file written to be resumed, one line per answer as it comes (`judge --out`), is appended to instead: a line is
written whole with one call and flushed at once (`scoring.verdicts`).

Written by hand: `atomicwrites` is archived, `safer` neither fsyncs nor gives a new file the umask's permissions
(it stays 0600), and boltons' `AtomicSaver` leaves its part file behind when the last flush fails (a full disk).
"""
from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import ReadError


def _mode(path: Path) -> int:
    """The permissions the new file gets: the old file's, or what the umask leaves of 0666."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


class Replacing:
    """`with Replacing(path) as out: out.write(text)`: `path` is replaced by what was written when the block ends
    without an exception, and left as it was otherwise."""

    def __init__(self, path):
        self.path = Path(path)

    def _failed(self, exc: OSError) -> ReadError:
        return ReadError(self.path, f"cannot write ({exc.strerror or exc}): the file is left as it was")

    def __enter__(self) -> Replacing:
        try:
            fd, self.temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".part")
        except OSError as exc:
            raise self._failed(exc) from None
        self.file = os.fdopen(fd, "wb")
        try:
            os.fchmod(fd, _mode(self.path))
        except OSError as exc:
            self._discard()
            raise self._failed(exc) from None
        return self

    def write(self, data: str | bytes) -> None:
        """Write text (as UTF-8) or bytes."""
        try:
            self.file.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as exc:
            raise self._failed(exc) from None

    def _discard(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()  # flushes what is buffered first, which may fail again
        with contextlib.suppress(OSError):
            os.unlink(self.temp)

    def __exit__(self, kind, *_) -> bool:
        if kind is not None:
            self._discard()
            return False
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            os.replace(self.temp, self.path)
        except OSError as exc:
            self._discard()
            raise self._failed(exc) from None
        return False


def write_text(path, text: str) -> None:
    """`path` replaced by `text` (UTF-8), whole or not at all."""
    with Replacing(path) as out:
        out.write(text)


def copy_schemas(template: Path, out: Path) -> None:
    """The template's schemas/ copied into a new release, each file through the writer."""
    for source in sorted((template / "schemas").rglob("*")):
        target = out / source.relative_to(template)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            with Replacing(target) as handle:
                handle.write(source.read_bytes())
