"""The construction invariants read on the texts (validators/groupassist/construction.py, GA3's word lists, GC5):
each rule's mutation lives in test_groupassist_rules.py; here are the variations the paper allows, which must stay
VALID, and the branches and spellings a rule must still catch."""
from __future__ import annotations

import json

import pytest
from realcompanion.validators.groupassist.gates import inflected
from realcompanion.validators.groupassist.run import validate
from test_groupassist_rules import (FILLER, Copy, changed_again, earlier_filler, gc16, last_authored, lone_group,
                                   relay, superseded_restated)


def fired(copy) -> set[str]:
    copy.save()
    return validate(copy.root).fired()


def m3_pair(c, level=None, **where):
    i = c.instance(dependency="M3", **({"level": level} if level else {}), **where)
    anchors = c.anchors(i["instance_id"])
    return i, next(a for a in anchors if a["m3_role"] == "superseded"), next(a for a in anchors if a["m3_role"] == "current")


def request_of(c, i):
    """A native instance's request record: its requester's message at the cutoff turn holding its query."""
    return next(m for m in c.rows["messages"] if m["group_id"] == i["group_id"] and m["turn"] == i["cutoff_turn"]
                and m["speaker"] == i["requester"] and m["text_zh"] == i["query_zh"])


def restated(c):
    """A native M1 L2 instance, its memory anchor, and a later filler member message before the cutoff now stating
    the anchor's span again."""
    i = c.instance(origin="native", dependency="M1", level="L2")
    a = next(a for a in c.anchors(i["instance_id"]) if a["unit"])
    m = c.free_filler(i["group_id"], after=c.message(a["message_id"])["turn"], before=i["cutoff_turn"])
    m["text_zh"] += a["span_zh"]
    m["text_en"] += " " + a["span_en"]
    return i, a, m


def test_a_restated_fact_anchored_again_in_its_own_unit_is_valid(tmp_path):
    """GC12's near-miss: near-duplicate facts merged into one memory unit, the instance still M1."""
    c = Copy(tmp_path / "release")
    i, a, m = restated(c)
    again = a | {"anchor_id": f"{i['instance_id']}:A{len(c.anchors(i['instance_id'])) + 1:02d}",
                 "message_id": m["message_id"], "fact_en": a["fact_en"].upper()}  # the same fact, other case
    c.rows["anchors"].insert(c.rows["anchors"].index(a) + 1, again)
    assert fired(c) == set()


def test_a_scored_atom_naming_a_longer_number_is_valid(tmp_path):
    """GC13's near-miss: a number that begins with the superseded value's is another value."""
    c = Copy(tmp_path / "release")
    i, old, new = m3_pair(c, "L1")
    scored = next(t for t in c.rows["atoms"] if t["instance_id"] == i["instance_id"] and t["unit"] == new["unit"])
    scored["text_zh"] += f"（不是{old['span_zh'][:-1]}7号）"
    scored["text_en"] += f" (not {old['span_en']}7)"
    assert fired(c) == set()


def test_a_reference_answer_stating_the_superseded_value_fails(tmp_path):
    c = Copy(tmp_path / "release")
    i, old, _ = m3_pair(c, "L1")
    i["reference_answer_en"] += f"; earlier it was {old['span_en'].upper()}"  # in another case: the same value
    copy_fired = fired(c)
    assert copy_fired == {"GC13"}


def test_a_grounding_criterion_may_cite_any_anchor_of_its_instance(tmp_path):
    """GC14's near-miss: a grounding criterion citing another of its instance's anchor messages."""
    c = Copy(tmp_path / "release")
    for i in c.rows["instances"]:
        grounding = [r for r in c.rows["criteria"] if r["instance_id"] == i["instance_id"] and r["kind"] == "grounding"]
        if len({g["evidence"] for g in grounding}) > 1:
            grounding[0]["evidence"] = grounding[1]["evidence"]
            break
    assert fired(c) == set()


def test_a_service_criterion_stating_the_superseded_value_fails(tmp_path):
    c = Copy(tmp_path / "release")
    i, old, _ = m3_pair(c, "L2")
    service = next(r for r in c.rows["criteria"] if r["instance_id"] == i["instance_id"] and r["kind"] == "service")
    service["text_zh"] += f"，去{old['span_zh']}"
    assert fired(c) == {"GC14"}


