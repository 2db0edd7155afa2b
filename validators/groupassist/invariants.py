"""Construction invariants of App. A.3-A.5 and App. B, and the provenance of feedback and audit rows."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..catalogue import combined, failures
from ..screen import search
from .catalogue import rule
from .context import among, position_in, taken
from .gates import elsewhere, every_written, owned, stated, word_pattern
from .requester import strangers


def _units(ctx) -> pd.Series:
    """Memory units per instance: distinct units of anchors that are neither profile-only nor premises."""
    a = ctx.anchors
    return a.loc[a["unit"].notna(), ["instance_id", "unit"]].groupby("instance_id")["unit"].nunique().reindex(
        ctx.frame("instances")["instance_id"], fill_value=0)


def _displaced(a: pd.DataFrame) -> set:
    """Instances with an anchor outside their group's history (GA1): where their anchors lie is not judged."""
    return set(a.loc[elsewhere(a), "instance_id"])


def _units_unknown(ctx) -> set:
    """Instances with an anchor whose unit is null though it is neither profile-only nor a premise (GC1 names the
    anchor; a record set aside reads so): their units are not judged."""
    a = ctx.anchors
    return set(a.loc[a["unit"].isna() & a["profile_only"].eq(False) & a["premise"].eq(False), "instance_id"])


@rule("GC1", "error", "invariant", ("anchors", "instances"),
      "M1 has exactly one memory unit, M2 and M3 two or more; unit is null exactly for profile-only anchors and premises",
      "App. A.4 (M1 one memory unit, M2/M3 two or more); GROUPASSIST.md §3")
def dependency_units(ctx) -> pd.DataFrame:
    inst, n = ctx.frame("instances"), _units(ctx).to_numpy()  # aligned with the instances' rows
    bad = np.where(inst["dependency"] == "M1", n != 1, n < 2) & ~among(inst["instance_id"], _units_unknown(ctx))
    a = ctx.anchors
    null_bad = a["unit"].isna() != (a["profile_only"] | a["premise"])
    m1 = (inst["dependency"] == "M1").to_numpy()[bad]
    return combined([failures("instances", inst["instance_id"][bad], "dependency", inst["dependency"][bad],
                              [f"{k} memory unit{'' if k == 1 else 's'}: " + ("M1 has exactly one" if one else
                                                                             "M2 and M3 have two or more")
                               for k, one in zip(n[bad], m1)]),
                     failures("anchors", a["anchor_id"][null_bad], "unit", a["unit"][null_bad].astype("Int64"),
                              "unit must be null exactly for profile-only anchors and premises")])


@rule("GC2", "error", "invariant", ("anchors",), "anchors of one instance that cite one message share a unit",
      "App. A.3 (anchors and memory units); GROUPASSIST.md §3")
def one_message_one_unit(ctx) -> pd.DataFrame:
    a = ctx.anchors.loc[ctx.anchors["unit"].notna(), ["anchor_id", "instance_id", "message_id", "unit"]]
    spread = a.groupby(["instance_id", "message_id"])["unit"].transform("nunique")
    bad = spread > 1
    return failures("anchors", a["anchor_id"][bad], "unit", a["unit"][bad].astype("Int64"), "same message, different unit")


@rule("GC3", "error", "invariant", ("anchors", "instances", "messages"),
      "M3 has one superseded and one current anchor, the current one later and in another memory unit (each value "
      "a memory: neither profile-only nor a premise); other instances have no m3_role",
      "App. A.4 (M3: a superseded and a current value, each new value paired with the anchor that established the "
      "earlier one; a memory unit merges one message's anchors or near-duplicate facts, never two values; profile-only "
      "anchors count toward no unit); App. A.5 (a premise is the query's); GROUPASSIST.md §3")
