"""`realcompanion datasheet [PATH] [--check|--write]`: are DATASHEET.md's generated numbers those of the files?"""
from __future__ import annotations

from ..generated import add_mode, check_or_write


def register(sub):
    p = sub.add_parser("datasheet", help="check (default) or --write the generated blocks of PATH/DATASHEET.md")
    add_mode(p, "every generated block from the files, datapackage.json, the vocabulary and the rule catalogue")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..datasheet import stale, write

    return check_or_write(args, stale, write)
