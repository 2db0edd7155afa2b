"""Types of command-line options: a bad value is argparse's one-line usage error (exit 2)."""
from __future__ import annotations

import argparse
import math


def whole(minimum: int, maximum: int | None = None):
    """A whole number >= `minimum`, and at most `maximum` when one is given (a bound on what the value costs, or on
    what it can name)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number >= {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"'{text}' is more than {maximum:,}")
        return value
    parse.__name__ = f"whole number >= {minimum}"
    return parse


MAX_RESAMPLES = 100_000  # the paper's intervals take 2,000 (Table 36); 20,000 took 9 s and 240 MB on the specimen, and
# memory grows with them: 1e14 was a numpy MemoryError traceback, 1e8 would have held gigabytes for hours
MAX_PORT = 65_535  # the largest TCP port: 70000 was a traceback from the server, after the site was built
MAX_PARTICIPANTS = 9_999  # a participant id is U and two to four digits (schemas/source.schema.json): 10,000 made
# U10000, and 1e12 held the plan of each in memory until the machine ran out
MAX_PAPER_COPIES = MAX_PARTICIPANTS // 10  # copies of the paper's ten participants (`synth --paper-scale --scale`)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def positive(text: str) -> float:
    """A finite number > 0."""
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number > 0")
    return value


def temperature(text: str) -> float:
    """A sampling temperature: a finite number >= 0 (`nan` and `inf` were a traceback at the first request, whose
    body JSON cannot carry them)."""
    value = _number(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number >= 0")
    return value


MAX_SCALE = 10_000  # a 10,000x paper-scale release would hold 272 million messages, about 100 GB


def scale(text: str) -> float:
    """A synthetic release's scale: a finite number > 0, at most MAX_SCALE (1e308 was an OverflowError traceback
    when the counts were made whole, and a large one would run until the disk is full)."""
    value = positive(text)
    if value > MAX_SCALE:
        raise argparse.ArgumentTypeError(f"'{text}' is more than {MAX_SCALE:,}")
    return value


def picture(text: str) -> str:
    """A path to write a PNG to: '-' is refused, which names stdout for a JSON report (`--json -`) and wrote a file
    named '-' in the working folder for a plot."""
    if text == "-":
        raise argparse.ArgumentTypeError("'-' is stdout, and a plot is a PNG file: give it a path")
    return text


def seconds(text: str) -> float:
    """A finite number of seconds > 0 that the platform can wait (`threading.TIMEOUT_MAX`): a longer timeout was an
    OverflowError traceback at the first request."""
    import threading

    value = positive(text)
    if value > threading.TIMEOUT_MAX:
        raise argparse.ArgumentTypeError(f"'{text}' is more seconds than can be waited ({threading.TIMEOUT_MAX:g})")
    return value


def endpoint(text: str) -> str:
    """An http or https URL with a host: any other was refused only after the release was read, and one whose
    host or port does not parse (`http://[::1`) was a traceback."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 0) >= 0  # port parses
    except ValueError:
        valid = False
    if not valid:
        raise argparse.ArgumentTypeError(f"'{text}' is not an http or https URL with a host")
    return text


def rule_ids(text: str) -> str:
    """A comma-separated list naming at least one rule id or family: an empty one ran every rule, and one of
    commas alone ran none but the structure rules and still said VALID."""
    if not any(part.strip() for part in text.split(",")):
        raise argparse.ArgumentTypeError(f"'{text}' names no rule id or family")
    return text