def m3_pair(ctx) -> pd.DataFrame:
    """The two values of a pair are two memories: an instance that merged them into one unit counts the old value
    toward its units and, in L1, scores the distractor's unit as a memory; a value marked profile-only or a premise
    counts toward no unit, so the instance's units hold one value of its conflict."""
    a, inst = ctx.anchors, ctx.frame("instances")
    sup = a.loc[a["m3_role"] == "superseded", ["instance_id", "seq"]].groupby("instance_id")["seq"].agg(["size", "max"])
    cur = a.loc[a["m3_role"] == "current", ["instance_id", "seq"]].groupby("instance_id")["seq"].agg(["size", "min"])
    both = pd.DataFrame({"sup": sup["size"], "cur": cur["size"], "sup_at": sup["max"], "cur_at": cur["min"]}).reindex(
        inst["instance_id"]).fillna({"sup": 0, "cur": 0})
    m3 = (inst["dependency"] == "M3").to_numpy()
    ok = (both["sup"] == 1) & (both["cur"] == 1) & (both["cur_at"] > both["sup_at"])
    unplaced = set(a.loc[a["m3_role"].notna() & a["seq"].isna(), "instance_id"]) | _displaced(a)  # order unjudged
    bad = np.where(m3, ~ok.to_numpy() & ~among(inst["instance_id"], unplaced),
                   ((both["sup"] + both["cur"]) > 0).to_numpy())
    paired = a.loc[a["m3_role"].notna() & a["unit"].notna(), ["anchor_id", "instance_id", "m3_role", "unit"]]
    merged = paired.groupby(["instance_id", "unit"])["m3_role"].transform("nunique") > 1
    merged &= paired["m3_role"] == "current"
    valued = a.loc[a["m3_role"].notna(), ["anchor_id", "profile_only", "premise"]]
    profile, hit = valued["profile_only"].eq(True), valued["profile_only"].eq(True) | valued["premise"].eq(True)
    return combined([failures("anchors", valued["anchor_id"][hit], np.where(profile[hit], "profile_only", "premise"),
                              "true", "an M3 value is a memory of its own unit, not a member's profile nor the query's "
                              "premise"),
                     failures("instances", inst["instance_id"][bad], "dependency", inst["dependency"][bad],
                              "M3 needs exactly one superseded and one later current anchor; others none"),
                     failures("anchors", paired["anchor_id"][merged], "unit", paired["unit"][merged].astype("Int64"),
                              "the current value shares its memory unit with the superseded value: two values are two "
                              "units")])


@rule("GC4", "error", "invariant", ("anchors", "messages"),
      "an M3 instance has at least two memory anchors (neither profile-only nor premises) from members other than "
      "the one who made the update", "App. A.4 (M3: anchors on the same matter from other members, keeping M2's "
      "structure; profile-only anchors count toward no unit); GROUPASSIST.md §3")
def m3_others(ctx) -> pd.DataFrame:
    a = ctx.anchors.loc[(ctx.anchors["dependency"] == "M3").to_numpy() & ~among(
        ctx.anchors["instance_id"], _displaced(ctx.anchors)), ["instance_id", "message_id", "m3_role", "speaker",
                                                               "role", "profile_only", "premise"]]
    updater = a[a["m3_role"] == "current"].groupby("instance_id")["speaker"].first()
    memory = ~a["profile_only"].eq(True) & ~a["premise"].eq(True)  # a profile or the query's premise is no memory
    others = a[memory & (a["role"] == "member") & (a["speaker"] != a["instance_id"].map(updater))].groupby(
        "instance_id").size()
    ids = pd.Index(a["instance_id"].unique())
    count = others.reindex(ids, fill_value=0)
    unread = a[memory & a["message_id"].isna()].groupby("instance_id").size()  # set aside: any member's, unjudged
    bad = count + unread.reindex(ids, fill_value=0) < 2
    return failures("instances", ids[bad], "dependency", "M3",
                    [f"{n} memory anchor(s) from members other than the updater, fewer than two" for n in count[bad]])


def _in_windows(texts: pa.ChunkedArray, order: np.ndarray, spans: list, lo: np.ndarray, hi: np.ndarray) -> list:
    """For each window [lo, hi) of the messages taken in `order`, the positions whose text holds the window's span
    (none where the span is null): every text in one string, searched window by window by `str.find`."""
    texts = pc.fill_null(texts, "").take(order).combine_chunks()
    length = pc.utf8_length(texts).to_numpy(zero_copy_only=False)
    start = np.concatenate([[0], np.cumsum(length + 1)])  # message i's text is whole[start[i]:start[i] + length[i]]
    whole = pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(texts)], pa.int32()), texts), "\x1f")[0].as_py()
    out = []
    for span, a, b in zip(spans, lo.tolist(), hi.tolist()):
        found = []
        if isinstance(span, str) and a < b:
            end = int(start[b]) - 1
            at = whole.find(span, int(start[a]), end) if span else -1
            found = list(range(a, b)) if not span else found
            while at != -1:
                i = int(np.searchsorted(start, at, "right")) - 1
                if at + len(span) <= start[i] + length[i]:  # inside one message, not across the separator
                    found.append(i)
                    at = whole.find(span, int(start[i + 1]), end)
                else:
                    at = whole.find(span, at + 1, end)
        out.append(found)
    return out


