"""Updates of a matter between a memory and its use: a member message between an M3 update and the cutoff that
hints at a change of the same matter (GC18, beyond GC5's repeat of the old value); between an authored instance's
last anchor and its cutoff, an update the release records of a value an anchor states (GC21)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from realcompanion.formats.groupassist import default
from realcompanion.normalized import UNSPACED

from ..catalogue import failures
from ..screen import search
from .catalogue import rule
from .context import among
from .gates import elsewhere, every_written, inside_a_word, stated, word_pattern

STILL_CURRENT = default("still_current")  # where a release declares none
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


def matter(facts: tuple[str, str], spans: tuple[str, str], lang: str, names: re.Pattern | None = None) -> set[str]:
    """The words of the matter two facts of an M3 pair settle (each `written`): the words both state once each
    fact's own value (its span) is taken out, and the group's member pseudonyms (`names`, `unnamed`): a name says
    whose the matter is, not which, and a group names its members all day."""
    def rest(fact: str, span: str) -> set[str]:
        fact = fact.replace(span, " ") if span.strip() else fact
        if names:
            fact = names.sub(lambda m: m[0] if inside_a_word(m.string, *m.span(), lang) else " ", fact)
        return words(fact, lang)

    old, new = (rest(f, s) for f, s in zip(facts, spans))
    return old & new


def pseudonyms(ctx) -> dict[str, list[str]]:
    """Each group's member pseudonyms: its roster's (members) and its member messages' speakers."""
    roster = ctx.frame("members")[["group_id", "member_id"]].set_axis(["group_id", "name"], axis=1)
    m = ctx.frame("messages")
    spoke = m.loc[m["role"] == "member", ["group_id", "speaker"]].set_axis(["group_id", "name"], axis=1)
    named = pd.concat([roster, spoke]).dropna().drop_duplicates()
    return named.groupby("group_id")["name"].agg(list).to_dict()


def unnamed(names: list[str], lang: str) -> re.Pattern | None:
    """One regex finding any of `names` `written` in `lang`, the longest first (a name inside another's is not taken
    out of it), or None: `matter` takes a name out where `stated` would find it (`inside_a_word`). Literal: a class of
    every script's letters around the names, compiled into each group's pattern, cost 0.3 s on a paper-scale release."""
    spelt = sorted({n.strip() for n in every_written(names, lang)} - {""}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, spelt))) if spelt else None


@rule("GC18", "warning", "invariant", ("anchors", "instances", "members", "messages"),
      "no member message after an M3 update and before the cutoff names a change (a word of words.change_hint) and "
      "shares at least still_current.matter_share of the matter's words (those both facts of the pair state besides "
      "their values and the group's member pseudonyms), in each language it is judged in",
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
    codes, order, starts = ctx.by_group
    code = codes.get_indexer(pairs["group_id"])
    pairs, first = pairs[code >= 0], starts[code[code >= 0]]
    lo = first + pairs["seq"].to_numpy(dtype=int) + 1  # after the update, to the cutoff
    hi = first + ctx.before(pairs["group_id"], pairs["cutoff_turn"]).astype(int)
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
    pairs, lo, hi, a_, b_ = pairs[b_ > a_], lo[b_ > a_], hi[b_ > a_], a_[b_ > a_], b_[b_ > a_]  # with a candidate
    share = ctx.params.get("still_current", STILL_CURRENT)["matter_share"]
    written = {c: pairs[c].tolist() for c in (*texts, *(f"{t}_old" for t in texts))}
    said, names, roster = {}, {}, pseudonyms(ctx)  # a message's words, a group's names in a language: once
    group_of = pairs["group_id"].tolist()

    def short(k: int, i: int, lang: str, text: str, ask: dict, shared: dict) -> bool:
        """Whether message i (group order), judged in `lang` (where it has text and pair k's matter words), shares
        too few of the matter's words (`shared[lang]`: how many); the matter's words and the message's built once."""
        if not text.strip():
            return False
        if lang not in ask:
            group = group_of[k]
            if (group, lang) not in names:
                names[group, lang] = unnamed(roster.get(group, []), lang)
            ask[lang] = matter((written[f"fact_{lang}_old"][k], written[f"fact_{lang}"][k]),
                               (written[f"span_{lang}_old"][k], written[f"span_{lang}"][k]), lang, names[group, lang])
        if not ask[lang]:
            return False
        if (i, lang) not in said:
            said[i, lang] = words(text, lang)
        shared[lang] = len(said[i, lang] & ask[lang])
        return shared[lang] < share * len(ask[lang])

    # a message shares the matter in every language it is judged in: English is asked first, its words split in C
    # where Chinese bigrams are built in Python, and a language is asked only once the message passes in those before
    # it (on the paper-scale release 61 of 7,307 candidates pass in English, none in Chinese)
    tried = sorted(ctx.languages, key=lambda lang: lang != "en")
    rows = []
    for k, (iid, first_, last_) in enumerate(zip(pairs.index, a_.tolist(), b_.tolist())):
        ask = {}  # the matter's words in a language, once one of the pair's messages is judged in it
        for i in hinted[first_:last_].tolist():
            text, shared = {lang: ctx.written(lang)[order[i]] for lang in ctx.languages}, {}
            if any(short(k, i, lang, text[lang], ask, shared) for lang in tried) or not shared:
                continue
            judged = [lang for lang in ctx.languages if lang in shared]
            if any(stated(text[lang], written[f"span_{lang}{old}"][k], lang) for lang in ctx.languages for old in ("", "_old")):
                continue  # the new value restated, or the old one (GC5's)
            rows.append((iid, pairs.at[iid, "cutoff_turn"], i, hint[judged[0]][i], shared[judged[0]], len(ask[judged[0]])))
            break
    said_by = ctx.in_group_order("message_id", [r[2] for r in rows])
    return failures("instances", [r[0] for r in rows], "cutoff_turn", [int(r[1]) for r in rows],
                    [f"{m}, after the update and before the cutoff, names a change ({w!r}) and shares {n} of the "
                     f"matter's {t} words: the matter may have changed again" for m, (_, _, _, w, n, t) in zip(said_by, rows)])


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
