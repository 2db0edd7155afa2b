"""`realcompanion contexts [PATH] --condition C --out FILE`: the Table 28 context of every chat item, as JSON Lines."""
from __future__ import annotations


def register(sub):
    from ....scoring import options
    from ..scoring.settings import CONDITIONS

    p = sub.add_parser("contexts", help="write the context each chat item gets under condition C0-C4 or C3m")
    options.add_release(p)
    p.add_argument("--condition", choices=list(CONDITIONS), required=True)
    p.add_argument("--out", required=True, metavar="FILE", help="JSON Lines output, one record per item")
    options.add_bm25_fallback(p)
    p.set_defaults(run=run)


def run(args) -> int:
    import json
    from collections import Counter

    from tqdm import tqdm

    from ....files import output_file
    from ....release import Release
    from ....scoring.checked import opened
    from ....scoring.options import bm25_fallback
    from ....scoring.report import exclusions_line, invalid_rows, read_hashes, unstamped_line
    from ....writing import Replacing
    from ..scoring.contexts import build_contexts, skipped
    from ..scoring.gold import load_track

    release = opened(Release, args)
    track = load_track(release, "chat")
    out = output_file(args.out, release.root)
    written, short = 0, []
    with Replacing(out) as handle, \
            tqdm(total=len(track.items), unit="item", desc=args.condition, disable=None) as bar:
        for record in build_contexts(track, args.condition, progress=bar.update, fallback=bm25_fallback(args),
                                     short=short):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            written += 1
    _, unstamped = unstamped_line(release, read_hashes(release))
    _, warning = invalid_rows(release, lines=True)
    for line in (unstamped, warning):
        if line:
            print(line)
    print(exclusions_line(track))
    left = skipped(track)
    counts = Counter(r["reason"] for r in left)
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items())) or "none"
    named = ": " + ", ".join(r["item_id"] for r in left) if left else ""
    print(f"wrote {out}: {written} items under {args.condition}; not put to a system: {len(left)} rows ({reasons})"
          + named)
    if short:
        listed = ", ".join(f"{s['item_id']} ({s['missing']})" for s in short)
        print(f"warning: {len(short)} contexts lack source messages set aside by the reader: {listed}")
    return 0
