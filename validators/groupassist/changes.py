"""Updates of a matter between a memory and its use: a member message between an M3 update and the cutoff that
hints at a change of the same matter (GC18, beyond GC5's repeat of the old value); between an authored instance's
last anchor and its cutoff, an update the release records of a value an anchor states (GC21)."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from realcompanion.formats.groupassist import SCHEMA_FILE
from realcompanion.normalized import UNSPACED

from ..catalogue import failures
from ..screen import search
from .catalogue import rule
from .context import among
from .gates import elsewhere, stated, word_pattern

# where a release declares no `still_current`, the format's default (descriptor.schema.json, declared there once)
STILL_CURRENT = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))["properties"]["still_current"]["default"]
_RUNS = re.compile(f"[{UNSPACED}]+|[^{UNSPACED}\\s]+")
_CHINESE = re.compile(f"[{UNSPACED}]")


def words(text: str, lang: str) -> set[str]:
    """A `written` text's words: in English its tokens; in Chinese, written without spaces, each two adjacent
    Chinese characters (bigrams, the unit Chinese retrieval uses without a segmenter; a lone character as itself)
    and each token of another script."""
    if lang == "en":
        return set(text.split())
    out = set()
    for run in _RUNS.findall(text):
        if _CHINESE.match(run):
            out.update([run[i:i + 2] for i in range(max(len(run) - 1, 1))])
        else:
            out.add(run)
    return out


def matter(texts: tuple[str, ...], lang: str) -> set[str]:
    """The words of the matter facts settle, given as `besides` leaves them: the words every one of them states."""
    return set.intersection(*(words(t, lang) for t in texts))


def besides(facts: tuple[str, ...], spans: tuple[str, ...]) -> tuple[str, ...]:
    """Each fact (`written`) with its own value (its span) taken out: what it says of its matter."""
    return tuple(f.replace(s, " ") if s.strip() else f for f, s in zip(facts, spans))


def named_changes(ctx, lo: np.ndarray, hi: np.ndarray, facts: dict, spans: dict) -> list[tuple]:
    """For each window k, [lo[k], hi[k]) of group-order positions, the first member message that names a change (a
    word of words.change_hint) and shares at least still_current.matter_share of the words of the matter
    `facts[lang][k]` settle (their values `spans[lang][k]` taken out), in each language it is judged in, and
    restates none of those values: (k, its position, the change word, the words shared, the matter's words)."""
    _, order, _ = ctx.by_group
    member = (ctx.frame("messages")["role"] == "member").to_numpy()[order]
    inside = np.zeros(len(order), dtype=bool)
    for i, j in zip(lo.tolist(), hi.tolist()):
        inside[i:j] = True
    looked = np.flatnonzero(inside & member)  # group order
    pattern, hint = word_pattern(ctx.params["words"]["change_hint"]), {}
    hinted = looked  # a change named in each language the message has text in (the second read where the first is)
    for lang in ctx.languages:
        text = ctx.written(lang)[order[hinted]]
        hint[lang] = search(pd.Series(text, index=hinted), pattern, ignore_case=True)
        hinted = hinted[np.isin(hinted, hint[lang].index.to_numpy(dtype=int)) | (text == "")]
    a_, b_ = np.searchsorted(hinted, lo), np.searchsorted(hinted, hi)
    share = ctx.params.get("still_current", STILL_CURRENT)["matter_share"]
    # each text's words built once: a message's (judged in several windows), a matter's (many facts state one: its
    # words, and what a message shares of them, are counted once), each matter numbered
    said, ids, matters, counts = {lang: {} for lang in ctx.languages}, {}, [], {}
    width = len(order) + 1

    def short(k: int, i: int, lang: str, ask: dict, shared: dict) -> bool:
        """Whether message i (group order), judged in `lang` (where it has text and window k's matter words), shares
        too few of the matter's words (`shared[lang]`: how many, beside the matter's)."""
        if lang not in ask:
            key = (lang, *besides(facts[lang][k], spans[lang][k]))
            if key not in ids:
                ids[key] = len(matters)
                matters.append(matter(key[1:], lang))
            ask[lang] = ids[key]
        words_of = matters[ask[lang]]
        if not words_of:
            return False
        if i not in said[lang]:
            said[lang][i] = words(ctx.written(lang)[order[i]], lang)
        if not said[lang][i]:  # no text in this language
            return False
        pair = ask[lang] * width + i
        if pair not in counts:
            counts[pair] = len(said[lang][i] & words_of)
        shared[lang] = (counts[pair], len(words_of))
        return counts[pair] < share * len(words_of)

    # a message shares the matter in every language it is judged in: English is asked first, its words split in C
    # where Chinese bigrams are built in Python, and a language is asked only once the message passes in those before it
    tried = sorted(ctx.languages, key=lambda lang: lang != "en")
    rows = []
    for k in np.flatnonzero(b_ > a_).tolist():  # a window with a candidate
        ask = {}  # the window's matter in a language, once one of its messages is judged in it
        for i in hinted[a_[k]:b_[k]].tolist():
            shared = {}
            if any(short(k, i, lang, ask, shared) for lang in tried) or not shared:
                continue
            judged = [lang for lang in ctx.languages if lang in shared]
            if any(stated(ctx.written(lang)[order[i]], value, lang) for lang in ctx.languages for value in spans[lang][k]):
                continue  # a value restated: no change
            rows.append((k, i, hint[judged[0]][i], *shared[judged[0]]))
            break
    return rows


@rule("GC18", "warning", "invariant", ("anchors", "instances", "messages"),
      "no member message after an M3 update and before the cutoff names a change (a word of words.change_hint) and "
      "shares at least still_current.matter_share of the matter's words (those both facts of the pair state besides "
      "their values), in each language it is judged in",
      "App. A.4 (the new value is still current at the cutoff; if the matter changes again, the cutoff moves or the "
      "pair is dropped); App. A.5 (no update of the same matter within the range); App. C.1, Q4; declared "
      "approximation, a warning")
def changed_again(ctx) -> pd.DataFrame:
    """A warning: a change word beside the matter's words may speak of another occasion of the matter ("the room
    for next week's meeting changed"), and a change in other words is not read. A message that restates either
    value is GC5's (the old one) or no change (the new one)."""
    a = ctx.anchors.loc[~among(ctx.anchors["instance_id"], set(ctx.anchors.loc[elsewhere(ctx.anchors), "instance_id"]))]
    texts = [f"{column}_{lang}" for lang in ctx.languages for column in ("span", "fact")]
    a = a.assign(**{c: ctx.written_anchors(c).loc[a.index] for c in texts})  # as written, normalized once per run
    sup = a[a["m3_role"] == "superseded"].drop_duplicates("instance_id").set_index("instance_id")[texts]
    cur = a[a["m3_role"] == "current"].drop_duplicates("instance_id").set_index("instance_id")
    pairs = cur[["group_id", "seq", "cutoff_turn", *texts]].join(sup.add_suffix("_old"), how="inner").dropna(
        subset=["group_id", "seq", "cutoff_turn"])
    codes, _, starts = ctx.by_group
    code = codes.get_indexer(pairs["group_id"])
    pairs, first = pairs[code >= 0], starts[code[code >= 0]]
    lo = first + pairs["seq"].to_numpy(dtype=int) + 1  # after the update, to the cutoff
    hi = first + ctx.before(pairs["group_id"], pairs["cutoff_turn"]).astype(int)
    both = {c: list(zip(pairs[f"{c}_old"].tolist(), pairs[c].tolist())) for c in texts}
    rows = named_changes(ctx, lo, hi, {lang: both[f"fact_{lang}"] for lang in ctx.languages},
                         {lang: both[f"span_{lang}"] for lang in ctx.languages})
    said_by = ctx.in_group_order("message_id", [r[1] for r in rows])
    return failures("instances", pairs.index[[r[0] for r in rows]], "cutoff_turn",
                    [int(pairs["cutoff_turn"].iat[r[0]]) for r in rows],
                    [f"{m}, after the update and before the cutoff, names a change ({w!r}) and shares {n} of the "
                     f"matter's {t} words: the matter may have changed again" for m, (_, _, w, n, t) in zip(said_by, rows)])

def _placed(ctx) -> pd.DataFrame:
    """The anchors on a message of their instance's group (one with an anchor in another group is gate i's): the
    columns GC21 reads, the spans and facts `written` (normalized once per run)."""
    a = ctx.anchors
    keep = (a["turn"].notna() & ~among(a["instance_id"], set(a.loc[elsewhere(a), "instance_id"]))).to_numpy()
    texts = [f"{c}_{lang}" for lang in ctx.languages for c in ("span", "fact")]
    return a.loc[keep, ["anchor_id", "instance_id", "group_id", "message_id", "turn", "cutoff_turn", "origin", "premise",
                        "m3_role", "unit"]].assign(**{c: ctx.written_anchors(c).to_numpy()[keep] for c in texts})


def _authored(a: pd.DataFrame) -> pd.DataFrame:
    """The memory anchors of authored instances, each with its last one's turn: GC6's range runs from it to the cutoff
    (premises aside: no memory; a native instance's cutoff is its request, App. A.5 places only an authored one's)."""
    own = a[(a["origin"] == "authored") & ~a["premise"].eq(True) & a["cutoff_turn"].notna()]
    return own.assign(last=own.groupby("instance_id")["turn"].transform("max"))


def _recorded(ctx) -> pd.DataFrame:
    """GC21's findings, one an instance (the earliest update): the anchor, the pair, its update and the cutoff."""
    a = _placed(ctx)
    span, fact = ([f"{c}_{lang}" for lang in ctx.languages] for c in ("span", "fact"))
    old = a[a["m3_role"] == "superseded"].drop_duplicates("instance_id").set_index("instance_id")
    new = a[a["m3_role"] == "current"].drop_duplicates("instance_id").set_index("instance_id")
    updates = old[["group_id", "message_id", *span, *fact, "turn"]].join(
        new[["message_id", "turn"]].rename(columns={"message_id": "update", "turn": "updated"}), how="inner")
    updates = updates[updates["updated"] > updates["turn"]].reset_index(names="pair")
    own = _authored(a)
    hit = pd.concat([  # a text blank in a language (set aside, or one the row lacks) states nothing to compare
        own[~blank(own, key)].merge(updates[["pair", "update", "updated", *on, *key]], on=[*on, *key])
        for on, key in ((["group_id", "message_id"], span), (["group_id"], fact))])
    hit = hit[(hit["last"] < hit["updated"]) & (hit["updated"] < hit["cutoff_turn"])]
    return hit.sort_values(["instance_id", "updated", "anchor_id", "pair"]).drop_duplicates("instance_id")


def blank(a: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Row by row, whether any of the texts `columns` holds is blank."""
    return np.logical_or.reduce([a[c].str.strip().eq("").to_numpy() for c in columns])


@rule("GC21", "error", "invariant", ("anchors", "instances", "messages"),
      "no update the release records (an M3 pair: the value stated at the superseded anchor's message is updated at "
      "the current anchor's) falls after an authored instance's last anchor and before its cutoff where an anchor of "
      "the instance states that value: it cites the superseded anchor's message with its span, or states its fact "
      "(each however written, in each language)",
      "App. A.5 (the cutoff of an authored instance is placed delta_min-delta_max messages after its last anchor, and "
      "no update of the same matter may fall within this range); App. A.4 (an M3 pair: the earlier value and the "
      "update that supersedes it)")
def updated_within(ctx) -> pd.DataFrame:
    """The release's own record of an update, exact: a native instance's cutoff is its
    request (App. A.5 places only an authored one's), an M3 pair whose current value is not later is GC3's."""
    hit = _recorded(ctx)
    return failures("instances", hit["instance_id"], "cutoff_turn", hit["cutoff_turn"].astype(int),
                    [f"anchor {x} states {p}'s superseded value, updated at {u}: after the last anchor and before the "
                     "cutoff, where no update of the same matter may fall" for x, p, u in zip(hit["anchor_id"], hit["pair"],
                                                                                         hit["update"])])
