"""Run the GroupAssistBench catalogue over a release: RealCompanion's one pass (validators/run.py), in this format.

Only what differs is stated here: the catalogue, its structure rules (GS1 names the records
that did not fit their types, GS2 the constraints they break, GS4 the calendar), GI3 for
the paths checked before anything is read, and the release and context of this format.
Everything else is the shared runner's: every table read once, a row that fails structure
set aside from every other rule's verdict while every other row is still checked, the same
`Report` and exit codes.
"""
from __future__ import annotations

from realcompanion.formats.groupassist import GroupAssistRelease

from .. import run
from ..catalogue import Rule
from .catalogue import select
from .context import Context
from .structure import STRUCTURE_RULES


def _declared(release: GroupAssistRelease) -> dict:
    from realcompanion.formats.groupassist.synth import declared

    return declared(release)


GROUPASSIST = run.Runner(select, STRUCTURE_RULES, "GS1", "GI3", "GS2",
                         lambda path: GroupAssistRelease(path, check=False, partial=True), Context, _declared, "GT1")


def planned(rules: str | None, declared: list[Rule] = (), release: GroupAssistRelease | None = None) -> list[Rule]:
    """The rules a run evaluates: the chosen ones (coded or declared by the release), and the structure rules
    always; of `release`'s, those that judge a resource it carries."""
    return run.planned(rules, declared, GROUPASSIST, release)


def validate(path=".", rules: str | None = None, progress=None, restamped: bool = False,
             opened: GroupAssistRelease | None = None) -> run.Report:
    """Validate the release at `path` (or `opened` there already); `restamped` judges it as `stamp` would leave it
    (in memory only)."""
    return run.validate(path, rules, progress, restamped, GROUPASSIST, opened)
