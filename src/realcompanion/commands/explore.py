"""`realcompanion explore [PATH]`: look at a release in a browser, on Datasette, served on 127.0.0.1.

Each conversation with every record that cites its messages marked in place, each record with its cited messages
in their place and its probe or cutoff drawn as a line, and the validation report with each failing row linked to
its record. `--build DIR` writes the site (a Datasette configuration directory) instead of serving it, for sharing:
`datasette DIR` serves it anywhere. Needs the `explore` extra. Exit 0 done, 2 unreadable release or bad folder.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..argtypes import MAX_PORT, whole


def register(sub):
    p = sub.add_parser("explore", help="look at a release in a browser: conversations, records, validation (Datasette)")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--build", metavar="DIR", type=Path, help="write the site into DIR (new or empty) instead of serving it")
    p.add_argument("--port", type=whole(0, MAX_PORT), default=8001, help="port on 127.0.0.1 to serve on (default 8001)")
    p.set_defaults(run=run)


def run(args) -> int:
    import datasette  # noqa: F401  (the `explore` extra, asked for before any work)
    from tqdm import tqdm

    from ..explore.site import build_site, serve
    from ..files import output_folder
    from ..formats import format_of, part

    if args.build:
        output_folder(args.build, args.path)
    release = part(format_of(args.path), "release")(args.path)
    with tempfile.TemporaryDirectory(prefix="realcompanion-explore-") as scratch:
        folder = args.build or Path(scratch) / "site"
        with tqdm(total=len(release.resources), unit="table", disable=None, leave=False, file=sys.stderr) as bar:
            counts = build_site(release, folder, progress=bar.update)
        rows = sum(n for name, n in counts.items() if not name.startswith("_"))
        print(f"{'wrote' if args.build else 'built'} {folder}: {rows} rows in {len(release.resources)} tables, "
              f"{counts['_cites']} citations, {counts['_failures']} validation failure(s)", file=sys.stderr)
        if args.build:
            print(f"serve it with: datasette {folder}", file=sys.stderr)
            return 0
        print(f"serving on http://127.0.0.1:{args.port}/-/conversations (Ctrl-C stops)", file=sys.stderr)
        serve(folder, args.port)
    return 0
