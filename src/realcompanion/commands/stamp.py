"""`realcompanion stamp [PATH] [--force]`: record row counts and sha256 of the data files in datapackage.json.

Stamping blesses the files as they are, so the release is validated first and an
invalid one is refused (exit 1): only the rules that compare the files with the
declarations being written (STAMPED) may fail. `--force` stamps without validating.
"""
from __future__ import annotations

import sys
from pathlib import Path

STAMPED = ("INT1", "INT2")  # declared hashes and row counts: what stamping rewrites


def register(sub):
    p = sub.add_parser("stamp", help="validate PATH, then record the declared counts and hashes of its data files")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--force", action="store_true",
                   help=f"stamp without validating: every rule but {', '.join(STAMPED)} is skipped")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..stamp import stamp

    if args.force:
        print(f"warning: --force: not validated; every rule but {', '.join(STAMPED)} was skipped", file=sys.stderr)
    else:
        from ..validators.run import validate

        report = validate(args.path)
        failing = sorted({o.rule.id for o in report.outcomes
                          if o.fired and o.rule.severity == "error" and o.rule.id not in STAMPED})
        if failing:
            print(f"refused: {args.path} fails rule(s) {', '.join(failing)}; run `realcompanion validate` "
                  "(or stamp --force)", file=sys.stderr)
            return 1
    block = stamp(args.path)
    print(" ".join(f"{k}={v}" for k, v in block["rows"].items()))
    return 0
