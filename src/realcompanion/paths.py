"""Where this repository's own release lives, and whether a path a release names stays inside its folder.

The repository is the dataset: the generator uses its `datapackage.json` and
`schemas/` as the template of every release it writes. The package is meant to
be installed from a clone (`pip install -e .`), so the root is found from here.
"""
import os
import re
from pathlib import Path

from .errors import ReadError

REPO_ROOT = Path(__file__).resolve().parents[2]
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # https:, file:, s3:, a drive letter (C:)


def leaves(root, path: str) -> str | None:
    """What `path`, a file the release at `root` names as its own, is when it leads outside that folder (a URL,
    an absolute path, a path or a link to a file outside); None when it stays inside.

    Decided from the text and the links on disk, before anything is opened, so that a release can make no
    command read (or fetch) a file that is not its own. A link that loops is not followed here: opening
    it is the reader's one-line refusal, as a path holding a NUL byte is here (no file is named so)."""
    if "\0" in path:
        raise ReadError(Path(root) / path, "holds a NUL byte: no file has such a name")
    if _SCHEME.match(path) or "://" in path:
        return "a URL"
    if Path(path).is_absolute() or path.startswith(("/", "\\")):
        return "an absolute path"
    root = Path(os.path.realpath(root))
    target = Path(os.path.realpath(Path(root) / path))
    if not target.is_relative_to(root):
        return f"{'a path' if '..' in Path(path).parts else 'a link'} to {target}"
    return None


def own_file(root, path: str, field: str | None = None) -> Path:
    """The file `path` of the release at `root`, refused (one line naming the descriptor `field`, or the file itself
    when no field names it: a nested schema found in schemas/nested/) when it leaves that folder: every command
    reads and writes a release's files through this, so none reads, fetches or rewrites another's."""
    why = leaves(root, path)
    if why and field is None:
        raise ReadError(Path(root) / path, f"is {why}, outside the package folder: a release reads only its own files")
    if why:
        raise ReadError(Path(root) / "datapackage.json", f"'{path}' is {why}, outside the package folder: a "
                        "release reads only its own files", field=field)
    return Path(root) / path
