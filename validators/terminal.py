"""The terminal report: each rule with pass/fail and counts, then the first failing rows."""
from __future__ import annotations

import shutil


def render(report, max_examples: int = 5) -> str:
    width = min(shutil.get_terminal_size((100, 20)).columns, 120)
    lines = [f"{report.package} {report.version} (format {report.format_version})", ""]
    for o in report.outcomes:
        mark = "ok  " if o.passed else ("SKIP" if o.skipped else ("FAIL" if o.rule.severity == "error" else "warn"))
        count = o.skipped or (f"{len(o.failures)} row(s)" if len(o.failures) else "")
        count += f" ({o.set_aside} set aside)" if o.set_aside else ""
        lines.append(f"{mark} {o.rule.id:<5} {o.rule.severity:<7} {o.rule.statement[: width - 40]:<{width - 40}} {count}")
    failed = [o for o in report.outcomes if not o.failures.empty]
    for o in failed:
        lines += ["", f"{o.rule.id} ({o.rule.severity}): {o.rule.statement}"]
        for row in o.failures.head(max_examples).itertuples():
            lines.append(f"  {row.resource} {row.row} {row.field}={row.value!s:.60} : {row.message}")
        if len(o.failures) > max_examples:
            lines.append(f"  ... {len(o.failures) - max_examples} more")
    lines += ["", f"{report.errors} error(s), {report.warnings} warning(s) - "
                  + ("release is VALID" if report.errors == 0 else "release is INVALID")]
    return "\n".join(lines)
