"""docs/forking.md §5's worked example: a Chinese-only group chat in the shape of a WeChat export (sender, time,
content, @mentions, quoted replies, join notices, recalled messages, images) converted as the guide says, into a
GroupAssistBench release declaring `languages: ["zh"]`, with instances authored as App. A describes. It validates
for this package and for Frictionless, the baselines score it in Chinese, and publish --dry-run plans it. The
records are made here; no outside data.
"""
from __future__ import annotations

import json
import re
import shutil
from datetime import datetime

import pytest
from test_forks import edit_json, frictionless_valid

from realcompanion.card import read_card
from realcompanion.cli import main
from realcompanion.formats.groupassist import SPECIMEN

BOT = "wxid_yuanbao"  # the deployed assistant's account
NAMES = {"wxid_aq": "阿强", "wxid_xl": "小李", "wxid_wj": "王姐", "wxid_zl": "赵六", BOT: "元宝"}
SAID = [  # (account, text) in the order the export lists them; the time is the index's minute of the evening
    ("wxid_aq", "这周六一起去徒步吧，集合地点定在断桥。"),
    ("wxid_xl", "好啊，我报名！"),
    ("wxid_wj", "我也去，我负责带水和干粮。"),
    ("system", "王姐邀请赵六加入了群聊"),
    ("wxid_zl", "大家好，我是新来的赵六，请多关照。"),
    ("wxid_aq", "欢迎欢迎！"),
    ("wxid_wj", "集合时间定在早上八点半，别迟到。"),
    ("wxid_xl", "[图片]"),  # an image without a caption
    ("wxid_xl", "集合地点换到灵隐寺门口了，断桥那边周末人太多。"),  # the update names the old place, as people do
    ("wxid_aq", "行，听你的。"),
    ("recall", "\"小李\" 撤回了一条消息"),
]
FILLER = ["哈哈哈", "今天加班到好晚", "楼下新开了一家奶茶店", "有人看昨晚的球赛吗", "我看了，太精彩了", "周五要交报告，头大",
          "谁有充电宝借我一下", "明天好像要下雨", "记得带伞", "晚饭吃什么好呢", "我想吃火锅", "火锅可以，周末约",
          "最近在学做饭", "发个菜谱来看看", "收到", "好的好的", "我先去忙了", "晚安各位", "早上好", "今天天气不错",
          "地铁又晚点了", "我家猫又把杯子打翻了", "周末愉快", "这个视频好好笑", "有道理"]
REQUESTS = [  # (account, text, @mentions): members asking the assistant, then its reply and a member's correction
    ("wxid_zl", "@元宝 周六谁负责带水？", [BOT]),
    ("wxid_aq", "我也想知道", []),  # the assistant answers a moment later, without quoting the request
    (BOT, "王姐说她负责带水和帐篷。", []),
    ("wxid_wj", "不对，我说的是带水和干粮，不是帐篷。", []),
]


def export():
    """The export: one record per line of the chat as WeChat-style tools write it (talker account, local time,
    message type 1 text, 3 image, 10000 system notice, 10002 recall notice; `at` the accounts mentioned)."""
    lines = SAID[:8] + [(a, t) for a, t in zip(["wxid_aq", "wxid_xl", "wxid_wj", "wxid_zl"] * 10, FILLER[:12])]
    lines += SAID[8:] + [(a, t) for a, t in zip(["wxid_zl", "wxid_aq", "wxid_xl", "wxid_wj"] * 10, FILLER[12:])]
    records = []
    for n, (who, text) in enumerate(lines):
        kind = {"system": 10000, "recall": 10002}.get(who, 3 if text == "[图片]" else 1)
        records.append({"talker": "" if kind >= 10000 else who, "time": f"2025-04-0{1 + n // 40} 20:{n % 40:02d}:00",
                        "type": kind, "content": "IMG_0412.jpg" if kind == 3 else text, "at": []})
    records[8]["time"] = records[7]["time"]  # the picture and the update sent in the same second
    records += [{"talker": who, "time": f"2025-04-03 21:0{n}:00", "type": 1, "content": text, "at": at}
                for n, (who, text, at) in enumerate(REQUESTS)]
    records += [{"talker": who, "time": f"2025-04-03 21:1{n}:00", "type": 1, "content": text, "at": []}
                for n, (who, text) in enumerate(zip(["wxid_aq", "wxid_xl"] * 2, ["周六见", "不见不散", "收到", "好的"]))]
    return records


def pseudonyms(records):
    """Members in order of first message: member_01, ...; the assistant's account is `assistant`."""
    order = dict.fromkeys(r["talker"] for r in records if r["talker"] and r["talker"] != BOT)
    return {account: f"member_{n:02d}" for n, account in enumerate(order, 1)} | {BOT: "assistant"}


