"""How many of a rule's failing rows a report lists: every one is counted, the first EXAMPLES of each resource
and field are kept as examples.

A file whose every line fails names the same defect on every row (a million `{}` lines, each without its
required fields), and listing each made the JSON report, the HTML report and the run that builds them grow
with the rows: a rule's failures in one field are one defect to fix, and its first rows show where. The
count (`Outcome.count`, the report's error and warning totals, `failures` of each rule in the JSON report) is
every failing row's, so nothing here changes a verdict. What must see every finding asks for them all
(`validate(..., examples=None)`): `publish`, which matches each personal-data finding with its
acknowledgment, and the explorer, which marks each failing record.
"""
from __future__ import annotations

import pandas as pd

EXAMPLES = 1_000  # failing rows listed per rule, resource and field


def kept(found: pd.DataFrame, limit: int) -> tuple[pd.DataFrame, int]:
    """The first `limit` rows of `found` (a rule's failures) for each resource and field, in their order, and how
    many rows were left out."""
    if len(found) <= limit:
        return found, 0
    first = found.groupby(["resource", "field"], sort=False, dropna=False).cumcount().to_numpy() < limit
    return found[first], int((~first).sum())
