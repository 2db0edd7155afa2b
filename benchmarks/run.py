"""Benchmark `realcompanion validate` against its floor and `frictionless validate` on paper-size releases.

For each scale K (copies of the paper's ten participants: 1x = 27,218 messages)
it generates a release, then times whole processes, start-up included, as a
user would run them: `realcompanion validate`, the floor (`benchmarks/floor.py`:
read, hash and Table Schema constraints only), `frictionless validate
datapackage.json` on the same files, and the scoring baselines when that
command exists. Validate and the floor run as pairs, one right after the other,
so that a drift in the machine's speed touches both; each figure is the min and
median over the repeats. Peak RSS comes from the kernel's accounting of each
child process (wait4): the largest resident set of the process and the workers it
waited for, not their sum.

    python benchmarks/run.py                      # 1x and 10x, 3 repeats
    python benchmarks/run.py --scales 1,10,100 --repeats 3 --frictionless-repeats 1
    python benchmarks/run.py --format groupassist --scales 1   # the GroupAssistBench paper scale

A GroupAssistBench release has one paper scale (50 groups, 80,299 messages), so that
format takes scale 1 only.

Nothing here asserts a time; the figures go to benchmarks/RESULTS.md by hand.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
FLOOR = Path(__file__).with_name("floor.py")


def measure(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB, exit code of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def repeated(command: list[str], repeats: int) -> dict:
    return summary([measure(command) for _ in range(repeats)])


def paired(first: list[str], second: list[str], repeats: int) -> tuple[dict, dict]:
    """Two commands timed alternately, so that both see the same machine."""
    runs = [(measure(first), measure(second)) for _ in range(repeats)]
    return tuple(summary([run[i] for run in runs]) for i in (0, 1))


def summary(runs: list[tuple[float, float, int]]) -> dict:
    walls = [r[0] for r in runs]
    return {"min_s": min(walls), "median_s": statistics.median(walls), "peak_rss_mb": max(r[1] for r in runs),
            "exit": runs[-1][2], "runs": len(runs)}


FORMATS = ("realcompanion", "groupassist")
TRACKS = {"realcompanion": (["--track", "chat"], ["--track", "qa"]), "groupassist": ([],)}


def rows_of(release: Path, fmt: str) -> int:
    return sum(json.loads((release / "datapackage.json").read_text())[fmt]["rows"].values())


def bench_scale(scale: int, workdir: Path, repeats: int, frictionless_repeats: int, baselines_max: int,
                fmt: str = "realcompanion") -> dict:
    release = workdir / f"{fmt}-paper-x{scale}"
    cli = str(BIN / "realcompanion")
    generation = measure([cli, "synth", str(release), "--paper-scale", "--scale", str(scale), "--format", fmt])
    out = {"format": fmt, "scale": scale, "rows": rows_of(release, fmt), "generate_s": generation[0],
           "data_mb": sum(p.stat().st_size for p in (release / "data").iterdir()) / 2**20,
           "load_average": os.getloadavg()}
    out["validate"], out["floor"] = paired([cli, "validate", str(release)],
                                           [sys.executable, str(FLOOR), str(release)], repeats)
    out["validate_over_floor"] = out["validate"]["median_s"] / out["floor"]["median_s"]
    out["frictionless"] = repeated([str(BIN / "frictionless"), "validate", str(release / "datapackage.json")],
                                   frictionless_repeats)
    out["rows_per_s"] = out["rows"] / out["validate"]["median_s"]
    out["speedup_vs_frictionless"] = out["frictionless"]["median_s"] / out["validate"]["median_s"]
    if scale <= baselines_max and _has_command(cli, "baselines"):
        out["baselines_s"] = sum(repeated([cli, "baselines", str(release), *track, "--json", os.devnull],
                                          1)["median_s"] for track in TRACKS[fmt])
    shutil.rmtree(release)
    return out


def _has_command(cli: str, name: str) -> bool:
    return subprocess.run([cli, name, "--help"], capture_output=True).returncode == 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated scales (default 1,10)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frictionless-repeats", type=int, default=1)
    parser.add_argument("--baselines-max-scale", type=int, default=10,
                        help="time the scoring baselines up to this scale (default 10; they grow with items x pool)")
    parser.add_argument("--format", choices=FORMATS, default=FORMATS[0], help="release format (default realcompanion)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    if args.format == "groupassist" and scales != [1]:
        parser.error("a GroupAssistBench release has one paper scale: use --scales 1")
    startup = repeated([str(BIN / "realcompanion"), "rules"], args.repeats)["median_s"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for scale in scales:
            results.append(bench_scale(scale, Path(tmp), args.repeats, args.frictionless_repeats,
                                       args.baselines_max_scale, args.format))
            r = results[-1]
            print(f"x{scale:<4} rows {r['rows']:>9,}  generate {r['generate_s']:7.1f}s  "
                  f"validate min {r['validate']['min_s']:6.2f}s median {r['validate']['median_s']:6.2f}s "
                  f"peak {r['validate']['peak_rss_mb']:7.0f} MB ({r['data_mb']:,.0f} MB of data)  "
                  f"{r['rows_per_s']:>10,.0f} rows/s  floor median {r['floor']['median_s']:6.2f}s "
                  f"(validate/floor {r['validate_over_floor']:4.2f})  "
                  f"frictionless {r['frictionless']['median_s']:7.1f}s  speed-up {r['speedup_vs_frictionless']:5.1f}x"
                  + (f"  baselines {r['baselines_s']:.1f}s" if "baselines_s" in r else ""), flush=True)
            print(f"      load average before: {' '.join(f'{x:.2f}' for x in r['load_average'])}", flush=True)
            if r["validate"]["exit"] != 0:
                print(f"x{scale}: validate exited {r['validate']['exit']}, so these are not figures of a full run",
                      file=sys.stderr)
    base = results[0]
    for r in results[1:]:
        growth = (r["validate"]["median_s"] - startup) / (base["validate"]["median_s"] - startup)
        print(f"x{r['scale']} / x{base['scale']} validate time, start-up ({startup:.2f}s) excluded: {growth:.1f}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if args.json:
        Path(args.json).write_text(json.dumps({"startup_s": startup, "results": results}, indent=2) + "\n")
    return 0 if all(r["validate"]["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
