"""Types of command-line options: a bad value is argparse's one-line usage error (exit 2)."""
from __future__ import annotations

import argparse
import math


def whole(minimum: int):
    """A whole number >= `minimum`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number >= {minimum}")
        return value
    parse.__name__ = f"whole number >= {minimum}"
    return parse


def positive(text: str) -> float:
    """A finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number > 0")
    return value


def rule_ids(text: str) -> str:
    """A comma-separated list naming at least one rule id or family: an empty one ran every rule, and one of
    commas alone ran none but the structure rules and still said VALID."""
    if not any(part.strip() for part in text.split(",")):
        raise argparse.ArgumentTypeError(f"'{text}' names no rule id or family")
    return text
