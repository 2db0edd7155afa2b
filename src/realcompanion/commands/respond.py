"""`realcompanion respond [PATH] --endpoint URL --model NAME --out R.jsonl`: a system's replies, as `judge` reads them."""
from __future__ import annotations


def add_respond(p, out_help: str) -> None:
    """The options `respond` and `evaluate` share: what to ask, and the system that answers."""
    from ..argtypes import whole
    from ..scoring import options

    options.add_release(p)
    options.add_track(p, required=False)  # a GroupAssistBench release has no tracks
    p.add_argument("--condition", action="append", metavar="C",
                   help="a condition to answer under (repeat for several; default every one): C0-C4, C3m "
                        "(RealCompanion; the question track has no C2); full_context, bm25, dense (GroupAssistBench: "
                        "dense needs --dense-endpoint)")
    options.add_bm25_fallback(p)
    options.add_embeddings(p, timeout=False)  # the system's --timeout bounds its requests too
    options.add_judge(p, timeout=True, who="the system")
    options.add_concurrency(p)
    p.add_argument("--temperature", type=float, default=0.0, help="sampling temperature of the system (default 0)")
    p.add_argument("--limit", type=whole(1), metavar="N", help="answer only the first N items of each condition "
                                                               "(a trial run; scores of a part are not the release's)")
    p.add_argument("--out", required=True, metavar=out_help.split(":")[0], help=out_help)
    p.add_argument("--resume", action="store_true",
                   help="keep what --out holds for requests unchanged since, by this system; ask only for the rest "
                        "(a last line a crash cut short is set aside)")


def register(sub):
    p = sub.add_parser("respond", help="ask a system behind an OpenAI-compatible endpoint every item of PATH under "
                                       "each condition; write its replies for `judge`")
    add_respond(p, "R.jsonl: replies file to write, a reply at a time (a run that stops keeps those given)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..scoring.options import before_realcompanion, dense_refused

    code = before_realcompanion(args, ("track", "bm25_fallback"), "respond")
    if code is not None:
        return code
    if dense_refused(args):
        return 2

    from ..files import output_file
    from ..formats.realcompanion.scoring.gold import load_track
    from ..formats.realcompanion.scoring.respond import realcompanion_replies
    from ..release import Release
    from ..scoring.report import exclusions_line, invalid_rows

    release = Release(args.path)
    track = load_track(release, args.track)
    out = output_file(args.out, release.root)
    _, warning = invalid_rows(release)
    file, failures = realcompanion_replies(track, args, out)
    if file is None:
        return 2
    print("\n".join(filter(None, [warning, exclusions_line(track)])))
    print(f"wrote {out}: {file.summary()} by {args.model}; {len(failures)} unanswered")
    return 1 if failures else 0