def stated_in_windows(ctx, lang: str, spans: list, lo: np.ndarray, hi: np.ndarray, keep=None) -> list:
    """For each window [lo, hi) of the messages in group order (`ctx.by_group`), the positions in that order of the
    messages (of `keep`, a mask in file order, if given) whose text states the window's span, both `written` as
    every rule compares texts (the messages' once per run: `ctx.written`)."""
    _, order, _ = ctx.by_group
    texts = ctx.written(lang) if keep is None else np.where(keep, ctx.written(lang), "")
    spans = every_written(spans, lang)
    found = _in_windows(pa.chunked_array([pa.array(texts, pa.string())]), order, spans, lo, hi)
    return [[i for i in f if stated(texts[order[i]], s, lang)] for f, s in zip(found, spans)]


@rule("GC5", "error", "invariant", ("anchors", "messages"),
      "no message after an M3 update and before the cutoff re-uses the superseded value's span, however written (still "
      "current at the cutoff)",
      "App. A.4 (current at the cutoff; declared approximation); GROUPASSIST.md §3")
def m3_still_current(ctx) -> pd.DataFrame:
    a = ctx.anchors.loc[~among(ctx.anchors["instance_id"], _displaced(ctx.anchors)), [
        "instance_id", "m3_role", "group_id", "seq", "cutoff_turn", "span_zh", "span_en"]]
    sup = a[a["m3_role"] == "superseded"].set_index("instance_id")
    cur = a[a["m3_role"] == "current"].set_index("instance_id")
    pairs = cur[["group_id", "seq", "cutoff_turn"]].join(sup[["span_zh", "span_en"]], how="inner").dropna(
        subset=["group_id", "seq", "cutoff_turn"])  # an update or cutoff set aside: no window to search
    codes, order, starts = ctx.by_group
    code = codes.get_indexer(pairs["group_id"])
    pairs, first = pairs[code >= 0], starts[code[code >= 0]]  # a group without messages has no window
    lo = first + pairs["seq"].to_numpy(dtype=int) + 1  # after the update, to the cutoff (turns never decrease: GM2)
    hi = first + ctx.before(pairs["group_id"], pairs["cutoff_turn"]).astype(int)
    table = ctx.table("messages")  # the value re-used however it is written: case, width, spacing (`written`)
    found = [stated_in_windows(ctx, lang, pairs[f"span_{lang}"].tolist(), lo, hi) for lang in ctx.languages]
    at = [(iid, i) for iid, *each in zip(pairs.index, *found) for i in sorted(set().union(*each))]
    ids = table.column("message_id").take(order[[i for _, i in at]]).to_pylist() if at else []
    rows = [(iid, mid) for (iid, _), mid in zip(at, ids)]
    cutoff = dict(zip(pairs.index, pairs["cutoff_turn"].astype(int)))
    return failures("instances", [r[0] for r in rows], "cutoff_turn", [cutoff[r[0]] for r in rows],
                    [f"superseded value re-used by {r[1]}, a later message before the cutoff" for r in rows])


@rule("GC6", "error", "invariant", ("anchors", "instances", "messages"),
      "authored: delta_min-delta_max messages between the last anchor and the cutoff, a query_type; native: none, no premise",
      "App. A.5 (authored: delta messages after the last anchor); GROUPASSIST.md §3")
