"""Text as a person reads it: what the personal-data screen matches, and where a match lies in the text as written.

A value is read in three steps, each declared here once:

1. Invisible characters are dropped: Unicode's format characters (category Cf: the zero-width space and joiners,
   the soft hyphen, the word joiner, the byte order mark, the direction marks) and INVISIBLE, the few that show
   nothing though Unicode files them elsewhere (the combining grapheme joiner, the Hangul fillers). A digit run
   broken by zero-width spaces, or an e-mail domain holding soft hyphens, reads as it shows.
2. Unicode compatibility forms read as the characters they stand for (NFKC): full-width digits, letters and
   punctuation (＠, ．, （, the ideographic space), circled and superscript digits.
3. Look-alikes NFKC leaves read as the plain character (`looks_like`): every dash (category Pd) and the minus sign
   read `-` (an en dash in a phone number), the ideographic full stop `.` (an e-mail address written with 。), and a
   character whose Unicode numeric value is a digit reads as that digit (another script's digits, the Chinese
   numerals 〇 一 二 ... 九, 零, 幺, the financial 壹 ... 玖, ❶): a mobile number spelt in Chinese numerals reads
   as one.

Arrow reads whole columns (`as_read`, steps 1-3 but the numerals, which `screen.loosened` lets a digit stand
for instead); Python reads each value Arrow's screen passes (`read`), a character with the marks that
combine with it at a time, keeping where each piece lies in the text as written, so that a finding names the
value as the file writes it. The two agree but where Arrow's Unicode tables (utf8proc) and Python's
(`unicodedata`) are of different Unicode versions: a character one of them does not know yet. Numerals are
those of the Basic Multilingual Plane.
"""
from __future__ import annotations

import unicodedata
from functools import cache

import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.nested import arrays

INVISIBLE = "\u034f\u115f\u1160\u3164\uffa0"  # besides category Cf
MINUS = "\u2212"
IDEOGRAPHIC_FULL_STOP = "\u3002"
_INVISIBLE_RE2 = r"[\p{Cf}" + "".join(f"\\x{{{ord(c):04X}}}" for c in INVISIBLE) + "]"
_DASH_RE2 = r"[\p{Pd}\x{2212}]"
_MARKED_RE2 = _INVISIBLE_RE2[:-1] + _DASH_RE2[1:-1] + r"\x{3002}]"  # any character steps 1 and 3 replace
_DIGITS = frozenset(range(10))  # numeric values that are a digit (1.0 is among them: a float hashes as its int)


def looks_like(char: str) -> str:
    """The plain character a (non-ASCII, NFKC-normal) character reads as: itself unless a dash, the ideographic full
    stop or a digit (step 3)."""
    if char.isascii():
        return char
    if char == MINUS or unicodedata.category(char) == "Pd":
        return "-"
    if char == IDEOGRAPHIC_FULL_STOP:
        return "."
    value = unicodedata.numeric(char, None)
    return str(int(value)) if value in _DIGITS else char


_looks_like = cache(looks_like)


def _invisible(char: str) -> bool:
    return char in INVISIBLE or unicodedata.category(char) == "Cf"


def read(text: str) -> tuple[str, list[int] | None, list[int] | None]:
    """`text` as read, and for each character of it where the written characters it was read from start and end
    (None, None: an ASCII text reads as written)."""
    if text.isascii():
        return text, None, None
    out, starts, ends = [], [], []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        kept = "".join(c for c in text[i:j] if not _invisible(c))
        piece = "".join(_looks_like(c) for c in unicodedata.normalize("NFKC", kept)) if kept else ""
        out.append(piece)
        starts += [i] * len(piece)
        ends += [j] * len(piece)
        i = j
    return "".join(out), starts, ends


def written(text: str, start: int, end: int, starts: list[int] | None, ends: list[int] | None) -> str:
    """The part of `text` as written that reads as its read form's [start, end)."""
    return text[start:end] if starts is None else text[starts[start]:ends[end - 1]]


@cache
def numerals() -> str:
    """Every character of the Basic Multilingual Plane, but the decimal digits (Nd), that reads as a digit and that
    NFKC leaves as it is: what a digit may also be in Arrow's screen."""
    return "".join(c for c in map(chr, range(0x80, 0x10000)) if unicodedata.numeric(c, None) in _DIGITS
                   and unicodedata.category(c) != "Nd" and unicodedata.normalize("NFKC", c) == c)


def as_read(values: pa.Array | pa.ChunkedArray) -> tuple[pa.ChunkedArray, bool]:
    """Strings as read (steps 1-3, the numerals left to the screen's pattern), by Arrow's compute over the non-ASCII
    ones only (an ASCII string reads as written), chunk by chunk; and whether any string is not ASCII. NFKC comes
    first (it leaves the invisible characters, dashes and 。 as they are), then the three replacements, on the few
    strings that hold one of them: each pass over a paper-scale release's Chinese text cost 0.1-0.2 s. Each distinct
    string of a chunk is read once (Arrow encodes the chunk by them): a paper-scale release's 80,299 Chinese message
    texts are 27,405 distinct ones chunk by chunk, and reading them took 0.072 s of CPU, 0.044 s read once each."""
    out, other = [], False
    for chunk in arrays(values):
        plain = pc.fill_null(pc.string_is_ascii(chunk), True)
        if pc.all(plain).as_py():
            out.append(chunk)
            continue
        other, mask = True, pc.invert(plain)
        encoded = chunk.filter(mask).dictionary_encode()
        part = pc.utf8_normalize(encoded.dictionary, "NFKC")
        marked = pc.fill_null(pc.match_substring_regex(part, _MARKED_RE2), False)
        if pc.any(marked).as_py():
            some = pc.replace_substring_regex(part.filter(marked), _INVISIBLE_RE2, "")
            some = pc.replace_substring_regex(some, _DASH_RE2, "-")
            part = pc.replace_with_mask(part, marked, pc.replace_substring(some, IDEOGRAPHIC_FULL_STOP, "."))
        out.append(pc.replace_with_mask(chunk, mask, part.take(encoded.indices)))
    return pa.chunked_array(out, values.type), other
