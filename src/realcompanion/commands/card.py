"""`realcompanion card [PATH] [--check|--write]`: are README.md's Hugging Face header and generated blocks current?

The datasheet command shares the check-or-write contract defined here.
"""
from __future__ import annotations

from pathlib import Path


def add_mode(p, written: str) -> None:
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 listing each stale part (the default)")
    mode.add_argument("--write", action="store_true", help=f"regenerate {written}")


def check_or_write(args, stale, write) -> int:
    """Print what `write` rewrote (with --write), then what is still stale; exit 1 while anything is."""
    if args.write:
        for part in write(args.path):
            print(f"rewrote: {part}")
    problems = stale(args.path)
    for part in problems:
        print(f"stale: {part}")
    return 1 if problems else 0


def register(sub):
    p = sub.add_parser("card", help="check (default) or --write PATH/README.md's YAML header and generated blocks, "
                                    "and CITATION.cff's version and date")
    add_mode(p, "them from datapackage.json, schemas/, data/ and CITATION.cff")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..card import stale, write

    return check_or_write(args, stale, write)
