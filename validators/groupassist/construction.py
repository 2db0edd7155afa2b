"""Construction invariants read on the texts (App. A.2-A.6, App. B): memory units, atoms, reference answers and
criteria against the anchors' spans, assistant anchors, native requests and the weights' ranking.

Whether one text states another is asked one way throughout (`gates.written`, `gates.stated`: the scorer's
normalization, English as whole words), so a value restated in another case, width or spacing is the same
value to every rule.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from realcompanion.formats.groupassist import ASSISTANT_MENTION

from ..catalogue import combined, failure_rows, failures
from .catalogue import rule
from .context import among, position_in, taken
from .gates import APART, elsewhere, every_written, stated_each
from .invariants import _in_windows, stated_in_windows


def _superseded(ctx) -> pd.DataFrame:
    """Per instance (index) with a superseded anchor: its message and its span in each declared language, as
    written (the shared view's, normalized once per run)."""
    a = ctx.anchors.loc[ctx.anchors["m3_role"] == "superseded", ["instance_id", "message_id", "span_zh", "span_en"]]
    a = a.assign(**{f"span_{lang}": ctx.written_anchors(f"span_{lang}").loc[a.index] for lang in ctx.languages})
    return a.drop_duplicates("instance_id").set_index("instance_id")


def _states_superseded(ids: pd.Series, texts: dict[str, pd.Series], sup: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per language of `texts` (the declared ones), row by row, whether the row's text states its instance's
    superseded value."""
    out, rows = {}, among(ids, sup.index)  # only the texts of an instance with a superseded value are read
    for lang in texts:
        span = [t if isinstance(t, str) else "" for t in ids[rows].map(sup[f"span_{lang}"]).tolist()]
        out[lang] = np.zeros(len(ids), dtype=bool)
        out[lang][rows] = stated_each(every_written(texts[lang][rows].tolist(), lang), span, lang)
    return out


@rule("GC12", "error", "invariant", ("anchors",),
      "anchors of one instance that state the same fact (the same text once normalized) share a memory unit",
      "App. A.4 (anchors from the same message and near-duplicate facts are merged into one memory unit); App. A.3 "
      "(a fact appearing repeatedly is anchored once); declared approximation: a near-duplicate is the same text "
      "under the scorer's normalization")
def one_fact_one_unit(ctx) -> pd.DataFrame:
    a = ctx.anchors.loc[ctx.anchors["unit"].notna(), ["anchor_id", "instance_id", "unit", "seq", "fact_zh", "fact_en"]]
    a = a.sort_values(["instance_id", "seq"], kind="stable")
    bad = pd.Series(False, index=a.index)
    first = pd.Series(None, index=a.index, dtype=object)
    for lang in ctx.languages:
        fact = ctx.written_anchors(f"fact_{lang}").loc[a.index]
        known = fact.str.strip() != ""
        groups = a.loc[known].groupby(["instance_id", fact[known]], sort=False)
        unit, earliest = groups["unit"].transform("first"), groups["anchor_id"].transform("first")
        differs = (a.loc[known, "unit"] != unit) & ~bad[known]
        bad[differs.index[differs]] = True
        first[differs.index[differs]] = earliest[differs]
    bad = bad.reindex(a.index)
    return failures("anchors", a["anchor_id"][bad], "unit", a["unit"][bad].astype("Int64"),
                    [f"states the fact of anchor {f}, of another unit: a near-duplicate fact is one memory unit"
                     for f in first[bad]])


@rule("GC22", "warning", "invariant", ("anchors",),
      "anchors that share a memory unit are one memory: each reaches the unit's first through anchors that cite one "
      "message or state one fact (the same text once normalized)",
      "App. A.4 (anchors from the same message and near-duplicate facts are merged into one memory unit; an instance "
      "with one unit is M1, with two or more M2); declared approximation, a warning: a near-duplicate worded otherwise "
      "is not read as one")
def one_unit_one_memory(ctx) -> pd.DataFrame:
    """GC2 and GC12 the other way round: two memories numbered one unit make an M2 instance M1 (GC1) and score one
    atom for both (GC8). A near-duplicate may be worded otherwise ("4 sheets", "four sheets"): a warning. A unit
    holding both values of an M3 pair is GC3's error."""
    a = ctx.anchors.loc[ctx.anchors["unit"].notna() & ctx.anchors["message_id"].notna(),
                        ["anchor_id", "instance_id", "unit", "message_id", "seq", "m3_role"]]
    unit = a.groupby(["instance_id", "unit"])
    a = a[(unit["anchor_id"].transform("size") > 1) & (unit["m3_role"].transform("nunique") < 2)].sort_values(
        ["instance_id", "unit", "seq"], kind="stable")
    keys = [a["message_id"], *(ctx.written_anchors(f"fact_{lang}").loc[a.index] for lang in ctx.languages)]
    keys = [k.where(k.fillna("") != "", a["anchor_id"] + "\x00") for k in keys]  # a blank fact links nothing (GS7)
    label = pd.Series(np.arange(len(a)), index=a.index)
    while True:  # each anchor takes the least label it reaches: a message or a fact shared, step by step
        reached = label
        for key in keys:
            label = label.groupby([a["instance_id"], a["unit"], key]).transform("min")
        if label.equals(reached):
            break
    first = a.groupby(["instance_id", "unit"])["anchor_id"].transform("first")
    bad = label != label.groupby([a["instance_id"], a["unit"]]).transform("min")
    return failures("anchors", a["anchor_id"][bad], "unit", a["unit"][bad].astype("Int64"),
                    [f"shares its unit with anchor {f} but neither cites its message nor states its fact (nor through "
                     "another anchor of the unit): two memories are two units" for f in first[bad]])


@rule("GC13", "error", "invariant", ("atoms", "anchors", "instances"),
      "M3 L1: the distractor atom states the superseded value, and no scored atom nor the reference answer states it",
      "App. A.5 (atomic facts, one per anchor; the superseded value recorded as a distractor); §3.3 (a stated "
      "distractor is an error); GROUPASSIST.md §3")
def atoms_and_answers(ctx) -> pd.DataFrame:
    sup, at, inst = _superseded(ctx), ctx.frame("atoms"), ctx.frame("instances")
    at = at[among(at["instance_id"], sup.index) & at["distractor"].notna()]
    langs = ctx.languages
    says = _states_superseded(at["instance_id"], {lang: at[f"text_{lang}"] for lang in langs}, sup)
    distractor = at["distractor"].astype(bool).to_numpy()
    wrong = distractor != np.logical_or.reduce(list(says.values()))
    l1 = inst[among(inst["instance_id"], sup.index) & (inst["level"] == "L1").to_numpy()]
    answer = _states_superseded(l1["instance_id"], {lang: l1[f"reference_answer_{lang}"] for lang in langs}, sup)
    parts = [failures("atoms", at["atom_id"][wrong], "distractor", at["distractor"][wrong],
                      np.where(distractor[wrong], "the distractor does not state the superseded value",
                               "a scored atom states the superseded value"))]
    for lang, hit in answer.items():
        parts.append(failures("instances", l1["instance_id"][hit], f"reference_answer_{lang}",
                              l1[f"reference_answer_{lang}"][hit], "the reference answer states the superseded value"))
    return combined(parts)


@rule("GC14", "error", "invariant", ("criteria", "anchors", "instances"),
      "a grounding criterion's evidence and a penalty's are messages of its instance's anchors, an M3 superseded_value "
      "penalty's the superseded anchor's; no grounding or service criterion states the superseded value",
      "App. A.4 (the superseded value is excluded from the grounding criteria and enters the penalties); App. B "
      "(every criterion cites its evidence; penalties from the anchors and memory state of the instance); "
      "GROUPASSIST.md §3")
def criteria_of_the_instance(ctx) -> pd.DataFrame:
    c = ctx.frame("criteria").merge(ctx.frame("instances")[["instance_id", "dependency", "group_id", "cutoff_turn"]
                                                           ].drop_duplicates("instance_id"), on="instance_id", how="left")
    a = ctx.anchors
    own = pd.MultiIndex.from_frame(a[["instance_id", "message_id"]].dropna()).unique()
    cited = pd.MultiIndex.from_arrays([c["instance_id"], c["evidence"]]).isin(own)
    sup = _superseded(ctx)
    grounding, penalty = c["kind"] == "grounding", c["kind"] == "penalty"
    # judged: evidence in its group's history before the cutoff (elsewhere is GC9's or GS3's), of an instance whose
    # anchors are known and lie there too (one gate i names, one whose message is set aside, or none, leaves what its
    # criteria cite unjudged)
    at = position_in(c["evidence"], ctx.messages["message_id"])
    seen = (taken(ctx.messages["group_id"], at) == c["group_id"]) & (taken(ctx.messages["turn"], at) < c["cutoff_turn"])
    outside = elsewhere(a) | a["message_id"].isna() | (a["turn"].notna() & a["cutoff_turn"].notna()
                                                       & ~(a["turn"] < a["cutoff_turn"]))
    judged = among(c["instance_id"], a["instance_id"].dropna().unique()) & ~among(
        c["instance_id"], a.loc[outside, "instance_id"].dropna().unique()) & seen.to_numpy()
    loose = (grounding | penalty).to_numpy() & c["evidence"].notna().to_numpy() & ~cited & judged
    m3 = (c["dependency"] == "M3") & (c["pattern"] == "superseded_value") & among(c["instance_id"], sup.index)
    elsewhere_ = m3 & (c["evidence"] != c["instance_id"].map(sup["message_id"])) & ~loose
    says = _states_superseded(c["instance_id"], {lang: c[f"text_{lang}"] for lang in ctx.languages}, sup)
    hits, told = {}, ~penalty.to_numpy()  # one line a criterion: its first declared language that states it
    for lang, said in says.items():
        hits[lang], told = told & said, told & ~said
    return combined([
        failures("criteria", c["criterion_id"][loose], "evidence", c["evidence"][loose],
                 "evidence is no message of the instance's anchors"),
        failures("criteria", c["criterion_id"][elsewhere_], "evidence", c["evidence"][elsewhere_],
                 "an M3 superseded_value penalty cites the superseded anchor's message"),
        *(failures("criteria", c["criterion_id"][hit], f"text_{lang}", c[f"text_{lang}"][hit],
                   "a grounding or service criterion states the superseded value")
          for lang, hit in hits.items())])


@rule("GC15", "error", "invariant", ("anchors", "messages"),
      "an anchor on an assistant message relays a fact a member established earlier: an earlier member message of "
      "its group states its span",
      "App. A.3 (anchors whose source message is an assistant message are marked); App. A.6, review iii (whether an "
      "anchor in an assistant message relays a fact established by a member); App. A.2 (what only assistant replies "
      "hold is generated content, not memory of the group)")
def assistant_anchors(ctx) -> pd.DataFrame:
    a = ctx.anchors
    a = a.loc[(a["role"] == "assistant").to_numpy() & a["seq"].notna().to_numpy() & ~elsewhere(a).to_numpy(),
              ["anchor_id", "message_id", "group_id", "message_group", "seq", "span_zh", "span_en"]]
    a = a.assign(group_id=a["message_group"])
    codes, order, starts = ctx.by_group
    code = codes.get_indexer(a["group_id"])
    lo = np.where(code >= 0, starts[np.maximum(code, 0)], 0)  # the group's history up to the anchor's message
    hi = lo + np.where(code >= 0, a["seq"].to_numpy(dtype=int), 0)
    table = ctx.table("messages")
    member = pc.fill_null(pc.equal(table.column("role"), "member"), False)
    relayed, langs = np.zeros(len(a), dtype=bool), ctx.languages
    for lang in langs:  # a member's statement as the relay writes it is found without normalizing a history
        texts = pc.if_else(member, table.column(f"text_{lang}"), pa.scalar(None, pa.string()))
        relayed |= np.array([bool(f) for f in _in_windows(texts, order, a[f"span_{lang}"].tolist(), lo, hi)], dtype=bool)
    for lang in langs:
        rest = ~relayed
        if rest.any():
            relayed[rest] = [bool(f) for f in stated_in_windows(ctx, lang, a[f"span_{lang}"][rest].tolist(), lo[rest],
                                                                  hi[rest], member.to_numpy(zero_copy_only=False))]
    bad = ~relayed & a[[f"span_{lang}" for lang in langs]].notna().any(axis=1).to_numpy()
    return failures("anchors", a["anchor_id"][bad], "message_id", a["message_id"][bad],
                    "an assistant message no earlier member message states: generated content, not a member's fact")


@rule("GC19", "warning", "invariant", ("anchors", "instances"),
      "a premise is its query's: the query states the premise's span or its fact, in each language it is judged in",
      "App. A.5 (every factual premise in an authored query cites a source message and a matching span, verified "
      "like an anchor); App. A.6, gate iii (a query may state its premises, never a required memory); declared "
      "approximation, a warning: a query that words its premise otherwise is not read as stating it")
def premises_in_query(ctx) -> pd.DataFrame:
    """A memory marked as a premise escapes gate iii (GA3), the memory units (GC1) and the delta (GC6); a real
    query may paraphrase its premise, so a premise it does not state word for word is a warning."""
    a = ctx.anchors
    # a native instance's premise is GC6's error; one whose instance is unknown (set aside) is not judged
    a = a.loc[a["premise"].eq(True) & (a["origin"] == "authored"), ["anchor_id", "span_zh", "span_en"]]
    parts = []
    for lang in ctx.languages:
        query, span, fact = (ctx.written_anchors(f"{c}_{lang}").loc[a.index].to_numpy() for c in ("query", "span", "fact"))
        bad = (query != "") & ~stated_each(query.tolist(), span.tolist(), lang)  # a null query (set aside): unjudged
        bad[bad] = ~stated_each(query[bad].tolist(), fact[bad].tolist(), lang)  # the fact read where the span is not
        parts.append(failures("anchors", a["anchor_id"][bad], f"span_{lang}", a[f"span_{lang}"][bad],
                              f"its instance's query_{lang} states neither this premise's span nor its fact: a memory "
                              "marked as a premise?"))
    return combined(parts)


def _one_atom_a_unit(ctx, ids: set) -> tuple[dict, set]:
    """Per instance of `ids`, whether its atoms are one a memory unit of its anchors, as GC8 counts them (where they
    are not, GC8 names the units: an atom numbered another's unit is that count's error, not a second one); and the
    (instance, unit) of their superseded values (GC13 judges the distractor's text and place)."""
    at, a = ctx.frame("atoms"), ctx.anchors
    atoms = at.loc[among(at["instance_id"], ids)].groupby("instance_id")["unit"].agg(lambda u: sorted(u.tolist()))
    a = a.loc[among(a["instance_id"], ids) & a["unit"].notna()]
    units = a.groupby("instance_id")["unit"].agg(lambda u: sorted(set(u.tolist())))
    sup = a[a["m3_role"] == "superseded"]
    return ({i: i in atoms.index and i in units.index and atoms[i] == units[i] for i in ids},
            set(zip(sup["instance_id"], sup["unit"])))


@rule("GC20", "error", "invariant", ("atoms", "anchors"),
      "an atom whose text is, character for character, the fact of an anchor of its instance is that anchor's memory "
      "unit's atom",
      "App. A.5 (the reference answer is split into atomic facts, one for each anchor); §3.3 (Atom Recall scores each "
      "unit's atom); GROUPASSIST.md §2 (atoms: unit)")
def atoms_of_their_unit(ctx) -> pd.DataFrame:
    """Atoms whose units were shuffled still count one a unit (GC8), but the judge scores one memory under another's
    unit. Facts of different units differ (GC12), so an atom copying one unit's fact and numbered another's is
    misplaced (the first anchor stating it speaks for its instance's, as GC12 has them share a unit); an atom that
    words its fact otherwise is not judged, nor one the superseded value's unit takes part in (GC13 names it), nor
    one of an instance whose atoms GC8 counts wrong. One hash lookup of joined keys in Arrow a language: the atoms'
    texts are never normalized (a paper-scale release's 10,526 cost 0.1 s)."""
    at, an = ctx.table("atoms"), ctx.table("anchors")
    an = an.filter(pc.is_valid(an.column("unit")))  # a profile or a premise is no unit's
    parts, named = [], np.zeros(at.num_rows, dtype=bool)
    unit = at.column("unit").to_numpy(zero_copy_only=False)
    for lang in ctx.languages:  # an atom misplaced is named once, in the first language that shows it
        found = pc.fill_null(pc.index_in(
            pc.binary_join_element_wise(at.column("instance_id"), at.column(f"text_{lang}"), APART),
            value_set=pc.binary_join_element_wise(an.column("instance_id"), an.column(f"fact_{lang}"), APART)), -1)
        stated = taken(an.column("unit").to_pandas(), found.to_numpy(zero_copy_only=False))
        bad = (stated != unit) & ~np.isnan(stated) & ~np.isnan(unit.astype(float)) & ~named
        if bad.any():  # rare: the instances' atoms and superseded units read only then
            ids = at.column("instance_id").filter(bad).to_pylist()
            counted, old = _one_atom_a_unit(ctx, set(ids))
            bad[bad] = [counted[i] and (i, u) not in old and (i, v) not in old
                        for i, u, v in zip(ids, unit[bad], stated[bad])]
        named |= bad
        parts.append(failures("atoms", at.column("atom_id").filter(bad).to_pylist(), "unit", unit[bad].astype(int),
                              [f"text_{lang} is the fact of unit {u:.0f}'s anchors" for u in stated[bad]]))
    return combined(parts)


@rule("GC16", "warning", "invariant", ("instances", "messages"),
      "a native request is a service point: it mentions the assistant (a name of words.assistant_mention, in any "
      "declared language's text), or the next record of its group is the assistant's, or an assistant record replies "
      "to it",
      "App. A.2 (a service point mentions the assistant or immediately precedes an assistant reply); App. A.5 "
      "(native instances keep the member's original request); declared approximation, a warning: a mention by a "
      "name the release does not declare is not read")
def native_service_points(ctx) -> pd.DataFrame:
    inst = ctx.frame("instances")
    nat = inst[(inst["origin"] == "native") & inst["group_id"].notna() & inst["cutoff_turn"].notna()]
    m = ctx.messages.reset_index(drop=True)
    lang = ctx.languages[0]
    at = nat[["instance_id", "group_id", "cutoff_turn", "requester", f"query_{lang}"]].astype(
        {"cutoff_turn": float}).merge(m[["message_id", "group_id", "turn", "seq", "speaker", "text_zh", "text_en"]].astype(
            {"turn": float}), left_on=["group_id", "cutoff_turn"], right_on=["group_id", "turn"])
    request = at[(at["speaker"] == at["requester"]) & (at[f"text_{lang}"] == at[f"query_{lang}"])].drop_duplicates(
        "instance_id")
    after = pd.MultiIndex.from_arrays([request["group_id"], request["seq"] + 1])
    role = m.set_index(["group_id", "seq"])["role"]
    answered = role.reindex(after).to_numpy() == "assistant"
    replied = among(request["message_id"], m.loc[m["role"] == "assistant", "reply_to"].dropna())
    names = ctx.params["words"].get("assistant_mention", ASSISTANT_MENTION)  # a request in Chinese may name it in English
    mentioned = np.logical_or.reduce([request[f"text_{lang}"].str.contains(name, case=False, regex=False).fillna(
        False).to_numpy(bool) for lang in ctx.languages for name in sum(names.values(), [])])
    bad = request[~(answered | replied | mentioned)]
    return failures("instances", bad["instance_id"], "cutoff_turn", bad["cutoff_turn"].astype(int),
                    [f"the request {r} is no service point: it mentions no assistant, and no assistant record follows it or "
                     "replies to it"
                     for r in bad["message_id"]])


@rule("GA6", "error", "gate", ("criteria", "instances"),
      "gate v: an optional criterion is a downgrade: it weighs, by its kind, no more than any mandatory one, and "
      "(rubric.optional_only_downgraded) its rubric keeps mandatory_max mandatory criteria",
      "App. B (when more than four criteria are mandatory, those with the lowest weights are downgraded to optional "
      "criteria with weight 1); App. A.6, gate v; declared reading: rubric.optional_only_downgraded")
def downgrades(ctx) -> pd.DataFrame:
    limits, weights = ctx.params["rubric"], ctx.params["weights"]
    c = ctx.frame("criteria")
    c = c[(c["kind"] != "penalty") & c["kind"].notna() & c["mandatory"].notna()]
    kind_weight = c["kind"].map({k: v for k, v in weights.items() if isinstance(v, (int, float))}).astype(float)
    optional = ~c["mandatory"].astype(bool)
    lightest = kind_weight[~optional].groupby(c["instance_id"][~optional]).min()
    heavy = optional & (kind_weight > c["instance_id"].map(lightest)).fillna(False)
    parts = [failures("criteria", c["criterion_id"][heavy], "mandatory", "false",
                      [f"downgraded though its kind weighs {w:g}, more than a mandatory criterion's {m:g}"
                       for w, m in zip(kind_weight[heavy], c["instance_id"][heavy].map(lightest))])]
    if limits["optional_only_downgraded"]:
        per = pd.DataFrame({"optional": optional.groupby(c["instance_id"]).sum(),
                            "mandatory": (~optional).groupby(c["instance_id"]).sum()})
        short = per[(per["optional"] > 0) & (per["mandatory"] < limits["mandatory_max"])]  # more: GA5's
        parts.append(failures("instances", short.index, "", short["mandatory"],
                              [f"{n} optional criteria beside {m} mandatory: only more than {limits['mandatory_max']} "
                               "mandatory criteria are downgraded" for n, m in zip(short["optional"], short["mandatory"])]))
    return combined(parts)


@rule("GP3", "error", "provenance", ("feedback",),
      "the declared penalty weights follow the release's feedback ranking: a pattern more feedback items name weighs "
      "no less (its weight no higher) than one fewer name",
      "App. B (the 97 corrections by pattern, 23/24/21/12/17; the weights follow this ranking)")
def weights_ranked(ctx) -> pd.DataFrame:
    weights = ctx.params["weights"]["penalty"]
    counts = ctx.frame("feedback")["pattern"].value_counts().reindex(list(weights), fill_value=0)
    rows = []
    for p in weights:
        lighter = [q for q in weights if counts[p] > counts[q] and weights[p] > weights[q]]
        if lighter:
            q = lighter[0]
            rows.append(("", "datapackage.json", f"groupassist.weights.penalty.{p}", weights[p],
                         f"{counts[p]} feedback items name {p}, more than {counts[q]} name {q}, yet it weighs less "
                         f"({q}: {weights[q]:g})"))
    return failure_rows(rows)
