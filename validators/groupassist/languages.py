"""GL1: no text copied from English into its Chinese column, the language of evaluation (forking.md §5).

A copy passes every other rule (both columns hold text), but BM25 would segment English as Chinese and the judge
would read it as the Chinese answer. A Chinese text may hold no Han character and equal its English one (an "OK",
a name, a number, a link), so the rule names a copy only where the text reads as English: at least
`MIN_WORDS` Latin words and no Han character.
"""
from __future__ import annotations

import pandas as pd

from realcompanion.formats.groupassist import RESOURCES

from ..catalogue import combined, failures
from .catalogue import rule

MIN_WORDS = 3
_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"


@rule("GL1", "error", "provenance", RESOURCES,
      "no Chinese text field holds its English twin copied (a text of three or more Latin words and no Chinese "
      "character, equal to the English column's): Chinese is the language of evaluation",
      "GROUPASSIST.md §1 (a release declares its languages; no copies); GAB Reproducibility statement (Chinese and "
      "English histories)")
def english_copied_into_chinese(ctx) -> pd.DataFrame:
    parts = []
    for name in ctx.release.resources:
        frame = ctx.frame(name)
        for zh in [c for c in frame.columns if c.endswith("_zh") and c[:-3] + "_en" in frame.columns]:
            text, english = frame[zh].astype(object), frame[zh[:-3] + "_en"].astype(object)
            copied = text.notna() & (text == english).fillna(False)
            copied &= ~text.where(copied, "").str.contains(_HAN, regex=True).fillna(False)
            copied &= text.where(copied, "").str.count(r"[A-Za-z]{2,}").fillna(0) >= MIN_WORDS
            if copied.any():
                parts.append(failures(name, ctx.row_ids(name)[copied.to_numpy()], zh, text[copied].str.slice(0, 80),
                                      f"{zh} is {zh[:-3]}_en copied: English, not a Chinese text; a translation "
                                      "belongs here, stated in the provenance"))
    return combined(parts)
