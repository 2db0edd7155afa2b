"""Benchmark `realcompanion validate` against its floor and `frictionless validate` on paper-size releases.

For each scale K (copies of the paper's ten participants: 1x = 27,218 messages)
it generates a release (`realcompanion synth OUT --paper-scale --scale K`), and
with `--groupassist` the paper-scale GroupAssistBench release (`synth OUT --format
groupassist --paper-scale`), then times whole processes, start-up included, as a
user would run them: `realcompanion validate` (through `benchmarks/peak.py`, which
adds its peak memory summed over its processes), the floor (`benchmarks/floor.py`:
read, hash and Table Schema constraints only) and `frictionless validate
datapackage.json` on the same files. Validate and the floor run as pairs, one right
after the other, so that a drift in the machine's speed touches both; validate ÷
floor is taken per pair, and every figure is the min and median over the repeats.
Each `frictionless validate` run follows a validate run of its own, and frictionless ÷
validate is the median of those pairs' ratios (this machine's speed drifts by a fifth
within minutes, and one frictionless run lasts up to half a minute). Frictionless ÷ floor
(medians) is that ratio's ceiling: what it would be if validate cost no more than reading
and hashing the files, which any validator of them must do; a target for frictionless ÷
validate near it asks validate to check every rule for almost nothing.
The memory of the whole process tree (PSS) comes from one more validate run, untimed:
sampling it would slow the run it measures. The load average is read before each
release's runs. The package's modules are
byte-compiled first, as an installed copy's are.

    python benchmarks/run.py                      # 1x and 10x, 3 repeats
    python benchmarks/run.py --scales 1,10,100 --groupassist --repeats 3 --frictionless-repeats 1

It prints one table (Markdown) at the end; nothing here asserts a time.
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
import threading
import time
from pathlib import Path

BIN = Path(sys.executable).parent
HERE = Path(__file__).parent


def measure(command: list[str], sampled: bool = False) -> dict:
    """Wall seconds, CPU seconds (user and system, of the child and the processes it waited for: a validation's
    judging process and workers), peak memory in MB and exit code of one child process.

    `peak_mb`: its own largest resident set (wait4); through `peak.py`, summed with its largest child's.
    `pss_mb` (`sampled` runs only): the largest proportional set size of the child and all its descendants
    together, sampled from /proc every 50 ms while it runs: pages a forked worker shares with its parent count
    once, so this is the memory the run held at once (Linux; 0 where /proc cannot say). A sample reads every
    process's page tables (about 9 ms at 10x, 0.3 s of CPU over a run on two cores), so timed runs are not
    sampled: the memory comes from a run of its own.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    errors, pss = [], 0
    reader = threading.Thread(target=lambda: errors.extend(proc.stderr.read().decode(errors="replace").splitlines()))
    reader.start()
    while True:
        ended, status, usage = os.wait4(proc.pid, os.WNOHANG if sampled else 0)
        if ended:
            break
        pss = max(pss, _tree_pss_kb(proc.pid))
        time.sleep(0.05)
    wall = time.perf_counter() - start
    reader.join()
    peak = usage.ru_maxrss
    if errors and errors[-1].startswith("peak-rss-kb "):
        peak = sum(int(kb) for kb in errors[-1].split()[1:])
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": peak / 1024, "pss_mb": pss / 1024,
            "exit": os.waitstatus_to_exitcode(status)}


