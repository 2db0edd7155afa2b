"""`realcompanion diff OLD NEW`: records added, removed and changed per resource between two releases."""
from __future__ import annotations

from pathlib import Path


def register(sub):
    p = sub.add_parser("diff", help="what release NEW adds, removes and changes relative to OLD, by primary key")
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.set_defaults(run=run)


def run(args) -> int:
    from tqdm import tqdm

    from ..publish.diff import diff, render

    with tqdm(unit="resource", desc="diff", disable=None, leave=False) as bar:
        compared = diff(args.old, args.new, progress=lambda _: bar.update())
    print(render(compared))
    return 0
