"""`realcompanion rules`: the rules a release is validated by (id, severity, family, statement,
and where the paper states it).

The coded catalogue, plus the rules the release at PATH declares in its rules file
(`realcompanion.rules` in datapackage.json), in the order a report lists them. Without a release of
the format listed, the format's own declared rules (`format_rules.json`), which every release of it
declares unchanged (INT6, GI7), stand in for the release's: the listing is the rules any release is judged by.
"""
from __future__ import annotations

from pathlib import Path

from .. import formats


def register(sub):
    p = sub.add_parser("rules", help="list every validation rule (coded and declared by the release)")
    p.add_argument("path", type=Path, nargs="?", default=Path("."),
                   help="release folder whose declared rules are listed too (default: .)")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.add_argument("--format", choices=formats.FORMATS,
                   help=f"whose catalogue to list (default: the format of the release at PATH, else {formats.FORMATS[0]})")
    p.set_defaults(run=run)


def run(args) -> int:
    import json

    from ..formats import FORMATS, format_of, part
    from ..tracks import judged_by
    from ..validators.declared import as_rules, declared_rules
    from ..validators.kept import canonical

    # the release at PATH names the catalogue unless --format does, and adds its declared rules when of that format
    found = format_of(args.path) if (args.path / "datapackage.json").is_file() else None
    listed = args.format or found or FORMATS[0]
    release = part(listed, "release")(args.path, check=False) if found == listed else None
    if release is not None:  # nothing of one whose paths leave it is read: the list would lack its declared rules
        release.refuse_escapes(f"the rules it declares are read only when no path leaves it (rule "
                               f"{part(listed, 'runner').contained})")
    declared = declared_rules(release) if release else as_rules(canonical(part(listed, "format_rules"))["rules"])
    rules = judged_by(part(listed, "catalogue").select(None, declared), release)
    if args.json:
        print(json.dumps([r.as_dict() for r in rules], indent=2))
    else:
        for r in rules:
            print(f"{r.id:<5} {r.severity:<8} {r.family:<11} {r.statement}  [{r.paper}]")
    return 0
