"""Each group's history laid out once: every instance's history is a prefix of its group's records.

An instance sees its group's records with turn < cutoff_turn (App. E.1). With a group's records in turn order
(stable: records sharing a turn keep the file's order), that is the group's first n records, n found by a binary
search. So what every instance needs is built once per group and read per instance: the records, each record's
serialized line counted once (`scoring.ContextTokens`, a prefix sum gives a whole history's tokens), the BM25
term-by-record matrix whose prefix statistics are those of an index built over the history alone
(`scoring.bm25.ParticipantIndex`, as RealCompanion's BM25 reads a participant's prefix), and the records'
embeddings. Rebuilding these per instance made `baselines` minutes at paper scale. On a release whose records
are in turn order within each group (what validation asks), every figure is the one the per-instance definitions
in `scoring` give (`tests/test_groupassist_histories.py` checks them instance by instance); BM25 scores are
stored and summed in 32 bits as a bm25s index over the history stores and sums them, so ties are its ties.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...scoring.bm25 import ParticipantIndex


class GroupHistory:
    """One group's records in turn order, with what its instances' histories share; `terms` (`scoring.Terms`) and
    `count` (`scoring.ContextTokens`) are the run's, in the records' language, handed in so this module needs
    nothing of `scoring`, which builds the histories."""

    def __init__(self, records: pd.DataFrame, lang: str, terms, count, latest_cutoff=None):
        self.records, self.lang, self.terms, self.count = records, lang, terms, count
        self.latest_cutoff = latest_cutoff
        self.turns = records["turn"].to_numpy()
        self.ids = records["message_id"].to_numpy()
        self._index, self._tokens, self._vectors = None, None, None

    def size(self, cutoff_turn) -> int:
        """How many of the group's records lie before `cutoff_turn`."""
        return int(np.searchsorted(self.turns, cutoff_turn, side="left"))

    def visible(self, n: int) -> pd.DataFrame:
        return self.records.iloc[:n]

    def tokens(self, n: int) -> int:
        """`ContextTokens` of the first n records, from each line's counts taken once."""
        if self._tokens is None:
            counts = self.count.counts(self.records)
            self._tokens = (np.concatenate([[0], np.cumsum([ended for ended, _ in counts])]),
                            np.array([alone for _, alone in counts], dtype=np.int64))
        ended, alone = self._tokens
        return int(ended[n - 1] + alone[n - 1]) if n else 0

    def bm25(self, n: int, query: str, fallback: str = "none") -> np.ndarray:
        """Positions of the first n records that share a word with the query, best first by BM25 over them (ties:
        most recent first); with fallback "recency" the others follow, most recent first (`scoring.bm25_ranking`)."""
        if self._index is None:
            self._index = ParticipantIndex.from_terms(self.terms(list(self.records[f"text_{self.lang}"])))
        vocabulary = self._index.vocabulary
        scores = self._index.term_scores([vocabulary[w] for w in self.terms.query(query) if w in vocabulary], n,
                                         float32=True)
        ranked = best_first(scores)
        return ranked if fallback == "recency" else ranked[:int((np.asarray(scores) > 0).sum())]

    def dense(self, n: int, query: str, embedder) -> np.ndarray:
        """Positions of the first n records best first by embedding cosine with `query`; only the records before
        the group's latest cutoff are ever embedded (a record no instance sees is never sent)."""
        if self._vectors is None:
            seen = self.size(self.latest_cutoff) if self.latest_cutoff is not None else len(self.records)
            self._vectors = embedder.matrix(list(self.records[f"text_{self.lang}"].iloc[:seen]))
        if not n:
            return np.arange(0)
        return best_first(self._vectors[:n] @ embedder.matrix([query])[0])

    def top(self, ranked: np.ndarray, k: int) -> pd.DataFrame:
        """The first k ranked records in history order (`scoring.top_records`: by turn, stable)."""
        first = ranked[:k]
        return self.records.iloc[first[np.argsort(self.turns[first], kind="stable")]]


def best_first(scores) -> np.ndarray:
    """Positions by descending score, ties to the most recent (`scoring.best_first`)."""
    positions = np.arange(len(scores))
    return np.lexsort((-positions, -np.asarray(scores)))


class Histories:
    """The `GroupHistory` of each group of a release's messages, built on first use; `latest_cutoffs` (group ->
    the latest cutoff of its instances) bounds what dense retrieval embeds."""

    def __init__(self, messages: pd.DataFrame, lang: str, terms, count, latest_cutoffs: dict | None = None):
        ordered = messages.sort_values(["group_id", "turn"], kind="stable")
        self.positions = ordered.groupby("group_id", sort=False).indices
        self.ordered, self.lang, self.terms, self.count, self.built = ordered, lang, terms, count, {}
        self.latest_cutoffs = latest_cutoffs or {}

    def __getitem__(self, group_id) -> GroupHistory:
        if group_id not in self.built:
            rows = self.ordered.iloc[self.positions.get(group_id, np.arange(0))]
            self.built[group_id] = GroupHistory(rows, self.lang, self.terms, self.count,
                                                self.latest_cutoffs.get(group_id))
        return self.built[group_id]
