"""`realcompanion validate [PATH]`: every rule of the catalogue over a release.

Exit 0 no error, 1 errors found, 2 the package could not be read.
"""
from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

from ..argtypes import whole


def register(sub):
    p = sub.add_parser("validate", help="check a release against every rule; exit 0 valid, 1 invalid, 2 unreadable")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--json", metavar="OUT", help="write the JSON report to OUT ('-' for stdout)")
    p.add_argument("--html", metavar="DIR", type=Path, help="render the results as Data Docs HTML into DIR")
    p.add_argument("--rules", metavar="IDS", help="comma-separated rule ids or families (structure always runs)")
    p.add_argument("--max-examples", type=whole(0), default=5, help="failing rows shown per rule (default 5)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..files import output_file, output_folder
    from ..formats import format_of
    from ..validators.terminal import render

    if format_of(args.path) == "groupassist":
        from ..validators.groupassist.run import planned, validate

        plan = partial(planned, args.rules)  # this format declares no rules of its own yet
    else:
        from ..release import Release
        from ..validators.declared import declared_rules
        from ..validators.run import planned, validate

        release = Release(args.path, check=False)  # validate has Frictionless judge it beside the reading
        try:
            plan = partial(planned, args.rules, declared_rules(release))
        except Exception:  # a descriptor Frictionless rejects is named in preference to what follows from it
            release.check_descriptor()
            raise
    try:
        total = len(plan())
    except KeyError as exc:
        print(f"error: unknown rule or family: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json not in (None, "-"):
        output_file(args.json)
    if args.html:
        output_folder(args.html)
    if sys.stderr.isatty():  # a progress bar only where someone watches (tqdm is not imported otherwise)
        from tqdm import tqdm

        with tqdm(total=total, unit="rule", leave=False, file=sys.stderr) as bar:
            report = validate(args.path, args.rules, progress=bar.update)
    else:
        report = validate(args.path, args.rules)
    if args.json == "-":
        json.dump(report.to_json(), sys.stdout, indent=2)
        print()
    else:
        print(render(report, args.max_examples))
        if args.json:
            Path(args.json).write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    if args.html:
        from ..validators.html import render_html

        index = render_html(report, args.path, args.html)
        print(f"HTML report: {index}", file=sys.stderr)
    return 1 if report.errors else 0
