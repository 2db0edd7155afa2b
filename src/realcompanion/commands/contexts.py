"""`realcompanion contexts [PATH] --condition C --out FILE`: the Table 28 context of every chat item, as JSON Lines."""
from __future__ import annotations


def register(sub):
    from ..scoring import options
    from ..scoring.settings import CONDITIONS

    p = sub.add_parser("contexts", help="write the context each chat item gets under condition C0-C4 or C3m")
    options.add_release(p)
    p.add_argument("--condition", choices=list(CONDITIONS), required=True)
    p.add_argument("--out", required=True, metavar="FILE", help="JSON Lines output, one record per item")
    p.set_defaults(run=run)


def run(args) -> int:
    import json

    from tqdm import tqdm

    from ..release import Release
    from ..scoring.contexts import build_contexts, skipped
    from ..scoring.gold import load_track
    from ..scoring.report import output_path

    release = Release(args.path)
    track = load_track(release, "chat")
    out = output_path(release, args.out)
    written = 0
    with open(out, "w", encoding="utf-8", newline="\n") as handle, \
            tqdm(total=len(track.items), unit="item", desc=args.condition, disable=None) as bar:
        for record in build_contexts(track, args.condition, progress=bar.update):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    left = skipped(track)
    reasons = ", ".join(sorted({r["reason"] for r in left})) or "none"
    print(f"wrote {out}: {written} items under {args.condition}; skipped {len(left)} rows ({reasons})")
    return 0