def authored(ctx) -> pd.DataFrame:
    inst, a = ctx.frame("instances"), ctx.anchors
    # a premise is no memory: no distance to keep
    last = a.loc[~a["premise"].eq(True), ["instance_id", "turn"]].groupby("instance_id")["turn"].max()
    parts, lo, hi = [], ctx.params["delta_min"], ctx.params["delta_max"]
    own = inst.loc[(inst["origin"] == "authored") & inst["group_id"].isin(ctx.frame("messages")["group_id"].unique())
                   & ~among(inst["instance_id"], _displaced(a)), ["instance_id", "group_id", "cutoff_turn"]]
    gap = pd.Series(ctx.before(own["group_id"], own["cutoff_turn"]) - ctx.before(
        own["group_id"], own["instance_id"].map(last).fillna(-1), "right"), index=own.index)
    bad = gap.notna() & ~gap.between(lo, hi) & (gap >= 0)  # null: a cutoff set aside; < 0: an anchor at or after
    # the cutoff, which gate i names
    parts.append(failures("instances", own.loc[bad, "instance_id"], "cutoff_turn", own.loc[bad, "cutoff_turn"],
                          [f"{n} messages between the last anchor and the cutoff, outside {lo}-{hi}"
                           for n in gap[bad].astype(int)]))
    typed = inst["query_type"].notna() != (inst["origin"] == "authored")
    parts.append(failures("instances", inst["instance_id"][typed], "query_type", inst["query_type"][typed].astype(str),
                          "authored instances have a query_type, native ones none"))
    premise = a["premise"].eq(True) & a["origin"].notna() & (a["origin"] != "authored")  # null: set aside, unjudged
    parts.append(failures("anchors", a["anchor_id"][premise], "premise", "true", "only authored queries cite premises"))
    return combined(parts)


@rule("GC7", "error", "invariant", ("instances", "messages", "members"),
      "native: the cutoff is the requester's request message and the query is its text, verbatim in each language "
      "the release declares; a safety-filter placeholder is no request",
      "App. A.5 (native: the request is the cutoff, the query its text); App. A.1 (a safety filter replaced some "
      "messages by placeholders); App. D (records sharing a turn); GROUPASSIST.md §3")
def native(ctx) -> pd.DataFrame:
    """The request is any record of the cutoff turn (records may share a turn): the one the requester sent. A
    record the safety filter replaced holds the filter's notice, not the member's words: a query copied from it
    asks nothing."""
    inst = ctx.frame("instances")
    # a field set aside, or a null requester or one no member of the group (GS6's), leaves the request unjudged
    nat = inst[(inst["origin"] == "native") & inst[["group_id", "cutoff_turn", "requester"]].notna().all(axis=1)]
    nat = nat[~strangers(ctx, nat)]
    m = ctx.messages[["group_id", "turn", "speaker", "text_zh", "text_en"]].reset_index(drop=True)
    at = nat[["instance_id", "group_id", "cutoff_turn", "requester", "query_zh", "query_en"]].astype(
        {"cutoff_turn": float}).merge(m.astype({"turn": float}).reset_index(names="at"), left_on=["group_id", "cutoff_turn"],
                                      right_on=["group_id", "turn"])
    langs = ctx.languages
    request = at[np.logical_and.reduce([at["speaker"] == at["requester"], *(
        at[f"text_{lang}"] == at[f"query_{lang}"] for lang in langs)])]
    notice = ctx.messages["placeholder"].to_numpy()[request["at"].to_numpy()] == "safety"
    filtered = request[notice & ~among(request["instance_id"], request.loc[~notice, "instance_id"])].drop_duplicates(
        "instance_id")
    bad, query = nat[~among(nat["instance_id"], request["instance_id"])], f"query_{langs[0]}"
    return combined([failures("instances", bad["instance_id"], query, bad[query],
                              [f"no record of the cutoff turn ({g}:m{int(t):06d}) is the requester's message holding "
                               "the query" for g, t in zip(bad["group_id"], bad["cutoff_turn"])]),
                     failures("instances", filtered["instance_id"], query, filtered[query],
                              [f"the request {r} is a safety-filter placeholder: its text is the filter's notice, not "
                               "a member's request" for r in ctx.messages["message_id"].to_numpy()[filtered["at"]]])])


@rule("GC8", "error", "invariant", ("atoms", "anchors", "instances", "criteria"),
      "L1: one atom per memory unit, one distractor (the superseded unit) exactly for M3, a reference answer; L2: a rubric only",
      "§3.3 (L1 atoms, the M3 distractor); GROUPASSIST.md §3")
