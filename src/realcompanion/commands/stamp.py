"""`realcompanion stamp [PATH] [--force]`: record row counts and sha256 of the data files in datapackage.json.

Stamping blesses the files as they are, so the release is first validated as the stamp
would leave it, and one that would still be invalid is refused (exit 1), nothing written.
`--force` stamps without validating.
"""
from __future__ import annotations

import sys
from pathlib import Path

FORCED = "warning: --force: written without validating"


def refusal(path, failing: list[str], command: str) -> str:
    return (f"refused: {path} fails rule(s) {', '.join(failing)}; run `realcompanion validate` "
            f"(or {command} --force)")


def register(sub):
    p = sub.add_parser("stamp", help="validate PATH, then record the declared counts and hashes of its data files")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--force", action="store_true",
                   help="stamp without validating")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..formats import format_of, part
    from ..stamp import blocking_rules
    from .validate import validation_bar

    stamp = part(format_of(args.path), "stamp")

    failing = []
    if args.force:
        print(FORCED, file=sys.stderr)
    else:
        with validation_bar(args.path) as bar:
            failing = blocking_rules(args.path, bar.update)
    if failing:
        print(refusal(args.path, failing, "stamp"), file=sys.stderr)
        return 1
    block = stamp(args.path)
    print(" ".join(f"{k}={v}" for k, v in block["rows"].items()))
    return 0
