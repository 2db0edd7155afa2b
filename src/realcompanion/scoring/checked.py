"""Every scorer validates the release it scores first, as `publish` does, and refuses one that breaks its rules.

A figure computed on a release that fails an error rule need not mean what its definition says (an instance
whose constraint fails, a citation that does not resolve), so the scorers (`baselines`, `score`, `judge`,
`contexts`, `score-reconstruction`, `windows`) run the format's validator over the release they opened, in
its one pass (the tables read once, then scored from memory), and stop with one line naming the failing
rules and how many rows each fails (exit 2). Warnings do not stop them. `--unvalidated` skips the check
for a release being built by hand: a warning line (stderr) says so, and the JSON report's
`release.validated` is false.

A release whose bytes (descriptor, schemas, data files) passed once in this process is not validated
again: a program scoring one release several times pays for one validation.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

from ..errors import ReadError

UNVALIDATED = ("warning: --unvalidated: the release was not validated first; a figure on a release that breaks "
               "its rules need not mean what its definition says")
_PASSED: set[str] = set()


def add_unvalidated(p) -> None:
    p.add_argument("--unvalidated", action="store_true",
                   help="score without validating the release first (a release being built by hand; the report "
                        "opens with a warning)")


def opened(release_class, args, apart: bool = False):
    """The release at `args.path`, validated unless `args.unvalidated` (a failing one is a `ReadError`, exit 2).

    `apart`: the validation runs in a forked process, whose memory (every table read, the validator's libraries and
    what its rules built) is given back when it ends, for a scorer that reads a few of the tables itself; what it
    then reads is checked to be the bytes validated (`unchanged`)."""
    if getattr(args, "unvalidated", False):
        import sys

        print(UNVALIDATED, file=sys.stderr)
        release = release_class(args.path)
        release.validated = False
        return release
    release = release_class(args.path, check=False)  # the validator judges the descriptor, beside its reads
    _contained(release)
    if apart:
        release.validated_sha256 = _apart(release)
    else:
        refuse_invalid(release)
    release.validated = True
    return release


def _apart(release) -> dict[str, str]:
    """`refuse_invalid(release)` in a forked process (`speed.in_a_fork`); the sha256 of each file it validated. Its
    error, or any exception, is raised here as it was raised there."""
    from ..validators.speed import Unanswered, in_a_fork

    try:
        key, digests = in_a_fork(_validated, release)
    except Unanswered as exc:
        raise ReadError(release.root, f"the validating process ended {exc}") from None
    if key:
        _PASSED.add(key)
    return digests


def _validated(release) -> tuple[str | None, dict[str, str]]:
    """The work of `_apart`'s process: the release's fingerprint and its files' sha256, once it passed."""
    return refuse_invalid(release), dict(release.sha256)


def unchanged(release, names) -> None:
    """The tables `names` were read from the bytes a validation `apart` judged; a file changed since is a
    `ReadError`."""
    for name in names:
        validated = getattr(release, "validated_sha256", {}).get(name)
        if validated and release.sha256.get(name) != validated:
            raise ReadError(release.path(name), "changed while the release was validated; not scored (score it "
                                                "again)")


def refuse_invalid(release) -> str | None:
    """Validate `release` (reading its tables, which the scorer then reads from memory); raise a one-line
    `ReadError` naming each failing error rule and its failure count. Its fingerprint once it passed (None: one
    of its files is not a regular file)."""
    from ..formats import part

    if _PASSED and (key := _fingerprint(release)) in _PASSED:  # a first validation in this process hashes nothing
        return key  # twice
    report = part(release.BLOCK, "runner").validate(release.root, opened=release)
    if report.errors:
        counts = Counter()
        for outcome in report.outcomes:
            if outcome.rule.severity == "error" and outcome.fired:
                counts[outcome.rule.id] += outcome.count or 1  # a rule that could not be evaluated: once
        listed = ", ".join(f"{rule} ({n})" for rule, n in counts.items())
        raise ReadError(release.root, f"fails validation with {report.errors} error(s): {listed}; not scored "
                                      "(`realcompanion validate` names the rows; --unvalidated scores it as it is)")
    key = _fingerprint(release)
    if key:
        _PASSED.add(key)
    return key


def _contained(release) -> None:
    """A resource path or schema that leaves the release folder is refused as every command refuses it (one line
    naming the descriptor's field), before validation, which would only count it under INT3."""
    from ..paths import own_file

    for name in release.resources:
        for key in ("path", "schema"):
            path = release.resource(name).get(key)
            if isinstance(path, str):  # any other value is the validator's to report
                own_file(release.root, path, f"resources.{name}.{key}")


def _fingerprint(release) -> str | None:
    """The bytes validation depends on: the descriptor, the schema files and the data files (as read, or as they
    are when not read yet); None when one is not a regular file (a pipe is never read twice, nor waited on here)."""
    from ..stamp import sha256_of

    root = Path(release.root)
    files = [root / "datapackage.json", *sorted(p for p in (root / "schemas").rglob("*") if not p.is_dir())]
    unread = [release.path(name) for name in release.resources if not release.sha256.get(name)]
    if not all(path.is_file() for path in (*files, *unread)):
        return None
    digest = hashlib.sha256(str(root.resolve()).encode())
    for path in files:
        digest.update(f"{path}:{sha256_of(path)}".encode())
    for name in release.resources:
        digest.update(f"{name}:{release.sha256.get(name) or sha256_of(release.path(name))}".encode())
    return digest.hexdigest()