def test_a_relayed_fact_a_member_wrote_in_another_case_is_relayed(tmp_path):
    """GC15's near-miss: the member's statement and the relay differ in case and width only."""
    c = Copy(tmp_path / "release")
    _, said = relay(c)
    said["text_en"] = said["text_en"].upper()
    assert fired(c) == set()


def test_a_native_request_answered_later_by_a_reply_to_it_is_a_service_point(tmp_path):
    """GC16's near-miss: the record after the request is a member's, but an assistant record replies to it."""
    c = Copy(tmp_path / "release")
    _, iid = gc16(c)
    i = c.instance(instance_id=iid)
    request = request_of(c, i)
    later = next(m for m in c.rows["messages"][c.rows["messages"].index(request) + 2:]
                 if m["group_id"] == i["group_id"] and m["role"] == "assistant" and m["reply_to"] is None)
    later["reply_to"] = request["message_id"]
    assert fired(c) == set()


def test_a_native_request_mentioning_the_assistant_is_a_service_point(tmp_path):
    """GC16's near-miss: no assistant record follows or answers it, but it names `@assistant`."""
    c = Copy(tmp_path / "release")
    i = c.instance(origin="native")
    request = request_of(c, i)
    reply = c.rows["messages"][c.rows["messages"].index(request) + 1]
    reply.update(role="member", speaker=request["speaker"], reply_to=None)
    assert fired(c) == set()


def test_an_earlier_message_holding_the_span_inside_a_longer_number_is_no_earlier_statement(tmp_path):
    """GC17's near-miss: "Library No. 10037" before the anchor does not state "Library No. 1003"."""
    c = Copy(tmp_path / "release")
    a, m = earlier_filler(c)
    m["text_zh"] += a["span_zh"][:-1] + "7号"
    m["text_en"] += " " + a["span_en"] + "7"
    assert fired(c) == set()


def test_another_members_earlier_words_do_not_state_a_members_profile(tmp_path):
    """GC17's near-miss: a profile is its member's; another member said the same words first."""
    c = Copy(tmp_path / "release")
    a = c.one("anchors", profile_only=True)
    cited = c.message(a["message_id"])
    profiles = [c.message(x["message_id"]) for x in c.rows["anchors"] if x["profile_only"]]
    m = next(m for m in c.rows["messages"] if m["group_id"] == cited["group_id"] and m["turn"] < cited["turn"]
             and m["speaker"] not in (cited["speaker"], "assistant") and m["text_zh"] in FILLER
             and m["message_id"] not in {x["message_id"] for x in c.rows["anchors"]}
             and not any(p["group_id"] == m["group_id"] and p["speaker"] == m["speaker"] and p["turn"] > m["turn"]
                         for p in profiles))  # no profile of this member's is anchored later
    m["text_zh"], m["text_en"] = cited["text_zh"], cited["text_en"]
    assert fired(c) == set()


def test_a_change_of_the_matter_after_the_cutoff_is_valid(tmp_path):
    """GC18's near-miss: the matter changes again, but after the cutoff: still current at it."""
    c = Copy(tmp_path / "release")
    changed_again(c, after_cutoff=True)
    assert fired(c) == set()


def test_the_current_value_restated_with_a_change_word_is_no_change(tmp_path):
    """GC18's near-miss: the change word and the matter's words, but the value named is the current one."""
    c = Copy(tmp_path / "release")
    i, m = changed_again(c)
    new = next(a for a in c.anchors(i["instance_id"]) if a["m3_role"] == "current")
    m["text_zh"] = m["text_zh"].replace("咖啡馆9999号", new["span_zh"])
    m["text_en"] = m["text_en"].replace("Cafe No. 9999", new["span_en"])
    assert fired(c) == set()


def test_a_member_named_beside_a_change_word_is_not_the_matter(tmp_path):
    """GC18's near-miss: the pair's facts say whose the matter is (a member's seat), and a later message names that
    member, another matter of theirs and a change word; the name is no word of the matter."""
    c = Copy(tmp_path / "release")
    i, m = changed_again(c)
    name = c.message(next(a for a in c.anchors(i["instance_id"]) if a["m3_role"] == "current")["message_id"])["speaker"]
    for a in c.anchors(i["instance_id"]):
        if a["m3_role"]:
            a["fact_en"], a["fact_zh"] = f"{name}'s seat is {a['span_en']}", f"{name}的座位是{a['span_zh']}"
    m["text_en"], m["text_zh"] = f"{name}'s seating order changed.", f"{name}的座次变了。"
    assert fired(c) == set()


