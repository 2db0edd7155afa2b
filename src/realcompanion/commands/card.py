"""`realcompanion card [PATH] [--check|--write]`: are README.md's Hugging Face header and generated blocks current?"""
from __future__ import annotations

from ..generated import add_mode, check_or_write


def register(sub):
    p = sub.add_parser("card", help="check (default) or --write PATH/README.md's YAML header and generated blocks, "
                                    "and CITATION.cff's version, date and licence")
    add_mode(p, "them from datapackage.json, schemas/, data/ and CITATION.cff")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..card import stale, write

    return check_or_write(args, stale, write)
