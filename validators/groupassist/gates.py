"""The deterministic gates (i)-(v) of App. A.6, over every eval and pool instance."""
from __future__ import annotations

import operator
import re
import unicodedata

import numpy as np
import pandas as pd

from realcompanion.normalized import UNSPACED, normalize

from ..catalogue import combined, failures
from ..screen import search
from .catalogue import rule


def word_pattern(words: dict) -> str:
    """One regex for a declared word list: Chinese words as substrings, English words on word boundaries, in any of
    their regular inflected forms (`inflected`): a list names a word, and `scores` or `updated` is the word."""
    return "|".join([re.escape(w) for w in words.get("zh", [])] +
                    [rf"\b{inflected(w)}\b" for w in words.get("en", [])])


def inflected(word: str) -> str:
    """A regex for an English word (or a phrase's last word) in its regular inflected forms: -s, -es, -ed, -ing;
    a final e dropped before -ed and -ing (change: changed, changing), a final y as -ies and -ied (memory:
    memories). Irregular forms are listed in the descriptor's own list."""
    head, last = word[:-len(word.split(" ")[-1])], word.split(" ")[-1]
    forms = [re.escape(last) + "(?:s|es|ed|ing)?"]
    if last.endswith("e"):
        forms.append(re.escape(last[:-1]) + "(?:ed|ing)")
    if last.endswith("y"):
        forms.append(re.escape(last[:-1]) + "i(?:es|ed)")
    return re.escape(head) + "(?:" + "|".join(forms) + ")"


# a letter or digit of a script that writes spaces between words: not a Chinese or Japanese character
SPACED_WORD = f"[^\\W{UNSPACED}]"


def stated_in_chinese(query: str, span: str) -> bool:
    """Whether a normalized Chinese-side `span` is in `query` (arguments as `str.__contains__` takes them): anywhere,
    since Chinese writes no spaces, except that a span beginning or ending with a Latin letter or digit does not end
    inside a longer word there (`1007` is not in `10070`, nor `Rach` in `Rachel`), as the English side matches whole
    words."""
    if span not in query:
        return False
    left, right = (re.match(SPACED_WORD, c) is not None for c in (span[0], span[-1]))
    if not (left or right):
        return True
    pattern = (f"(?<!{SPACED_WORD})" if left else "") + re.escape(span) + (f"(?!{SPACED_WORD})" if right else "")
    return re.search(pattern, query) is not None


SPACED = re.compile(SPACED_WORD)  # one character of a word written with spaces


def inside_a_word(text: str, start: int, end: int, lang: str) -> bool:
    """Whether `text[start:end]` (of a `written` text) runs into a longer word, where `stated` would not find it: in
    English, a neighbour that is no space; in Chinese, a Latin letter or digit beside one at its end."""
    if lang == "en":
        return text[start - 1:start].strip() != "" or text[end:end + 1].strip() != ""
    spaced = [0 <= k < len(text) and SPACED.match(text, k) is not None for k in (start - 1, start, end - 1, end)]
    return spaced[0] and spaced[1] or spaced[2] and spaced[3]


def written(text, lang: str) -> str:
    """A text as every rule that asks whether one text states another reads it: normalized as the scorer normalizes
    (NFKC, case folded, punctuation a space, no space beside a Chinese character: `normalize`), an English one
    with a space on each side, so that a span is found as whole words (`stated`); "" for a null."""
    if not isinstance(text, str) or not text:
        return ""
    return f" {normalize(text)} " if lang == "en" else normalize(text)


def every_written(texts: list, lang: str) -> list[str]:
    """Each of `texts` `written`, as `written` writes it: each distinct text normalized once, all of them in one call
    of `normalize` on the texts joined by NUL (`APART`), which no step of it changes or moves a space across, so
    each part is its text's normalization (a call per message of a paper-size history cost 0.8 s); texts that hold
    the character are normalized one by one. NUL is ASCII: English texts joined stay ASCII, for which Python's case
    folding, translation and splitting take their fast paths (a private-use joint made the English side 2.4x
    slower). The texts already in NFKC are joined apart from the others: one full-width comma made Python
    normalize the whole joined text character by character, and 84% of a paper-size history's Chinese texts
    need nothing of NFKC."""
    distinct = [t for t in dict.fromkeys(texts) if isinstance(t, str) and t]
    if any(APART in t for t in distinct):
        done = {t: normalize(t) for t in distinct}
    else:
        done, nfkc = {}, [unicodedata.is_normalized("NFKC", t) for t in distinct]
        for batch in ([t for t, n in zip(distinct, nfkc) if n], [t for t, n in zip(distinct, nfkc) if not n]):
            done.update(zip(batch, [part.strip(" ") for part in normalize(APART.join(batch)).split(APART)]))
    seen = {t: f" {n} " if lang == "en" else n for t, n in done.items()}
    return [seen.get(t, "") if isinstance(t, str) else "" for t in texts]


