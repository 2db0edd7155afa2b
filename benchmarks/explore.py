"""Benchmark the explorer on the paper-scale releases: building the site, and rendering its pages in a browser.

For each release (`realcompanion synth OUT --paper-scale`, and `--format groupassist --paper-scale`) it times, as
whole processes run in pairs, `realcompanion explore REL --build DIR` and its floor, `benchmarks/floor.py REL`
(reading the files with their Arrow schema, hashing them, checking the Table Schema constraints); and
`realcompanion validate REL`, which a build runs too. Then it serves each site with `datasette` and opens every page
kind in Debian's Chromium (Playwright), taking the browser's own navigation timing (request to load event): the
conversation list, the largest conversation, a record page of each kind with a point (chat, qa; instances) and the
validation page. Nothing here asserts a time; it prints one Markdown table.

    python benchmarks/explore.py --repeats 3
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from run import BIN, generated, measure  # noqa: E402

PAGES = {"realcompanion": ("chat", "qa"), "groupassist": ("instances",)}
TIMING = "(() => { const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.requestStart; })()"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pages(site: Path, fmt: str) -> list[tuple[str, str]]:
    """(what, path) of each page kind to open: the largest conversation, the first record of each kind."""
    import sqlite3

    with sqlite3.connect(site / "release.db") as db:
        view = json.loads(db.execute("select value from _meta where name = 'view'").fetchone()[0])
        group = db.execute(f'select "{view["group"]}", count(*) n from "{view["conversation"]}" group by 1 '
                           "order by n desc limit 1").fetchone()
        out = [("conversations", "/-/conversations"),
               (f"conversation ({group[1]} messages)", f"/-/conversation?group={group[0]}")]
        for resource in PAGES[fmt]:
            key = db.execute(f'select _key from "{resource}" order by rowid limit 1').fetchone()[0]
            out.append((f"record ({resource})", f"/-/record?resource={resource}&key={key}"))
    return out + [("validation", "/-/validation")]


def render_times(site: Path, fmt: str, repeats: int) -> dict[str, float]:
    """Median milliseconds from request to load event of each page kind, in Chromium."""
    from playwright.sync_api import sync_playwright

    port = _port()
    server = subprocess.Popen([sys.executable, "-m", "datasette", "serve", str(site), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/-/versions.json", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        out = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
            page = browser.new_page()
            for what, path in pages(site, fmt):
                times = []
                for _ in range(repeats):
                    page.goto(f"http://127.0.0.1:{port}{path}", wait_until="load")
                    times.append(page.evaluate(TIMING))
                out[what] = statistics.median(times)
            browser.close()
        return out
    finally:
        server.terminate()
        server.wait(timeout=10)


def bench(name: str, release: Path, work: Path, repeats: int) -> dict:
    fmt = "groupassist" if "groupassist" in json.loads((release / "datapackage.json").read_text()) else "realcompanion"
    builds, floors, validates = [], [], []
    for i in range(repeats):
        site = work / f"{name}-site-{i}"
        builds.append(measure([str(BIN / "realcompanion"), "explore", str(release), "--build", str(site)]))
        floors.append(measure([sys.executable, str(HERE / "floor.py"), str(release)]))
        validates.append(measure([str(BIN / "realcompanion"), "validate", str(release)]))
    assert all(b["exit"] == 0 for b in builds), "a build failed"
    ratios = [b["wall"] / f["wall"] for b, f in zip(builds, floors)]
    return {"release": name, "load_average": os.getloadavg(),
            "build_s": statistics.median(b["wall"] for b in builds), "floor_s": statistics.median(f["wall"] for f in floors),
            "validate_s": statistics.median(v["wall"] for v in validates), "build_over_floor": statistics.median(ratios),
            "build_peak_mb": max(b["peak_mb"] for b in builds),
            "db_mb": (work / f"{name}-site-0" / "release.db").stat().st_size / 2**20,
            "pages_ms": render_times(work / f"{name}-site-0", fmt, repeats)}


def table(results: list[dict]) -> str:
    lines = ["| release | build (s) | floor (s) | build ÷ floor | validate (s) | peak MB | db MB | load |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in results:
        lines.append(f"| {r['release']} | {r['build_s']:.2f} | {r['floor_s']:.2f} | {r['build_over_floor']:.2f} | "
                     f"{r['validate_s']:.2f} | {r['build_peak_mb']:.0f} | {r['db_mb']:.0f} | "
                     f"{', '.join(f'{x:.1f}' for x in r['load_average'])} |")
    lines += ["", "| release | page | render (ms, median) |", "|---|---|---:|"]
    lines += [f"| {r['release']} | {what} | {ms:.0f} |" for r in results for what, ms in r["pages_ms"].items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        releases = {"RealCompanion 1x": generated(work, "rc", ["--paper-scale"]),
                    "GroupAssistBench paper scale": generated(work, "ga", ["--format", "groupassist", "--paper-scale"])}
        print(table([bench(name, release, work, args.repeats) for name, release in releases.items()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
