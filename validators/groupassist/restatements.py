"""Facts stated more than once: an anchor belongs at the earliest message that establishes its fact (App. A.3).

Every message that states an anchor's span is found in one pass over each language's history
(an Aho-Corasick automaton of all the spans, `pyahocorasick`), not by one search per anchor
over everything before it: those windows add up to the history times the anchors.
"""
from __future__ import annotations


import ahocorasick
import numpy as np
import pandas as pd

from ..catalogue import failures
from .catalogue import rule
from .gates import SPACED, elsewhere, stated

_APART = "\x1f"  # between two messages' texts: a span found across it is in neither


class Statements:
    """Where the messages of `keep` (a mask in file order) state each (group, speaker, span) of `keys` (`written`
    spans, `gates.stated`; a speaker of None: any message of `keep`): each group's history searched once, for all
    its spans together. Each (key, message) is one integer, sorted, so that how many messages of a window state
    a key's span is two binary searches, for every anchor at once."""

    def __init__(self, ctx, lang: str, keys: list[tuple], keep: np.ndarray):
        _, order, starts = ctx.by_group
        texts = np.where(keep, ctx.written(lang), "")[order]  # group order
        self.width = len(texts) + 1
        self.ids = {key: k for k, key in enumerate(dict.fromkeys(key for key in keys if key[0] >= 0 and key[2].strip()))}
        table = pd.DataFrame(list(self.ids), columns=["group", "who", "span"]).assign(key=range(len(self.ids)))
        words = table[["group", "span"]].drop_duplicates()  # one word of a group's automaton per span
        spans = words["span"].tolist()
        # a Chinese span that begins or ends with a Latin letter or digit: `gates.stated` decides
        edged = [lang == "zh" and bool(SPACED.match(s[0]) or SPACED.match(s[-1])) for s in spans]
        words = words.assign(word=range(len(words)), length=[len(s) for s in spans], edged=edged)
        length = np.fromiter(map(len, texts), np.int64, len(texts))
        at = np.concatenate([[0], np.cumsum(length + 1)])  # message i's text begins at at[i] of the whole
        whole, hits = _APART.join(texts), [np.empty((0, 2), dtype=np.int64)]
        bounds = np.append(starts, len(texts))
        for g, part in words.groupby("group"):
            automaton = ahocorasick.Automaton()
            for span, word in zip(part["span"].tolist(), part["word"].tolist()):
                automaton.add_word(span, word)
            automaton.make_automaton()
            # the group's part of the whole, sliced: the automaton reads its whole argument, not only the range
            first = int(at[bounds[g]])
            here = np.array(list(automaton.iter(whole[first:max(int(at[bounds[g + 1]]) - 1, first)])), dtype=np.int64)
            hits.append(here.reshape(-1, 2) + [first, 0])
        end, word = np.concatenate(hits).T
        begin = end - words["length"].to_numpy()[word] + 1
        i = np.searchsorted(at, begin, "right") - 1
        inside = end < at[i] + length[i]  # within one text: never across `_APART`
        found = pd.DataFrame({"word": word[inside], "i": i[inside]}).merge(
            table.merge(words[["group", "span", "word", "edged"]]), on="word")
        # found as whole words already (`written` pads English with spaces), but for an edged Chinese span; a
        # profile's only in its member's words
        ok = ~found["edged"].to_numpy(dtype=bool)
        for r in np.flatnonzero(~ok):
            ok[r] = stated(texts[found["i"].iat[r]], found["span"].iat[r], lang)
        owned = found["who"].notna().to_numpy()
        if owned.any():
            ok[owned] &= found["who"].to_numpy()[owned] == ctx.in_group_order("speaker", found["i"].to_numpy()[owned])
        self.found = np.unique(found["key"].to_numpy()[ok].astype(np.int64) * self.width + found["i"].to_numpy()[ok])

    def _bounds(self, keys: list[tuple], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.array([self.ids.get(key, -1) for key in keys], dtype=np.int64)
        base = np.where(k >= 0, k * self.width, -1)
        return (np.searchsorted(self.found, base + lo), np.where(k >= 0, np.searchsorted(self.found, base + hi), 0))

    def count(self, keys: list[tuple], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """For each key, how many messages in its window [lo, hi) of group-order positions state its span."""
        a, b = self._bounds(keys, lo, hi)
        return np.maximum(b - a, 0)

    def at(self, key: tuple, lo: int, hi: int) -> set[int]:
        """The group-order positions in [lo, hi) of the messages that state `key`'s span."""
        a, b = self._bounds([key], np.array([lo]), np.array([hi]))
        return set((self.found[a[0]:b[0]] % self.width).tolist())


@rule("GC17", "warning", "invariant", ("anchors", "instances", "messages"),
      "an anchor cites the earliest member message of its group before it that states its span, in each language it "
      "has one (however written): a member's profile the member's own, an M3 current value one after the superseded "
      "value; relays by the assistant, and messages its instance's other anchors cite, aside",
      "App. A.3 (a fact appearing repeatedly is anchored to the earliest message that establishes it; earlier "
      "lexical matches are flagged, since a lexical match does not necessarily establish the same fact); App. A.4 "
      "(near-duplicate facts are one memory unit); App. A.2 (assistant replies are generated content); declared "
      "approximation, a warning")
def earliest_statement(ctx) -> pd.DataFrame:
    """A warning, as the paper flags these rather than moving them: a span an earlier message holds may state
    another fact there ("4 sheets" of another exercise). Messages the instance's other anchors cite are GC12's
    (one fact, one unit); an anchor on an assistant message relays a member's earlier statement by construction
    (GC15)."""
    a = ctx.anchors[["anchor_id", "instance_id", "message_id", "group_id", "message_group", "seq", "turn",
                     "cutoff_turn", "role", "placeholder", "m3_role", "profile_only"]]
    codes, _, starts = ctx.by_group
    code = codes.get_indexer(a["group_id"])
    # after the cutoff or in another group (or unplaced): gate i's; on a safety placeholder, which states nothing: GC10's
    placed = (a["seq"].notna() & (a["role"] == "member") & ~elsewhere(a) & (code >= 0) & (a["placeholder"] != "safety")
              & (a["turn"] < a["cutoff_turn"])).to_numpy()
    at = np.where(placed, starts[np.maximum(code, 0)] + a["seq"].fillna(0).to_numpy(dtype=int), -1)
    first = starts[np.maximum(code, 0)]
    a = a.assign(pos=at)
    cited = set(zip(a["instance_id"][placed].tolist(), at[placed].tolist()))
    superseded = a[placed & (a["m3_role"] == "superseded").to_numpy()].groupby("instance_id")["pos"].max()
    # an M3 current value is looked for since the superseded one: before it, the same words were another state
    lo = np.where((a["m3_role"] == "current").to_numpy(),
                  a["instance_id"].map(superseded).fillna(pd.Series(first - 1, index=a.index)).to_numpy() + 1, first)
    a, lo, at = a[placed].assign(profile=a["profile_only"][placed].eq(True)), lo[placed].astype(np.int64), at[placed]
    # a profile is its member's: another member's words state another's
    who = np.full(len(a), None, dtype=object)
    who[a["profile"].to_numpy()] = ctx.in_group_order("speaker", at[a["profile"].to_numpy()])
    who = who.tolist()
    keys = {lang: list(zip(code[placed].tolist(), who, ctx.written_anchors(f"span_{lang}")[placed].tolist()))
            for lang in ctx.languages}
    member = (ctx.frame("messages")["role"] == "member").to_numpy()
    maybe, found = np.ones(len(a), dtype=bool), {}  # each of its spans stated in its window by some message
    for lang in ctx.languages:  # the second language searched only for the spans the first finds there
        keys[lang] = [key if m else (-1, *key[1:]) for key, m in zip(keys[lang], maybe.tolist())]
        found[lang] = Statements(ctx, lang, keys[lang], member)
        known = np.array([bool(key[2].strip()) for key in keys[lang]], dtype=bool)
        maybe &= ~known | (found[lang].count(keys[lang], lo, at) > 0)
    rows = []
    for k, row in zip(np.flatnonzero(maybe), a[["anchor_id", "instance_id", "message_id"]][maybe].itertuples(index=False)):
        earlier = None
        for lang in ctx.languages:
            if keys[lang][k][2].strip():
                hits = found[lang].at(keys[lang][k], lo[k], at[k])
                earlier = hits if earlier is None else earlier & hits
        earlier = sorted(i for i in earlier or () if (row.instance_id, i) not in cited)
        if earlier:
            rows.append((row.anchor_id, row.message_id, earlier[0]))
    earlier_ids = ctx.in_group_order("message_id", [r[2] for r in rows])
    return failures("anchors", [r[0] for r in rows], "message_id", [r[1] for r in rows],
                    [f"{m}, an earlier member message, states its span: a fact is anchored at the earliest message "
                     "that establishes it (flagged: a lexical match may state another fact)" for m in earlier_ids])
