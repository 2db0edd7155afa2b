"""`realcompanion respond [PATH] --endpoint URL --model NAME --out R.jsonl`: a system's replies, as `judge` reads them."""
from __future__ import annotations


def add_respond(p, out_help: str) -> None:
    """The options `respond` and `evaluate` share: what to ask, and the system that answers."""
    from ..argtypes import temperature, whole
    from ..formats import said
    from ..scoring import options

    options.add_release(p)
    options.add_track(p, required=False)  # a format without tracks takes none
    p.add_argument("--condition", action="append", metavar="C",
                   help="a condition to answer under (repeat for several; default every one): "
                        + "; ".join(said("conditions")))
    options.add_bm25_fallback(p)
    options.add_embeddings(p, timeout=False)  # the system's --timeout bounds its requests too
    options.add_judge(p, timeout=True, who="the system")
    options.add_concurrency(p)
    p.add_argument("--temperature", type=temperature, default=0.0, help="sampling temperature of the system (default 0)")
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
    from ..scoring.options import by_format

    return by_format(args, "respond", ("track", "bm25_fallback"))
