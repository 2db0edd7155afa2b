"""A hand-built GroupAssistBench release whose scores are worked out by hand in the tests.

One group, G01, of 38 messages (turns 0-37; speakers member_01, member_02, member_03 and the assistant in
turn, with the special messages below), and four native `eval` instances, each cut off at its own request
message. The descriptor and schemas are the specimen's (with `retrieval_k` optionally changed, and the rubric
reading that lets a rubric hold optional criteria of its own, `rubric.optional_only_downgraded` false, since
its rubrics do); the data rows are written here and the release passes `realcompanion validate`.

instance   level  dependency  cutoff  anchors (memory units)
G01:I0001  L1     M1          30      turn 2 (travel date)
G01:I0002  L1     M2          32      turns 5 (peanuts), 8 (spicy)
G01:I0003  L2     M1          34      turn 2
G01:I0004  L2     M2          36      turns 5, 8
Turns 12 and 22 hold the same text, "出差好累" / "business trips are tiring": a BM25 tie.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from realcompanion.formats.groupassist import SPECIMEN
from realcompanion.formats.groupassist.synth import stamp

FILL = [("今天天气不错", "nice weather today"), ("是的", "yes"), ("哈哈", "haha"), ("收到", "got it"),
        ("我在开会", "I am in a meeting")]
SPECIAL = {
    2: ("member_01", "我下周三去上海出差", "I travel to Shanghai next Wednesday"),
    5: ("member_02", "我对花生过敏", "I am allergic to peanuts"),
    8: ("member_03", "我喜欢吃辣", "I like spicy food"),
    12: ("member_02", "出差好累", "business trips are tiring"),
    22: ("member_03", "出差好累", "business trips are tiring"),
    30: ("member_02", "@助手 小王哪天出差", "@assistant which day does Wang travel"),
    32: ("member_01", "@助手 晚饭大家有什么忌口", "@assistant any food restrictions for dinner"),
    34: ("member_03", "@助手 帮我安排一下出差的行程", "@assistant help me plan the business trip"),
    36: ("member_01", "@助手 推荐一家聚餐的餐厅", "@assistant recommend a restaurant for our dinner"),
}
SPEAKERS = ["member_01", "member_02", "member_03", "assistant"]


def messages(group: str = "G01", special: dict = SPECIAL, turns: int = 38) -> list[dict]:
    """One record per turn: `special`'s message at its turn, else the turn's member (or the assistant) with filler."""
    out = []
    for t in range(turns):
        speaker, zh, en = special.get(t, (SPEAKERS[t % 4],) + FILL[t % 5])
        out.append({"group_id": group, "turn": t, "message_id": f"{group}:m{t:06d}", "speaker": speaker,
                    "role": "assistant" if speaker == "assistant" else "member",
                    "timestamp": f"2025-05-01T10:{t:02d}:00+08:00", "reply_to": None, "placeholder": None,
                    "text_zh": zh, "text_en": en})
    return out


def instance(n, level, dep, cutoff, ref=None, special: dict = SPECIAL):
    speaker, zh, en = special[cutoff]
    return {"instance_id": f"G01:I{n:04d}", "group_id": "G01", "split": "eval", "level": level, "dependency": dep,
            "origin": "native", "query_type": None, "requester": speaker, "cutoff_turn": cutoff, "query_zh": zh,
            "query_en": en, "history_contribution": "strong",
            "reference_answer_zh": ref[0] if ref else None, "reference_answer_en": ref[1] if ref else None}

# span_zh, span_en, fact_zh, fact_en of the three memories
TRIP = ("下周三去上海出差", "travel to Shanghai next Wednesday", "member_01下周三去上海出差",
        "member_01 travels to Shanghai next Wednesday")
NUTS = ("对花生过敏", "allergic to peanuts", "member_02对花生过敏", "member_02 is allergic to peanuts")
SPICY = ("喜欢吃辣", "like spicy food", "member_03喜欢吃辣", "member_03 likes spicy food")


def anchor(inst, k, turn, what, unit):
    return {"anchor_id": f"G01:I{inst:04d}:A{k:02d}", "instance_id": f"G01:I{inst:04d}", "message_id": f"G01:m{turn:06d}",
            "span_zh": what[0], "span_en": what[1], "fact_zh": what[2], "fact_en": what[3], "unit": unit,
            "from_assistant": False, "profile_only": False, "m3_role": None, "premise": False}


def atom(inst, k, what):
    return {"atom_id": f"G01:I{inst:04d}:T{k:02d}", "instance_id": f"G01:I{inst:04d}", "unit": k,
            "text_zh": what[2], "text_en": what[3], "distractor": False}


def criterion(inst, k, kind, mandatory, weight, evidence, zh, en, pattern=None):
    return {"criterion_id": f"G01:I{inst:04d}:C{k:02d}", "instance_id": f"G01:I{inst:04d}", "kind": kind,
            "mandatory": mandatory, "weight": weight, "pattern": pattern,
            "evidence": None if evidence is None else f"G01:m{evidence:06d}", "text_zh": zh, "text_en": en}


def build(folder, k: int | None = None, special: dict = SPECIAL, turns: int = 38, more: dict | None = None) -> Path:
    """Write the release into `folder`, stamped; `k` replaces the descriptor's retrieval_k, `special` and `turns` the
    messages', and `more` (resource: rows) adds rows."""
    folder = Path(folder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copytree(SPECIMEN / "schemas", folder / "schemas")
    d = json.loads((SPECIMEN / "datapackage.json").read_text(encoding="utf-8"))
    d["groupassist"]["synthetic"] = True
    d["groupassist"]["rubric"]["optional_only_downgraded"] = False
    if k:
        d["groupassist"]["retrieval_k"] = k
    (folder / "datapackage.json").write_text(json.dumps(d, ensure_ascii=False, indent=2), encoding="utf-8")
    (folder / "data").mkdir()
    rows = {
        "messages": messages(special=special, turns=turns),
        "members": [{"group_id": "G01", "member_id": m, "profile": None} for m in SPEAKERS[:3]],
        "instances": [instance(1, "L1", "M1", 30, TRIP[2:]),
                      instance(2, "L1", "M2", 32, ("member_02对花生过敏，member_03喜欢吃辣",
                                                   "member_02 is allergic to peanuts and member_03 likes spicy food")),
                      instance(3, "L2", "M1", 34), instance(4, "L2", "M2", 36)],
        "anchors": [anchor(1, 1, 2, TRIP, 1), anchor(2, 1, 5, NUTS, 1), anchor(2, 2, 8, SPICY, 2),
                    anchor(3, 1, 2, TRIP, 1), anchor(4, 1, 5, NUTS, 1), anchor(4, 2, 8, SPICY, 2)],
        "atoms": [atom(1, 1, TRIP), atom(2, 1, NUTS), atom(2, 2, SPICY)],
        "criteria": [criterion(3, 1, "grounding", True, 3, 2, "行程安排在下周三的上海", "The plan is for Shanghai next Wednesday"),
                     criterion(3, 2, "service", True, 2, None, "给出交通建议", "Gives transport advice"),
                     criterion(3, 3, "service", False, 1, None, "给出住宿建议", "Gives lodging advice"),
                     criterion(3, 4, "penalty", False, -1.5, 2, "说错出差的日期", "States the wrong travel date", "recalled_fact"),
                     criterion(4, 1, "grounding", True, 3, 5, "避开花生", "Avoids peanuts"),
                     criterion(4, 2, "grounding", True, 3, 8, "有辣的菜", "Offers spicy dishes"),
                     criterion(4, 3, "service", False, 1, None, "给出具体餐厅", "Names a restaurant"),
                     criterion(4, 4, "penalty", False, -1.5, 5, "推荐含花生的菜", "Recommends a peanut dish", "current_state")],
        "feedback": [{"feedback_id": "G01:F001", "group_id": "G01", "message_id": "G01:m000004", "pattern": "recalled_fact",
                      "wording_zh": "我在开会", "wording_en": "I am in a meeting"}],
        "audit": [{"instance_id": "G01:I0005", "layer": "gate", "check": "iv", "reason": "deterministic gate iv failed",
                   "quote": None}],
    }
    for name, data in rows.items():
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data + (more or {}).get(name, []))
        (folder / "data" / f"{name}.jsonl").write_text(text, encoding="utf-8")
    stamp(folder)
    return folder
