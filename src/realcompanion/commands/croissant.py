"""`realcompanion croissant [PATH]`: write PATH/croissant.json (Croissant 1.0 + RAI) from the release's schemas."""
from __future__ import annotations

import sys
from pathlib import Path


def register(sub):
    p = sub.add_parser("croissant", help="write PATH/croissant.json (Croissant metadata with the RAI fields)")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.set_defaults(run=run)


def run(args) -> int:
    from tqdm import tqdm

    from ..files import write_own
    from ..formats import open_release
    from ..publish.croissant import FILE, metadata
    from ..schemas import dump_json

    # mlcroissant offers no hook inside its checks: the bar counts the three steps (read, describe and check, write)
    with tqdm(total=3, unit="step", disable=None, leave=False, file=sys.stderr) as bar:
        release = open_release(args.path)
        bar.update()
        described = metadata(release)
        bar.update()
        write_own(args.path, FILE, dump_json(described.to_json()))
        bar.update()
    warnings = sorted(described.ctx.issues.warnings)
    print(f"wrote {args.path / FILE} ({len(described.record_sets)} record sets, "
          f"{len(warnings)} mlcroissant warning(s))")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0
