"""`realcompanion score [PATH] --track chat|qa --run RUN.jsonl [--verdicts V.jsonl]`: score a system."""
from __future__ import annotations


def register(sub):
    from ..formats import said
    from ..scoring import options

    p = sub.add_parser("score", help="score a system's rankings (--run) and judged replies (--verdicts) on PATH")
    options.add_release(p)
    options.add_track(p, required=False)  # a format without tracks takes none
    p.add_argument("--run", dest="run_file", metavar="RUN.jsonl",
                   help='rankings: {"item_id", "ranking": [dayid, ...]} per line')
    p.add_argument("--verdicts", metavar="V.jsonl", help="; ".join(said("verdicts")))
    p.add_argument("--detector", metavar="D.jsonl", help='chat: a detector\'s {"item_id", "probability"} that the '
                                                        'probe needs memory, scored as detectability AUROC')
    options.add_seed(p)
    options.add_reading(p)
    options.add_dependent_reading(p)
    options.add_resamples(p)
    options.add_outputs(p, "write a PNG of per-participant scores (hit@5 on distant items, or the judged primary "
                           "quantity by condition)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..scoring.options import by_format

    return by_format(args, "score", ("track", "reading", "dependent_reading", "detector"))
