"""Load a release as `datasets` does, or as the typed pandas frames the validator works on.

`load` is deliberately thin: the card's YAML header already tells `datasets`
which file is which config and what its features are, so a local clone and a
Hub repository load the same way, with no loading script. Pinning `revision`
(a release tag) is how a result is tied to the version it was computed on:
the Hub checks it out; a local folder is read at that revision from its git
objects, byte for byte as committed (`git_objects.extract`, which obeys nothing the
folder's own git configuration sets), into a folder named by the commit in the user's
own cache, and a revision the folder's repository does not have is refused, never
answered with the working tree.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from .card import SPLIT
from .errors import ReadError
from .git_objects import commit_of, extract, git


def load(path_or_repo_id, config: str, revision: str | None = None, split: str = SPLIT, **kwargs):
    """One config of a release (local folder or Hub dataset id) as a `datasets.Dataset`.

    A local folder is passed as an absolute path: `datasets` names the dataset
    after the folder and cannot name "." or "..". A Hub id and `revision` go
    through unchanged, as do extra keyword arguments (e.g. `cache_dir`). A local
    folder (at `revision`, or as it is) whose card declares no such config, or
    whose data file does not parse, is a `ReadError` naming the file (and line). A `datasets` older than the card
    needs (the package's own floor, `requirements.datasets_floor`) is refused in one line naming the version to
    install.
    """
    import datasets

    from .requirements import check_datasets

    check_datasets()
    target = os.fspath(path_or_repo_id)
    if not os.path.isdir(target):
        return datasets.load_dataset(target, config, split=split, revision=revision, **kwargs)
    folder, asked = Path(os.path.abspath(target)), revision
    if revision is not None:
        cache = kwargs.get("cache_dir") or datasets.config.HF_DATASETS_CACHE
        folder = checkout(folder, revision, Path(cache))
    files = _data_files(folder, config, asked)
    try:
        return datasets.load_dataset(str(folder), config, split=split, revision=None, **kwargs)
    except datasets.exceptions.DatasetGenerationError as exc:
        raise _unparsed(folder, files, exc) from None


def _data_files(folder: Path, config: str, revision: str | None) -> list[str]:
    """The data files the card of `folder` names for `config`; a card that is missing or names no such config is
    one line (`datasets` said `BuilderConfig 'qa' not found`, or loaded every file as one `default` config)."""
    from .card import read_card
    from .files import not_regular
    from .names import CARD
    from .paths import leaves

    at = f" at revision '{revision}'" if revision is not None else ""
    card = folder / CARD
    if not card.is_file():
        raise ReadError(card, f"no such file{at}: the dataset card names the configs a release loads as")
    declared = {c.get("config_name"): c for c in read_card(card).data.get("configs") or [] if isinstance(c, dict)}
    if config not in declared:
        raise ReadError(card, f"declares no config '{config}'{at} (it declares: "
                        f"{', '.join(sorted(map(str, declared))) or 'none'})", field="configs")
    for name, entry in declared.items():  # `datasets` resolves every config's files: a FIFO's name as no file at all
        for listed in _listed(entry):  # (FileNotFoundError), a link out as the file it leads to
            path = folder / listed
            if why := leaves(folder, listed) or (os.path.lexists(path) and not_regular(path)):
                raise ReadError(card, f"config '{name}' reads {listed}, which {why if why.startswith('is ') else 'is ' + why}"
                                f"{at}: a release loads only regular files of its own", field="configs")
    return _listed(declared[config])


def _listed(config: dict) -> list[str]:
    """The paths (or patterns) a card's config lists as its data files."""
    files = config.get("data_files") or []
    return [str(f.get("path") if isinstance(f, dict) else f) for f in ([files] if isinstance(files, (str, dict)) else files)]


def _unparsed(folder: Path, files: list[str], exc: Exception) -> ReadError:
    """The one line for a config `datasets` could not build: the first line of its data files that is not one JSON
    object (a file cut short), else what `datasets` said."""
    from .files import loads, read_bytes

    for name in files:
        path = folder / name
        if not path.is_file():
            continue
        for number, line in enumerate(read_bytes(path).decode("utf-8", "replace").split("\n"), 1):
            if line.strip():
                try:
                    loads(line, path, line=number)
                except ReadError as found:
                    return found
    cause = exc.__cause__ or exc.__context__ or exc
    return ReadError(folder, f"datasets could not load it: {cause}")


def checkout(folder: Path, revision: str, cache: Path) -> Path:
    """The release folder as it is at `revision` (a tag or commit of the git repository holding it).

    Extracted once per commit under `cache` (the `datasets` cache the load uses: the user's own, not the shared
    temporary directory, where another user could have put a folder of that name first) and reused only when
    this user owns it; a folder outside git, or a revision its repository lacks, raises `ReadError`.
    """
    commit = commit_of(folder, revision)
    if commit is None:
        raise ReadError(folder, f"no revision '{revision}' in the git repository of this folder (or no git "
                        "repository): refusing to load the working tree instead", field="revision")
    prefix = git(folder, "rev-parse", "--show-prefix").stdout.decode("utf-8", "surrogateescape").strip()
    digest = hashlib.sha256(f"{commit}:{prefix}".encode()).hexdigest()[:16]
    checkouts = cache / "realcompanion-revisions"
    root = checkouts / f"{commit[:12]}-{digest}"
    if root.is_dir():
        if root.stat().st_uid != os.getuid():
            raise ReadError(root, "this checkout of a revision belongs to another user: remove it, or pass a "
                            "cache_dir of your own", field="revision")
        return root
    checkouts.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{commit[:12]}-", dir=checkouts))  # renamed whole once extracted
    try:
        extract(folder, commit, staging)
    except BaseException:
        shutil.rmtree(staging)
        raise
    try:
        staging.rename(root)
    except OSError:  # another load extracted it meanwhile
        shutil.rmtree(staging)
        if not root.is_dir():
            raise
    return root



def frames(path=".", *, typed_dates: bool = False) -> dict:
    """Every resource of the release folder at `path` as a pandas frame with Arrow-backed dtypes, in the format its
    descriptor names (each format's own resources, and a fork's too), as `load` reads either.

    Dates and timestamps arrive as the file writes them (text), as the validator reads them. With
    `typed_dates=True` each top-level `date` field holds `datetime.date` values and each `datetime` field
    `datetime.datetime` values that keep their own UTC offset (a column of several offsets cannot be one
    timezone-aware pandas dtype without losing them: `pandas.to_datetime(column, utc=True)` makes that UTC column)."""
    from .formats import format_of, part

    release = part(format_of(path), "release")(path)
    found = {name: release.frame(name) for name in release.resources}
    if typed_dates:
        for name, frame in found.items():
            for field in release.table_schema(name)["fields"]:
                if field.get("type") in _TYPED:
                    frame[field["name"]] = _typed(release, name, field, frame[field["name"]])
    return found


def _typed(release, name: str, field: dict, column):
    """A date or datetime column as Python values (`pandas.Timestamp`, a `datetime` keeping its offset; `date`);
    a value that is no such date is a ReadError naming its row (an unvalidated release can hold one)."""
    import pandas as pd

    convert = pd.Timestamp if field["type"] == "datetime" else lambda text: pd.Timestamp(text).date()
    values, lines = [], release.lines.get(name)
    for row, text in enumerate(column.tolist()):
        try:
            values.append(None if pd.isna(text) else convert(text))
        except ValueError:
            raise ReadError(release.path(name), f"'{text}' is not a {field['type']} (run `realcompanion validate`)",
                            line=lines[row] if lines else row + 1, field=field["name"]) from None
    return pd.Series(values, index=column.index, dtype=object, name=column.name)


_TYPED = ("datetime", "date")  # the Table Schema types `typed_dates` reads
