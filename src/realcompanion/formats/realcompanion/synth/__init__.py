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
import shutil
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

from realcompanion.schemas import RESOURCES, Schemas, dump_json, read_json
from realcompanion.stamp import stamp

from .participant import Participant
from .plan import ParticipantPlan


@lru_cache(maxsize=4)
def _template(template: str) -> tuple[dict, Schemas]:
    return read_json(Path(template) / "datapackage.json")["realcompanion"], Schemas(template)


def _render(job) -> dict[str, str]:
    """One participant's records as JSON Lines text per resource (runs in a worker process)."""
    template, seed, index, plan = job
    params, schemas = _template(template)
    records = Participant(plan, seed, params, schemas, index).records()
    return {resource: "".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n" for row in rows)
            for resource, rows in records.items()}


def synthesize(out, plans: list[ParticipantPlan], seed: int, template, progress=None) -> Path:
    out, template = Path(out), Path(template)
    descriptor = read_json(template / "datapackage.json")
    if out.resolve() != template.resolve():
        shutil.copytree(template / "schemas", out / "schemas", dirs_exist_ok=True)
    (out / "data").mkdir(parents=True, exist_ok=True)
    handles = {r: open(out / "data" / f"{r}.jsonl", "w", encoding="utf-8", newline="\n") for r in RESOURCES}
    jobs = [(str(template.resolve()), seed, index, plan) for index, plan in enumerate(plans)]
    try:
        with ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
            for plan, texts in zip(plans, pool.map(_render, jobs, chunksize=max(1, len(jobs) // 64))):
                for resource, text in texts.items():
                    handles[resource].write(text)
                if progress:
                    progress(plan.pid)
    finally:
        for handle in handles.values():
            handle.close()
    descriptor["realcompanion"]["synthetic"] = True
    (out / "datapackage.json").write_text(dump_json(descriptor), encoding="utf-8")
    stamp(out)
    return out
