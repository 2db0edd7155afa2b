"""The regex screen: Arrow's RE2 engine never drops a row Python's engine matches."""
import re

import pandas as pd
import pyarrow as pa
import pytest
from realcompanion.validators import screen
from realcompanion.validators.screen import candidates, loosened, search

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


@pytest.mark.parametrize("group_bytes", [1, 40, 1 << 26])
def test_a_column_of_many_chunks_is_screened_row_for_row(monkeypatch, group_bytes):
    """The screen regroups a column's chunks (one per megabyte of file) before matching: every row keeps its place,
    whether each chunk stands alone, a few are joined or all are."""
    monkeypatch.setattr(screen, "_GROUP_BYTES", group_bytes)
    column = pa.chunked_array([pa.array(TEXTS[i:i + 3], pa.string()) for i in range(0, len(TEXTS), 3)] * 4)
    pattern = r"\d{11,}"
    want = [i for i, t in enumerate(TEXTS * 4) if t and re.search(pattern, t)]
    assert candidates(column, pattern).tolist() == want
