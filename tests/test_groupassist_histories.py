"""Each group's history laid out once gives, for every instance, what the per-instance definitions give."""
from __future__ import annotations

import pandas as pd
import pytest
from test_groupassist_scoring import Embeddings, serving

from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.histories import Histories
from realcompanion.formats.groupassist.scoring import (
    ContextTokens,
    Terms,
    bm25_ranking,
    dense_ranking,
    history,
    lines,
    top_records,
)
from realcompanion.scoring.embeddings import Embedder


@pytest.fixture(scope="module")
def release():
    return GroupAssistRelease(SPECIMEN)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_prefixes_of_each_group_equal_each_instances_own_history_ranking_and_tokens(release, lang):
    messages, k = release.frame("messages"), release.params["retrieval_k"]
    instances = release.frame("instances")
    count = ContextTokens(release.params["tokenizer"], lang)
    histories = Histories(messages, lang, Terms(lang), count)
    checked = 0
    for row in instances[instances["split"] == "eval"].itertuples():
        visible = history(messages, row.group_id, row.cutoff_turn)
        group = histories[row.group_id]
        n = group.size(row.cutoff_turn)
        pd.testing.assert_frame_equal(group.visible(n), visible)
        assert group.tokens(n) == count(visible)
        query = getattr(row, f"query_{lang}")
        ranked = group.bm25(n, query)
        assert list(group.ids[ranked]) == bm25_ranking(visible, query, lang)
        top = top_records(visible, list(group.ids[ranked]), k)
        assert list(group.top(ranked, k)["message_id"]) == list(top["message_id"])
        assert lines(group.top(ranked, k), lang) == lines(top, lang)
        checked += 1
    assert checked == (instances["split"] == "eval").sum() > 50


def test_dense_prefixes_equal_each_instances_own_ranking(release):
    Embeddings.requests, Embeddings.mode = [], "ok"
    messages, instances = release.frame("messages"), release.frame("instances")
    with serving(Embeddings) as url:
        embedder = Embedder(url)
        histories = Histories(messages, "zh", Terms("zh"), ContextTokens(release.params["tokenizer"], "zh"),
                              instances.groupby("group_id")["cutoff_turn"].max().to_dict())
        for row in instances[instances["split"] == "eval"].head(30).itertuples():
            group = histories[row.group_id]
            n = group.size(row.cutoff_turn)
            visible = history(messages, row.group_id, row.cutoff_turn)
            assert list(group.ids[group.dense(n, row.query_zh, embedder)]) == dense_ranking(visible, row.query_zh,
                                                                                             embedder)
