"""BM25 over the participant's messages before the probe, with statistics from those messages only.

The paper's BM25 ranks "the participant's preceding messages" (Table 28), so
nothing at or after the probe (chat) or after `asked_after` (qa) may weigh in:
not as a candidate, and not through the corpus statistics either. A probe at
position p is scored exactly as a bm25s index built over messages [0, p)
would score it: document frequencies and the average message length are
counted over that prefix. Rebuilding an index per probe costs one index per
item, so each participant's messages are tokenized once (`tokenizer`; a
message's tokens do not depend on the others) into a term-by-message matrix,
and a probe's prefix statistics are read off it: a term's document frequency
is the number of its postings before p, the average length a prefix sum. The
term weights are bm25s's own scorers for the configured variant
(`settings.BM25`). A message without words (a media marker alone) has length
0: the tokenizer runs with `allow_empty=False`, which adds no placeholder
token. `tests/test_scoring_definitions.py` checks the scores against a bm25s
index built over the prefix with the same tokenizer settings, and that
appending later messages changes no ranking.

A message with no query term scores 0 and is not retrieved: a BM25 retriever
returns the messages that match the query (`ranked` holds them, best first,
ties by recency). `rank(..., fallback="recency")` appends the unmatched pool
messages most recent first, for whoever wants a full ordering.
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from ..formats import DEFAULT, part

BM25 = part(DEFAULT, "settings").BM25  # the method's variant and parameters, which every format's BM25 keeps
_RUNS = re.compile(r"(?u)\w+")  # on ASCII text, runs of two or more are bm25s's default splitter (\b\w\w+\b)
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


def search_words(text: str) -> list[str]:
    """jieba's search-mode words of `text` (words and their in-dictionary sub-words, its segmentation for indexing)
    that hold a letter or digit: the Chinese terms of both formats' BM25."""
    import jieba

    jieba.setLogLevel(60)
    return [w for w in jieba.cut_for_search(text) if w.strip() and any(c.isalnum() for c in w)]


def stopwords() -> tuple[str, ...]:
    """The stopwords of both formats' BM25: the English and the Chinese lists bm25s ships (`bm25s.stopwords`): the
    English one its default, Lucene's 33 words (articles, conjunctions, "is", "the"; not "what" or "my"), the Chinese
    one, 841 words from NLTK's stopwords corpus, holding the function words 的, 了, 在, 是 and the pronouns 我, 你, 他,
    which otherwise rank unrelated messages first. Neither holds a word of the other language."""
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

    return STOPWORDS_EN + STOPWORDS_CHINESE


def word_runs(text: str) -> list[str]:
    """Runs of word characters, a combining mark counting as one: a Devanagari vowel sign or an Arabic vowel mark
    is part of its word, where `\\w` would cut the word at it (दिल into द and ल, both dropped as single letters).
    Text other than ASCII is NFKC-normalized first, so a decomposed é or a full-width letter is the same term as
    its usual form."""
    if text.isascii():
        return _RUNS.findall(text)
    runs, run = [], []
    for c in unicodedata.normalize("NFKC", text):
        if c.isalnum() or c == "_" or unicodedata.category(c)[0] == "M":
            run.append(c)
        elif run:
            runs.append("".join(run))
            run = []
    return runs + (["".join(run)] if run else [])


def terms(text: str) -> list[str]:
    """bm25s's default terms (runs of two or more word characters; `word_runs`), but a run holding Chinese
    characters is cut into `search_words`: unsegmented, a whole Chinese clause is one term that hardly any other
    message holds."""
    return [w for run in word_runs(text)
            for w in (search_words(run) if _HAN.search(run) else [run] if len(run) > 1 else [])]


def tokenizer():
    """The bm25s tokenizer of every BM25 ranking of messages (settings.BM25: stopwords, `terms`)."""
    import bm25s

    return bm25s.tokenization.Tokenizer(stopwords=list(stopwords()), splitter=terms)


