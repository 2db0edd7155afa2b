"""What the package declares it needs (pyproject.toml, read back from its installed metadata with `packaging`).

The card states the oldest `datasets` that loads it, and `load` refuses an older one in one line; both read that
floor from the package's own requirement (`datasets>=X`), declared once in pyproject.toml.
"""
from __future__ import annotations

from functools import cache

DISTRIBUTION = __name__.partition(".")[0]  # the distribution bears the package's name


@cache
def declared() -> tuple:
    """The package's requirements (`packaging.requirements.Requirement`), extras' included; none when it is not
    installed (a source tree on sys.path)."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    try:
        return tuple(Requirement(text) for text in requires(DISTRIBUTION) or [])
    except PackageNotFoundError:
        return ()


def extra_of(module: str) -> str | None:
    """The optional extra (any the package declares but `test`) whose requirement provides the top-level `module`
    (a distribution `foo-bar` or `foo-bar-py` imports as `foo_bar`), or None."""
    from importlib.metadata import PackageNotFoundError, metadata

    from packaging.utils import canonicalize_name

    try:
        offered = [extra for extra in metadata(DISTRIBUTION).get_all("Provides-Extra") or [] if extra != "test"]
    except PackageNotFoundError:
        offered = []
    root = canonicalize_name(module.split(".")[0])
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        extras = [extra for extra in offered
                  if requirement.marker is not None and requirement.marker.evaluate({"extra": extra})]
        if extras and root in (name, canonicalize_name(f"{name}-py"), name.removesuffix("-py")):
            return extras[0]
    return None


def floor(distribution: str) -> str | None:
    """The oldest version of `distribution` the package declares it works with (the `>=` of its requirement)."""
    from packaging.utils import canonicalize_name

    for requirement in declared():
        if canonicalize_name(requirement.name) == canonicalize_name(distribution) and requirement.marker is None:
            return next((spec.version for spec in requirement.specifier if spec.operator == ">="), None)
    return None


DATASETS_FLOOR_WHY = "the `Json` feature that keeps dates and timestamps as the file writes them"


def datasets_floor() -> str | None:
    """The oldest `datasets` that loads a card this package writes: `Json` (`dtype: json` in the card's header)
    came in datasets 4.7.0; an older one reads `json` as an Arrow type and stops with `TypeError: 'module' object is
    not callable`."""
    return floor("datasets")


def check_datasets() -> None:
    """Refuse, in one line naming the version to install, a `datasets` older than the card needs."""
    import datasets
    from packaging.version import Version

    needed = datasets_floor()
    if needed and Version(datasets.__version__) < Version(needed):
        raise ImportError(f"datasets {datasets.__version__} cannot load this card ({DATASETS_FLOOR_WHY} came in "
                          f"datasets {needed}): pip install 'datasets>={needed}'")
