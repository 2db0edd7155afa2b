"""Deterministic synthetic releases in exactly the release format.

`synthesize` takes the descriptor, parameters and schemas of a template
release (by default this repository) and writes a complete release to `out`.
Each participant draws from its own seeded stream, so the same seed and plan
give byte-identical files, and participants can be made in parallel worker
processes and written in plan order.
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from functools import lru_cache
from pathlib import Path

from realcompanion.files import empty_folder
from realcompanion.schemas import RESOURCES, Schemas, dump_json, read_json
from realcompanion.stamp import stamp
from realcompanion.writing import Replacing, copy_schemas, write_text

from .participant import Participant
from .plan import ParticipantPlan


@lru_cache(maxsize=4)
def _template(template: str) -> tuple[dict, Schemas]:
    return read_json(Path(template) / "datapackage.json")["realcompanion"], Schemas(template, "realcompanion")


def _render(job) -> dict[str, str]:
    """One participant's records as JSON Lines text per resource (runs in a worker process)."""
    template, seed, index, plan = job
    params, schemas = _template(template)
    records = Participant(plan, seed, params, schemas, index).records()
    return {resource: "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows)
            for resource, rows in records.items()}


def synthesize(out, plans: list[ParticipantPlan], seed: int, template, progress=None) -> Path:
    template = Path(template)
    descriptor = read_json(template / "datapackage.json")
    out = empty_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    copy_schemas(template, out)
    (out / "data").mkdir()
    jobs = [(str(template.resolve()), seed, index, plan) for index, plan in enumerate(plans)]
    with ExitStack() as files:
        handles = {r: files.enter_context(Replacing(out / "data" / f"{r}.jsonl")) for r in RESOURCES}
        with ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
            for plan, texts in zip(plans, pool.map(_render, jobs, chunksize=max(1, len(jobs) // 64))):
                for resource, text in texts.items():
                    handles[resource].write(text)
                if progress:
                    progress(plan.pid)
    descriptor["realcompanion"]["synthetic"] = True
    write_text(out / "datapackage.json", dump_json(descriptor))
    stamp(out)
    return out
