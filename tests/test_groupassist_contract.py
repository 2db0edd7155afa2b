"""Releases shaped unlike the specimen but faithful to GROUPASSIST.md pass; each broken in one contract item fails
exactly that item's rule, naming the row."""
from __future__ import annotations

from collections import Counter

import pytest
from realcompanion.validators.groupassist.run import validate
from test_groupassist_rules import Copy


def judged(copy):
    """(rules fired, (rule, row) of each failure) of the saved copy; no rule may crash."""
    copy.save()
    report = validate(copy.root)
    assert not [o.rule.id for o in report.outcomes if o.crashed]
    found = report.failure_frame()
    return report.fired(), set(zip(found["rule"], found["row"]))


def without(copy, dropped):
    """The copy without the instances `dropped` selects, and their anchors, atoms and criteria."""
    gone = {i["instance_id"] for i in copy.rows["instances"] if dropped(i)}
    for name in ("instances", "anchors", "atoms", "criteria"):
        copy.rows[name] = [r for r in copy.rows[name] if r["instance_id"] not in gone]


@pytest.mark.parametrize("dropped", [lambda i: i["origin"] == "native", lambda i: i["dependency"] == "M3",
                                     lambda i: i["origin"] == "authored", lambda i: i["dependency"] != "M3"],
                         ids=["no native", "no M3", "no authored", "M3 only"])
def test_a_release_without_some_kind_of_instance_is_judged(tmp_path, dropped):
    copy = Copy(tmp_path / "release")
    without(copy, dropped)
    assert judged(copy) == (set(), set())


def request_shares_its_turn(copy, instance):
    """Another member's record opens the native request's turn: the request becomes the turn's record `.1`."""
    messages = copy.rows["messages"]
    request = copy.message(f"{instance['group_id']}:m{instance['cutoff_turn']:06d}")
    other = next(m["member_id"] for m in copy.rows["members"]
                 if m["group_id"] == instance["group_id"] and m["member_id"] != request["speaker"])
    messages.insert(messages.index(request), request | {"speaker": other, "reply_to": None, "text_zh": "好的",
                                                         "text_en": "OK"})
    old, request["message_id"] = request["message_id"], request["message_id"] + ".1"
    for m in messages[messages.index(request) + 1:]:
        m["reply_to"] = request["message_id"] if m["reply_to"] == old else m["reply_to"]
    for row in copy.rows["anchors"] + copy.rows["feedback"]:
        row["message_id"] = request["message_id"] if row["message_id"] == old else row["message_id"]
    for row in copy.rows["criteria"]:
        row["evidence"] = request["message_id"] if row["evidence"] == old else row["evidence"]


def test_a_native_request_may_be_a_later_record_of_its_cutoff_turn(tmp_path):
    copy = Copy(tmp_path / "release")
    request_shares_its_turn(copy, copy.instance(origin="native", dependency="M1"))
    assert judged(copy) == (set(), set())


def test_a_native_query_no_record_of_its_turn_holds_fails(tmp_path):
    copy = Copy(tmp_path / "release")
    instance = copy.instance(origin="native", dependency="M1")
    request_shares_its_turn(copy, instance)
    instance["query_en"] = "Where?"
    assert judged(copy) == ({"GC7"}, {("GC7", instance["instance_id"])})


