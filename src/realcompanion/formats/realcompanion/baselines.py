"""RealCompanion's part of `realcompanion baselines`: the paper's reference rankers and controls on a track
(Tables 4, 33, 38)."""
from __future__ import annotations

from .options import dense_refused, track_missing


def run(args) -> int:
    from tqdm import tqdm

    if track_missing(args) or dense_refused(args):
        return 2

    from ...release import Release
    from ...scoring import report as R
    from ...scoring.checked import opened
    from ...scoring.options import bm25_fallback
    from .options import check_reading
    from .scoring.baselines import METHODS, baselines_report
    from .scoring.controls import GOLD_SETS
    from .scoring.gold import POPULATIONS, load_track
    from .scoring.retrieval import retrieval_tables

    release = opened(Release, args)
    reading = check_reading(release, args.reading)
    dependent_reading = check_reading(release, args.dependent_reading, default_index=1)
    track = load_track(release, args.track, reading, dependent_reading)
    plot = R.checked_outputs(release, args)
    fallback = bm25_fallback(args)
    with tqdm(total=len(track.retrievable()), unit="item", desc="baselines", disable=None) as bar:
        result = baselines_report(track, args.seed, args.resamples, progress=bar.update, fallback=fallback)
    out = R.envelope(release, "baselines", track=args.track, seed=args.seed, resamples=args.resamples,
                     definitions=track.definitions | {"bm25_fallback": fallback})
    out.update(track=args.track, **result)
    summaries = result["baselines"]
    populations = POPULATIONS[args.track]
    distant_populations = [p for p in populations if p.startswith("distant")]
    text = [R.exclusions_line(track), R.pool_line(result["pool"]), "",
            retrieval_tables({s["label"]: s["actual"] for s in summaries.values()}, populations, "Baselines"),
            R.grid({s["label"]: {f"{p} {stat}": s["actual"][p]["hit@5"][stat] for p in distant_populations
                                 for stat in ("pooled", "macro")} for s in summaries.values()},
                   "Table 4: hit@5 on distant items, pooled and averaged by participant"),
            R.grid({s["label"]: {g: s[g]["all"]["hit@5"]["pooled"] for g in GOLD_SETS}
                    for s in summaries.values()}, "Table 33: required message in the top 5, all items, by gold set"),
            R.grid({s["label"]: {g: s[g]["all"]["recall@5"]["pooled"] for g in GOLD_SETS}
                    for s in summaries.values()}, "Table 33: recall over the gold set at 5, all items, by gold set"),
            R.grid({METHODS[m]: v for m, v in result["found_share_top5"].items()},
                   "Required message in the top 5, share of every scored probe (abstract)", counts=("found",))]
    distant = {s["label"]: s["actual"]["distant"]["hit@5"]["by_participant"] for s in summaries.values()}
    counts = next(iter(summaries.values()))["actual"]["distant"]["hit@5"]["n_by_participant"]
    items = ", ".join(f"{p} {n}" for p, n in counts.items()) or "none"
    text.append(R.grid(distant, f"hit@5 on distant items by participant (Table 38; items per participant: {items})"))
    if "detectability" in result:
        text.append("detectability, BM25 top-1 score: " + R.auroc_line(result["detectability"]["bm25_top1"]))
        text.append(R.grid({r: {"memory-bearing": d["memory_bearing"], "rows": d["rows"],
                                "share": R.share_with_wilson(d["share"], d["wilson"])}
                            for r, d in result["demand_rate"].items()},
                           "Table 32: demand rate in the proportional stratum [95% Wilson interval]"))
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ...scoring.plot import per_participant

        per_participant(distant, f"hit@5 on distant items, {args.track} track", "hit@5", plot)
    return 0
