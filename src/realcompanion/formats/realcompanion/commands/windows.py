"""`realcompanion windows [PATH]`: share of memory-bearing probes whose required messages fit a window (Table 34)."""
from __future__ import annotations


def register(sub):
    from ....scoring import options

    p = sub.add_parser("windows", help="coverage of memory-bearing probes by message windows and token budgets")
    options.add_release(p)
    options.add_outputs(p, "write the coverage-by-budget plot (Figure 4) as PNG")
    p.set_defaults(run=run)


def run(args) -> int:
    from tqdm import tqdm

    from ....release import Release
    from ....scoring import report as R
    from ....scoring.checked import opened
    from ..scoring.gold import load_track, readings
    from ..scoring.settings import TOKEN_ENCODING
    from ..scoring.windows import coverage, curve, token_prefix_sums

    release = opened(Release, args)
    plot = R.checked_outputs(release, args)
    track = load_track(release, "chat")
    names = readings(release)
    with tqdm(total=len(track.streams), unit="participant", desc="tokens", disable=None) as bar:
        sums = token_prefix_sums(track.streams, progress=bar.update)
    result = coverage(track, names, sums)
    out = R.envelope(release, "windows", readings=names)
    out["coverage"] = result
    text = [R.exclusions_line(track), R.grid({f"last {k} messages": {r: result[r]["messages"][k] for r in names}
                    for k in result[names[0]]["messages"]},
                   "Share of memory-bearing probes whose every required message lies in the window"),
            R.grid({f"last {int(k) // 1000}k tokens": {r: result[r]["tokens"][k] for r in names}
                    for k in result[names[0]]["tokens"]}, f"... within a token budget ({TOKEN_ENCODING})"),
            "populations: " + ", ".join(f"{r} {result[r]['n']}" for r in names)
            + "; memory-bearing without a gold message: "
            + ", ".join(f"{r} {result[r]['memory_bearing_without_gold']}" for r in names)]
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ....scoring.plot import coverage_by_budget
        from ..scoring.settings import TOKEN_BUDGETS

        coverage_by_budget({r: curve(result[r]["tokens_back"]) for r in names}, TOKEN_BUDGETS,
                           "Evidence coverage by context budget", f"tokens preceding the probe ({TOKEN_ENCODING})",
                           plot)
    return 0
