r"""Regex searches over whole text columns: Arrow's RE2 engine screens, Python's `re` decides.

RE2 runs over a column without the GIL or a Python call per row, but lacks lookarounds and
reads `\d`, `\w` and `\b` as ASCII. So each pattern is loosened for the screen (lookarounds
and `\b` dropped, `\d` widened to every Unicode decimal digit, `\w` to every non-ASCII
character as well): every row Python's engine would match is a candidate, and Python's
engine gives the verdict on the candidates only.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.nested import arrays

_LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")
_WIDER = {"d": r"\p{Nd}", "w": r"0-9A-Za-z_\x{80}-\x{10FFFF}"}  # \w: ASCII word characters and all others


def loosened(pattern: str, digits: str = "") -> str:
    """The pattern as an RE2 screen that matches wherever Python's engine matches the pattern; `digits`: characters
    a digit may also be in the text screened (`readable.numerals`: Python reads them as digits, Arrow does not), so
    that `\\d`, a digit and a class holding one take them too."""
    out, in_class, counting, i = [], False, False, 0
    negated, has_digit = False, False
    pattern = _LOOKAROUND.sub("", pattern)
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i + 1]
            if escape == "b" and not in_class:
                escape_text = ""
            elif escape in _WIDER:
                wider = _WIDER[escape] + (digits if escape == "d" else "")
                escape_text = wider if in_class else f"[{wider}]"
                has_digit |= escape == "d"
            else:
                escape_text = char + escape
            out.append(escape_text)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class, negated, has_digit = True, pattern[i + 1:i + 2] == "^", False
        elif char == "]" and in_class and out and out[-1] != "[":
            in_class = False
            if has_digit and digits and not negated:
                out.append(r"\p{Nd}" + digits)
        elif char in "{}" and not in_class:
            counting = char == "{"  # the digits of `{2,4}` are counts
        elif "0" <= char <= "9" and digits and not counting:
            if in_class:
                has_digit = True
            else:
                char = f"[{char}\\p{{Nd}}{digits}]"
        out.append(char)
        i += 1
    return "".join(out)


def candidates(text, pattern: str, ignore_case: bool = False, digits: str = "") -> np.ndarray:
    """Positions of the rows of `text` (strings or nulls: a pandas Series or an Arrow array) that may match
    `pattern` (`digits`: as `loosened` takes them)."""
    if not len(text):  # compiling a pattern with Unicode classes costs RE2 milliseconds
        return np.arange(0)
    try:
        values = text if isinstance(text, (pa.Array, pa.ChunkedArray)) else pa.array(text, from_pandas=True)
        regex = loosened(pattern, digits)
        maybe = [pc.fill_null(pc.match_substring_regex(group, regex, ignore_case=ignore_case), False).to_numpy(
            zero_copy_only=False) for group in _regrouped(values)]
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):  # a pattern RE2 cannot read: Python screens every row
        return np.arange(len(text))
    return np.flatnonzero(np.concatenate(maybe))


_GROUP_BYTES = 1 << 26


def _regrouped(values: pa.Array | pa.ChunkedArray):
    """The same strings in arrays of about 64 MB, one at a time: Arrow compiles the pattern once per array, and the
    JSON reader leaves one chunk per megabyte of file (a screen of a 100x release compiled it thousands of times,
    2.5 s), while a copy of every text at once held 200 MB more (PII1, 100x paper size)."""
    group, size = [], 0
    for chunk in [*arrays(values), None]:  # None: the end
        if group and (chunk is None or size + chunk.nbytes > _GROUP_BYTES):
            yield pa.concat_arrays(group) if len(group) > 1 else group[0]
            group, size = [], 0
        if chunk is not None:
            group.append(chunk)
            size += chunk.nbytes


def search(text: pd.Series, pattern: str, ignore_case: bool = False) -> pd.Series:
    """Python's first match of `pattern` in each row of `text` that has one (index: those rows' labels)."""
    regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    rows = text.iloc[candidates(text, pattern, ignore_case)]
    found = {label: m.group(0) for label, value in rows.items() if isinstance(value, str)
             for m in [regex.search(value)] if m}
    return pd.Series(found, dtype=object)