APART = "\x00"  # a control character: no punctuation, space, case or compatibility form, composes with nothing; in no
# identifier either (each a pattern of the vocabulary), so it also joins an id and a text into one key (GC20)


def stated(text: str, span: str, lang: str) -> bool:
    """Whether the `written` `span` is stated in the `written` `text`: in English as whole words (`1007` is not in
    `10070`), in Chinese anywhere but inside a longer Latin word or number (`stated_in_chinese`); an empty span is
    stated nowhere."""
    if not span.strip():
        return False
    return span in text if lang == "en" else stated_in_chinese(text, span)


def stated_each(texts: list[str], spans: list[str], lang: str) -> np.ndarray:
    """Row by row, whether the `written` span is `stated` in the `written` text, as numpy: a span is stated only where
    `str.__contains__` finds it, which one `map` asks of every row in C, so `stated` decides only those rows (called
    row by row, it cost GA3 0.17 s of CPU on a paper-size release)."""
    found = np.fromiter(map(operator.contains, texts, spans), bool, len(texts))
    for k in np.flatnonzero(found).tolist():
        found[k] = stated(texts[k], spans[k], lang)
    return found


def owned(frame: pd.DataFrame, key: str) -> pd.DataFrame:
    """`frame` with a set-aside (null) `instance_id` read from the record's own `key` (GM6: an id begins with its
    owner's): the instance is judged with the record, not blamed for its loss."""
    return frame.assign(instance_id=frame["instance_id"].fillna(frame[key].astype(object).str.rsplit(":", n=1).str[0]))


def elsewhere(a: pd.DataFrame) -> pd.Series:
    """Anchors citing a message of another group than their instance's: outside its history (gate i names them),
    so the construction invariants judge no position or speaker of theirs."""
    return a["message_group"].notna() & a["group_id"].notna() & (a["message_group"] != a["group_id"])


@rule("GA1", "error", "gate", ("anchors", "instances", "messages"),
      "gate i: every anchor and cited premise lies in its group's history before the cutoff (turn < cutoff_turn)",
      "App. A.6, gate i; App. E.1 (the history a system sees); GROUPASSIST.md §3 (i)")
def before_cutoff(ctx) -> pd.DataFrame:
    a = ctx.anchors
    other = elsewhere(a)
    late = a["turn"].notna() & a["cutoff_turn"].notna() & ~(a["turn"] < a["cutoff_turn"]) & ~other
    return combined([failures("anchors", a["anchor_id"][other], "message_id", a["message_id"][other],
                              "cited message is of another group's history"),
                     failures("anchors", a["anchor_id"][late], "message_id", a["message_id"][late],
                              "cited message is at or after the cutoff")])


@rule("GA2", "error", "gate", ("anchors", "messages"),
      "gate ii: every evidence span is found verbatim in its cited message, in each language the release declares",
      "App. A.6, gate ii; GROUPASSIST.md §3 (ii)")
def verbatim(ctx) -> pd.DataFrame:
    """A blank span (whitespace only) is found in nearly any message: it is GS7's, which reads every text field
    the schemas ask content of. A span of symbols (a thumbs-up emoji as an agreement) is evidence."""
    a = ctx.anchors.loc[ctx.anchors["turn"].notna(), ["anchor_id", "span_zh", "span_en", "text_zh", "text_en"]]
    parts = []
    for lang in ctx.languages:
        spans, texts = a[f"span_{lang}"].tolist(), a[f"text_{lang}"].fillna("").tolist()
        # an empty span, found anywhere, is GS2's (minLength): set aside as null here, like a null text
        found = np.fromiter((s in t if isinstance(s, str) else True for s, t in zip(spans, texts)), bool, len(a))
        found |= a[f"text_{lang}"].isna().to_numpy()
        parts.append(failures("anchors", a["anchor_id"][~found], f"span_{lang}", a[f"span_{lang}"][~found],
                              f"span not in the message's text_{lang}"))
    return combined(parts)


@rule("GA3", "error", "gate", ("anchors", "instances"),
      "gate iii: a query reveals no required memory, names no evaluation dimension, and (M3) hints at no change",
      "App. A.6, gate iii; GROUPASSIST.md §3 (iii)")