@pytest.mark.parametrize("dependency,role", [("M1", None), ("M3", "current"), ("M3", "superseded")])
def test_an_anchor_in_another_groups_history_fails_gate_i_alone(tmp_path, dependency, role):
    """Its turn is before the cutoff, its span is in the message: it is still not in the instance's history, and
    the invariants that place or attribute anchors do not judge its instance again."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(group_id="G02", origin="authored", dependency=dependency, level="L2")
    anchor = next(a for a in copy.anchors(instance["instance_id"]) if a["unit"] and a["m3_role"] == role)
    elsewhere = copy.free_filler("G03", after=10)
    elsewhere["text_zh"] += anchor["span_zh"]
    elsewhere["text_en"] += anchor["span_en"]
    anchor["message_id"] = elsewhere["message_id"]
    if role == "superseded":  # the penalty follows the superseded message, as a faithful rubric's would
        for criterion in copy.rows["criteria"]:
            if criterion["instance_id"] == instance["instance_id"] and criterion["pattern"] == "superseded_value":
                criterion["evidence"] = elsewhere["message_id"]
        expected = {("GA1", anchor["anchor_id"])} | {
            ("GC9", c["criterion_id"]) for c in copy.rows["criteria"]
            if c["instance_id"] == instance["instance_id"] and c["pattern"] == "superseded_value"}
    else:
        expected = {("GA1", anchor["anchor_id"])}
    assert judged(copy) == ({rule for rule, _ in expected}, expected)


def test_a_penalty_citing_another_groups_message_fails(tmp_path):
    copy = Copy(tmp_path / "release")
    penalty = next(c for c in copy.rows["criteria"] if c["kind"] == "penalty" and c["pattern"] != "superseded_value")
    penalty["evidence"] = copy.free_filler("G04" if not penalty["instance_id"].startswith("G04") else "G03",
                                           before=5)["message_id"]
    assert judged(copy) == ({"GC9"}, {("GC9", penalty["criterion_id"])})


@pytest.mark.parametrize("kind", ["grounding", "service"])
@pytest.mark.parametrize("where", ["another group", "after the cutoff"])
def test_a_criterion_citing_a_message_outside_its_history_fails(tmp_path, kind, where):
    """Every criterion cites the message its evidence comes from (App. B), which a system sees only before the
    cutoff (App. E.1): a grounding or service criterion citing another group's message or a later one fails, as a
    penalty does."""
    copy = Copy(tmp_path / "release")
    criterion = next(c for c in copy.rows["criteria"] if c["kind"] == kind)
    instance = copy.instance(instance_id=criterion["instance_id"])
    group = instance["group_id"]
    criterion["evidence"] = (copy.free_filler("G04" if group != "G04" else "G03", before=5) if where == "another group"
                             else copy.free_filler(group, after=instance["cutoff_turn"]))["message_id"]
    assert judged(copy) == ({"GC9"}, {("GC9", criterion["criterion_id"])})


def test_an_anchor_citing_another_groups_message_is_not_judged_on_that_messages_role(tmp_path):
    """GA1 names an anchor citing another group's message; GC10 judged the role of the message it should not cite
    and named the anchor again (the invariants judge no position or speaker of such an anchor: `elsewhere`). GA2
    still says its span is not in the message it cites."""
    copy = Copy(tmp_path / "release")
    anchor = copy.one("anchors", from_assistant=False, profile_only=False, premise=False)
    group = anchor["instance_id"].split(":")[0]
    anchor["message_id"] = next(m for m in copy.rows["messages"]
                                if m["group_id"] != group and m["role"] == "assistant")["message_id"]
    assert judged(copy) == ({"GA1", "GA2"}, {("GA1", anchor["anchor_id"]), ("GA2", anchor["anchor_id"])})


@pytest.mark.parametrize("kind", ["grounding", "service", "penalty"])
def test_a_criterion_citing_a_message_no_group_holds_fails_gs3_alone(tmp_path, kind):
    """A dangling evidence is one defect, the foreign key's (GS3): GC9 judges where a resolved message lies."""
    copy = Copy(tmp_path / "release")
    criterion = next(c for c in copy.rows["criteria"] if c["kind"] == kind and c["pattern"] != "superseded_value")
    criterion["evidence"] = criterion["instance_id"].split(":")[0] + ":m999999"
    assert judged(copy) == ({"GS3"}, {("GS3", criterion["criterion_id"])})


@pytest.mark.parametrize("kind, fails", [("service", False), ("grounding", True)])
def test_only_a_service_criterion_may_cite_the_native_request(tmp_path, kind, fails):
    """A service criterion may rest on what the request itself asks, and a native request is the cutoff's record
    (App. A.5); a grounding criterion rests on a memory, which lies before the cutoff (gate i)."""
    copy = Copy(tmp_path / "release")
    instance = next(i for i in copy.rows["instances"] if i["origin"] == "native" and i["level"] == "L2")
    request = next(m for m in copy.rows["messages"] if m["group_id"] == instance["group_id"]
                   and m["turn"] == instance["cutoff_turn"] and m["text_zh"] == instance["query_zh"])
    criterion = next(c for c in copy.rows["criteria"] if c["instance_id"] == instance["instance_id"]
                     and c["kind"] == kind)
    criterion["evidence"] = request["message_id"]
    assert judged(copy) == (({"GC9"}, {("GC9", criterion["criterion_id"])}) if fails else (set(), set()))


def test_an_authored_service_criterion_may_not_cite_the_record_at_its_cutoff(tmp_path):
    """An authored query is no message (App. A.5): the record at its cutoff turn is the first one the system does
    not see (App. E.1), not a request a service requirement could rest on."""
    copy = Copy(tmp_path / "release")
    turns = {(m["group_id"], m["turn"]): m for m in copy.rows["messages"]}
    instance = next(i for i in copy.rows["instances"] if i["origin"] == "authored" and i["level"] == "L2"
                    and (i["group_id"], i["cutoff_turn"]) in turns)
    criterion = next(c for c in copy.rows["criteria"] if c["instance_id"] == instance["instance_id"]
                     and c["kind"] == "service")
    criterion["evidence"] = turns[instance["group_id"], instance["cutoff_turn"]]["message_id"]
    assert judged(copy) == ({"GC9"}, {("GC9", criterion["criterion_id"])})


