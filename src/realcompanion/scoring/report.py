"""What every score report carries, where it goes, and how it reads in a terminal.

A JSON report opens with the release it scored (path, version, format
version, synthetic flag, the data files' sha256) and every parameter used:
the release's own (`recent_window`), the method's (`settings`) and the run's
(seed, reading, resamples, input files with their sha256). A report is never
written into the scored release's `data/`, `schemas/` or descriptor.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .. import __version__
from ..errors import ReadError, visible
from ..files import output_file
from ..formats import DEFAULT, part
from ..schemas import write_json
from ..writing import Replacing


def envelope(release, command: str, release_parameters=("recent_window",), scoring=None, **parameters) -> dict:
    """The report's head: the release scored, the release parameters named, the method's settings
    (`scoring`, by default the default format's scorer's, formats.DEFAULT) and the run's own parameters."""
    params = release.params
    return {
        "command": command,
        "scorer_version": __version__,
        "release": {"path": str(release.root), "version": release.version,
                    "format_version": params.get("format_version"), "synthetic": params.get("synthetic"),
                    "sha256": read_hashes(release)},
        "parameters": {"release": {name: params[name] for name in release_parameters},
                       "scoring": part(DEFAULT, "settings").as_dict() if scoring is None else scoring, **parameters},
    }


def read_hashes(release) -> dict[str, str]:
    """The sha256 of each data file by path, as the command read it (a file it did not read, as it is now): the
    digests datapackage.json declares name the files as they were stamped, not a file changed since."""
    from ..stamp import sha256_of

    return {release.resource(name)["path"]: release.sha256.get(name) or sha256_of(release.path(name))
            for name in release.resources}


def unstamped_line(release, hashes: dict[str, str]) -> tuple[list[str], str | None]:
    """The data files whose bytes (`hashes`) are not those datapackage.json declares, and the one warning line every
    command prints about them (None when there are none)."""
    from ..release import declared_sha256

    declared = {release.resource(name)["path"]: declared_sha256(release, name) for name in release.resources}
    changed = [path for path, digest in hashes.items() if declared.get(path) != digest]
    return changed, (f"warning: the sha256 of {', '.join(changed)} differs from the one datapackage.json declares: "
                     "changed since the release was stamped, scored as it is now; run `realcompanion validate`"
                     if changed else None)


def checked_outputs(release, args, reads=()) -> Path | None:
    """Check --json and --plot before any work, neither over the release nor over the files the command reads
    (`reads`), nor over each other; return the plot path (or None)."""
    json_file = output_file(args.json, release.root, reads) if args.json not in (None, "-") else None
    plot = output_file(args.plot, release.root, reads) if args.plot else None
    if plot and json_file and plot.resolve() == json_file.resolve():
        raise ReadError(plot, "is also the --json report: give the plot a path of its own")
    return plot


def invalid_rows(release, lines: bool = False) -> tuple[dict[str, int], str | None]:
    """Rows the release reader set aside because they fail their schema, per file, and the one warning line every
    command prints about them (None when there are none); with `lines`, the line names their file lines (for a
    command without a JSON report, where the others list them)."""
    invalid = {name: len(found) for name, found in release.invalid_rows.items() if found}
    if not invalid:
        return invalid, None
    listed = ", ".join(f"{name} {n}" + (f" (line {', '.join(str(r['line']) for r in release.invalid_rows[name])})"
                                        if lines else "") for name, n in invalid.items())
    return invalid, f"warning: rows failing their schema are not scored ({listed}); run `realcompanion validate`"


def emit(release, text: str, report: dict, json_dest: str | None) -> None:
    """Print the terminal report; write the JSON report to a file, or to stdout (`-`, tables then go to stderr).

    Rows the release reader set aside because they fail their schema are not scored, and data files changed since
    the release was stamped are scored as they are; both reports say so.
    """
    invalid, warning = invalid_rows(release)
    changed, unstamped = unstamped_line(release, report["release"]["sha256"])
    report["release"]["invalid_rows"] = invalid
    report["release"]["invalid_lines"] = {name: [r["line"] for r in found]
                                          for name, found in release.invalid_rows.items() if found}
    report["release"]["changed_since_stamped"] = changed
    report["release"]["validated"] = getattr(release, "validated", None)  # `checked.opened`: false with --unvalidated
    text = "\n".join(filter(None, [unstamped, warning, text]))
    text = "\n".join(map(visible, text.split("\n")))  # a condition or judge a user's file names: escaped, one line
    if json_dest not in (None, "-"):
        with Replacing(output_file(json_dest, release.root)) as handle:
            write_json(report, handle)
    print(text, file=sys.stderr if json_dest == "-" else sys.stdout)
    if json_dest == "-":
        write_json(report, sys.stdout)


