"""`realcompanion schemas [PATH] [--check|--write]`: are the vocabulary copies in schemas/ current?"""
from __future__ import annotations

from ..generated import add_mode, check_or_write


def register(sub):
    p = sub.add_parser("schemas", help="check (default) or --write the enum/pattern copies in PATH/schemas")
    add_mode(p, "them from schemas/vocabulary.json")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..formats import format_of
    from ..schemas import Schemas

    def schemas(path):
        return Schemas(path, format_of(path))  # the format block names the vocabulary file

    return check_or_write(args, lambda path: [str(p) for p in schemas(path).stale()],
                          lambda path: [str(p) for p in schemas(path).render()])