class ParticipantIndex:
    """One participant's messages (texts in stream order) as a term-by-message count matrix."""

    def __init__(self, texts: list[str]):
        self.tokenizer = tokenizer()
        ids = self.tokenizer.tokenize(texts, return_as="ids", show_progress=False, allow_empty=False)
        self._build(ids, len(self.tokenizer.get_vocab_dict()))

    @classmethod
    def from_terms(cls, docs: list[list[str]]) -> "ParticipantIndex":
        """The index of documents already cut into terms (a group's records, as a format's scorer cuts them); query
        it with `term_scores`, its terms given as `vocabulary` ids."""
        index = cls.__new__(cls)
        index.vocabulary = {}
        ids = [[index.vocabulary.setdefault(term, len(index.vocabulary)) for term in doc] for doc in docs]
        index._build(ids, len(index.vocabulary))
        return index

    def _build(self, ids, vocab: int) -> None:
        from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer
        from scipy.sparse import csc_matrix

        lengths = np.array([len(doc) for doc in ids], dtype=np.int64)
        rows = np.repeat(np.arange(len(ids)), lengths)
        cols = np.fromiter((t for doc in ids for t in doc), dtype=np.int64, count=int(lengths.sum()))
        self.matrix = csc_matrix((np.ones(rows.size), (rows, cols)), shape=(len(ids), max(vocab, 1)))
        self.matrix.sum_duplicates()
        self.matrix.sort_indices()
        self.lengths = lengths.astype(float)
        self.cumulative = np.concatenate([[0.0], np.cumsum(self.lengths)])
        self.idf, self.tfc = _select_idf_scorer(BM25["method"]), _select_tfc_scorer(BM25["method"])

    def query_terms(self, query: str) -> list[int]:
        """Token ids of the query (repeats kept, as bm25s scores them); words never seen are dropped."""
        ids = self.tokenizer.tokenize([query], update_vocab=False, show_progress=False, allow_empty=False)[0]
        return [t for t in ids if t < self.matrix.shape[1]]

    def scores(self, query: str, pool_end: int) -> np.ndarray:
        """BM25 score of messages [0, pool_end) for `query`, with statistics of those messages only."""
        return self.term_scores(self.query_terms(query), pool_end)

    def term_scores(self, terms: list[int], pool_end: int, float32: bool = False) -> np.ndarray:
        """`scores` of a query already cut into term ids; with `float32`, each term's weight and score stored and
        summed in 32 bits, term after term, as a bm25s index over the prefix stores and sums them (its ties are
        then bm25s's ties)."""
        out = np.zeros(pool_end, dtype=np.float32 if float32 else float)
        if not pool_end:
            return out
        average = self.cumulative[pool_end] / pool_end
        indptr, indices, data = self.matrix.indptr, self.matrix.indices, self.matrix.data
        for term in terms:
            start = indptr[term]
            stop = start + np.searchsorted(indices[start:indptr[term + 1]], pool_end)
            rows, tf = indices[start:stop], data[start:stop]
            if not rows.size or average == 0:
                continue
            weight = self.idf(rows.size, pool_end)
            if float32:
                weight = float(np.float32(weight))
            out[rows] += (weight * self.tfc(tf, self.lengths[rows], average, BM25["k1"], BM25["b"])).astype(out.dtype)
        return out

    def rank(self, query: str, pool_end: int, fallback: str = "none") -> tuple[np.ndarray, np.ndarray]:
        """Matching positions of [0, pool_end) best first (ties most recent first), and their scores;
        with fallback "recency", the unmatched positions follow, most recent first, at score 0."""
        scores = self.scores(query, pool_end)
        positions = np.arange(pool_end)
        order = np.lexsort((-positions, -scores))
        if fallback == "none":
            order = order[scores[order] > 0]
        return positions[order], scores[order]


class Indexes:
    """The per-participant indexes of a track, built on first use."""

    def __init__(self, streams):
        self.streams, self._built = streams, {}

    def __getitem__(self, participant_id: str) -> ParticipantIndex:
        if participant_id not in self._built:
            self._built[participant_id] = ParticipantIndex(self.streams[participant_id].texts)
        return self._built[participant_id]
