"""`realcompanion croissant [PATH]`: write PATH/croissant.json (Croissant 1.0 + RAI) from the release's schemas."""
from __future__ import annotations

import sys
from pathlib import Path


def register(sub):
    p = sub.add_parser("croissant", help="write PATH/croissant.json (Croissant metadata with the RAI fields)")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.set_defaults(run=run)


def run(args) -> int:
    from ..card import open_release
    from ..publish.croissant import FILE, metadata
    from ..schemas import dump_json

    described = metadata(open_release(args.path))
    (args.path / FILE).write_text(dump_json(described.to_json()), encoding="utf-8")
    warnings = sorted(described.ctx.issues.warnings)
    print(f"wrote {args.path / FILE} ({len(described.record_sets)} record sets, "
          f"{len(warnings)} mlcroissant warning(s))")
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0