def l1_atoms(ctx) -> pd.DataFrame:
    inst, at, a = ctx.frame("instances"), owned(ctx.frame("atoms"), "atom_id"), ctx.anchors
    keys = ["instance_id", "unit", "distractor"]
    units = a["unit"].notna() & a["instance_id"].notna()
    # the unit holding the superseded anchor is the superseded value: its one atom is the distractor, whatever
    # other anchors of its message or near-duplicates it holds
    want = pd.DataFrame({"instance_id": a["instance_id"][units], "unit": a["unit"][units].astype(float),
                         "distractor": (a["m3_role"] == "superseded")[units]}).groupby(
        ["instance_id", "unit"], as_index=False)["distractor"].max()
    known = (at["instance_id"].notna() & at["unit"].notna() & at["distractor"].notna()).to_numpy()
    vague = set(at.loc[~known, "instance_id"].dropna()) | _units_unknown(ctx)  # an atom or unit unknown: not judged
    at = at[known]
    have = at[keys].astype({"unit": float, "distractor": bool})
    level = inst.drop_duplicates("instance_id").set_index("instance_id")["level"]
    l1 = level.index[level == "L1"]
    stray = ~among(at["instance_id"], l1) & ~among(at["instance_id"], level.index[level.isna()])
    judged = lambda f: among(f["instance_id"], l1) & ~among(f["instance_id"], vague)  # noqa: E731
    unit_keys = ["instance_id", "unit"]
    counted = want.merge(have.value_counts(unit_keys).rename("n").reset_index(), on=unit_keys, how="left").sort_values(
        keys)
    short = counted[judged(counted) & (counted["n"].fillna(0) != 1).to_numpy()]
    # an atom of a memory unit whose distractor flag is wrong is that atom's error, named on it: the unit is one of
    # the instance's, and its count of atoms is right
    placed = have.assign(atom_id=at["atom_id"]).merge(want.rename(columns={"distractor": "superseded"}),
                                                      on=unit_keys, how="left", indicator=True)
    placed = placed[judged(placed)]
    extra = placed[(placed["_merge"] == "left_only").to_numpy()].drop_duplicates(unit_keys)
    flag = placed[(placed["_merge"] == "both").to_numpy() & (placed["distractor"] != placed["superseded"]).to_numpy()]
    # L1 holds its answer in each declared language, L2 in none: the field named is the first that is wrong (an
    # undeclared language's is null, GL2)
    l1_level, fields = inst["level"] == "L1", [f"reference_answer_{lang}" for lang in ctx.languages]
    wrong = [((l1_level != inst[f].notna()) & inst["level"].notna()).to_numpy() for f in fields]
    unanswered = np.logical_or.reduce(wrong)
    answer_field = np.select(wrong, fields, "")[unanswered]
    cited = ctx.frame("criteria")["instance_id"].drop_duplicates()
    rubric = sorted(cited[among(cited, l1)])
    unit = lambda f: "unit " + f["unit"].astype(int).astype(str)  # noqa: E731
    return combined([
        failures("atoms", at["atom_id"][stray], "instance_id", at["instance_id"][stray],
                 "atom not matching one memory unit of an L1 instance"),
        failures("instances", short["instance_id"], "", "",
                 unit(short) + np.where(short["distractor"], " needs exactly one distractor", " needs exactly one atom")),
        failures("instances", extra["instance_id"], "", "", unit(extra) + " is no memory unit of the instance"),
        failures("atoms", flag["atom_id"], "distractor", flag["distractor"],
                 unit(flag) + np.where(flag["superseded"], " holds the superseded anchor: its atom is the distractor",
                                       " holds no superseded anchor: its atom is no distractor")),
        failures("instances", inst["instance_id"][unanswered], answer_field,
                 [inst.at[i, f] for i, f in zip(inst.index[unanswered], answer_field)],
                 "L1 needs a reference answer in each language the release carries, L2 none"),
        failures("instances", rubric, "", "", "L1 instance has rubric criteria")])


@rule("GC9", "error", "invariant", ("criteria", "anchors", "instances", "messages"),
      "L2: M3 has a superseded_value penalty citing the superseded message, which no other criterion cites; a "
      "penalty's evidence (required) and a grounding criterion's lie in its group's history before the cutoff, a "
      "service criterion's too or, for a native instance, its request (the requester's record at the cutoff); only "
      "penalties have a pattern",
      "App. B (superseded-value penalty citing its message; every criterion cites its evidence); App. A.4-A.5 "
      "(grounding from the verified memories; native: the request is the cutoff); App. E.1; GROUPASSIST.md §3")
