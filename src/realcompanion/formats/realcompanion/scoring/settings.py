"""The scoring method's fixed settings, taken from the paper and echoed in every report.

These are properties of the method, not of a release: a release's own
parameters (`recent_window`, ...) live in its `datapackage.json` and are read
from there. Changing a value here changes what every score means, so each one
is named after the table that fixes it.
"""
from __future__ import annotations

TRACKS = ("chat", "qa")

# Table 30: hit and recall at 1, 5 and 20; reciprocal rank of the first gold message.
CUTOFFS = (1, 5, 20)
# Table 29: the broken oracle ranks this many pool messages known to lie outside the gold.
BROKEN_ORACLE_SIZE = 20

# Table 28: context conditions. `kind` says how the context is chosen, `size` how many messages.
CONDITIONS = {
    "C0": {"heading": "none", "kind": "none", "size": 0},
    "C1": {"heading": "recent conversation", "kind": "preceding", "size": 3},
    "C2": {"heading": "relevant memories", "kind": "recorded", "size": None},
    "C3": {"heading": "retrieved memories", "kind": "bm25", "size": 10},
    "C4": {"heading": "recent conversation", "kind": "preceding", "size": 10},
    "C3m": {"heading": "earlier messages from this chat", "kind": "bm25_chronological", "size": 10},
}
# The conditions a track's replies and verdicts may name: the chat track's are Table 28's (a
# misspelt one would be scored as a condition of its own); the question track names its own.
TRACK_CONDITIONS = {"chat": tuple(CONDITIONS), "qa": None}

# Table 34 / Figure 4: message windows and token budgets (decimal thousands), cl100k_base tokens.
MESSAGE_WINDOWS = (10, 25, 50, 100, 250)
TOKEN_BUDGETS = (8_000, 32_000, 128_000, 200_000, 400_000)
TOKEN_ENCODING = "cl100k_base"

# Table 36: percentile intervals from participant resamples.
CONFIDENCE_LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 2000

# Judges answer at temperature 0 (Table 31); prompts are versioned files in prompts/.
JUDGE_TEMPERATURE = 0
JUDGE_PROMPTS = {"chat": "judge-chat.v2.txt", "qa": "judge-qa.v1.txt", "match": "match.v1.txt"}

# BM25 (bm25s defaults: Lucene variant, k1 1.5, b 0.75), English and Chinese stopwords (`bm25.stopwords`), no
# stemming, Chinese cut into words (`bm25.terms`); document frequencies and average length counted over the messages
# before the probe only (`bm25`).
BM25 = {"method": "lucene", "k1": 1.5, "b": 0.75, "stopwords": "en (bm25s's, Lucene's 33 words), zh (bm25s's, from NLTK's corpus)",
        "segmentation": "bm25s's words, a combining mark part of its word, non-ASCII text NFKC; Chinese by jieba "
                        "search mode", "statistics": "messages before the probe"}
# What BM25 does with messages sharing no word with the probe (`bm25.ParticipantIndex.rank`)
BM25_FALLBACKS = ("none", "recency")


def as_dict() -> dict:
    """Every setting, for the `parameters` block of a report."""
    return {
        "cutoffs": list(CUTOFFS), "broken_oracle_size": BROKEN_ORACLE_SIZE, "conditions": CONDITIONS,
        "message_windows": list(MESSAGE_WINDOWS), "token_budgets": list(TOKEN_BUDGETS),
        "token_encoding": TOKEN_ENCODING, "confidence_level": CONFIDENCE_LEVEL, "bm25": BM25,
        "judge_temperature": JUDGE_TEMPERATURE, "judge_prompts": JUDGE_PROMPTS,
    }
