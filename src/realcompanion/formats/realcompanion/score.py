"""RealCompanion's part of `realcompanion score`: a system's rankings (--run), judged replies (--verdicts) and
detector (--detector) scored on a track."""
from __future__ import annotations

from .options import track_missing


def _retrieval(track, run, seed, resamples) -> tuple[dict, list[str], dict]:
    import numpy as np
    import pandas as pd

    from ...scoring import report as R
    from .scoring.auroc import auroc_summary
    from .scoring.gold import POPULATIONS
    from .scoring.retrieval import evaluate_all, retrieval_tables, summarize

    items = track.retrievable()
    missing = [i.item_id for i in items if i.item_id not in run.rankings]
    empty = np.array([], dtype=np.int64)
    frame = pd.DataFrame([row for i in items for row in evaluate_all(track, i, run.rankings.get(i.item_id, empty))])
    summary = summarize(frame, POPULATIONS[track.name], seed, resamples) if len(frame) else {}
    ignored = sorted(set(run.rankings) - {i.item_id for i in items})
    block = {"file": run.path, "missing_items": missing, "ignored_items": ignored, "summary": summary,
             "per_item": frame.to_dict("records")}
    text = [f"run: {len(run.rankings)} rows; {len(missing)} of {len(items)} retrieval-scoreable items missing "
            f"(each counted as a miss); {len(ignored)} rows for items not retrieval-scored (rankings ignored)"]
    if summary:
        text.append(retrieval_tables({"run": summary}, POPULATIONS[track.name], "Run"))
    if track.name == "chat" and run.top_scores:
        population = track.detectability_items()
        chosen = [i for i in population if i.item_id in run.top_scores]
        block["detectability_top1"] = auroc_summary([run.top_scores[i.item_id] for i in chosen],
                                                    [i.dependent for i in chosen],
                                                    [i.participant_id for i in chosen], seed, resamples)
        block["detectability_top1"]["missing"] = len(population) - len(chosen)
        text.append("detectability of the run's top-1 score: " + R.auroc_line(block["detectability_top1"]))
    by_participant = summary["distant"]["hit@5"]["by_participant"] if summary else {}
    return block, text, {"run hit@5 (distant)": by_participant}


def _judged(track, verdicts, seed, resamples) -> tuple[dict, list[str], dict]:
    from tqdm import tqdm

    from ...errors import visible
    from ...scoring import report as R
    from .scoring.judged import judged_report, primary_means

    conditions = verdicts.frame["condition"].nunique()
    with tqdm(total=conditions, unit="condition", desc="judged", disable=None) as bar:
        judged = judged_report(track, verdicts, seed, resamples, progress=bar.update)
    judge = judged["judge"]
    text = [f"verdicts: {len(verdicts.frame)} rows, judge {judge['model']} (prompt {judge['prompt_sha256'][:12]}, "
            f"temperature {judge['temperature']}); {len(judged['verdicts_on_unposed_items'])} items judged that are "
            "not put to a system (withdrawn or unscored; ignored)"]
    against = judged["verdicts_against_the_judge_protocol"]
    if against:
        named = ", ".join(visible(f"{v['condition']} {v['item_id']}") for v in against[:5])  # one line, escaped
        text.append(f"warning: {len(against)} verdicts break the judge prompt's rule (unanswerable: correct exactly "
                    f"when abstained; answerable: an abstention is incorrect), scored as given: {named}"
                    + (f" and {len(against) - 5} more (every one in --json)" if len(against) > 5 else ""))
    text.append(R.grid({c: {k: R.with_ci(v) for k, v in q.items()} for c, q in judged["conditions"].items()},
                       "Judged quantities by condition, pooled [95% CI over participants]"))
    text.append(R.grid({c: {k: v["macro"] for k, v in q.items() if "macro" in v} for c, q in judged["conditions"].items()},
                       "Judged quantities by condition, averaged by participant (macro; Tables 5, 39, 40)"))
    text.append(R.grid({c: {k: v["n"] for k, v in q.items()} for c, q in judged["conditions"].items()},
                       "Items judged (n) per quantity"))
    text.append(R.grid({c: {k: R.share_with_wilson(v["pooled"], v["wilson"]) for k, v in q.items() if "wilson" in v}
                        for c, q in judged["conditions"].items()},
                       "Shares in percent [95% Wilson interval over items] (Tables 32, 37)"))
    if judged["contrasts"]:
        text.append(R.grid({name: {p: R.with_ci(v) for p, v in c.items()} for name, c in judged["contrasts"].items()},
                           "Paired contrasts, pooled [95% CI over participants]"))
    if "C2 - C1" in judged.get("decomposition", {}):  # the abstract's gain from supplying recorded evidence
        text.append(R.grid({f"{stratum} {reading}": columns for stratum, readings in
                            judged["decomposition"]["C2 - C1"].items() for reading, columns in readings.items()},
                           "Table 8: C2 - C1 by ground-truth demand (every pair of conditions in --json)",
                           counts=("n", "memory_bearing")))
    return judged, text, primary_means(judged, track.name)


def run(args) -> int:
    import sys

    if track_missing(args):
        return 2

    from ...release import Release
    from ...scoring import report as R
    from ...scoring.checked import opened
    from ...scoring.verdicts import read_verdicts
    from .options import check_reading
    from .scoring.gold import load_track
    from .scoring.retrieval import pool_report
    from .scoring.runs import read_run

    release = opened(Release, args)
    if not (args.run_file or args.verdicts or args.detector):
        print("error: give --run, --verdicts, --detector or several", file=sys.stderr)
        return 2
    if args.detector and args.track != "chat":
        print("error: --detector scores the chat track", file=sys.stderr)
        return 2
    reading = check_reading(release, args.reading)
    dependent_reading = check_reading(release, args.dependent_reading, default_index=1)
    track = load_track(release, args.track, reading, dependent_reading)
    plot = R.checked_outputs(release, args, (args.run_file, args.verdicts, args.detector))
    run_file = read_run(args.run_file, track) if args.run_file else None
    verdicts = read_verdicts(args.verdicts, track) if args.verdicts else None
    inputs = {"run": {"file": run_file.path, "sha256": run_file.sha256} if run_file else None,
              "verdicts": {"file": verdicts.path, "sha256": verdicts.sha256} if verdicts else None}
    out = R.envelope(release, "score", track=args.track, seed=args.seed, resamples=args.resamples, inputs=inputs,
                     definitions=track.definitions)
    out.update(track=args.track, excluded=track.excluded(), kept_out=track.kept_out(),
               dropped_citations=track.dropped_citations())
    text, series = [R.exclusions_line(track)], {}
    if run_file:
        out["pool"] = pool_report(track.retrievable())
        text.append(R.pool_line(out["pool"]))
        out["retrieval"], lines, series = _retrieval(track, run_file, args.seed, args.resamples)
        text += lines
    if verdicts:
        out["judged"], lines, judged_series = _judged(track, verdicts, args.seed, args.resamples)
        text += lines
        series = series or judged_series
    if args.detector:
        from .scoring.detector import detector_report

        out["detector"] = detector_report(args.detector, track, args.seed, args.resamples)
        text.append(f"detectability of the detector's probability (proportional stratum, {out['detector']['missing']} "
                    "items without one): " + R.auroc_line(out["detector"]))
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ...scoring.plot import per_participant

        per_participant(series, f"{args.track} track by participant", "score", plot)
    return 0
