"""The regex screen: Arrow's RE2 engine never drops a row Python's engine matches."""
import re

import pandas as pd
import pytest
from realcompanion.validators.screen import loosened, search

TEXTS = ["call 13812345678 now", "id 1381234567890", "全角１３８１２３４５６７８号", "张三@例子.中国", "nowhere",
         "现在now", "plain text", None, "NOW, please", "a@b.co and 13912345678"]


@pytest.mark.parametrize("pattern", [r"(?<!\d)1[3-9]\d{9}(?!\d)", r"\d{11,}", r"[\w.+-]+@[\w-]+\.[\w.-]+",
                                     r"\bnow\b", r"(?<=\s)now", r"[\dXx]{3}"])
@pytest.mark.parametrize("ignore_case", [False, True])
def test_search_agrees_with_python(pattern, ignore_case):
    regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    want = {i: m.group(0) for i, t in enumerate(TEXTS) if t for m in [regex.search(t)] if m}
    found = search(pd.Series(TEXTS, dtype="str"), pattern, ignore_case)
    assert found.to_dict() == want


def test_loosened_drops_what_re2_lacks():
    assert loosened(r"(?<!\d)1[3-9]\d{9}(?!\d)") == r"1[3-9][\p{Nd}]{9}"
    assert loosened(r"\bnow\b") == "now"
    assert loosened(r"[\w.]+") == r"[0-9A-Za-z_\x{80}-\x{10FFFF}.]+"
