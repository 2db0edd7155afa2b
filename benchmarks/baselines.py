"""How long the six baselines take on a paper-size release, and what BM25's whole-stream statistics change.

    python benchmarks/baselines.py                       # synthesize a paper-scale release in a temp dir
    python benchmarks/baselines.py --release PATH        # or time an existing release
    python benchmarks/baselines.py --compare-prefix      # also: stream index vs one index per probe prefix

Prints figures only. The timing covers what `realcompanion baselines` does for
both tracks: reading the release, ranking every retrieval-scoreable item with
all six methods under the three gold sets, per-item metrics, and the
summaries with participant-bootstrap intervals. `--compare-prefix` ranks every
item twice with BM25, once with the per-participant index used by the scorer
(IDF and average length over the whole stream) and once with an index rebuilt
over the probe's prefix, and reports how often the top 10 and hit@5 agree
(on the shipped specimen unless --release is given: a prefix index per probe is
slow on a paper-size release, which is the point of the stream index).
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release
from realcompanion.scoring.baselines import baselines_report
from realcompanion.scoring.bm25 import Indexes, ParticipantIndex
from realcompanion.scoring.gold import load_track
from realcompanion.scoring.metrics import item_metrics
from realcompanion.scoring.settings import BOOTSTRAP_RESAMPLES, TRACKS


def time_baselines(root: Path, seed: int) -> None:
    release = Release(root)
    messages = release.table("source").num_rows
    print(f"release {root}: {messages:,} messages, {os.cpu_count()} cores")
    total = 0.0
    for name in TRACKS:
        start = time.perf_counter()
        track = load_track(release, name)
        loaded = time.perf_counter()
        baselines_report(track, seed, BOOTSTRAP_RESAMPLES)
        done = time.perf_counter()
        total += done - start
        print(f"  {name:4}: {len(track.retrievable()):5,} retrieval-scoreable items of {len(track.items):,};"
              f" load {loaded - start:5.2f} s, baselines {done - loaded:5.2f} s, total {done - start:5.2f} s")
    print(f"  both tracks: {total:.2f} s")


def compare_prefix(root: Path) -> None:
    release = Release(root)
    for name in TRACKS:
        track = load_track(release, name)
        stream_indexes, same_top, same_hit, n = Indexes(track.streams), 0, 0, 0
        for item in track.retrievable():
            texts = track.streams[item.participant_id].texts
            whole = stream_indexes[item.participant_id].rank(item.query, item.pool_end)[0]
            prefix = ParticipantIndex(texts[: item.pool_end]).rank(item.query, item.pool_end)[0]
            same_top += set(whole[:10].tolist()) == set(prefix[:10].tolist())
            same_hit += item_metrics(whole, item.gold)["hit@5"] == item_metrics(prefix, item.gold)["hit@5"]
            n += 1
        print(f"  {name:4}: {n} items; same top-10 set {same_top / n:.3f}; same hit@5 {same_hit / n:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, help="release to time (default: a fresh paper-scale synthesis)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare-prefix", action="store_true")
    args = parser.parse_args()
    if args.release:
        time_baselines(args.release, args.seed)
    else:
        from realcompanion.synth import synthesize
        from realcompanion.synth.plan import paper_plan

        with tempfile.TemporaryDirectory() as tmp:
            synthesize(Path(tmp) / "paper", paper_plan(), args.seed, REPO_ROOT)
            time_baselines(Path(tmp) / "paper", args.seed)
    if args.compare_prefix:
        root = args.release or REPO_ROOT
        print(f"BM25 whole-stream index vs prefix index, {root}:")
        compare_prefix(root)


if __name__ == "__main__":
    main()