def l2_rubric(ctx) -> pd.DataFrame:
    c = ctx.frame("criteria")[["criterion_id", "instance_id", "kind", "pattern", "evidence"]].merge(
        ctx.frame("instances")[["instance_id", "group_id", "level", "dependency", "origin", "requester",
                                "cutoff_turn"]], on="instance_id", how="left")
    sup = ctx.anchors.loc[ctx.anchors["m3_role"] == "superseded", ["instance_id", "message_id"]].drop_duplicates(
        "instance_id")
    c["superseded"] = c["instance_id"].map(sup.set_index("instance_id")["message_id"])
    cites = c["evidence"] == c["superseded"]
    penalty = c["kind"] == "penalty"
    parts = [failures("criteria", c["criterion_id"][cites & ~penalty], "evidence", c["evidence"][cites & ~penalty],
                      "a grounding or service criterion cites the superseded message")]
    has = c[penalty & cites & (c["pattern"] == "superseded_value")]["instance_id"]
    inst = ctx.frame("instances")
    m3 = inst[((inst["level"] == "L2") & (inst["dependency"] == "M3")).to_numpy() & ~among(inst["instance_id"], has)]
    parts.append(failures("instances", m3["instance_id"], "", "", "M3 rubric lacks its superseded_value penalty"))
    cited = position_in(c["evidence"], ctx.messages["message_id"])
    turn, group = taken(ctx.messages["turn"], cited), taken(ctx.messages["group_id"], cited)
    # a service criterion may cite the request itself, the requester's record at a native instance's cutoff: an
    # authored query is no message, and any other record of the cutoff turn is one the system does not see
    service = (c["kind"] == "service") & (c["origin"] == "native")
    request = service & (turn == c["cutoff_turn"]) & (taken(ctx.messages["speaker"], cited) == c["requester"])
    seen = (group == c["group_id"]) & ((turn < c["cutoff_turn"]) | request)
    judged = (penalty & c["evidence"].isna()) | (cited >= 0)  # a message no group holds is GS3's (a foreign key)
    late = judged & c["cutoff_turn"].notna() & c["group_id"].notna() & ~seen
    parts.append(failures("criteria", c["criterion_id"][late], "evidence", c["evidence"][late].astype(str),
                          np.where(penalty[late], "penalty evidence missing or not in its group's history before the "
                                   "cutoff", np.where(service[late], "evidence neither in its group's history before the "
                                                      "cutoff nor its request", "evidence not in its group's history before "
                                                      "the cutoff"))))
    pattern = c["pattern"].notna() != penalty
    parts.append(failures("criteria", c["criterion_id"][pattern], "pattern", c["pattern"][pattern].astype(str),
                          "a pattern belongs to penalties and every penalty has one"))
    return combined(parts)


@rule("GC10", "error", "invariant", ("anchors", "messages"),
      "from_assistant equals the cited message's role, and no anchor cites a safety-filter placeholder (its text "
      "is the filter's notice; an attachment's placeholder names what was shared and may be cited)",
      "GROUPASSIST.md §3 (from_assistant); App. A.1 (safety placeholders replace the text, attachments are kept as "
      "placeholders naming them)")
def anchor_source(ctx) -> pd.DataFrame:
    """An anchor citing another group's message is GA1's (`elsewhere`): the role of a message it should not cite
    is not judged."""
    a = ctx.anchors.loc[ctx.anchors["role"].notna() & ~elsewhere(ctx.anchors), [
        "anchor_id", "message_id", "from_assistant", "role", "placeholder"]]
    role = a["from_assistant"] != (a["role"] == "assistant")
    withheld = a["placeholder"] == "safety"
    return combined([failures("anchors", a["anchor_id"][role], "from_assistant", a["from_assistant"][role],
                              [f"disagrees with the cited message's role, {r}" for r in a["role"][role]]),
                     failures("anchors", a["anchor_id"][withheld & ~role], "message_id", a["message_id"][withheld & ~role],
                              "cites a safety-filter placeholder, whose text was withheld")])


@rule("GC11", "error", "invariant", ("anchors",), "anchor facts carry no pointer expression (declared word list)",
      "GROUPASSIST.md §3 (no pointer expression in anchor facts)")
def no_pointers(ctx) -> pd.DataFrame:
    a, pattern = ctx.frame("anchors"), word_pattern(ctx.params["words"]["pointer"])
    parts = []
    for lang in ctx.languages:
        hit = search(a[f"fact_{lang}"], pattern, ignore_case=True).index
        parts.append(failures("anchors", a["anchor_id"][hit], f"fact_{lang}", a[f"fact_{lang}"][hit], "pointer expression"))
    return combined(parts)