def convert(records, group="G01"):
    """The guide's steps: notices dropped and counted; an image an attachment placeholder naming its file; records
    of one second share a turn; names replaced by pseudonyms in the texts too; local time with its +08:00 offset."""
    names = pseudonyms(records)
    messages, counts, turn, last = [], {"join notices dropped": 0, "recall notices dropped": 0}, -1, None
    for r in records:
        if r["type"] >= 10000:
            counts[{10000: "join notices dropped", 10002: "recall notices dropped"}[r["type"]]] += 1
            continue
        text = f"[图片] {r['content']}" if r["type"] == 3 else r["content"]
        for account, name in NAMES.items():  # the deployment's name ("@元宝") names no person: kept, and declared
            text = text if account == BOT else text.replace(name, names[account])
        same = r["time"] == last
        turn, last = turn + (not same), r["time"]
        base = f"{group}:m{turn:06d}"
        shared = sum(m["message_id"].startswith(base) for m in messages)
        speaker = names[r["talker"]]
        messages.append({"group_id": group, "turn": turn, "message_id": base + (f".{shared}" if shared else ""),
                         "speaker": speaker, "role": "assistant" if speaker == "assistant" else "member",
                         "timestamp": datetime.strptime(r["time"], "%Y-%m-%d %H:%M:%S").isoformat() + "+08:00",
                         "reply_to": None, "placeholder": "attachment" if r["type"] == 3 else None,
                         "text_zh": text, "text_en": None})
    members = [{"group_id": group, "member_id": m, "profile": None} for m in names.values() if m != "assistant"]
    return messages, members, counts


OLD = ("断桥", "周六徒步的集合地点是断桥")  # (span, fact): a memory as an anchor states it
NEW = ("灵隐寺门口", "周六徒步的集合地点是灵隐寺门口")
TIME = ("早上八点半", "周六徒步的集合时间是早上八点半")
WATER = ("带水和干粮", "member_03负责带水和干粮")


def authored(messages, group="G01"):
    """Instances written as App. A describes them, over the converted history: a member's own request to the assistant
    (native, L1 M1), a question and a request the benchmark authors (L1 and L2 M3: the meeting place moved), and a
    "who said" question that gate iii excludes into the audit. Anchors cite the message that states each memory."""
    at = {m["text_zh"]: m for m in messages}
    said = {memory: next(m for m in messages if memory[0] in m["text_zh"]) for memory in (OLD, NEW, TIME, WATER)}
    request = next(m for m in messages if m["text_zh"].startswith("@元宝"))
    end = messages[-1]["turn"] + 1  # the whole history: a question asked after the conversation ends

    def instance(n, level, dependency, origin, cutoff, query, requester=None, query_type=None, answer=None):
        return {"instance_id": f"{group}:I{n:04d}", "group_id": group, "split": "eval", "level": level,
                "dependency": dependency, "origin": origin, "query_type": query_type, "requester": requester,
                "cutoff_turn": cutoff, "query_zh": query, "query_en": None, "history_contribution": "strong",
                "reference_answer_zh": answer, "reference_answer_en": None}

    def anchor(n, k, memory, unit, m3_role=None):
        return {"anchor_id": f"{group}:I{n:04d}:A{k:02d}", "instance_id": f"{group}:I{n:04d}",
                "message_id": said[memory]["message_id"], "span_zh": memory[0], "span_en": None, "fact_zh": memory[1],
                "fact_en": None, "unit": unit, "from_assistant": False, "profile_only": False, "m3_role": m3_role,
                "premise": False}

    def atom(n, k, unit, memory, distractor=False):
        return {"atom_id": f"{group}:I{n:04d}:T{k:02d}", "instance_id": f"{group}:I{n:04d}", "unit": unit,
                "text_zh": memory[1], "text_en": None, "distractor": distractor}

    def criterion(n, k, kind, weight, text, memory=None, pattern=None, mandatory=True):
        return {"criterion_id": f"{group}:I{n:04d}:C{k:02d}", "instance_id": f"{group}:I{n:04d}", "kind": kind,
                "mandatory": mandatory, "weight": weight, "pattern": pattern,
                "evidence": said[memory]["message_id"] if memory else None, "text_zh": text, "text_en": None}

    moved = [anchor(n, 1, OLD, 1, "superseded") for n in (2, 3)]
    moved += [anchor(n, k, memory, unit, role) for n in (2, 3) for k, memory, unit, role in
              ((2, TIME, 2, None), (3, NEW, 3, "current"))]
    instances = [
        instance(1, "L1", "M1", "native", request["turn"], request["text_zh"], request["speaker"],
                 answer="member_03负责带水和干粮"),
        instance(2, "L1", "M3", "authored", end, "周六徒步在哪里集合，几点到？", query_type="multi_entity_attribute_mapping",
                 answer="周六徒步在灵隐寺门口集合，早上八点半到"),
        instance(3, "L2", "M3", "authored", end, "帮我们安排一下周六徒步的出发计划。", query_type="personalized_assistance"),
    ]
    anchors = [anchor(1, 1, WATER, 1)] + sorted(moved, key=lambda a: a["anchor_id"])
    atoms = [atom(1, 1, 1, WATER), atom(2, 1, 1, OLD, distractor=True), atom(2, 2, 2, TIME), atom(2, 3, 3, NEW)]
    criteria = [criterion(3, 1, "grounding", 3, "回复依据：" + NEW[1], NEW),
                criterion(3, 2, "grounding", 3, "回复依据：" + TIME[1], TIME),
                criterion(3, 3, "service", 2, "说明每个人出发前要做什么"),
                criterion(3, 4, "penalty", -2, "回复把集合地点说成断桥", OLD, "superseded_value", mandatory=False)]
    correction = at["不对，我说的是带水和干粮，不是帐篷。"]
    feedback = [{"feedback_id": f"{group}:F001", "group_id": group, "message_id": correction["message_id"],
                 "pattern": "recalled_fact", "wording_zh": correction["text_zh"], "wording_en": None}]
    audit = [{"instance_id": f"{group}:I0004", "layer": "gate", "check": "iii",
              "reason": "the query quotes the message it asks about", "quote": None}]
    return {"instances": instances, "anchors": anchors, "atoms": atoms, "criteria": criteria, "feedback": feedback,
            "audit": audit}


