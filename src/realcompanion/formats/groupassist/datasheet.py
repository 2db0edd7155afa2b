"""DATASHEET.md of a GroupAssistBench release: hand-written answers, every number in generated blocks.

Same contract as the RealCompanion datasheet (`realcompanion datasheet --check|--write`): counts,
the instance design, parameters, files and rules are rendered from the files, the descriptor and
the format's rule catalogue; the prose carries none of them.
"""
from __future__ import annotations

import json
from functools import partial

from ...card import status
from ...datasheet import files, rules
from ...generated import markdown_table
from .synth import declared

DATASHEET = "DATASHEET.md"


def counts(release, stamped: dict) -> str:
    """Messages and instances per group, and every resource's total."""
    rows = [{"group": gid, **per} for gid, per in stamped["groups"].items()]
    return (markdown_table(rows) + "\n\n"
            + markdown_table([{"resource": f"`{n}`", "records": stamped["rows"][n]} for n in release.resources]))


def design(release) -> str:
    """Instances by split, level, dependency and origin."""
    inst = release.frame("instances")
    table = inst.groupby(["split", "level", "dependency", "origin"], observed=True).size().unstack(fill_value=0)
    return markdown_table(table.reset_index().to_dict("records"))


def parameters(release) -> str:
    """The descriptor's parameters, the languages the release carries among them when it leaves them at their
    default."""
    params = {**release.params, "languages": list(release.languages)}
    return markdown_table([{"parameter": f"groupassist.{key}", "value": json.dumps(value, ensure_ascii=False)}
                           for key, value in params.items() if key not in ("rows", "groups", "instances", "sha256")])


def renderers(release) -> dict:
    """One renderer per generated block of the GroupAssistBench DATASHEET.md (filled by `datasheet`)."""
    stamped = declared(release)
    blocks = {"status": status, "counts": partial(counts, stamped=stamped), "design": design,
              "parameters": parameters, "files": files, "rules": rules}
    return {n: partial(f, release) for n, f in blocks.items()}
