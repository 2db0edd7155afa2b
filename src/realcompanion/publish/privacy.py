"""Personal data and publishing: a PII1 finding blocks publish unless acknowledged, one by one, in a reviewed file.

`validate` reports the personal-data screen (rule PII1) as warnings, since a
synthetic or consented value can look like an e-mail address or a phone number.
Publishing is stricter: each finding must be listed in ACKNOWLEDGED, a file that
ships with the release (so the acknowledgement is recorded where the data is),
with the reviewer and a reason. A finding is matched by resource, row, field and
value, so a changed value needs a new review.
"""
from __future__ import annotations

from ..names import ACKNOWLEDGED

KEY = ("resource", "row", "field", "value")


def acknowledged(root) -> set[tuple[str, ...]]:
    """The (resource, row, field, value) findings the release's ACKNOWLEDGED file lists (none without it)."""
    from ..descriptor import check_acknowledged
    from ..files import read_json

    path = root / ACKNOWLEDGED
    if not path.exists():
        return set()
    listed = read_json(path)
    check_acknowledged(listed, path)
    return {tuple(str(entry[k]) for k in KEY) for entry in listed["findings"]}


def unacknowledged(report, root) -> str | None:
    """Why the report's personal-data findings (the privacy rule of the release's format: PII1, GI5)
    block publishing (None when each is acknowledged or there are none)."""
    outcome = next((o for o in report.outcomes if o.rule.family == "privacy"), None)
    if outcome is None or outcome.skipped:
        why = outcome.skipped if outcome else "not run"
        return f"the personal-data screen did not run ({why})"
    findings = [tuple(str(row[k]) for k in KEY) for row in outcome.failures[list(KEY)].to_dict("records")]
    left = [f for f in findings if f not in acknowledged(root)]
    if not left:
        return None
    resource, row, field, value = left[0]
    return (f"{len(left)} personal-data finding(s) ({outcome.rule.id}) not acknowledged in {ACKNOWLEDGED}, "
            f"first: {resource} {row} {field}={value!r}")