def packaged(root, resources):
    """The release: the specimen's files replaced by the conversion's, English text fields not required, the
    descriptor declaring Chinese alone, with Chinese words alone, and saying where the records come from."""
    for name, rows in resources.items():
        (root / "data" / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                    encoding="utf-8")
    for path in (root / "schemas").glob("*.schema.json"):
        edit_json(path, lambda schema: [f["constraints"].pop("required", None) for f in schema["fields"]
                                        if f["name"].endswith("_en")])
    edit_json(root / "datapackage.json", lambda d: d["groupassist"].update(
        languages=["zh"], synthetic=True, provenance="WeChat-export-shaped records made for the conversion guide.",
        words={name: {"zh": words["zh"]} for name, words in
               dict(d["groupassist"]["words"], assistant_mention={"zh": ["@元宝"]}).items()}))


@pytest.fixture
def release(tmp_path):
    root = shutil.copytree(SPECIMEN, tmp_path / "wechat")
    messages, members, counts = convert(export())
    packaged(root, {"messages": messages, "members": members} | authored(messages))
    return root, counts


def test_a_wechat_shaped_chinese_group_chat_converts_to_a_valid_chinese_only_release(release, capsys):
    root, counts = release
    assert counts == {"join notices dropped": 1, "recall notices dropped": 1}
    assert main(["refresh", str(root)]) == 0, capsys.readouterr()
    capsys.readouterr()
    code, said = main(["validate", str(root)]), capsys.readouterr().out
    assert code == 0, said[-4000:]
    assert "0 error(s), 0 warning(s)" in said
    assert frictionless_valid(root)
    assert main(["baselines", str(root)]) == 0
    assert "zh: anchor recall" in capsys.readouterr().out
    assert main(["publish", str(root), "--repo-id", "ORG/NAME", "--version", "0.1.0", "--dry-run"]) == 0
    assert "data/feedback.jsonl" in capsys.readouterr().out
    assert read_card(root / "README.md").data["language"] == ["zh"]


def gc16_lines(root, capsys):
    """GC16's failure lines after stamping `root`."""
    assert main(["stamp", "--force", str(root)]) == 0
    capsys.readouterr()
    main(["validate", str(root)])
    out = capsys.readouterr().out
    return [line.strip() for line in out[out.index("GC16 (warning)"):].splitlines()[1:] if line.startswith("  ")] \
        if "GC16 (warning)" in out else []


def test_a_request_naming_the_deployment_undeclared_is_one_gc16_line(release, capsys):
    """The conversion without `words.assistant_mention`: "@元宝" is a name the format cannot know, and the
    assistant's reply comes a message later, unquoted."""
    root, _ = release
    edit_json(root / "datapackage.json", lambda d: d["groupassist"]["words"].pop("assistant_mention"))
    assert gc16_lines(root, capsys) == ["instances G01:I0001 cutoff_turn=33 : the request G01:m000033 is no service "
                                        "point: it mentions no assistant, and no assistant record follows it or replies to it"]


def test_a_chinese_only_request_naming_the_formats_assistant_is_a_service_point(release, capsys):
    """GC16's near-miss: the format's own Chinese name for the assistant (`@助手`, as the specimen's requests write
    it) is read in a release that carries no English text to say `@assistant` in."""
    root, _ = release
    edit_json(root / "datapackage.json", lambda d: d["groupassist"]["words"].pop("assistant_mention"))
    for name in ("messages", "instances"):
        path = root / "data" / f"{name}.jsonl"
        path.write_text(path.read_text(encoding="utf-8").replace("@元宝", "@助手"), encoding="utf-8")
    assert gc16_lines(root, capsys) == []
