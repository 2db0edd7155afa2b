"""`realcompanion stamp [PATH]`: record row counts and sha256 of the data files in datapackage.json."""
from __future__ import annotations

from pathlib import Path


def register(sub):
    p = sub.add_parser("stamp", help="record declared counts and hashes of PATH's data files")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.set_defaults(run=run)


def run(args) -> int:
    from ..formats import format_of

    if format_of(args.path) == "groupassist":
        from ..groupassist.synth import stamp
    else:
        from ..stamp import stamp

    block = stamp(args.path)
    print(" ".join(f"{k}={v}" for k, v in block["rows"].items()))
    return 0
