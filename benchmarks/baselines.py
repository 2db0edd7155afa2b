"""How long the reference baselines take on a paper-size release.

    python benchmarks/baselines.py                       # synthesize a paper-scale release in a temp dir
    python benchmarks/baselines.py --release PATH        # or time an existing release

Prints figures only. The timing covers what `realcompanion baselines` does for
both tracks: reading the release, ranking every retrieval-scoreable item with
every method under the three gold sets in every population, per-item
metrics, and the summaries with participant-bootstrap intervals.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from realcompanion.formats.realcompanion.scoring.baselines import baselines_report
from realcompanion.formats.realcompanion.scoring.gold import load_track
from realcompanion.formats.realcompanion.scoring.settings import BOOTSTRAP_RESAMPLES, TRACKS
from realcompanion.paths import REPO_ROOT
from realcompanion.release import Release


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, help="release to time (default: a fresh paper-scale synthesis)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.release:
        time_baselines(args.release, args.seed)
    else:
        from realcompanion.formats.realcompanion.synth import synthesize
        from realcompanion.formats.realcompanion.synth.plan import paper_plan

        with tempfile.TemporaryDirectory() as tmp:
            synthesize(Path(tmp) / "paper", paper_plan(), args.seed, REPO_ROOT)
            time_baselines(Path(tmp) / "paper", args.seed)


if __name__ == "__main__":
    main()