def query_reveals(ctx) -> pd.DataFrame:
    a = ctx.anchors.loc[ctx.anchors["premise"].eq(False), [  # a premise may be in the query; unknown (set aside): not judged
        "anchor_id", "instance_id", *(f"{c}_{lang}" for c in ("span", "fact", "query") for lang in ("zh", "en"))]]
    parts = []
    for lang in ctx.languages:
        # a memory is revealed however the query writes it: in other case, full-width forms or punctuation; in
        # English as whole words (`1007` is not in `10070`), in Chinese, written without spaces, anywhere but inside
        # a longer Latin word or number
        # each text normalized once per run (`written_anchors`), though a query is on each of its instance's anchors
        spans, facts, queries = (ctx.written_anchors(f"{c}_{lang}").loc[a.index].tolist()
                                 for c in ("span", "fact", "query"))
        leak = stated_each(queries, spans, lang) | stated_each(queries, facts, lang)
        parts.append(failures("instances", a["instance_id"][leak], f"query_{lang}", a[f"query_{lang}"][leak],
                              "query states a required memory (anchor " + a["anchor_id"][leak] + ")"))
    inst, words = ctx.frame("instances"), ctx.params["words"]
    m3 = inst["dependency"] == "M3"
    for lang in ctx.languages:
        for label, pattern, scope in (("an evaluation dimension", word_pattern(words["evaluation_dimension"]),
                                       inst.index), ("a change hint", word_pattern(words["change_hint"]), inst.index[m3])):
            found = search(inst.loc[scope, f"query_{lang}"], pattern, ignore_case=True)
            parts.append(failures("instances", inst["instance_id"][found.index], f"query_{lang}",
                                  inst.loc[found.index, f"query_{lang}"], [f"query names {label}, {w!r}" for w in found]))
    return combined(parts)


@rule("GA4", "error", "gate", ("instances", "messages"),
      "gate iv: the cutoff leaves at least min_history messages of the group's history",
      "App. A.6, gate iv; GROUPASSIST.md §3 (iv)")
def enough_history(ctx) -> pd.DataFrame:
    inst = ctx.frame("instances")
    counts = ctx.before(inst["group_id"], inst["cutoff_turn"])
    bad = counts < ctx.params["min_history"]
    return failures("instances", inst["instance_id"][bad], "cutoff_turn", inst["cutoff_turn"][bad],
                    [f"{n} messages before the cutoff, fewer than {ctx.params['min_history']}"
                     for n in counts[bad].astype(int)])


@rule("GA5", "error", "gate", ("criteria", "instances"),
      "gate v: each L2 rubric meets the declared limits (positive, penalty, total, mandatory) and weights",
      "App. A.6, gate v; App. B (weights and constraints); GROUPASSIST.md §3 (v)")
def rubric_limits(ctx) -> pd.DataFrame:
    limits, weights = ctx.params["rubric"], ctx.params["weights"]
    c = owned(ctx.frame("criteria"), "criterion_id")[["criterion_id", "instance_id", "kind", "pattern", "mandatory",
                                                         "weight"]].merge(
        ctx.frame("instances")[["instance_id", "dependency"]], on="instance_id", how="left")
    inst = ctx.frame("instances")
    l2 = inst.loc[inst["level"] == "L2", "instance_id"]
    positive, mandatory = c["kind"] != "penalty", c["mandatory"].eq(True)  # a null (set aside) is no penalty, optional
    per = pd.DataFrame({"positive": positive.groupby(c["instance_id"]).sum(),
                        "penalty": (~positive).groupby(c["instance_id"]).sum(),
                        # a mandatory penalty is its flag's error, named once below, not one more mandatory criterion
                        "mandatory": (positive & mandatory).groupby(c["instance_id"]).sum()}).reindex(l2, fill_value=0)
    per["total"] = per["positive"] + per["penalty"]
    parts = []
    for count, bad, message in (  # a count over the instance's criteria: the instance as a whole
            ("positive", ~per["positive"].between(limits["positive_min"], limits["positive_max"]),
             f"needs {limits['positive_min']}-{limits['positive_max']} positive criteria"),
            ("penalty", per["penalty"] > limits["penalty_max"], f"more than {limits['penalty_max']} penalties"),
            ("total", per["total"] > limits["total_max"], f"more than {limits['total_max']} criteria"),
            ("mandatory", per["mandatory"] > limits["mandatory_max"],
             f"more than {limits['mandatory_max']} mandatory criteria (downgrade the lowest-weight ones)")):
        parts.append(failures("instances", per.index[bad], "", per.loc[bad, count], message))
    superseded = (c["dependency"] == "M3") & (c["pattern"] == "superseded_value")
    expected = np.where(~positive, np.where(superseded, weights["m3_superseded_value"],
                                            c["pattern"].map(weights["penalty"]).astype(float)),
                        np.where(mandatory, c["kind"].map({k: v for k, v in weights.items()
                                                                 if isinstance(v, (int, float))}).astype(float),
                                 limits["optional_weight"]))
    unknown = c["dependency"].isna() & (c["pattern"] == "superseded_value")  # its instance set aside
    bad = (c["weight"].to_numpy() != expected) & ~unknown.to_numpy()
    forced = ~positive & mandatory  # the flag's error, not the weight's (a penalty's weight is its pattern's)
    parts.append(failures("criteria", c["criterion_id"][bad], "weight", c["weight"][bad],
                          "weight differs from the declared weight of its kind, pattern and mandatoriness"))
    parts.append(failures("criteria", c["criterion_id"][forced], "mandatory", c["mandatory"][forced],
                          "a penalty is never mandatory: pass needs every mandatory criterion met and no penalty met"))
    return combined(parts)
