"""A release version, as `packaging.version` reads it: three numbers (`X.Y.Z`, Semantic Versioning's core), written
as packaging writes it, so the version a descriptor, a tag (`vX.Y.Z`) and a citation state is one text, and a version
field holds nothing else (a page or a terminal shows it as given)."""
from __future__ import annotations


def problem(text) -> str | None:
    """Why `text` is not a release version (None when it is one)."""
    from packaging.version import InvalidVersion, Version

    if not isinstance(text, str):
        return f"{text!r} is not a version (X.Y.Z, text)"
    try:
        parsed = Version(text)
    except InvalidVersion:
        return f"'{text}' is not a version (X.Y.Z)"
    if len(parsed.release) != 3 or parsed.epoch or parsed.base_version != text:  # no pre-, post-, dev- or local part
        return f"'{text}' is not a version as X.Y.Z writes it (three numbers, such as 1.0.0)"
    return None


def tag_of(version: str) -> str:
    """The git tag a release version is published under."""
    return f"v{version}"