def test_a_native_service_criterion_may_not_cite_another_record_of_its_requests_turn(tmp_path):
    """Records may share a turn (App. D); of the cutoff turn, a system sees none (App. E.1), and only the
    requester's record is the request a service requirement may rest on."""
    copy = Copy(tmp_path / "release")
    instance = next(i for i in copy.rows["instances"] if i["origin"] == "native" and i["level"] == "L2")
    request_shares_its_turn(copy, instance)
    criterion = next(c for c in copy.rows["criteria"] if c["instance_id"] == instance["instance_id"]
                     and c["kind"] == "service")
    criterion["evidence"] = f"{instance['group_id']}:m{instance['cutoff_turn']:06d}"  # the other member's record
    assert judged(copy) == ({"GC9"}, {("GC9", criterion["criterion_id"])})


def test_the_superseded_unit_has_its_distractor_alone_whatever_anchors_it_holds(tmp_path):
    """Anchors of one message share a unit (App. A.4), and the superseded value is recorded as a distractor
    (App. A.5): a second anchor of the superseded message asks for no atom stating the superseded value as correct."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(level="L1", dependency="M3")
    superseded = next(a for a in copy.anchors(instance["instance_id"]) if a["m3_role"] == "superseded")
    message = copy.message(superseded["message_id"])
    anchors = copy.rows["anchors"]
    anchors.insert(anchors.index(superseded) + 1, superseded | {
        "anchor_id": instance["instance_id"] + ":A99", "span_zh": message["text_zh"], "span_en": message["text_en"],
        "m3_role": None})
    assert judged(copy) == (set(), set())


@pytest.mark.parametrize("layer", ["gate", "review"])
def test_an_audit_row_of_a_group_the_release_lacks_fails_once(tmp_path, layer):
    """An excluded instance was built on one of the release's group histories (App. A.6): a row naming a group
    the release does not hold fails, once, however its quote reads."""
    copy = Copy(tmp_path / "release")
    row = copy.one("audit", layer=layer)
    row["instance_id"] = "G99:I0001"
    assert judged(copy) == ({"GP2"}, {("GP2", "G99:I0001")})


def test_an_empty_evidence_span_fails_its_schema(tmp_path):
    """An empty span is found in any text, so gate ii would take it for evidence: the Table Schema (minLength)
    refuses it, and Frictionless with it."""
    copy = Copy(tmp_path / "release")
    anchor = copy.rows["anchors"][0]
    anchor["span_en"] = ""
    assert judged(copy) == ({"GS2"}, {("GS2", anchor["anchor_id"])})


def moved_to_the_end(copy, group="G01", n=5):
    """The group's last `n` records moved after every other group's: its records in two runs, still in order."""
    tail = [m for m in copy.rows["messages"] if m["group_id"] == group][-n:]
    copy.rows["messages"] = [m for m in copy.rows["messages"] if m not in tail] + tail
    return tail


def test_a_groups_records_may_lie_in_two_runs(tmp_path):
    copy = Copy(tmp_path / "release")
    moved_to_the_end(copy)
    assert judged(copy) == (set(), set())


def test_order_is_judged_across_a_groups_runs(tmp_path):
    copy = Copy(tmp_path / "release")
    first = moved_to_the_end(copy)[0]
    first["timestamp"] = "2025-03-01T00:00:00+08:00"  # before the group's first run
    assert judged(copy) == ({"GM2"}, {("GM2", first["message_id"])})


def test_declared_counts_per_group_are_judged(tmp_path):
    copy = Copy(tmp_path / "release")
    descriptor = copy.descriptor()
    descriptor["groupassist"]["groups"]["G02"]["instances"] += 1
    copy.save(restamp=False, descriptor=descriptor)
    report = validate(copy.root)
    found = report.failure_frame()
    assert report.fired() == {"GI2"} and set(zip(found["row"], found["field"])) == {("G02", "")}


def test_an_authored_anchor_at_the_cutoff_fails_gate_i_alone(tmp_path):
    """The distance rule has no distance to judge: the anchor is not before the cutoff at all."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(origin="authored", dependency="M1", level="L2")
    anchor = next(a for a in copy.anchors(instance["instance_id"]) if a["unit"])
    late = copy.free_filler(instance["group_id"], after=instance["cutoff_turn"] - 1)
    late["text_zh"] += anchor["span_zh"]
    late["text_en"] += anchor["span_en"]
    anchor["message_id"] = late["message_id"]
    assert judged(copy) == ({"GA1"}, {("GA1", anchor["anchor_id"])})


