"""Load a release as `datasets` does, or as the typed pandas frames the validator works on.

`load` is deliberately thin: the card's YAML header already tells `datasets`
which file is which config and what its features are, so a local clone and a
Hub repository load the same way, with no loading script. Pinning `revision`
(a release tag) is how a result is tied to the version it was computed on.
"""
from __future__ import annotations

import os

from .card import SPLIT


def load(path_or_repo_id, config: str, revision: str | None = None, split: str = SPLIT, **kwargs):
    """One config of a release (local folder or Hub dataset id) as a `datasets.Dataset`.

    A local folder is passed as an absolute path: `datasets` names the dataset
    after the folder and cannot name "." or "..". A Hub id and `revision` go
    through unchanged, as do extra keyword arguments (e.g. `cache_dir`).
    """
    import datasets

    target = os.fspath(path_or_repo_id)
    if os.path.isdir(target):
        target = os.path.abspath(target)
    return datasets.load_dataset(target, config, split=split, revision=revision, **kwargs)


def frames(path=".") -> dict:
    """Every resource of the release folder at `path` as a pandas frame with Arrow-backed dtypes."""
    from .release import Release

    release = Release(path)
    return {name: release.frame(name) for name in release.resources}
