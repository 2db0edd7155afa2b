"""What the shared one pass (validators/run.py) needs to run RealCompanion's catalogue over a release.

SCH1 names the records that did not fit their types, SCH2 the constraints they break; INT3 checks the paths
before anything is read; the release and context are the engine's own.
"""
from __future__ import annotations

from realcompanion.release import Release

from ..context import Context
from ..run import Runner
from ..structure import STRUCTURE_RULES
from .catalogue import select


def _declared(release: Release) -> dict:
    from realcompanion.stamp import declared

    return declared(release)


REALCOMPANION = Runner(select, STRUCTURE_RULES, "SCH1", "INT3", "SCH2", lambda path: Release(path, check=False, partial=True),
                       Context, _declared, "TRK1")
