"""Benchmark `realcompanion validate` against `frictionless validate` on the paper-scale GroupAssistBench release.

Generates the release (`realcompanion synth OUT --format groupassist --paper-scale`: 50
groups, 80,299 messages, about 45 MB) unless given one, then times whole processes,
start-up included, as pairs run one right after the other (validate, then frictionless on
the same files), so that a drift in the machine's speed touches both. Prints min and
median of each and the ratio of the medians, with the load average before and after.

    python benchmarks/groupassist.py --repeats 5
    python benchmarks/groupassist.py --release /tmp/gabp --repeats 3

Nothing here asserts a time; the figures go to benchmarks/RESULTS.md by hand.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from run import BIN, measure, paired


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, help="an existing GroupAssistBench release (default: generate one)")
    parser.add_argument("--repeats", type=int, default=3, help="pairs of runs (default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        release = args.release or Path(tmp) / "gab-paper"
        if args.release is None:
            wall, _, code = measure([str(BIN / "realcompanion"), "synth", str(release), "--format", "groupassist",
                                     "--paper-scale"])
            print(f"generated in {wall:.1f} s (exit {code})")
        rows = sum(json.loads((release / "datapackage.json").read_text(encoding="utf-8"))["groupassist"]["rows"].values())
        data_mb = sum(p.stat().st_size for p in (release / "data").iterdir()) / 2**20
        before = os.getloadavg()
        ours, theirs = paired([str(BIN / "realcompanion"), "validate", str(release)],
                              [str(BIN / "frictionless"), "validate", str(release / "datapackage.json")], args.repeats)
        after = os.getloadavg()
    print(f"rows {rows:,} ({data_mb:.0f} MB of data), {args.repeats} pairs")
    for name, r in (("realcompanion validate", ours), ("frictionless validate", theirs)):
        print(f"{name:<23} min {r['min_s']:6.2f} s  median {r['median_s']:6.2f} s  peak {r['peak_rss_mb']:5.0f} MB"
              f"  exit {r['exit']}")
    print(f"speed-up (ratio of medians): {theirs['median_s'] / ours['median_s']:.1f}x")
    print(f"load average before {' '.join(f'{x:.2f}' for x in before)}, after {' '.join(f'{x:.2f}' for x in after)}"
          f" ({os.cpu_count()} cores)")
    return 0 if ours["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
