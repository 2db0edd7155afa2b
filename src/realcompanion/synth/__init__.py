"""Deterministic synthetic releases in exactly the release format.

`synthesize` takes the descriptor, parameters and schemas of a template
release (by default this repository) and writes a complete release to `out`.
Each participant draws from its own seeded stream, so the same seed and plan
give byte-identical files.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from ..schemas import RESOURCES, Schemas, read_json
from ..stamp import stamp
from .participant import Participant
from .plan import ParticipantPlan


def synthesize(out, plans: list[ParticipantPlan], seed: int, template, progress=None) -> Path:
    out, template = Path(out), Path(template)
    descriptor = read_json(template / "datapackage.json")
    params = descriptor["realcompanion"]
    schemas = Schemas(template)
    if out.resolve() != template.resolve():
        shutil.copytree(template / "schemas", out / "schemas", dirs_exist_ok=True)
    (out / "data").mkdir(parents=True, exist_ok=True)
    handles = {r: open(out / "data" / f"{r}.jsonl", "w", encoding="utf-8", newline="\n") for r in RESOURCES}
    try:
        for index, plan in enumerate(plans):
            records = Participant(plan, seed, params, schemas, index).records()
            for resource, rows in records.items():
                handles[resource].writelines(
                    json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows)
            if progress:
                progress(plan.pid)
    finally:
        for handle in handles.values():
            handle.close()
    descriptor["realcompanion"]["synthetic"] = True
    (out / "datapackage.json").write_text(json.dumps(descriptor, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    stamp(out)
    return out