def _tree_pss_kb(pid: int) -> int:
    """Proportional set size of a process and its descendants, in kB."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            rollup = Path(f"/proc/{current}/smaps_rollup").read_text()
            total += next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except (OSError, StopIteration, ValueError):
            continue  # the process ended meanwhile
    return total


def summary(runs: list[dict]) -> dict:
    walls = [r["wall"] for r in runs]
    return {"min_s": min(walls), "median_s": statistics.median(walls), "cpu_median_s": statistics.median(
                r["cpu"] for r in runs), "peak_mb": max(r["peak_mb"] for r in runs),
            "pss_mb": max(r["pss_mb"] for r in runs), "exit": runs[-1]["exit"], "runs": len(runs)}


def bench(name: str, release: Path, repeats: int, frictionless_repeats: int) -> dict:
    validate = [sys.executable, str(HERE / "peak.py"), "validate", str(release)]
    floor = [sys.executable, str(HERE / "floor.py"), str(release)]
    out = {"release": name, "load_average": os.getloadavg(),
           "rows": sum(json.loads((release / "datapackage.json").read_text())[_block(release)]["rows"].values()),
           "data_mb": sum(p.stat().st_size for p in (release / "data").iterdir()) / 2**20}
    pairs = [(measure(validate), measure(floor)) for _ in range(repeats)]
    out["validate"], out["floor"] = summary([p[0] for p in pairs]), summary([p[1] for p in pairs])
    out["validate"]["pss_mb"] = measure(validate, sampled=True)["pss_mb"]  # an untimed run, sampled for memory
    ratios = [v["wall"] / f["wall"] for v, f in pairs]
    out["validate_over_floor"] = {"min": min(ratios), "median": statistics.median(ratios)}
    frictionless = [str(BIN / "frictionless"), "validate", str(release / "datapackage.json")]
    beside = [(measure(validate), measure(frictionless)) for _ in range(frictionless_repeats)]
    out["frictionless"] = summary([f for _, f in beside])
    out["frictionless_over_validate"] = statistics.median(f["wall"] / v["wall"] for v, f in beside)
    out["frictionless_over_floor"] = out["frictionless"]["median_s"] / out["floor"]["median_s"]
    return out


def _block(release: Path) -> str:
    descriptor = json.loads((release / "datapackage.json").read_text())
    return "groupassist" if "groupassist" in descriptor else "realcompanion"


def generated(workdir: Path, name: str, args: list[str]) -> Path:
    release = workdir / name
    subprocess.run([str(BIN / "realcompanion"), "synth", str(release), *args], check=True,
                   stdout=subprocess.DEVNULL)
    return release


def byte_compiled() -> None:
    """Byte-compile the package's modules, as pip does when it installs a package (an editable install leaves
    them as source): where PYTHONDONTWRITEBYTECODE is set, every run would compile them again (about 0.05 s),
    which no installed copy pays."""
    import compileall

    import realcompanion.validators

    import realcompanion

    for path in {*realcompanion.__path__, *realcompanion.validators.__path__}:
        compileall.compile_dir(path, quiet=1)


def table(results: list[dict]) -> str:
    lines = ["| release | rows | data | floor min / median | validate min / median | validate CPU median "
             "| validate ÷ floor min / median | peak RSS self + child (÷ data) | peak PSS of all (÷ data) "
             "| frictionless median | frictionless ÷ validate | frictionless ÷ floor | load before |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        v, f, fr = r["validate"], r["floor"], r["frictionless"]
        lines.append(f"| {r['release']} | {r['rows']:,} | {r['data_mb']:,.0f} MB | {f['min_s']:.2f} / {f['median_s']:.2f} s "
                     f"| {v['min_s']:.2f} / {v['median_s']:.2f} s | {v['cpu_median_s']:.2f} s "
                     f"| {r['validate_over_floor']['min']:.2f} / "
                     f"{r['validate_over_floor']['median']:.2f} | {v['peak_mb']:,.0f} MB ({v['peak_mb'] / r['data_mb']:.2f}) "
                     f"| {v['pss_mb']:,.0f} MB ({v['pss_mb'] / r['data_mb']:.2f}) "
                     f"| {fr['median_s']:.1f} s | {r['frictionless_over_validate']:.1f} | {r['frictionless_over_floor']:.1f} "
                     f"| {' '.join(f'{x:.2f}' for x in r['load_average'])} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated scales (default 1,10)")
    parser.add_argument("--groupassist", action="store_true", help="also the paper-scale GroupAssistBench release")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--frictionless-repeats", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="where to generate the releases (default: a temporary folder)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    releases = [(f"RealCompanion {k}x", ["--paper-scale", "--scale", k]) for k in args.scales.split(",")]
    if args.groupassist:
        releases.append(("GroupAssistBench", ["--format", "groupassist", "--paper-scale"]))
    results = []
    byte_compiled()
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for name, synth in releases:
            release = generated(Path(tmp), name.replace(" ", "-"), synth)
            results.append(bench(name, release, args.repeats, args.frictionless_repeats))
            shutil.rmtree(release)
            r = results[-1]
            print(f"{name}: validate median {r['validate']['median_s']:.2f}s (exit {r['validate']['exit']}), "
                  f"floor {r['floor']['median_s']:.2f}s, frictionless {r['frictionless']['median_s']:.1f}s",
                  flush=True)
    print(table(results))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if args.json:
        from realcompanion.writing import write_text

        write_text(args.json, json.dumps(results, indent=2) + "\n")
    return 0 if all(r["validate"]["exit"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
