"""BM25 over a participant's earlier messages, one bm25s index per participant.

The paper's BM25 ranks "the participant's messages preceding the probe". An
index rebuilt over each probe's prefix would cost one index per item; instead
each participant gets one index over the whole stream, and a probe's ranking
is that index's scores restricted to the pool (positions before the probe).
The two agree on which messages can be ranked and on every term-frequency and
length factor of a message; they differ only in the corpus statistics: IDF and
the average message length are taken over the whole stream rather than the
prefix. That is a fixed, probe-independent weighting (no message after the
probe can be ranked or contribute a matching term), the same for every system
the baseline is compared with, and it is what lets the baseline scale. The
difference from prefix statistics is measured by `benchmarks/baselines.py
--compare-prefix` and reported in docs/scoring.md.

Ties (equal scores, typically zero) are broken by recency, most recent first.
"""
from __future__ import annotations

import numpy as np

from .settings import BM25


class ParticipantIndex:
    """A bm25s index over one participant's messages (texts in stream order)."""

    def __init__(self, texts: list[str]):
        import bm25s

        self.tokenizer = bm25s.tokenization.Tokenizer(stopwords=BM25["stopwords"])
        corpus = self.tokenizer.tokenize(texts, return_as="tuple", show_progress=False, allow_empty=False)
        self.retriever = bm25s.BM25(method=BM25["method"], k1=BM25["k1"], b=BM25["b"])
        self.retriever.index(corpus, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every message of the stream for `query` (0 where no query term occurs)."""
        ids = self.tokenizer.tokenize([query], update_vocab=False, show_progress=False, allow_empty=False)[0]
        return self.retriever.get_scores_from_ids(ids)

    def rank(self, query: str, pool_end: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions [0, pool_end) best first, and their scores."""
        scores = self.scores(query)[:pool_end]
        positions = np.arange(pool_end)
        order = np.lexsort((-positions, -scores))
        return positions[order], scores[order]


class Indexes:
    """The per-participant indexes of a track, built on first use."""

    def __init__(self, streams):
        self.streams, self._built = streams, {}

    def __getitem__(self, participant_id: str) -> ParticipantIndex:
        if participant_id not in self._built:
            self._built[participant_id] = ParticipantIndex(self.streams[participant_id].texts)
        return self._built[participant_id]
