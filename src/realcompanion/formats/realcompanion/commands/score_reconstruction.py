"""`realcompanion score-reconstruction [PATH] --pred DIR ...`: persona / profile P, R, F1 and run agreement."""
from __future__ import annotations

MATCH_RULES = ("normalized", "judge")


def register(sub):
    from ....scoring import options

    p = sub.add_parser("score-reconstruction",
                       help="score predicted persona / profile files against PATH (Tables 6, 42, 43)")
    options.add_release(p)
    p.add_argument("--pred", action="append", required=True, metavar="DIR",
                   help="folder with persona.jsonl and/or profile.jsonl; repeat for several runs")
    p.add_argument("--match", choices=MATCH_RULES, default="normalized",
                   help="matching rule: normalized exact (default) or a judge")
    options.add_judge(p, only_with="--match judge")
    options.add_outputs(p, "write a PNG of per-participant F1 (first run) by layer")
    p.set_defaults(run=run)


def run(args) -> int:
    import sys

    from tqdm import tqdm

    from ....release import Release
    from ....scoring import report as R
    from ....scoring.checked import opened
    from ..scoring.reconstruction import (
        judge_match,
        normalized_match,
        prediction_inputs,
        score_runs,
    )

    release = opened(Release, args)
    plot = R.checked_outputs(release, args, [path for folder in args.pred for path in prediction_inputs(folder)])
    failures, judge_stamp, same = [], None, normalized_match
    if args.match == "judge":
        if not (args.endpoint and args.model):
            print("error: --match judge needs --endpoint and --model", file=sys.stderr)
            return 2
        from ....scoring.judge_client import judge_from, load_prompt

        judge, prompt = judge_from(args), load_prompt("match")
        same, judge_stamp = judge_match(judge, prompt, failures), judge.stamp(prompt)
    with tqdm(total=len(args.pred), unit="run", desc="reconstruction", disable=None) as bar:
        result = score_runs(release, args.pred, same, progress=bar.update)
    out = R.envelope(release, "score-reconstruction", match=args.match, judge=judge_stamp,
                     predictions=[str(p) for p in args.pred])
    out.update(result, judge_failures=failures)
    rows = {}
    for layer, s in result["summary"].items():
        rows[layer] = {m: f"{R.fixed(s[m]['mean'])} ({R.fixed(s[m]['min'])}-{R.fixed(s[m]['max'])})" if s[m] else "-"
                       for m in ("f1", "precision", "recall")}
        agreement = s["agreement"]["agreement"] if s["agreement"] else None
        rows[layer]["runs agree"] = R.fixed(agreement) if agreement is not None else "-"
    text = [R.grid(rows, f"Reconstruction over {len(args.pred)} run(s), match: {args.match}; mean (min-max)")]
    usage = {layer: {k: f"{v['mean']:,.0f}" for k, v in s["usage"].items()} for layer, s in result["summary"].items()
             if s["usage"]}
    if usage:
        text.append(R.grid(usage, "Cost per run (usage.json), mean over runs: calls, tokens processed, output tokens"))
    correlation = {f"{layer} {variant}": {"n": b["spearman"]["n"], "rho": b["spearman"]["rho"],
                                          "p": b["spearman"]["p"], "p method": b["spearman"]["p_method"]}
                   for layer, block in result["size_correlation"].items()
                   for variant, b in block.items() if variant != "tokens" and b}
    text.append(R.grid(correlation, "Table 43: Spearman rho, transcript tokens vs run-mean F1 across participants"))
    first = result["runs"][0]["layers"]
    for layer, s in first.items():
        text.append(R.grid({g: {k: v[k] for k in ("f1", "precision", "recall", "matched", "predicted", "reference")}
                            for g, v in s["by_group"].items()}, f"{layer} by group, first run"))
    text += [f"not scored: the release leaves out '{layer}'" for layer in result["skipped"]]
    if failures:
        text.append(f"{len(failures)} judge answers unreadable (counted as no match)")
    R.emit(release, "\n".join(text), out, args.json)
    if plot:
        from ....scoring.plot import per_participant

        per_participant({layer: {p: v["f1"] for p, v in s["by_participant"].items()} for layer, s in first.items()},
                        "reconstruction F1 by participant (first run)", "F1", plot)
    return 1 if failures else 0
