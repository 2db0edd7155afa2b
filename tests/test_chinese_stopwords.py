"""Both formats' BM25 drop the same Chinese stopwords (bm25s's list, from NLTK's stopwords corpus): a message sharing
only 的, 我 or 在 with a query is not a match, in RealCompanion's ranking or in GroupAssistBench's."""
from __future__ import annotations

from realcompanion.formats.groupassist.scoring import tokens
from realcompanion.scoring.bm25 import stopwords, tokenizer

TEXT = "我在北京的工作很忙"


def test_both_formats_drop_the_chinese_function_words_and_keep_the_content_words():
    rc = tokenizer().tokenize([TEXT], return_as="string", show_progress=False)[0]
    gab = tokens([TEXT], "zh")[0]
    for terms in (rc, gab):
        assert {"北京", "工作"} <= set(terms) and not {"我", "在", "的"} & set(terms)
    assert rc == gab


def test_the_list_is_the_english_and_chinese_lists_bm25s_ships():
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

    assert set(stopwords()) == set(STOPWORDS_EN) | set(STOPWORDS_CHINESE) and len(STOPWORDS_CHINESE) == 841
