"""The terminal report: each rule with pass/fail and counts, then the first failing rows.

Every value that comes from the release (names, row ids, fields, values, messages)
is printed with its control characters, line breaks and other unprintable
characters escaped, so no value can draw a line of its own, such as a fake verdict.
"""
from __future__ import annotations

import shutil

from rich.cells import set_cell_size

from realcompanion.errors import clipped, visible


def _mark(o) -> str:
    if o.passed:
        return "ok  "
    if o.fired:
        return "FAIL" if o.is_error else "warn"
    return "SKIP"


def render(report, max_examples: int = 5) -> str:
    width = min(shutil.get_terminal_size((100, 20)).columns, 120)
    lines = [visible(f"{report.package} {report.version} (format {report.format_version})"), ""]
    for o in report.outcomes:
        count = visible(o.skipped) if o.skipped else (f"{len(o.failures)} row(s)" if len(o.failures) else "")
        count += f" ({o.set_aside} set aside)" if o.set_aside else ""
        statement = set_cell_size(visible(o.rule.statement), width - 40)
        lines.append(f"{_mark(o)} {o.rule.id:<5} {o.rule.severity:<7} {statement} {count}")
    failed = [o for o in report.outcomes if not o.failures.empty]
    for o in failed:
        lines += ["", f"{o.rule.id} ({o.rule.severity}): {visible(o.rule.statement)}"]
        for row in o.failures.head(max_examples).itertuples():
            value = clipped(row.value, 60)
            held = f" {visible(row.field)}={value}" if row.field or value else ""  # none: the row as a whole
            lines.append(f"  {visible(row.resource)} {visible(row.row)}{held} : {visible(row.message)}")
        if len(o.failures) > max_examples:
            lines.append(f"  ... {len(o.failures) - max_examples} more")
    lines += ["", f"{report.errors} error(s), {report.warnings} warning(s) - "
                  + ("release is VALID" if report.errors == 0 else "release is INVALID")]
    return "\n".join(lines)
