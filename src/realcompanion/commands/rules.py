"""`realcompanion rules`: the rule catalogue (id, severity, family, statement)."""
from __future__ import annotations


def register(sub):
    p = sub.add_parser("rules", help="list every validation rule")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.add_argument("--format", choices=("realcompanion", "groupassist"), default="realcompanion",
                   help="whose catalogue to list (default realcompanion)")
    p.set_defaults(run=run)


def run(args) -> int:
    import json

    if args.format == "groupassist":
        from ..validators.groupassist.catalogue import all_rules
    else:
        from ..validators.catalogue import all_rules

    rules = all_rules()
    if args.json:
        print(json.dumps([r.as_dict() for r in rules], indent=2))
    else:
        for r in rules:
            print(f"{r.id:<5} {r.severity:<8} {r.family:<11} {r.statement}")
    return 0
