"""`synthesize`: a deterministic synthetic GroupAssistBench release; `stamp`: its declared counts and hashes.

The template folder (by default the repository's specimen) gives the descriptor,
parameters and schemas; the generator writes `data/*.jsonl` in plan order and
stamps the descriptor, so the same plan and seed give byte-identical files.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from ...files import empty_folder
from ...schemas import dump_json, read_json
from ...stamp import write
from ...writing import copy_schemas, write_text
from . import FORMAT, RESOURCES, GroupAssistRelease
from .group import Group
from .plan import GroupPlan


def synthesize(out, plans: list[GroupPlan], seed: int, template, progress=None) -> Path:
    """Every group is built before anything is written: a plan the generator cannot fit (a group whose history is
    too short for its instances or feedback) is a ValueError with `out` untouched, never a folder of empty files."""
    template = Path(template)
    descriptor = read_json(template / "datapackage.json")
    params = descriptor[FORMAT] | read_json(template / descriptor[FORMAT]["vocabulary"])
    out = empty_folder(out)
    lines = {r: [] for r in RESOURCES}
    for plan in plans:
        for resource, rows in Group(plan, seed, params).build().items():
            lines[resource].append("".join(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"
                                           for row in rows))
        if progress:
            progress(plan.group_id)
    out.mkdir(parents=True, exist_ok=True)
    copy_schemas(template, out)
    (out / "data").mkdir()
    for resource, parts in lines.items():
        write_text(out / "data" / f"{resource}.jsonl", "".join(parts))
    descriptor[FORMAT]["synthetic"] = True
    write_text(out / "datapackage.json", dump_json(descriptor))
    stamp(out)
    return out


def declared(release: GroupAssistRelease) -> dict:
    """The generated part of the `groupassist` block: rows, rows per group, instances by split x level (each file's
    digest is its resource's `hash`, which `stamp` writes)."""
    rows, groups = {}, {}
    for name in release.resources:
        table = release.table(name)  # read once, its bytes hashed as they were parsed
        rows[name] = table.num_rows + len(release.invalid_rows.get(name, ()))  # every line is a record
    for name in ("messages", "instances"):
        aside = [r.get("group_id") for r in (item["row"] for item in release.invalid_rows.get(name, ()))
                 if isinstance(r, dict)]  # a record set aside on reading is counted where its group is text
        for group, n in Counter(release.table(name).column("group_id").drop_null().to_pylist()
                                + [g for g in aside if isinstance(g, str)]).items():
            groups.setdefault(group, {})[name] = n
    table = release.table("instances")
    records = [*zip(table.column("split").to_pylist(), table.column("level").to_pylist()),
               *((r.get("split"), r.get("level")) for r in (item["row"] for item in release.invalid_rows.get("instances", ()))
                 if isinstance(r, dict))]  # a record set aside on reading is counted where its split and level are text
    counts = Counter((split, level) for split, level in records if isinstance(split, str) and isinstance(level, str))
    instances = {}
    for (split, level), n in sorted(counts.items()):
        instances.setdefault(split, {})[level] = n
    return {"rows": rows, "groups": dict(sorted(groups.items())), "instances": instances}


def stamp(root) -> dict:
    release = GroupAssistRelease(root)
    return write(release, declared(release))


def run(args) -> int:
    """`realcompanion synth OUT --format groupassist`: the specimen's groups, or the paper's release once."""
    from tqdm import tqdm

    from ...commands.synth import scale_refused
    from . import SPECIMEN
    from .plan import paper_plan, specimen_plan

    if scale_refused(args, args.scale == 1, "1: the paper's release is written once"):
        return 2
    plans = paper_plan() if args.paper_scale else specimen_plan(args.scale)
    try:
        with tqdm(total=len(plans), unit="group", disable=None) as bar:
            synthesize(args.out, plans, args.seed, args.template or SPECIMEN, progress=lambda _: bar.update())
    except ValueError as exc:  # raised before anything is written (`synthesize` builds every group first)
        print(f"error: argument --scale: {args.scale:g} leaves too few messages: {exc}; nothing written (give a "
              "larger --scale)", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({len(plans)} groups, seed {args.seed})")
    return 0
