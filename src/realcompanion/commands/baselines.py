"""`realcompanion baselines [PATH] --track chat|qa`: the reference rankers and controls of the release's format."""
from __future__ import annotations


def register(sub):
    from ..formats import said
    from ..scoring import options

    p = sub.add_parser("baselines", help="score the baselines on PATH: " + "; ".join(said("baselines")))
    options.add_release(p)
    options.add_track(p, required=False)  # a format without tracks takes none
    options.add_seed(p)
    options.add_reading(p)
    options.add_dependent_reading(p)
    options.add_bm25_fallback(p)
    options.add_resamples(p)
    options.add_outputs(p, "; ".join(said("baselines_plot")))
    options.add_embeddings(p)  # dense retrieval: the formats that embed
    p.set_defaults(run=run)


def run(args) -> int:
    from ..scoring.options import by_format

    # seed and resamples too: the other formats' baselines draw nothing at random
    return by_format(args, "baselines", ("track", "reading", "dependent_reading", "seed", "resamples"))
