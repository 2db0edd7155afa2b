"""`realcompanion synth OUT` for a RealCompanion release: specimen or paper-scale participants."""
from __future__ import annotations


def run(args) -> int:
    from tqdm import tqdm

    from realcompanion.argtypes import MAX_PAPER_COPIES
    from realcompanion.commands.synth import scale_refused
    from realcompanion.paths import REPO_ROOT

    from . import synthesize
    from .plan import paper_plan, specimen_plan

    if scale_refused(args, args.scale.is_integer() and args.scale <= MAX_PAPER_COPIES,
                     f"a whole number of copies of the ten participants, at most {MAX_PAPER_COPIES}"):
        return 2
    plans = paper_plan(int(args.scale)) if args.paper_scale else specimen_plan(args.participants, args.scale)
    with tqdm(total=len(plans), unit="participant", disable=None) as bar:
        synthesize(args.out, plans, args.seed, args.template or REPO_ROOT, progress=lambda _: bar.update())
    print(f"wrote {args.out} ({len(plans)} participants, seed {args.seed})")
    return 0