def test_an_m3_instance_needs_two_memory_anchors_from_other_members(tmp_path):
    """A member's profile is no memory of the matter (it counts toward no unit), so it cannot stand in for the second
    anchor from another member."""
    copy = Copy(tmp_path / "release")
    instance = copy.instance(instance_id="G02:I0006")
    anchors = copy.anchors(instance["instance_id"])
    updater = copy.message(next(a for a in anchors if a["m3_role"] == "current")["message_id"])["speaker"]
    from_others = [a for a in anchors if a["unit"] and copy.message(a["message_id"])["speaker"] != updater]
    assert any(a["profile_only"] for a in anchors) and len(from_others) == 2
    copy.message(from_others[0]["message_id"])["speaker"] = updater  # one memory anchor from others, and a profile
    assert judged(copy) == ({"GC4"}, {("GC4", instance["instance_id"])})


def cite_placeholder(copy, kind: str, text: tuple[str, str], span: tuple[str, str]) -> dict:
    """The message of a memory anchor nothing else cites becomes a placeholder of `kind`, its text `text`, the
    anchor's spans `span` (verbatim in it: gate ii holds)."""
    cited = Counter(a["message_id"] for a in copy.rows["anchors"])
    cited.update(c["evidence"] for c in copy.rows["criteria"])
    cited.update(f["message_id"] for f in copy.rows["feedback"])
    anchor = next(a for a in copy.rows["anchors"] if cited[a["message_id"]] == 1 and not a["from_assistant"]
                  and not a["profile_only"] and not a["premise"] and a["m3_role"] is None)
    copy.message(anchor["message_id"]).update(placeholder=kind, text_zh=text[0], text_en=text[1])
    anchor.update(span_zh=span[0], span_en=span[1])
    return anchor


def test_an_anchor_may_cite_an_attachment_placeholder(tmp_path):
    """App. A.1: attachments are kept as placeholders that name them; sharing one can be what a member remembers."""
    copy = Copy(tmp_path / "release")
    cite_placeholder(copy, "attachment", ("[文件] 旅行预算.xlsx", "[file] trip_budget.xlsx"),
                     ("旅行预算.xlsx", "trip_budget.xlsx"))
    assert judged(copy) == (set(), set())


def test_an_anchor_citing_a_safety_placeholder_fails(tmp_path):
    """A safety placeholder's text is the filter's notice (App. A.1): a span found in it is evidence of nothing."""
    copy = Copy(tmp_path / "release")
    notice = ("[该消息已被安全过滤]", "[message removed by the safety filter]")
    anchor = cite_placeholder(copy, "safety", notice, notice)
    assert judged(copy) == ({"GC10"}, {("GC10", anchor["anchor_id"])})


def test_order_is_judged_whatever_rfc_3339_spelling_each_record_uses(tmp_path):
    """RFC 3339 allows fractional seconds and Z beside numeric offsets; a record spelled unlike the file's first
    one is still placed in time (it was read as no time at all, so going back passed)."""
    copy = Copy(tmp_path / "release")
    group = [m for m in copy.rows["messages"] if m["group_id"] == "G02"]
    group[5]["timestamp"] = "2025-03-01T00:00:00.5Z"  # before the group's first record
    group[6]["timestamp"] = group[6]["timestamp"].replace("+08:00", ".250+08:00")  # faithful, in order
    assert judged(copy) == ({"GM2"}, {("GM2", group[5]["message_id"])})


def test_a_distance_failure_shows_the_cutoff_the_file_holds(tmp_path):
    """The value a failure line shows is the file's; the distance it computed goes into the message."""
    copy = Copy(tmp_path / "release")
    instance = min((i for i in copy.rows["instances"] if (i["origin"], i["dependency"], i["level"]) == (
        "authored", "M1", "L1")), key=lambda i: i["cutoff_turn"])  # room in its group for a cutoff 300 later
    instance["cutoff_turn"] += 300
    copy.save()
    found = validate(copy.root).failure_frame()
    row = found[found["rule"] == "GC6"].iloc[0]
    assert (row["row"], row["field"], row["value"]) == (instance["instance_id"], "cutoff_turn",
                                                        str(instance["cutoff_turn"]))
    assert row["message"].endswith("messages between the last anchor and the cutoff, outside 20-200")


@pytest.mark.parametrize("resource", ["feedback", "audit"])
def test_an_empty_provenance_file_fails_its_header_alone(tmp_path, resource):
    """A release with no feedback item (no assistant in the history) or no excluded instance: only the missing
    header is reported; the provenance rule judges no rows instead of crashing on them."""
    copy = Copy(tmp_path / "release")
    copy.rows[resource] = []
    assert judged(copy)[0] == {"GS5"}
