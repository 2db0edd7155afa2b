"""`realcompanion schemas [PATH] [--write]`: are the generated enum/pattern copies in schemas/ current?"""
from __future__ import annotations

from pathlib import Path


def register(sub):
    p = sub.add_parser("schemas", help="check (or --write) the vocabulary copies in PATH/schemas")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--write", action="store_true", help="rewrite stale files from schemas/vocabulary.json")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..schemas import Schemas

    schemas = Schemas(args.path)
    stale = schemas.render() if args.write else schemas.stale()
    for path in stale:
        print(f"{'rewrote' if args.write else 'stale'}: {path}")
    return 1 if stale and not args.write else 0
