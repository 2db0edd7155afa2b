"""`realcompanion refresh [PATH]`: bring every generated part of the release up to date, printing what changed."""
from __future__ import annotations

from pathlib import Path


def register(sub):
    p = sub.add_parser("refresh", help="update every generated part in order: schema copies, counts and hashes, "
                                       "card and CITATION.cff, datasheet, croissant.json")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.set_defaults(run=run)


def run(args) -> int:
    from ..refresh import refresh

    changed = refresh(args.path)
    for part in changed:
        print(f"refreshed: {part}")
    if not changed:
        print("every generated part is current")
    return 0