@rule("GP1", "error", "provenance", ("feedback", "messages"),
      "a feedback item is a member message of its group right after an assistant reply, holding the wording verbatim: "
      "no safety-filter placeholder, and no other item's message",
      "App. B (feedback: a member message right after an assistant reply, recorded with the member's wording; the 97 "
      "corrections, one a message, clustered 23/24/21/12/17); App. A.1 (safety placeholders replace a message's text)")
def feedback_items(ctx) -> pd.DataFrame:
    """One line per item, naming the first condition it fails (a line naming all four sent the reader to guess). A
    safety placeholder's text is the filter's notice, not the member's wording; a message cited twice counts one
    correction twice in the ranking the weights follow (GP3)."""
    f, m = ctx.frame("feedback"), ctx.messages
    msg = m.reindex(f["message_id"])
    prev = m.set_index(["group_id", "seq"])["role"]
    before = [prev.get((g, s - 1)) if pd.notna(s) else None for g, s in zip(msg["group_id"].tolist(), msg["seq"].tolist())]
    verbatim = {lang: np.array([isinstance(w, str) and isinstance(t, str) and w in t for w, t in zip(
        f[f"wording_{lang}"].tolist(), msg[f"text_{lang}"].tolist())], dtype=bool) for lang in ctx.languages}
    reasons = [  # typed arrays: an empty file gives an empty float array otherwise
        (msg["group_id"].isna().to_numpy(), "message_id", "no message of the release"),
        (msg["group_id"].to_numpy() != f["group_id"].to_numpy(), "message_id", "message of another group"),
        (msg["role"].to_numpy() != "member", "message_id", "not a member's message"),
        (msg["placeholder"].to_numpy() == "safety", "message_id", "a safety-filter placeholder: the filter's notice, "
         "not the member's wording"),
        (np.array(before, dtype=object) != "assistant", "message_id", "the message before it is not an assistant reply"),
        *((~found, f"wording_{lang}", f"wording not verbatim in the message's text_{lang}")
          for lang, found in verbatim.items()),
        ((f["message_id"].notna() & f["message_id"].duplicated()).to_numpy(), "message_id",
         "an earlier feedback item cites this message: one correction is one item")]
    masks = [np.asarray(mask, dtype=bool) for mask, _, _ in reasons]
    bad = np.logical_or.reduce(masks)
    field = np.select(masks, [r[1] for r in reasons], "")[bad]
    return failures("feedback", f["feedback_id"][bad], field, [f.at[i, c] for i, c in zip(f.index[bad], field)],
                    np.select(masks, [r[2] for r in reasons], "")[bad])


@rule("GP2", "error", "provenance", ("audit", "instances", "messages"),
      "an audit row names an excluded instance (not in instances) of a group the release holds, a check of its layer, and "
      "a review quote found verbatim", "App. A.6 (excluded instances kept in the audit log with the reason; quotes found "
      "verbatim)")
def audit_rows(ctx) -> pd.DataFrame:
    au, m = ctx.frame("audit"), ctx.frame("messages")
    checks = ctx.vocab["checks_by_layer"]
    # a quote in a declared language, whether or not the schemas require its texts (GL2's): null texts are dropped
    texts = m.melt("group_id", [f"text_{lang}" for lang in ctx.release.languages])
    text = {g: "\x1f".join(t.dropna().tolist()) for g, t in texts.groupby("group_id")["value"]}
    group = au["instance_id"].str.split(":").str[0]
    kept = among(au["instance_id"], ctx.frame("instances")["instance_id"])
    wrong = ~pd.Series([c in checks.get(layer, []) for layer, c in zip(au["layer"].tolist(), au["check"].tolist())], index=au.index)
    stray = group.notna() & ~group.isin(text)  # its quote is not judged: there is no history to find it in
    quote = pd.Series([pd.isna(q) if layer == "gate" else (isinstance(q, str) and bool(q) and q in text.get(g, ""))
                       for layer, q, g in zip(au["layer"].tolist(), au["quote"].tolist(), group.tolist())], index=au.index)
    quote |= stray
    return combined([failures("audit", au["instance_id"][kept], "instance_id", au["instance_id"][kept], "instance was kept"),
                     failures("audit", au["instance_id"][stray], "instance_id", au["instance_id"][stray],
                              "no group of the release has this identifier's prefix"),
                     failures("audit", au["instance_id"][wrong], "check", au["check"][wrong], "no such check in its layer"),
                     failures("audit", au["instance_id"][~quote], "quote", au["quote"][~quote].astype(str),
                              "review quote not found in the group's history (or a gate row quotes)")])
