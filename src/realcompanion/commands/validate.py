"""`realcompanion validate [PATH]`: every rule of the catalogue over a release.

Exit 0 no error, 1 errors found, 2 the package could not be read.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..argtypes import rule_ids, whole
from ..collector import paused
from ..errors import visible


def register(sub):
    p = sub.add_parser("validate", help="check a release against every rule; exit 0 valid, 1 invalid, 2 unreadable")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--html", metavar="DIR", type=Path, help="render the results as Data Docs HTML into DIR")
    p.add_argument("--rules", metavar="IDS", type=rule_ids, help="comma-separated rule ids or families (structure always runs)")
    p.add_argument("--max-examples", type=whole(0), default=5, help="failing rows shown per rule (default 5)")
    p.set_defaults(run=run)


def planned_rules(path, rules: str | None = None, release=None) -> list:
    """The rules a validation of the release at `path` (or `release`, opened there) runs: its format's catalogue
    and its declared rules."""
    from ..formats import format_of, part
    from ..validators.declared import declared_rules

    fmt = release.BLOCK if release else format_of(path)
    release = release or part(fmt, "release")(path, check=False)  # validate has Frictionless judge it beside the reading
    try:
        return part(fmt, "runner").planned(rules, declared_rules(release), release)
    except Exception:  # a descriptor Frictionless rejects is named in preference to what follows from it
        release.check_descriptor()
        raise


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def update(self, n: int = 1) -> None:
        pass


def validation_bar(path, rules: str | None = None, total: int | None = None, **options):
    """A progress bar over the rules a validation of `path` runs; where nobody watches (stderr is not a terminal,
    or `disable=True`) a stand-in that draws nothing, and tqdm is not even imported."""
    if options.get("disable") is True or not sys.stderr.isatty():
        return _Quiet()
    from tqdm import tqdm

    total = len(planned_rules(path, rules)) if total is None else total
    return tqdm(total=total, unit="rule", leave=False, file=sys.stderr, **{"disable": None, **options})


def run(args) -> int:
    """The garbage collector is paused for the whole run, the imports included (`collector`): about 0.3 s of CPU
    a run at paper size, and no more memory held at 100 times it. Arrow allocates from C malloc
    (`allocator`), from before the first table is read."""
    from ..allocator import from_malloc

    from_malloc()
    with paused():
        return _run(args)


def _run(args) -> int:
    from ..files import output_file, output_folder
    from ..formats import format_of, part
    from ..validators.terminal import render
    from ..writing import write_text

    fmt = format_of(args.path)
    release = part(fmt, "release")(args.path, check=False, partial=True)
    with release.reading_ahead():  # the tables are read while the validator's libraries are imported
        runner = part(fmt, "runner")
        try:
            total = len(planned_rules(args.path, args.rules, release))
        except KeyError as exc:
            print(f"error: unknown rule or family: {visible(exc.args[0])}", file=sys.stderr)
            return 2
        if args.json not in (None, "-"):
            output_file(args.json, args.path)
        if args.html:
            output_folder(args.html, args.path)
        with validation_bar(args.path, total=total) as bar:
            report = runner.validate(args.path, args.rules, progress=bar.update, opened=release)
    if args.json == "-":
        json.dump(report.to_json(), sys.stdout, indent=2)
        print()
    else:
        print(render(report, args.max_examples))
        if args.json:
            write_text(args.json, json.dumps(report.to_json(), indent=2) + "\n")
    if args.html:
        from ..validators.html import render_html

        index = render_html(report, args.path, args.html)
        print(f"HTML report: {index}", file=sys.stderr)
    return 1 if report.errors else 0
