"""`realcompanion refresh [PATH] [--force]`: bring every generated part of the release up to date, printing what
changed.

Like `stamp`, it blesses the files as they are: after rewriting the schema copies it validates, and refuses
(exit 1, nothing else written) a release failing any error rule but the count and hash checks it is about to
satisfy. `--force` refreshes without validating."""
from __future__ import annotations

import sys
from pathlib import Path


def register(sub):
    p = sub.add_parser("refresh", help="update every generated part in order: schema copies, counts and hashes, "
                                       "card and CITATION.cff, datasheet, croissant.json")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--force", action="store_true", help="refresh without validating")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..names import COMMAND
    from ..refresh import ByHand, Refused, refresh
    from .stamp import FORCED, refusal
    from .validate import validation_bar

    if args.force:
        print(FORCED, file=sys.stderr)
    try:
        with validation_bar(args.path, disable=True if args.force else None) as bar:
            changed = refresh(args.path, check=not args.force, progress=bar.update,
                              report=lambda part: print(f"refreshed: {part}"))
    except Refused as refused:
        print(refusal(args.path, refused.failing, "refresh"), file=sys.stderr)
        return 1
    except ByHand as left:
        for part in left.parts:
            print(f"stale: {part}")
        print(f"mend these by hand (restore the block's markers, or drop an unknown block), then run `{COMMAND}` again")
        return 1
    if not changed:
        print("every generated part is current")
    return 0