def fixed(value: float, places: int = 3) -> str:
    """`value` to `places` decimals as pencil and paper round it: half away from zero on its decimal value
    (0.0625 -> 0.063, 71/80 = 0.8875 -> 0.888), after dropping float noise beyond 12 significant digits.
    Python's own formatting rounds the binary value half to even and prints 0.062 and 0.887. A value that
    rounds to zero is 0.000, whatever its sign (a contrast of -0.0004 printed -0.000)."""
    from decimal import ROUND_HALF_UP, Decimal

    rounded = Decimal(f"{value:.12g}").quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return str(rounded.copy_abs() if rounded.is_zero() else rounded)


def records(frame) -> list[dict]:
    """A frame's rows as JSON objects; an undefined figure (NaN) is null, since NaN is not JSON."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def grid(rows: dict[str, dict], title: str, counts: tuple[str, ...] = ()) -> str:
    """A titled table: one row per key, one column per inner key; floats to three places (`fixed`), except in the
    columns `counts`, whose whole values are printed whole (13, not 13.000) beside an expectation's 15.465."""
    import pandas as pd

    frame = pd.DataFrame.from_dict(rows, orient="index").replace({None: float("nan")}).infer_objects()
    whole = {c: (lambda v: "-" if v != v else str(int(v)) if float(v).is_integer() else fixed(v)) for c in counts}
    body = frame.to_string(float_format=fixed, na_rep="-", formatters=whole) if frame.size else "(no rows)"
    return f"{title}\n{body}\n"


def with_ci(block: dict) -> str:
    """'value [low, high]' of a mean block (pooled) or an AUROC block; '-' when undefined."""
    value = block.get("auroc", block.get("pooled"))
    if value is None:
        return "-"
    ci = block.get("ci")
    ci = ci["pooled"] if ci and "pooled" in ci else ci
    return fixed(value) + (f" [{fixed(ci['low'])}, {fixed(ci['high'])}]" if ci else "")


def share_with_wilson(share: float | None, interval: dict | None) -> str:
    """'3.4 [2.5, 4.6]': a share and its Wilson interval, in percent as Tables 32 and 37 print them."""
    if share is None:
        return "-"
    return fixed(100 * share, 1) + (f" [{fixed(100 * interval['low'], 1)}, {fixed(100 * interval['high'], 1)}]"
                                    if interval else "")


def auroc_line(block: dict) -> str:
    """An AUROC block in one line; an undefined AUROC says why."""
    where = f"n={block['n']}, {block['positives']} positive"
    if block["auroc"] is None:
        return f"AUROC undefined: one class only ({where})"
    return f"AUROC {with_ci(block)} ({where})"


def exclusions_line(track) -> str:
    """What the track set aside and why, in the one wording every scoring command prints."""
    from collections import Counter

    def counted(rows) -> str:
        counts = Counter(row["reason"] for row in rows)
        return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items())) or "none"

    excluded, kept_out = track.excluded(), track.kept_out()
    line = f"{track.name}: {len(track.retrievable())} retrieval-scoreable items"
    if kept_out:
        line += (f"; {sum(kept_out.values())} of {len(track.items)} rows kept out of scoring by the release "
                 f"(excluded: {', '.join(f'{reason} {n}' for reason, n in kept_out.items())})")
    unscored = (r for r in excluded if r["population"] == "all" and not track.kept_out_by_release(r))
    line += f"; not retrieval-scored: {counted(unscored)}"
    others = [r for r in excluded if r["population"] != "all"]
    if others:
        line += f"; not distant: {counted(others)}"
    dropped = track.dropped_citations()
    if dropped:
        line += (f"; {sum(dropped.values())} citations on {len(dropped)} items left out of the gold (unresolved or "
                 "after the pool)")
    return line


def pool_line(pool: dict) -> str:
    if not pool.get("items"):
        return "pool: no items"
    flags = ", ".join(f"{len(ids)} at k={k}" for k, ids in pool["k_at_least_pool"].items() if ids) or "none"
    return (f"candidate pool: min {pool['min']}, median {pool['median']:g}, max {pool['max']} messages;"
            f" k >= pool: {flags}")
