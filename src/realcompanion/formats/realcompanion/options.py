"""RealCompanion's pieces of the shared scoring commands' options, keyed by what each describes: their help,
joined with the other formats' in the order of the registry (`formats.said`), and the choices it offers; and the
checks of those options that RealCompanion's parts of the commands make."""
from __future__ import annotations

from .scoring.settings import TRACKS

OPTIONS = {
    "baselines": "random, recency, BM25 and oracle rankers (RealCompanion, Tables 4, 33, 38)",
    "baselines_plot": "write a PNG of per-participant hit@5 on distant items (Table 38)",
    "verdicts": "judged replies (see `realcompanion judge`)",
    "replies": '{"item_id", "condition", "reply"} (chat) or {..., "answer"} (qa) per line',
    "prompt": "prompt template (default: the versioned one in prompts/; RealCompanion releases only)",
    "conditions": "C0-C4, C3m (RealCompanion; the question track has no C2)",
    "tracks": TRACKS,  # --track; a format without tracks offers none
}


def track_missing(args) -> bool:
    """True (after the usage line argparse would print) when a RealCompanion command got no --track."""
    import sys

    if args.track is None:
        print("error: the following arguments are required: --track", file=sys.stderr)
    return args.track is None


def dense_refused(args) -> bool:
    """True (after one usage line) when a RealCompanion command got --dense-endpoint."""
    import sys

    if args.dense_endpoint:
        print("error: --dense-endpoint applies to GroupAssistBench releases only", file=sys.stderr)
    return bool(args.dense_endpoint)


def check_reading(release, reading: str | None, default_index: int = 0) -> str:
    """`reading`, or the release's declared reading at `default_index` (the last one when fewer are declared)
    when None; an undeclared one is a one-line error."""
    from ...release import ReadError
    from .scoring.gold import readings

    declared = readings(release)
    if reading is None:
        return declared[min(default_index, len(declared) - 1)]
    if reading not in declared:
        raise ReadError(release.root / "schemas" / "nested" / "memory_bearing.schema.json",
                        f"unknown reading '{reading}' (declared: {', '.join(declared)})", field="reading")
    return reading
