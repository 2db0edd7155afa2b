"""`realcompanion synth OUT`: write a deterministic synthetic release."""
from __future__ import annotations

import sys
from pathlib import Path

from ..argtypes import scale, whole


def register(sub):
    p = sub.add_parser("synth", help="write a deterministic synthetic release to OUT")
    p.add_argument("out", type=Path)
    p.add_argument("--participants", type=whole(1), default=4, help="specimen participants (default 4)")
    p.add_argument("--scale", type=scale, default=1.0,
                   help="specimen: multiply each participant's counts; with --paper-scale: copies of the ten participants")
    p.add_argument("--paper-scale", action="store_true", help="the real release's counts (paper Tables 2, 11)")
    p.add_argument("--seed", type=whole(0), default=0)
    p.add_argument("--format", choices=("realcompanion", "groupassist"), default="realcompanion",
                   help="release format to write (default realcompanion)")
    p.add_argument("--template", type=Path, default=None,
                   help="release whose descriptor, parameters and schemas to use (default: this repository)")
    p.set_defaults(run=run)


def run(args) -> int:
    from tqdm import tqdm

    from ..files import output_folder

    output_folder(args.out)
    # with --paper-scale, 0.5 made no copy (a traceback) and 1.7 one copy, and a GroupAssistBench release ignored it
    wanted = {"realcompanion": "a whole number of copies of the ten participants",
              "groupassist": "1: the paper's release is written once"}
    if args.paper_scale and not (args.scale.is_integer() if args.format == "realcompanion" else args.scale == 1):
        print(f"error: argument --scale: with --paper-scale, {wanted[args.format]}, not '{args.scale:g}'",
              file=sys.stderr)
        return 2
    if args.format == "groupassist":
        return _groupassist(args)

    from ..paths import REPO_ROOT
    from ..synth import synthesize
    from ..synth.plan import paper_plan, specimen_plan

    plans = paper_plan(int(args.scale)) if args.paper_scale else specimen_plan(args.participants, args.scale)
    with tqdm(total=len(plans), unit="participant", disable=None) as bar:
        synthesize(args.out, plans, args.seed, args.template or REPO_ROOT, progress=lambda _: bar.update())
    print(f"wrote {args.out} ({len(plans)} participants, seed {args.seed})")
    return 0


def _groupassist(args) -> int:
    from tqdm import tqdm

    from ..groupassist import SPECIMEN
    from ..groupassist.plan import paper_plan, specimen_plan
    from ..groupassist.synth import synthesize

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
