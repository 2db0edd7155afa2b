"""Text as two texts are compared: a system's predicted value against a release's (reconstruction in scoring),
words looked for in the messages of a history (a format's gates).
"""
from __future__ import annotations

import re
import unicodedata


class _PunctuationAsSpace(dict):
    """`str.translate`'s table: each punctuation character (Unicode category P) to a space, every other character
    to itself, each looked up once (a character-by-character loop took 4 times as long)."""

    def __missing__(self, code: int):
        self[code] = " " if unicodedata.category(chr(code))[0] == "P" else code
        return self[code]


_PUNCTUATION_AS_SPACE = _PunctuationAsSpace()
# Han (with its extensions and compatibility ideographs) and kana: Chinese and Japanese write no space between words,
# so a space beside one of their characters says nothing (Korean writes spaces between words, and keeps them)
UNSPACED = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# a space, then whether a Chinese or Japanese character is before or after it: beginning with the space, the pattern is
# tried only at spaces (a lookbehind first was tried at every character: 3x slower)
_SPACE_BESIDE_UNSPACED = re.compile(f" (?:(?<=[{UNSPACED}] )|(?=[{UNSPACED}]))")


def normalize(text: str) -> str:
    """NFKC, case folded, NFKC again (folding can leave a letter and its accent apart: Ϊ́ folds to ϊ + U+0301, ΐ to
    ι + U+0308 + U+0301), each punctuation character (Unicode category P) a space, white space collapsed, and no
    space kept beside a Chinese or Japanese character (`UNSPACED`: 达·芬奇 is 达芬奇, 喜欢 Python is 喜欢Python). Only
    punctuation goes: vowel signs and other combining marks are part of a word (दिल and दाल differ only in one),
    and symbols carry meaning (C++ is not C). An ASCII text holds no such character, and is not searched for one
    (a paper-size history's English side: 0.03 s of 0.14 s)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    spaced = " ".join(folded.translate(_PUNCTUATION_AS_SPACE).split())
    return spaced if spaced.isascii() else _SPACE_BESIDE_UNSPACED.sub("", spaced)
