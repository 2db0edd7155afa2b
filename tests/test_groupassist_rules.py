"""Every GroupAssistBench rule fires on a copy of the specimen broken in exactly its way, naming the row; every
line names a field of its resource, or none (tests/failure_lines.py)."""
from __future__ import annotations

import json
import shutil

import pytest
from failure_lines import misnamed
from left_out import leave_out
from realcompanion.validators.catalogue import as_text
from realcompanion.validators.declared import declared_rules
from realcompanion.validators.groupassist.catalogue import all_rules
from realcompanion.validators.groupassist.run import validate
from realcompanion.validators.terminal import render

from realcompanion.formats.groupassist import SPECIMEN, GroupAssistRelease
from realcompanion.formats.groupassist.synth import stamp
from realcompanion.formats.groupassist.text import FILLER_MEMBER
from realcompanion.schemas import dump_json

FILLER = {zh for zh, _ in FILLER_MEMBER}


class Copy:
    """A copy of the specimen as rows per resource; `save` writes it back (re-stamped unless told)."""

    def __init__(self, root):
        shutil.copytree(SPECIMEN, root)
        self.root = root
        self.rows = {p.stem: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
                     for p in (root / "data").glob("*.jsonl")}

    def one(self, resource, **where):
        return next(r for r in self.rows[resource] if all(r[k] == v for k, v in where.items()))

    def instance(self, **where):
        return self.one("instances", **where)

    def anchors(self, iid):
        return [a for a in self.rows["anchors"] if a["instance_id"] == iid]

    def message(self, message_id):
        return self.one("messages", message_id=message_id)

    def cited(self) -> set:
        """The messages an anchor, a criterion, a reply or a feedback item cites."""
        return {a["message_id"] for a in self.rows["anchors"]} | {c["evidence"] for c in self.rows["criteria"]} | \
               {m["reply_to"] for m in self.rows["messages"]} | {f["message_id"] for f in self.rows["feedback"]}

    def free_filler(self, group, after=-1, before=10**9):
        """A filler member message nothing cites, strictly between two turns."""
        cited = self.cited()
        return next(m for m in self.rows["messages"] if m["group_id"] == group and after < m["turn"] < before
                    and m["text_zh"] in FILLER and m["message_id"] not in cited and "." not in m["message_id"])

    def descriptor(self):
        return json.loads((self.root / "datapackage.json").read_text(encoding="utf-8"))

    def save(self, restamp=True, descriptor=None):
        for name, rows in self.rows.items():
            text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in rows)
            (self.root / "data" / f"{name}.jsonl").write_text(text, encoding="utf-8")
        if restamp:
            stamp(self.root)
        if descriptor:
            (self.root / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")


def gs1(c):
    m = c.free_filler("G01")
    m["turn"] = "five"
    return "messages", m["message_id"]


def gs2(c):
    i = c.rows["instances"][3]
    i["level"] = "L3"
    return "instances", i["instance_id"]


def gs3(c):
    iid = c.instance(origin="native", dependency="M1")["instance_id"]
    a = next(a for a in c.anchors(iid) if a["unit"])
    a["message_id"] = "G01:m999999"
    return "anchors", a["anchor_id"]


def gs4(c):
    m = [m for m in c.rows["messages"] if m["group_id"] == "G01"][-1]
    m["timestamp"] = m["timestamp"][:19]
    return "messages", m["message_id"]


def gs7(c):
    """A span of whitespace alone: it meets minLength and is found in nearly any message."""
    a = c.rows["anchors"][0]
    a["span_en"] = " "
    return "anchors", a["anchor_id"]


def gs5(c):
    first = c.rows["audit"][0]
    c.rows["audit"][0] = dict(reversed(list(first.items())))
    return "audit", "line 1"


def gm1(c):
    m = c.free_filler("G01")
    m["message_id"] += ".7"
    return "messages", m["message_id"]


def gm2(c):
    m = c.free_filler("G01", after=100)
    m["timestamp"] = "2025-01-01T00:00:00+08:00"
    return "messages", m["message_id"]


def gm3(c):
    m = c.free_filler("G01")
    m["speaker"] = "stranger"
    return "messages", m["message_id"]


def gm4(c):
    m = c.free_filler("G01", after=100)
    m["reply_to"] = c.rows["messages"][c.rows["messages"].index(m) + 1]["message_id"]
    return "messages", m["message_id"]


def gm5(c):
    m = c.free_filler("G01")
    m["text_en"] = "x" * (c.descriptor()["groupassist"]["max_message_chars"] + 1)
    return "messages", m["message_id"]


def gm6(c):
    f = c.rows["feedback"][0]
    f["feedback_id"] = "G09:F001"
    return "feedback", "G09:F001"


def ga1(c):
    a = next(a for a in c.rows["anchors"] if a["premise"])
    inst = c.instance(instance_id=a["instance_id"])
    m = c.free_filler(inst["group_id"], after=inst["cutoff_turn"])
    m["text_zh"] += a["span_zh"]
    m["text_en"] += a["span_en"]
    a["message_id"] = m["message_id"]
    return "anchors", a["anchor_id"]


def ga2(c):
    a = c.rows["anchors"][0]
    a["span_en"] = "Nowhere No. 0000"
    return "anchors", a["anchor_id"]


def ga3(c):
    i = c.instance(origin="authored", level="L1")
    i["query_en"] += " Use your memory."
    return "instances", i["instance_id"]


def ga4(c):
    descriptor = c.descriptor()
    first = min(c.rows["instances"], key=lambda i: i["cutoff_turn"])
    descriptor["groupassist"]["min_history"] = first["cutoff_turn"] + 50
    c.save(descriptor=descriptor)
    return "instances", first["instance_id"]


def ga5(c):
    g = c.one("criteria", kind="grounding", mandatory=True)
    g["weight"] = 5
    return "criteria", g["criterion_id"]


def gc1(c):
    i = c.instance(dependency="M1", level="L2")
    i["dependency"] = "M2"
    return "instances", i["instance_id"]


def gc2(c):
    for i in c.rows["instances"]:
        anchors = [a for a in c.anchors(i["instance_id"]) if a["unit"]]
        if i["level"] == "L2" and len({a["message_id"] for a in anchors}) < len(anchors):
            anchors[-1]["unit"] = 9
            return "anchors", anchors[-1]["anchor_id"]


def gc3(c):
    i = c.instance(dependency="M1")
    c.anchors(i["instance_id"])[0]["m3_role"] = "current"
    return "instances", i["instance_id"]


def gc4(c):
    i = c.instance(dependency="M3")
    anchors = c.anchors(i["instance_id"])
    updater = c.message(next(a for a in anchors if a["m3_role"] == "current")["message_id"])["speaker"]
    support = next(a for a in anchors if a["m3_role"] is None and a["unit"])
    c.message(support["message_id"])["speaker"] = updater
    return "instances", i["instance_id"]


def gc5(c):
    i = c.instance(dependency="M3")
    anchors = c.anchors(i["instance_id"])
    old = next(a for a in anchors if a["m3_role"] == "superseded")
    new = c.message(next(a for a in anchors if a["m3_role"] == "current")["message_id"])
    m = c.free_filler(i["group_id"], after=new["turn"], before=i["cutoff_turn"])
    m["text_zh"] += old["span_zh"]
    m["text_en"] += old["span_en"]
    return "instances", i["instance_id"]


def gc6(c):
    i = c.instance(origin="authored")
    i["query_type"] = None
    return "instances", i["instance_id"]


def gc7(c):
    i = c.instance(origin="native")
    i["query_en"] = "Where?"
    return "instances", i["instance_id"]


def gc8(c):
    atom = c.one("atoms", distractor=False)
    c.rows["atoms"].remove(atom)
    return "instances", atom["instance_id"]


def gc9(c):
    s = c.one("criteria", kind="service")
    s["pattern"] = "recalled_fact"
    return "criteria", s["criterion_id"]


def gc10(c):
    a = c.one("anchors", from_assistant=False, profile_only=False)
    a["from_assistant"] = True
    return "anchors", a["anchor_id"]


def gc11(c):
    a = c.rows["anchors"][0]
    a["fact_en"] += ", as mentioned above"
    return "anchors", a["anchor_id"]


def ga6(c):
    """A rubric at mandatory_max whose downgraded criterion is a grounding one while a service one (lighter) stays
    mandatory: the count and every weight are right (GA5), the choice of the downgraded one is not."""
    for i in c.rows["instances"]:
        rubric = [r for r in c.rows["criteria"] if r["instance_id"] == i["instance_id"]]
        optional = [r for r in rubric if r["kind"] == "service" and not r["mandatory"]]
        grounding = [r for r in rubric if r["kind"] == "grounding" and r["mandatory"]]
        if optional and grounding:
            weights = c.descriptor()["groupassist"]["weights"]
            optional[0].update(mandatory=True, weight=weights["service"])
            grounding[0].update(mandatory=False, weight=1)
            return "criteria", grounding[0]["criterion_id"]


def gc12(c):
    """A native M1 instance's fact restated later and anchored again as a second unit, the instance typed M2."""
    i = c.instance(origin="native", dependency="M1", level="L2")
    a = next(a for a in c.anchors(i["instance_id"]) if a["unit"])
    m = c.free_filler(i["group_id"], after=c.message(a["message_id"])["turn"], before=i["cutoff_turn"])
    m["text_zh"] += a["span_zh"]
    m["text_en"] += " " + a["span_en"]
    n = len(c.anchors(i["instance_id"])) + 1
    again = a | {"anchor_id": f"{i['instance_id']}:A{n:02d}", "message_id": m["message_id"], "unit": 2}
    c.rows["anchors"].insert(c.rows["anchors"].index(a) + 1, again)
    i["dependency"] = "M2"
    return "anchors", again["anchor_id"]


def gc13(c):
    """An M3 L1 instance whose scored atom states the superseded value and whose distractor the current one."""
    i = c.instance(dependency="M3", level="L1")
    atoms = [t for t in c.rows["atoms"] if t["instance_id"] == i["instance_id"]]
    distractor = next(t for t in atoms if t["distractor"])
    current = next(a for a in c.anchors(i["instance_id"]) if a["m3_role"] == "current")
    scored = next(t for t in atoms if t["unit"] == current["unit"])
    for lang in ("zh", "en"):
        scored[f"text_{lang}"], distractor[f"text_{lang}"] = distractor[f"text_{lang}"], scored[f"text_{lang}"]
    return "atoms", distractor["atom_id"]


def gc14(c):
    """A grounding criterion citing a message of its history before the cutoff that none of its anchors cites."""
    i = c.instance(dependency="M1", level="L2", origin="authored")
    g = next(r for r in c.rows["criteria"] if r["instance_id"] == i["instance_id"] and r["kind"] == "grounding")
    g["evidence"] = c.free_filler(i["group_id"], before=i["cutoff_turn"])["message_id"]
    return "criteria", g["criterion_id"]


def relay(c):
    """An anchor on an assistant message, and the earlier member message that established its fact."""
    a = c.one("anchors", from_assistant=True)
    cited = c.message(a["message_id"])
    said = next(m for m in c.rows["messages"] if m["group_id"] == cited["group_id"] and m["turn"] < cited["turn"]
                and m["role"] == "member" and a["span_zh"] in m["text_zh"])
    return a, said


def gc15(c):
    """The member's statement a relayed anchor rests on rewritten: the assistant's message is its only source."""
    a, said = relay(c)
    said["text_zh"], said["text_en"] = FILLER_MEMBER[0]
    return "anchors", a["anchor_id"]


def gc16(c):
    """A native request whose reply, the record after it, is a member's, and whose texts no longer name the assistant
    (`@助手`, `@assistant`): no service point it can read."""
    i = c.instance(origin="native")
    request = next(m for m in c.rows["messages"] if m["group_id"] == i["group_id"] and m["turn"] == i["cutoff_turn"]
                   and m["text_zh"] == i["query_zh"])
    request["text_zh"] = i["query_zh"] = i["query_zh"].replace("@助手 ", "")
    request["text_en"] = i["query_en"] = i["query_en"].replace("@assistant ", "")
    reply = c.rows["messages"][c.rows["messages"].index(request) + 1]
    reply.update(role="member", speaker=next(m["member_id"] for m in c.rows["members"] if m["group_id"] == i["group_id"]),
                 reply_to=None)
    return "instances", i["instance_id"]


def gp3(c):
    """One recalled_fact item fewer: the pattern fewest items name weighs most (-1.5 against -1)."""
    c.rows["feedback"].remove(c.one("feedback", pattern="recalled_fact"))
    return "", "datapackage.json"


def gp1(c):
    f = c.rows["feedback"][0]
    f["wording_en"] = "Something nobody said"
    return "feedback", f["feedback_id"]


def gp2(c):
    a = c.one("audit", layer="review")
    a["quote"] = "无人说过的话"
    return "audit", a["instance_id"]


def gi1(c):
    c.rows["members"][0]["profile"] = "edited after stamping"
    c.save(restamp=False)
    return None, "data/members.jsonl"


def gi2(c):
    descriptor = c.descriptor()
    descriptor["groupassist"]["rows"]["messages"] += 1
    c.save(restamp=False, descriptor=descriptor)
    return "messages", "messages"


def gi3(c):
    descriptor = c.descriptor()
    descriptor["resources"][1]["path"] = "../members.jsonl"
    c.save(restamp=False, descriptor=descriptor)
    return "members", "../members.jsonl"


def gi4(c):
    (c.root / "data" / "helper.py").write_text("print('hi')\n", encoding="utf-8")
    c.save(restamp=False)
    return None, "data/helper.py"


def gi10(c):
    """A fork's new resource written under data/ and left out of datapackage.json: nothing reads it."""
    (c.root / "data" / "notes.jsonl").write_text('{"note": "x"}\n', encoding="utf-8")
    return None, "data/notes.jsonl"


def gi11(c):
    """DATASHEET.md cut in the middle of a line, as a writer stopped by a full disk left it."""
    path = c.root / "DATASHEET.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:text.index("<!-- generated:files -->") + 10], encoding="utf-8")
    return None, "DATASHEET.md"


def gi12(c, synthetic=False, keywords=None):
    """A release of real group chats keeping the specimen's synthetic-specimen keyword (or, given `keywords`, the
    keywords in its place)."""
    c.save()
    descriptor = c.descriptor()
    descriptor["groupassist"]["synthetic"] = synthetic
    descriptor["keywords"] = descriptor["keywords"] if keywords is None else keywords(descriptor["keywords"])
    c.save(restamp=False, descriptor=descriptor)
    return None, "datapackage.json"


def gi6(c):
    """An edited enum copy lets a level outside the vocabulary through the Table Schema's check."""
    path = c.root / "schemas" / "instances.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    next(f for f in schema["fields"] if f["name"] == "level")["constraints"]["enum"].append("L3")
    path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    return None, "schemas/instances.schema.json"


def gi5(c):
    m = c.free_filler("G02")
    m["text_en"] += " call 13812345678"
    return "messages", m["message_id"]



def gi7(c):
    """The format's length rule dropped from the release's own rules file: it would no longer be checked."""
    path = c.root / "schemas" / "rules.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules["rules"] = [r for r in rules["rules"] if r["id"] != "GM5"]
    path.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    return None, "schemas/rules.json"

def gi8(c):
    """A fork dropping `required` from a core field in its own Table Schema, the data unchanged: a null cutoff
    would then pass every rule."""
    path = c.root / "schemas" / "instances.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    next(f for f in schema["fields"] if f["name"] == "cutoff_turn")["constraints"]["required"] = False
    path.write_text(dump_json(schema), encoding="utf-8")  # as `refresh` writes it: no stale copy for GI6
    return None, "schemas/instances.schema.json"


def gi9(c):
    """A fork's number field in messages, which has a datetime: datasets re-encodes its rows to 10 decimal places."""
    path = c.root / "schemas" / "messages.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    schema["fields"].append({"name": "score", "type": "number", "constraints": {}})
    path.write_text(dump_json(schema), encoding="utf-8")
    for m in c.rows["messages"]:
        m["score"] = None
    m = c.free_filler("G01")
    m["score"] = 0.123456789012345
    return "messages", m["message_id"]


def gl1(c):
    """English copied into a message's Chinese column."""
    m = c.free_filler("G01")
    m["text_zh"] = m["text_en"]
    return "messages", m["message_id"]


def gl2(c):
    """A Chinese text field left optional in its Table Schema while the release declares Chinese (by default)."""
    path = c.root / "schemas" / "messages.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    del next(f for f in schema["fields"] if f["name"] == "text_zh")["constraints"]["required"]
    path.write_text(dump_json(schema), encoding="utf-8")
    return "", "datapackage.json"


def gs6(c):
    """An authored instance's requester names nobody of its group."""
    i = c.instance(origin="authored")
    i["requester"] = "member_99"
    return "instances", i["instance_id"]


def gt1(c):
    """The release leaves out `criteria` while it holds L2 instances, which are scored against them."""
    del c.rows["criteria"]
    leave_out(c.root, "criteria")
    return "instances", c.instance(level="L2")["instance_id"]


def gc17(c):
    """A fact a member stated before the message its anchor cites: an earlier filler message of another member now
    states the anchor's span, in both languages and in another case."""
    a, m = earlier_filler(c)
    m["text_zh"] += a["span_zh"]
    m["text_en"] += " " + a["span_en"].upper()
    return "anchors", a["anchor_id"]


def gm7(c):
    """A member kept of a group whose history the release left out."""
    c.rows["members"].append({"group_id": "G09", "member_id": "member_01", "profile": None})
    return "members", "G09:member_01"


def gc19(c):
    """A premise its authored query no longer states: the query's premise clause dropped in both languages."""
    p = c.one("anchors", premise=True)
    i = c.instance(instance_id=p["instance_id"])
    i["query_zh"] = i["query_zh"].replace(p["span_zh"] + "，", "")
    i["query_en"] = i["query_en"].replace(f"Given that {p['span_en']}, ", "")
    return "anchors", p["anchor_id"]


def gc20(c):
    """An L1 M2 instance's two scored atoms with their units swapped."""
    i = c.instance(level="L1", dependency="M2")
    first, second = [t for t in c.rows["atoms"] if t["instance_id"] == i["instance_id"]][:2]
    first["unit"], second["unit"] = second["unit"], first["unit"]
    return "atoms", first["atom_id"]


def lone_group(rows, roster=("member_01",), group="G05"):
    """A group of three records, member_01's, the assistant's and member_01's, added to `rows` (messages and
    members), its members `roster`."""
    texts = [("周末一起去爬山吧", "Let's go hiking this weekend"), ("我带水和零食", "I'll bring water and snacks"),
             ("八点集合", "Meet at eight")]
    for turn, (speaker, (zh, en)) in enumerate(zip(("member_01", "assistant", "member_01"), texts)):
        rows["messages"].append(rows["messages"][-1] | {
            "group_id": group, "turn": turn, "message_id": f"{group}:m{turn:06d}", "speaker": speaker, "reply_to": None,
            "role": "assistant" if speaker == "assistant" else "member", "placeholder": None, "text_zh": zh, "text_en": en})
    rows["members"] += [{"group_id": group, "member_id": m, "profile": None} for m in roster]


def gm8(c):
    """A one-to-one chat converted as a group: one member and the assistant."""
    lone_group(c.rows)
    return "messages", "G05:m000000"


def last_authored(c):
    """The authored instance whose cutoff lies nearest its group's last turn, with delta_min-delta_max records after
    its last anchor, and that last turn."""
    end = {}
    for m in c.rows["messages"]:
        end[m["group_id"]] = max(end.get(m["group_id"], 0), m["turn"])
    turn = {m["message_id"]: m["turn"] for m in c.rows["messages"]}
    params = c.descriptor()["groupassist"]

    def after(i):  # records after the instance's last memory anchor
        last = max(turn[a["message_id"]] for a in c.anchors(i["instance_id"]) if not a["premise"])
        return sum(m["group_id"] == i["group_id"] and m["turn"] > last for m in c.rows["messages"])
    i = min((i for i in c.rows["instances"] if i["origin"] == "authored"
             and params["delta_min"] <= after(i) <= params["delta_max"]), key=lambda i: end[i["group_id"]] - i["cutoff_turn"])
    return i, end[i["group_id"]]


def gm9(c):
    """An authored instance's cutoff counted past its group's last turn."""
    i, end = last_authored(c)
    i["cutoff_turn"] = end + 30
    return "instances", i["instance_id"]


def gc22(c):
    """An L2 M2 instance relabelled M1, its two memories numbered one unit (the unit count, GC1, then holds)."""
    i = c.instance(level="L2", dependency="M2")
    i["dependency"] = "M1"
    memories = [a for a in c.anchors(i["instance_id"]) if a["unit"]]
    for a in memories:
        a["unit"] = 1
    return "anchors", memories[-1]["anchor_id"]


def earlier_filler(c):
    """An M1 instance's memory anchor on a member message, and a filler member message before it."""
    for i in c.rows["instances"]:
        if i["dependency"] == "M1":
            a = next(a for a in c.anchors(i["instance_id"]) if a["unit"])
            turn = c.message(a["message_id"])["turn"]
            if not a["from_assistant"] and turn > 40:
                return a, c.free_filler(i["group_id"], after=turn - 40, before=turn)


def changed_again(c, after_cutoff=False):
    """An M3 instance and a filler member message after its update, before its cutoff (or after it), now changing the
    matter again: the matter's words of the current fact, a change word, another value."""
    i = c.instance(dependency="M3")
    new = next(a for a in c.anchors(i["instance_id"]) if a["m3_role"] == "current")
    turn = c.message(new["message_id"])["turn"]
    m = c.free_filler(i["group_id"], after=i["cutoff_turn"]) if after_cutoff else c.free_filler(
        i["group_id"], after=turn, before=i["cutoff_turn"])
    matter_zh, matter_en = new["fact_zh"][:-len(new["span_zh"]) - 1], new["fact_en"][:-len(new["span_en"]) - 4]
    m["text_zh"], m["text_en"] = f"{matter_zh}又换到咖啡馆9999号了。", f"For {matter_en.lower()}, it has changed to Cafe No. 9999."
    return i, m


def gc18(c):
    return "instances", changed_again(c)[0]["instance_id"]


def superseded_restated(c, cutoff=1, role="superseded"):
    """An authored L1 M1 instance whose one anchor is re-pointed at an M3 pair's superseded anchor of its group (its
    message, span and fact; the atom and reference answer with it), and its cutoff moved to `cutoff` turns after the
    pair's update: still 20-200 messages after the anchor (the pair's update at least 25 turns after its old value).
    With `role` None, the anchor is re-pointed at the pair's instance's anchor of another matter instead."""
    for i in c.rows["instances"]:
        anchors = c.anchors(i["instance_id"])
        if i["dependency"] != "M3":
            continue
        old = next(a for a in anchors if a["m3_role"] == role and a["unit"])
        update = c.message(next(a for a in anchors if a["m3_role"] == "current")["message_id"])["turn"]
        j = next((j for j in c.rows["instances"] if j["group_id"] == i["group_id"] and j["origin"] == "authored"
                  and j["level"] == "L1" and j["dependency"] == "M1" and len(c.anchors(j["instance_id"])) == 1), None)
        if j is None or update - c.message(old["message_id"])["turn"] < 25:
            continue
        fact = {"text_zh": old["fact_zh"], "text_en": old["fact_en"]}
        c.anchors(j["instance_id"])[0].update({k: old[k] for k in ("message_id", "span_zh", "span_en", "fact_zh",
                                                                   "fact_en", "from_assistant")})
        c.one("atoms", instance_id=j["instance_id"]).update(fact)
        j.update(reference_answer_zh=fact["text_zh"], reference_answer_en=fact["text_en"], cutoff_turn=update + cutoff)
        return j


def gc21(c):
    """An authored instance anchoring an M3 pair's superseded value, its cutoff moved past the pair's update."""
    return "instances", superseded_restated(c)["instance_id"]


MUTATIONS = {name.upper(): fn for name, fn in globals().copy().items()
             if name[:2] in ("gs", "gm", "ga", "gc", "gp", "gi", "gt", "gl") and name[2:].isdigit()}


def test_every_rule_has_a_mutation():
    """The coded catalogue and the rules the specimen declares in schemas/rules.json."""
    declared = declared_rules(GroupAssistRelease(SPECIMEN))
    assert {r.id for r in declared} == {"GM5"}
    assert set(MUTATIONS) == {r.id for r in all_rules()} | {r.id for r in declared}


def test_clean_specimen_passes():
    report = validate(SPECIMEN)
    assert report.errors == 0 and report.warnings == 0 and not report.fired()


@pytest.mark.parametrize("rule_id", sorted(MUTATIONS))
def test_rule_fires_on_its_mutation(tmp_path, rule_id):
    copy = Copy(tmp_path / "release")
    resource, row = MUTATIONS[rule_id](copy)
    if not (copy.root / "data" / "helper.py").exists() and rule_id not in ("GA4", "GI1", "GI2", "GI3"):
        copy.save()
    report = validate(copy.root)
    assert report.fired() == {rule_id}
    found = report.failure_frame()
    assert row in set(found.loc[found["rule"] == rule_id, "row"]), found.head()
    assert misnamed(found, copy.root) == []


def test_a_repeated_composite_key_is_one_line_a_row_naming_another_holder(tmp_path):
    """pandera names each field of a composite key it finds repeated; the report says it once a row, of the row as
    a whole, with the line of the other row holding the key (both bear its name)."""
    copy = Copy(tmp_path / "release")
    copy.rows["members"].insert(3, copy.rows["members"][2])  # line 3, repeated on line 4
    copy.save()
    report = validate(copy.root)
    found, member = report.failure_frame(), copy.rows["members"][2]
    assert f"  members {member['group_id']}:{member['member_id']} : primary key" in render(report)
    assert found.loc[found["rule"] == "GS2", ["row", "field", "value", "message"]].values.tolist() == [
        [f"{member['group_id']}:{member['member_id']}", "", "", f"primary key (group_id, member_id) not unique: "
                                                                 f"also on line {line}"] for line in (4, 3)]


KEYS = {"messages": "message_id", "instances": "instance_id", "anchors": "anchor_id", "atoms": "atom_id",
        "criteria": "criterion_id", "feedback": "feedback_id", "audit": "instance_id"}


@pytest.mark.parametrize("rule_id", ["GM2", "GM3", "GM4", "GM6", "GA1", "GA2", "GA3", "GA4", "GA5", "GC2", "GC4", "GC5",
                                     "GC7", "GC10"])
def test_a_failure_line_shows_the_value_the_file_holds(tmp_path, rule_id):
    """`field=value` on a failure line is the named row's own value; what a rule computed belongs in its message."""
    copy = Copy(tmp_path / "release")
    MUTATIONS[rule_id](copy)
    if rule_id != "GA4":
        copy.save()
    found = validate(copy.root).failure_frame()
    for f in found[found["rule"] == rule_id].itertuples():
        record = next(r for r in copy.rows[f.resource] if r[KEYS[f.resource]] == f.row)
        assert f.value == as_text(record[f.field]), f


@pytest.mark.parametrize("synthetic", [True, False])
def test_the_synthetic_labels_disagreeing_either_way_is_one_line(tmp_path, synthetic):
    """GI12 both ways: a synthetic release whose keywords lost the specimen's label, a real one that kept it."""
    copy = Copy(tmp_path / "release")
    gi12(copy, synthetic, (lambda words: [w for w in words if w != "synthetic-specimen"]) if synthetic else None)
    found = validate(copy.root).failure_frame()
    said = "no keyword says synthetic, but groupassist.synthetic is true" if synthetic else \
        "says synthetic, but groupassist.synthetic is false"
    assert found[["rule", "row", "field"]].values.tolist() == [["GI12", "datapackage.json", "keywords"]], found
    assert said in found["message"].iat[0]


@pytest.mark.parametrize("synthetic, keyword", [(False, "group-chats"), (True, "synthetic group chats")])
def test_labels_that_agree_stay_valid(tmp_path, synthetic, keyword):
    """GI12's near-miss: the flag set, and a keyword of the converter's own in the specimen's label's place, saying
    synthetic where the flag does."""
    copy = Copy(tmp_path / "release")
    gi12(copy, synthetic, lambda words: [keyword if w == "synthetic-specimen" else w for w in words])
    report = validate(copy.root)
    assert report.errors == 0 and not report.fired(), report.failure_frame()


def personal_data_in_a_rubric_criterion(c):
    """A field outside the screen's old list (messages, member profiles, queries)."""
    criterion = c.rows["criteria"][0]
    criterion["text_en"] += " (write to li.wei@example.cn)"
    return "GI5", ":".join(str(criterion[k]) for k in GroupAssistRelease(SPECIMEN).primary_key("criteria"))


def personal_data_in_a_text_a_fork_gave_a_pattern(c):
    """Tightening a core text field with a pattern any text meets is allowed (GI8), but does not take it out of
    the screen: the format's definition says it is free text."""
    path = c.root / "schemas" / "messages.schema.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    next(f for f in schema["fields"] if f["name"] == "text_en")["constraints"]["pattern"] = "[\\s\\S]*"
    path.write_text(dump_json(schema), encoding="utf-8")
    m = c.free_filler("G02")
    m["text_en"] += " call 13812345678"
    return "GI5", m["message_id"]


def stale_data_package_hash(c):
    """The resource's Data Package v2 `hash` (the file's one digest, what Frictionless checks) stale."""
    c.save()
    descriptor = c.descriptor()
    descriptor["resources"][1]["hash"] = "sha256:" + "0" * 64
    c.save(restamp=False, descriptor=descriptor)
    return "GI1", descriptor["resources"][1]["path"]


@pytest.mark.parametrize("mutate", [personal_data_in_a_rubric_criterion, personal_data_in_a_text_a_fork_gave_a_pattern,
                                    stale_data_package_hash])
def test_screen_and_hash_checks_cover_every_free_text_field_and_both_hash_copies(tmp_path, mutate):
    copy = Copy(tmp_path / "release")
    rule_id, row = mutate(copy)
    if rule_id != "GI1":
        copy.save()
    report = validate(copy.root)
    assert report.fired() == {rule_id}
    found = report.failure_frame()
    assert row in set(found.loc[found["rule"] == rule_id, "row"]), found.head()


def test_a_count_over_an_instance_names_the_instance_as_a_whole(tmp_path):
    """Gate v's counts of a rubric, an L1 instance's atoms and criteria, and an M3 rubric's missing penalty are the
    instance's as a whole: their lines name it, and no field (`positive`, `unit`, `criteria`) that instances lack.
    No mutation above reaches these lines; each is made here, in one copy."""
    copy = Copy(tmp_path / "release")
    criteria = copy.rows["criteria"]
    l2 = copy.instance(level="L2", dependency="M1")["instance_id"]
    positive = [c for c in criteria if c["instance_id"] == l2 and c["kind"] != "penalty"]
    copy.rows["criteria"] = criteria = [c for c in criteria if c not in positive[2:]]  # two left, fewer than three
    l1 = copy.instance(level="L1", dependency="M1")["instance_id"]
    criteria.append(positive[0] | {"criterion_id": f"{l1}:C01", "instance_id": l1})
    copy.rows["atoms"].append(copy.one("atoms", instance_id=l1) | {"atom_id": f"{l1}:T09", "unit": 9})
    m3 = copy.instance(level="L2", dependency="M3")["instance_id"]
    criteria.remove(next(c for c in criteria if c["instance_id"] == m3 and c["pattern"] == "superseded_value"))
    copy.save()
    found = validate(copy.root).failure_frame()
    lines = set(zip(found["rule"], found["row"], found["message"]))
    assert {("GA5", l2, "needs 3-6 positive criteria"), ("GC8", l1, "L1 instance has rubric criteria"),
            ("GC8", l1, "unit 9 is no memory unit of the instance"),
            ("GC9", m3, "M3 rubric lacks its superseded_value penalty")} <= lines, sorted(lines)
    assert misnamed(found, copy.root) == []


def test_a_converters_unit_atom_and_feedback_mistakes_are_each_named_once_with_what_is_wrong(tmp_path):
    """Mistakes a conversion makes, each told as what is wrong: an M3 atom's distractor flag on the wrong unit is
    named on the atom (it was told as that unit needing a distractor and being no unit of the instance); a
    dependency that disagrees with the units says how many there are; a unit shows as the file writes it (`1`, not
    `1.0`); a feedback item names the one condition it fails, on the field that holds it."""
    copy = Copy(tmp_path / "release")
    m3 = copy.instance(level="L1", dependency="M3")["instance_id"]
    swapped = [a for a in copy.rows["atoms"] if a["instance_id"] == m3][:2]
    for atom in swapped:
        atom["distractor"] = not atom["distractor"]
    m2 = copy.instance(level="L2", dependency="M2")
    m2["dependency"] = "M1"
    units = len({a["unit"] for a in copy.anchors(m2["instance_id"]) if a["unit"]})
    profile = next(a for a in copy.anchors(copy.instance(level="L1", dependency="M2")["instance_id"]) if a["unit"])
    profile["profile_only"] = True
    wording, assistant = copy.rows["feedback"][:2]
    wording["wording_zh"] = "无人说过的话"
    assistant["message_id"] = copy.one("messages", group_id=assistant["group_id"], role="assistant")["message_id"]
    copy.save()
    found = validate(copy.root).failure_frame()
    lines = set(zip(found["rule"], found["row"], found["field"], found["value"], found["message"]))
    assert {("GC8", a["atom_id"], "distractor", as_text(a["distractor"]), f"unit {a['unit']} holds " + (
        "no superseded anchor: its atom is no distractor" if a["distractor"] else
        "the superseded anchor: its atom is the distractor")) for a in swapped} <= lines, sorted(lines)
    assert not {line for line in lines if line[0] == "GC8" and line[1] == m3}
    assert ("GC1", m2["instance_id"], "dependency", "M1", f"{units} memory units: M1 has exactly one") in lines
    assert ("GC1", profile["anchor_id"], "unit", str(profile["unit"]),
            "unit must be null exactly for profile-only anchors and premises") in lines
    assert ("GP1", wording["feedback_id"], "wording_zh", "无人说过的话",
            "wording not verbatim in the message's text_zh") in lines
    assert ("GP1", assistant["feedback_id"], "message_id", assistant["message_id"], "not a member's message") in lines
    assert misnamed(found, copy.root) == []


def test_a_count_by_split_and_level_names_no_field(tmp_path):
    """GI2's count of instances by split and level is of rows counted together, as its count per group is: the
    line names the split and level and no field (it named `split,level`)."""
    copy = Copy(tmp_path / "release")
    copy.save()
    descriptor = copy.descriptor()
    descriptor["groupassist"]["instances"]["eval"]["L1"] += 1
    (copy.root / "datapackage.json").write_text(json.dumps(descriptor, ensure_ascii=False), encoding="utf-8")
    found = validate(copy.root).failure_frame()
    assert found.loc[found["rule"] == "GI2", ["row", "field"]].values.tolist() == [["eval/L1", ""]]


def test_a_mandatory_penalty_is_named_on_its_flag_not_its_weight(tmp_path):
    """Gate v told a mandatory penalty of the declared weight as `weight=-2.0 : weight differs...`: the weight was
    right and the flag wrong. The flag is named, and a wrong weight beside it is named too."""
    copy = Copy(tmp_path / "release")
    right, wrong = [c for c in copy.rows["criteria"] if c["kind"] == "penalty"][:2]
    right["mandatory"] = wrong["mandatory"] = True
    wrong["weight"] -= 1
    copy.save()
    found = validate(copy.root).failure_frame()
    flag = "a penalty is never mandatory: pass needs every mandatory criterion met and no penalty met"
    assert set(zip(found["rule"], found["row"], found["field"], found["value"], found["message"])) == {
        ("GA5", right["criterion_id"], "mandatory", "true", flag), ("GA5", wrong["criterion_id"], "mandatory", "true", flag),
        ("GA5", wrong["criterion_id"], "weight", as_text(float(wrong["weight"])),
         "weight differs from the declared weight of its kind, pattern and mandatoriness")}


def test_a_count_or_hash_the_block_declares_for_nothing_the_release_holds_is_named_and_refresh_drops_it(tmp_path):
    """A resource dropped (or renamed) with its declared rows and (an older release's) sha256 left in the block, and
    a count of 0 for a group or a split and level the release holds none of (`stamp` writes none): VALID, while
    `refresh` rewrote the maps. Each entry is named; after `refresh` the release is valid."""
    from realcompanion.cli import main

    copy = Copy(tmp_path / "release")
    descriptor = copy.descriptor()
    descriptor["groupassist"]["rows"]["old"] = 5
    descriptor["groupassist"]["sha256"] = {"data/old.jsonl": "0" * 64}  # the copy an older release keeps
    descriptor["groupassist"]["groups"]["G99"] = {"messages": 0}
    descriptor["groupassist"]["instances"]["test"] = {"L1": 0}
    copy.save(descriptor=descriptor)
    found = validate(copy.root).failure_frame()
    assert set(zip(found["rule"], found["resource"], found["row"], found["field"], found["value"].astype(str))) == {
        ("GI2", "", "datapackage.json", "groupassist.rows.old", "5"),
        ("GI1", "", "datapackage.json", "groupassist.sha256.data/old.jsonl", "0" * 16),
        ("GI2", "messages", "G99", "", "0"), ("GI2", "instances", "test/L1", "", "0")}
    assert found["message"].str.contains("realcompanion refresh", regex=False).all()
    assert misnamed(found, copy.root) == []
    assert main(["refresh", str(copy.root)]) == 0 and not validate(copy.root).fired()


def test_a_chinese_text_left_in_the_english_column_is_a_copy(tmp_path):
    """GL1: a translation missing, the Chinese text copied into its English column."""
    copy = Copy(tmp_path / "release")
    m = copy.free_filler("G02")
    m["text_en"] = m["text_zh"]
    copy.save()
    report = validate(copy.root)
    assert report.fired() == {"GL1"}
    assert report.failure_frame()[["row", "field"]].values.tolist() == [[m["message_id"], "text_en"]]


@pytest.mark.parametrize("text", ["OK", "G01 2024-05-01", "好的, see you soon", "See you at 王府井 tomorrow evening"])
def test_a_chinese_text_equal_to_its_english_that_does_not_read_as_english_is_no_copy(tmp_path, text):
    """GL1's near misses: a short word, a name and a date, a text holding Chinese, an English one keeping a Chinese
    name: the same in both languages."""
    copy = Copy(tmp_path / "release")
    m = copy.free_filler("G01")
    m["text_zh"] = m["text_en"] = text
    copy.save()
    assert validate(copy.root).fired() == set()