def optional_beside_two(c):
    """An L2 rubric with three mandatory criteria, one of its services made optional (weight 1)."""
    for i in c.rows["instances"]:
        rubric = [r for r in c.rows["criteria"] if r["instance_id"] == i["instance_id"] and r["kind"] != "penalty"]
        services = [r for r in rubric if r["kind"] == "service"]
        if len(rubric) == 3 and services:
            services[-1].update(mandatory=False, weight=1)
            return i["instance_id"]


def test_an_optional_criterion_beside_too_few_mandatory_ones_fails(tmp_path):
    c = Copy(tmp_path / "release")
    iid = optional_beside_two(c)
    c.save()
    found = validate(c.root).failure_frame()
    assert list(zip(found["rule"], found["row"])) == [("GA6", iid)], found.to_string()


def test_an_optional_criterion_of_its_own_is_valid_under_the_other_reading(tmp_path):
    """GA6's near-miss: a release that declares optional criteria need not be downgrades."""
    c = Copy(tmp_path / "release")
    optional_beside_two(c)
    c.save()
    descriptor = c.descriptor()
    descriptor["groupassist"]["rubric"]["optional_only_downgraded"] = False
    (c.root / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    assert validate(c.root).fired() == set()


def test_weights_tied_across_unequal_counts_follow_the_ranking(tmp_path):
    """GP3's near-miss: fewer items for a pattern that weighs as much as the others, not more."""
    c = Copy(tmp_path / "release")
    c.rows["feedback"].remove(c.one("feedback", pattern="agreement_or_persona"))
    assert fired(c) == set()


@pytest.mark.parametrize("word, hits, misses", [
    ("change", ["changes", "changed", "changing", "change"], ["exchange", "chang", "changer"]),
    ("memory", ["memory", "memories"], ["memor", "memoryless"]),
    ("mentioned above", ["mentioned above"], ["mentioned aboveground"]),
])
def test_an_english_word_is_matched_in_its_inflected_forms_only(word, hits, misses):
    import re

    pattern = re.compile(rf"\b{inflected(word)}\b", re.IGNORECASE)
    assert [w for w in hits if not pattern.fullmatch(w)] == []
    assert [w for w in misses if pattern.fullmatch(w)] == []


@pytest.mark.parametrize("zh, en", [("", " The plan changes often."), ("现在", ""), ("", " Please recall it."),
                                    ("地点改到哪了？", ""), ("记忆里", "")])
def test_an_m3_query_with_an_inflected_or_chinese_hint_fails_gate_iii(tmp_path, zh, en):
    c = Copy(tmp_path / "release")
    i, _, _ = m3_pair(c, origin="authored")
    i["query_zh"] = zh + i["query_zh"]
    i["query_en"] += en
    assert fired(c) == {"GA3"}


def test_an_m3_query_naming_an_exchange_passes_gate_iii(tmp_path):
    c = Copy(tmp_path / "release")
    i, _, _ = m3_pair(c, origin="authored")
    i["query_en"] += " Meet at the exchange."
    assert fired(c) == set()


@pytest.mark.parametrize("zh", ["改天再约。", "孩子这次数学考试的分数出来了吗？", "上半场我们队得分多少？", "帮我们回忆一下："])
def test_an_ordinary_chinese_request_passes_gate_iii(tmp_path, zh):
    """The default lists' near misses (descriptor.schema.json `words`): "some other day", an exam's or a match's
    score and "help us remember" name no evaluation dimension and hint at no change, in an M3 query too."""
    c = Copy(tmp_path / "release")
    i, _, _ = m3_pair(c, origin="authored")
    i["query_zh"] = zh + i["query_zh"]
    assert fired(c) == set()


def test_a_superseded_value_restated_in_another_case_is_no_longer_current(tmp_path):
    """GC5 compares texts as every rule does: case, width and spacing aside."""
    c = Copy(tmp_path / "release")
    i, old, new = m3_pair(c)
    m = c.free_filler(i["group_id"], after=c.message(new["message_id"])["turn"], before=i["cutoff_turn"])
    m["text_en"] += " " + old["span_en"].upper().replace(" ", "  ")
    assert fired(c) == {"GC5"}


def test_a_longer_number_after_the_update_leaves_the_value_current(tmp_path):
    c = Copy(tmp_path / "release")
    i, old, new = m3_pair(c)
    m = c.free_filler(i["group_id"], after=c.message(new["message_id"])["turn"], before=i["cutoff_turn"])
    m["text_zh"] += old["span_zh"][:-1] + "7号"
    m["text_en"] += " " + old["span_en"] + "7"
    assert fired(c) == set()


def test_an_m3_pair_merged_into_one_memory_unit_fails(tmp_path):
    """GC3: the two values of an L2 pair numbered one unit; the instance keeps two units, so only the pair shows it."""
    c = Copy(tmp_path / "release")
    _, old, new = m3_pair(c, "L2")
    old["unit"] = new["unit"]
    report = (c.save(), validate(c.root))[1]
    found = report.failure_frame()
    assert report.fired() == {"GC3"}
    assert found[["resource", "row", "field"]].values.tolist() == [["anchors", new["anchor_id"], "unit"]]


def test_an_m3_pair_beside_a_restatement_of_the_old_value_in_its_unit_is_valid(tmp_path):
    """GC3's near-miss: a second anchor on the superseded value's message shares the old value's unit, not the new."""
    c = Copy(tmp_path / "release")
    i, old, _ = m3_pair(c, "L2")
    again = old | {"anchor_id": f"{i['instance_id']}:A{len(c.anchors(i['instance_id'])) + 1:02d}", "m3_role": None}
    c.rows["anchors"].insert(c.rows["anchors"].index(old) + 1, again)
    assert fired(c) == set()


def test_a_member_who_never_speaks_is_a_member(tmp_path):
    """GM7's near-miss: a member of a group the release holds, with a profile, who wrote no message."""
    c = Copy(tmp_path / "release")
    c.rows["members"].append({"group_id": "G01", "member_id": "member_99", "profile": "喜欢读书 / likes reading"})
    assert fired(c) == set()


def test_a_member_named_assistant_fails(tmp_path):
    """GM7: a conversion that lists every speaker as a member makes the assistant one."""
    c = Copy(tmp_path / "release")
    c.rows["members"].append({"group_id": "G02", "member_id": "assistant", "profile": None})
    report = (c.save(), validate(c.root))[1]
    assert report.fired() == {"GM7"}
    assert report.failure_frame()[["row", "field"]].values.tolist() == [["G02:assistant", "member_id"]]


def test_a_premise_the_query_states_in_another_case_is_its_query(tmp_path):
    """GC19's near-miss: the query states its premise in capitals and full-width digits."""
    c = Copy(tmp_path / "release")
    p = c.one("anchors", premise=True)
    i = c.instance(instance_id=p["instance_id"])
    i["query_en"] = i["query_en"].replace(p["span_en"], p["span_en"].upper())
    i["query_zh"] = i["query_zh"].translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    assert fired(c) == set()


def test_an_atom_stating_another_fact_of_its_own_unit_is_valid(tmp_path):
    """GC20's near-miss: a unit of two anchors on one message; its atom copies the second anchor's fact."""
    c = Copy(tmp_path / "release")
    a = next(a for a in c.rows["anchors"] if a["unit"] and sum(
        b["instance_id"] == a["instance_id"] and b["unit"] == a["unit"] for b in c.rows["anchors"]) > 1
        and c.instance(instance_id=a["instance_id"])["level"] == "L1" and a["anchor_id"] != next(
            b for b in c.rows["anchors"] if b["instance_id"] == a["instance_id"] and b["unit"] == a["unit"])["anchor_id"])
    atom = c.one("atoms", instance_id=a["instance_id"], unit=a["unit"])
    assert atom["text_en"] != a["fact_en"]
    atom["text_zh"], atom["text_en"] = a["fact_zh"], a["fact_en"]
    assert fired(c) == set()


def test_a_blank_span_is_one_line(tmp_path):
    """GS7: a span of whitespace passes minLength and is in nearly any message; it is evidence of nothing, reported
    once, by the rule that reads every text field the schemas ask content of (gate ii finds it, so GA2 stays quiet)."""
    c = Copy(tmp_path / "release")
    a = next(a for a in c.rows["anchors"] if a["unit"] and not a["from_assistant"])
    a["span_en"] = " "
    report = (c.save(), validate(c.root))[1]
    found = report.failure_frame()
    assert report.fired() == {"GS7"}
    assert found.loc[found["rule"] == "GS7", ["row", "field"]].values.tolist() == [[a["anchor_id"], "span_en"]]


def test_a_span_with_the_space_before_it_is_verbatim(tmp_path):
    """GA2's near-miss: a span that keeps the space before its words, as the message has it."""
    c = Copy(tmp_path / "release")
    a = next(a for a in c.rows["anchors"] if a["unit"] and f" {a['span_en']}" in c.message(a["message_id"])["text_en"])
    a["span_en"] = f" {a['span_en']}"
    assert fired(c) == set()


def test_a_native_request_the_safety_filter_replaced_fails(tmp_path):
    """GC7: the query is the request's text verbatim, but that text is the filter's notice."""
    c = Copy(tmp_path / "release")
    i = c.instance(origin="native")
    request = request_of(c, i)
    notice = c.one("messages", placeholder="safety")
    request.update(placeholder="safety", text_zh=notice["text_zh"], text_en=notice["text_en"])
    i["query_zh"], i["query_en"] = notice["text_zh"], notice["text_en"]
    report = (c.save(), validate(c.root))[1]
    assert report.fired() == {"GC7"}
    assert report.failure_frame()[["row", "field"]].values.tolist() == [[i["instance_id"], "query_zh"]]


def test_a_native_request_naming_an_attachment_is_a_request(tmp_path):
    """GC7's near-miss: a request sent with an attachment keeps its words; its placeholder names what was shared."""
    c = Copy(tmp_path / "release")
    i = c.instance(origin="native")
    request = request_of(c, i)
    request["placeholder"] = "attachment"
    assert fired(c) == set()


def test_an_update_of_the_matter_in_an_authored_range_is_one_line_naming_the_cutoff(tmp_path):
    c = Copy(tmp_path / "release")
    j = superseded_restated(c)
    c.save()
    found = validate(c.root).failure_frame()
    assert found[["rule", "resource", "row", "field"]].values.tolist() == [
        ["GC21", "instances", j["instance_id"], "cutoff_turn"]], found.to_string()


def test_an_update_of_the_matter_at_the_cutoff_is_valid(tmp_path):
    """GC21's near-miss: the update falls at the cutoff, not before it: the range holds no update."""
    c = Copy(tmp_path / "release")
    superseded_restated(c, cutoff=0)
    assert fired(c) == set()


def test_an_update_of_another_matter_in_an_authored_range_is_valid(tmp_path):
    """GC21's near-miss: the update in the range is of the pair's matter, the anchor states another (the pair's
    instance's other memory)."""
    c = Copy(tmp_path / "release")
    superseded_restated(c, role=None)

def test_a_group_of_two_members_one_of_them_silent_is_a_group_chat(tmp_path):
    """GM8's near-miss: a second member on the roster who never speaks."""
    c = Copy(tmp_path / "release")
    lone_group(c.rows, roster=("member_01", "member_02"))
    assert fired(c) == set()


def test_a_cutoff_right_after_the_last_turn_is_the_whole_history(tmp_path):
    """GM9's near-miss: an authored instance that sees its group's whole history."""
    c = Copy(tmp_path / "release")
    i, end = last_authored(c)
    i["cutoff_turn"] = end + 1
    assert fired(c) == set()


def after_a_reply(c, f):
    """A filler member message of `f`'s group right after an assistant reply, nothing citing it."""
    ms, cited = c.rows["messages"], c.cited()
    return next(m for k, m in enumerate(ms) if k and ms[k - 1]["role"] == "assistant" and m["text_zh"] in FILLER
                and ms[k - 1]["group_id"] == m["group_id"] == f["group_id"] and m["message_id"] not in cited)


def heaviest(c):
    """A feedback item of a pattern with the heaviest penalty weight: one more item of it keeps the ranking (GP3)."""
    weights = c.descriptor()["groupassist"]["weights"]["penalty"]
    return min(c.rows["feedback"], key=lambda f: weights[f["pattern"]])


@pytest.mark.parametrize("break_", ["notice", "twice"])
def test_a_feedback_item_on_a_filter_notice_or_on_another_items_message_fails(tmp_path, break_):
    """GP1: the notice of the safety filter is no member's wording; a message cited by two items is one correction
    counted twice."""
    c = Copy(tmp_path / "release")
    f = heaviest(c)
    if break_ == "notice":
        m = c.message(f["message_id"])
        m["placeholder"], m["text_zh"], m["text_en"] = "safety", "[该消息已被安全过滤]", "[message removed by the safety filter]"
        f["wording_zh"], f["wording_en"] = m["text_zh"], m["text_en"]
    else:
        c.rows["feedback"].append(f | {"feedback_id": f"{f['group_id']}:F099"})
    report = (c.save(), validate(c.root))[1]
    assert report.fired() == {"GP1"}
    assert report.failure_frame()[["row", "field"]].values.tolist() == [
        [f["feedback_id"] if break_ == "notice" else f"{f['group_id']}:F099", "message_id"]]


def test_two_members_correcting_the_assistant_in_the_same_words_are_two_items(tmp_path):
    """GP1's near-miss: another message right after an assistant reply holds the same correction, its own item."""
    c = Copy(tmp_path / "release")
    f = heaviest(c)
    m, said = after_a_reply(c, f), c.message(f["message_id"])
    m["text_zh"], m["text_en"] = said["text_zh"], said["text_en"]
    c.rows["feedback"].append(f | {"feedback_id": f"{f['group_id']}:F099", "message_id": m["message_id"]})
    assert fired(c) == set()


def test_an_m3_update_marked_profile_only_fails(tmp_path):
    """GC3: the current value marked as a member's profile counts toward no unit; one line, on its flag."""
    c = Copy(tmp_path / "release")
    _, _, new = m3_pair(c, "L2")
    new["profile_only"], new["unit"] = True, None
    report = (c.save(), validate(c.root))[1]
    assert report.fired() == {"GC3"}
    assert report.failure_frame()[["row", "field"]].values.tolist() == [[new["anchor_id"], "profile_only"]]


def test_a_members_profile_beside_an_m3_pair_is_valid(tmp_path):
    """GC3's near-miss: an M3 instance also anchors a member's profile, which is no value of its pair."""
    c = Copy(tmp_path / "release")
    i, _, _ = m3_pair(c, "L2")
    turn = {m["message_id"]: m["turn"] for m in c.rows["messages"]}
    profile = next(a for a in c.rows["anchors"] if a["profile_only"] and a["instance_id"].startswith(i["group_id"])
                   and turn[a["message_id"]] < i["cutoff_turn"] and a["instance_id"] != i["instance_id"])
    c.rows["anchors"].insert(c.rows["anchors"].index(c.anchors(i["instance_id"])[-1]) + 1, profile | {
        "anchor_id": f"{i['instance_id']}:A{len(c.anchors(i['instance_id'])) + 1:02d}", "instance_id": i["instance_id"]})
    assert fired(c) == set()


def test_a_unit_joined_through_an_anchor_of_both_message_and_fact_is_one_memory(tmp_path):
    """GC22's near-miss: A and B cite one message, B and C state one fact (C in capitals, on a later message); A and C
    share neither, yet the unit is one memory."""
    c = Copy(tmp_path / "release")
    i, a, m = restated(c)
    n = len(c.anchors(i["instance_id"]))
    b = a | {"anchor_id": f"{i['instance_id']}:A{n + 1:02d}", "fact_zh": a["fact_zh"] + "，已确认",
             "fact_en": a["fact_en"] + ", confirmed"}
    later = b | {"anchor_id": f"{i['instance_id']}:A{n + 2:02d}", "message_id": m["message_id"],
                 "fact_en": b["fact_en"].upper()}
    at = c.rows["anchors"].index(c.anchors(i["instance_id"])[-1]) + 1
    c.rows["anchors"][at:at] = [b, later]
    assert fired(c) == set()
