"""`realcompanion cite [PATH] [--format bibtex|apa|cff] [--repo-id ORG/NAME]`: the citation of a release."""
from __future__ import annotations

from pathlib import Path

from ..publish.documents import STYLES


def register(sub):
    p = sub.add_parser("cite", help="print the citation of the release at its version and revision")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--format", choices=list(STYLES), default="bibtex")
    p.add_argument("--repo-id", help="Hub dataset ORG/NAME (default: datapackage.json homepage)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import visible_lines
    from ..formats import open_release
    from ..publish.cite import RENDERERS, Citation

    print(visible_lines(RENDERERS[args.format](Citation.of(open_release(args.path), repo_id=args.repo_id))), end="")
    return 0
