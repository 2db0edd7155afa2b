"""The terminal report: each rule with pass/fail and counts, then the first failing rows.

A `rich` table lays the rules out: a statement wraps within its column, never cut, and
the marks are coloured only when the output is a terminal. Every value that comes from
the release (names, row ids, fields, values, messages) is printed with its control
characters, line breaks and other unprintable characters escaped, and as text, never as
rich markup, so no value can draw a line of its own, such as a fake verdict.
"""
from __future__ import annotations

import io
import shutil
import sys

from realcompanion.errors import clipped, visible

_STYLES = {"ok": "green", "FAIL": "bold red", "warn": "yellow", "SKIP": "dim"}
VALUE_COLUMNS = 60  # a failing row's value is cut to this, marked


def _mark(o) -> str:
    if o.passed:
        return "ok"
    if o.fired:
        return "FAIL" if o.is_error else "warn"
    return "SKIP"


def render(report, max_examples: int = 5, color: bool | None = None) -> str:
    """The report as text `width` columns wide (the terminal's, at most 120; 100 off a terminal); `color`: whether
    to colour the marks (by default, when standard output is a terminal)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    width = min(shutil.get_terminal_size((100, 20)).columns, 120)
    color = sys.stdout.isatty() if color is None else color
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, no_color=not color, highlight=False,
                      emoji=False, markup=False, color_system="standard" if color else None)
    console.print(Text(visible(f"{report.package} {report.version} (format {report.format_version})")))
    console.print()
    table = Table(box=None, show_header=False, show_edge=False, padding=(0, 1, 0, 0), expand=False)
    table.add_column(min_width=4, no_wrap=True)
    table.add_column(min_width=5, no_wrap=True)
    table.add_column(min_width=7, no_wrap=True)
    table.add_column(overflow="fold", ratio=1)  # wrapped; a word longer than the column folds, nothing is cut
    table.add_column(no_wrap=False, max_width=max(width // 3, 20))
    for o in report.outcomes:
        count = visible(o.skipped) if o.skipped else (f"{o.count} row(s)" if o.count else "")
        count += f" ({o.set_aside} set aside)" if o.set_aside else ""
        mark = _mark(o)
        table.add_row(Text(mark, style=_STYLES[mark]), Text(visible(o.rule.id)), Text(o.rule.severity),
                      Text(visible(o.rule.statement)), Text(count))
    console.print(table)
    failed = [o for o in report.outcomes if not o.failures.empty]
    for o in failed:
        console.print()
        console.print(Text(f"{visible(o.rule.id)} ({o.rule.severity}): {visible(o.rule.statement)}"), soft_wrap=True)
        for row in o.failures.head(max_examples).itertuples():
            value = clipped(row.value, VALUE_COLUMNS, "…")
            held = f" {visible(row.field)}={value}" if row.field or value else ""  # none: the row as a whole
            console.print(Text(f"  {visible(row.resource)} {visible(row.row)}{held} : {visible(row.message)}"),
                          soft_wrap=True)
        if o.count > min(max_examples, len(o.failures)):
            console.print(Text(f"  ... {o.count - min(max_examples, len(o.failures))} more"))
    console.print()
    console.print(Text(f"{report.errors} error(s), {report.warnings} warning(s) - "
                       + ("release is VALID" if report.errors == 0 else "release is INVALID")))
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())  # no column padding
