"""`realcompanion judge [PATH] --track chat|qa --replies R.jsonl --endpoint URL --model NAME --out V.jsonl`."""
from __future__ import annotations


def register(sub):
    from ..formats import said
    from ..scoring import options

    p = sub.add_parser("judge", help="judge a system's replies with an OpenAI-compatible endpoint; write verdicts")
    options.add_release(p)
    options.add_track(p, required=False)  # a format without tracks takes none
    p.add_argument("--replies", required=True, metavar="R.jsonl",
                   help="; ".join(said("replies")))
    options.add_judge(p, timeout=True)
    options.add_concurrency(p)
    p.add_argument("--out", required=True, metavar="V.jsonl",
                   help="verdicts file to write, a verdict at a time (a run that stops keeps those given)")
    p.add_argument("--resume", action="store_true",
                   help="keep the verdicts --out holds for replies unchanged since, by this judge; ask only for "
                        "the rest")
    p.add_argument("--prompt", metavar="FILE", help="; ".join(said("prompt")))
    p.set_defaults(run=run)


def run(args) -> int:
    from ..scoring.options import by_format

    return by_format(args, "judge", ("track", "prompt"))
