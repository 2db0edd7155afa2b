"""What each format version fixes: the constants that decide whether a release is VALID.

A release declares its `realcompanion.format_version` and carries copies of these
constants in `datapackage.json`, for tools that read the descriptor alone. The
copies are not knobs: a release that could set its own recent window or session
gap could make gate E or the Structural family pass by declaration. The
validator therefore reads the constants of the declared version from here, and
rule FMT1 fails a release whose copies differ. Parameters that do not decide
VALID (the personal-data screen's `pii_digit_run`, which only warns) stay the
release's own.
"""
from __future__ import annotations

FORMATS: dict[str, dict] = {
    "2.0.0": {
        "recent_window": 10,  # messages before the probe (gate E, Table 24 row E; Table 34's first window)
        "session_gap_minutes": 30,  # a new session after a longer gap (ARI9, STR1)
        "long_range_min_days": 30,  # long_range span (STR3)
        "confidence_bands": [0.5, 0.8],  # cut points of confidence_label (ARI5)
    },
}
LATEST = max(FORMATS, key=lambda v: tuple(int(p) for p in v.split(".")))


def constants(format_version) -> dict:
    """The constants of a format version; of the latest version when it is unknown (FMT1 reports that)."""
    return FORMATS.get(format_version, FORMATS[LATEST])
