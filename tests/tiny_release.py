"""A hand-built two-participant release whose scores are worked out by hand in the tests.

U01 has 24 messages (turns 0-23; the user on even turns, the companion on odd
ones), U02 20 (turns 0-19; the companion on turns 3, 6, 8, 10, 12, 14, 17).
Positions below are turns. The descriptor (format 2.0.0: recent window 10)
and the schemas are the repository's; the data rows are written here, field
by field, and the release passes `realcompanion validate`. Gate E holds on
the two strict rows: U01:C0002's episode (turn 2) lies 12 messages before
its probe (14), U02:C0002's claim evidence (turns 1 and 5) 15 and 11 before
its probe (16), both outside the last 10 messages.
The cold open U01:C0005 is scoreable (not withdrawn); only memory-bearing rows cite
episodes (V5).

item       stratum       locus              recent  episodes  profile    memory-bearing   probe
U01:C0001  proportional  current_thread     6, 7    -         -          none             8
U01:C0002  enriched      earlier_exchange   13      2         -          recorded+strict  14
U01:C0003  proportional  companion_behavior -       17        -          recorded only    20
U01:C0004  proportional  none               -       -         -          none             22
U01:C0005  abstention (cold open, scoreable)                                              0
U01:C0006  proportional, withdrawn context_lost                                           12
U02:C0001  proportional  current_thread     3       -         -          none             4
U02:C0002  enriched      profile_claim      15      -         P0001      recorded+strict  16
                                                              (1, 5)
U02:C0003  proportional  current_thread     17      -         -          none             18
U02:C0004  proportional  current_thread     8       -         -          none             19 (user)
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from realcompanion.paths import REPO_ROOT

U01_TEXTS = [
    "good morning, I finally booked the pottery class",            # 0 user (cold open)
    "That sounds lovely, when does it start?",                      # 1
    "the pottery teacher is called Mira and she is strict",         # 2 user: episode of U01:C0002
    "Strict teachers can be the best ones.",                        # 3
    "my sister visits next week",                                   # 4
    "How long is she staying?",                                     # 5
    "only the weekend, we plan a hike",                             # 6
    "A weekend hike sounds great.",                                 # 7
    "which trail should we take for the hike",                      # 8 user: probe U01:C0001
    "The river trail is gentle.",                                   # 9
    "ok",                                                           # 10
    "Anything else on your mind?",                                  # 11
    "work was long today",                                          # 12 user: probe of the withdrawn row
    "Long days are tiring.",                                        # 13
    "do you think Mira will let me glaze the bowl",                 # 14 user: probe U01:C0002
    "She might, if the bowl is dry.",                               # 15
    "I bought new running shoes",                                   # 16
    "Red ones? You said you liked red shoes.",                      # 17 companion: episode of U01:C0003
    "haha yes",                                                     # 18
    "Enjoy the run.",                                               # 19
    "you guessed the shoes colour right",                           # 20 user: probe U01:C0003
    "I remember small things.",                                     # 21
    "I am tired",                                                   # 22 user: probe U01:C0004
    "Rest well.",                                                   # 23
]
U02_TEXTS = [
    "hello there",                                                  # 0 user
    "I live in Porto by the sea",                                   # 1 user: evidence of U02:P0001
    "I adopted a cat named Pixel",                                  # 2 user
    "Pixel is a great name.",                                       # 3 companion
    "Pixel knocked over my plant",                                  # 4 user: probe U02:C0001
    "the sea in Porto was wild today",                              # 5 user: evidence of U02:P0001
    "It must be windy.",                                            # 6 companion
    "the plant survived though",                                    # 7 user
    "Good to hear the plant is fine.",                              # 8 companion
    "I made soup for dinner",                                       # 9 user
    "Soup is perfect on a windy day.",                              # 10 companion
    "my neighbour lost his umbrella",                               # 11 user
    "Umbrellas rarely survive a storm.",                            # 12 companion
    "yes",                                                          # 13 user
    "Anything planned for the evening?",                            # 14 companion
    "just reading",                                                 # 15 user
    "should I move closer to the sea",                              # 16 user: probe U02:C0002
    "Only if you want to.",                                         # 17 companion
    "Pixel sleeps all day",                                         # 18 user: probe U02:C0003
    "cats and plants do not mix",                                   # 19 user: probe U02:C0004
]
U02_COMPANION = {3, 6, 8, 10, 12, 14, 17}

ITEMS = [
    # item, stratum, locus, probe turn, recent, episodes, profile claims, (recorded, strict, strict2), on_screen
    ("U01:C0001", "proportional", "current_thread", 8, [6, 7], [], [], (False, False, False), None),
    ("U01:C0002", "enriched", "earlier_exchange", 14, [13], [2], [], (True, True, True), "not_on_screen"),
    ("U01:C0003", "proportional", "companion_behavior", 20, [], [17], [], (True, False, False), "clear"),
    ("U01:C0004", "proportional", "none", 22, [], [], [], (False, False, False), None),
    ("U01:C0005", "abstention", "none", 0, [], [], [], (False, False, False), None),
    ("U01:C0006", "proportional", "current_thread", 12, [11], [], [], (False, False, False), None),
    ("U02:C0001", "proportional", "current_thread", 4, [3], [], [], (False, False, False), None),
    ("U02:C0002", "enriched", "profile_claim", 16, [15], [], ["U02:P0001"], (True, True, True), "not_on_screen"),
    ("U02:C0003", "proportional", "current_thread", 18, [17], [], [], (False, False, False), None),
    ("U02:C0004", "proportional", "current_thread", 19, [8], [], [], (False, False, False), None),
]
WITHDRAWN = {"U01:C0006": "context_lost"}
REFERENTS = {"U01:C0002": "Mira", "U01:C0003": "red shoes", "U02:C0002": "Porto"}  # each memory-bearing row's (REF1)
CLAIMS = [("U02:P0001", "identity", "Lives in Porto by the sea.", [1, 5])]
QUESTIONS = [
    # item, question, answer, evidence turns, asked after turn
    ("U01:Q0001", "What is my pottery teacher called?", "Mira", [2], 21),
    ("U01:Q0002", "What is my favourite colour?", None, [], 23),
]


def sender(pid: str, turn: int) -> str:
    if pid == "U02":
        return "companion" if turn in U02_COMPANION else "user"
    return "user" if turn % 2 == 0 else "companion"


def dayid(pid: str, turn: int) -> str:
    return f"{pid}:d001:{turn + 1:03d}"


def source_rows() -> list[dict]:
    rows = []
    for pid, texts in (("U01", U01_TEXTS), ("U02", U02_TEXTS)):
        for turn, text in enumerate(texts):
            rows.append({"participant_id": pid, "turn": turn, "dayid": dayid(pid, turn), "db_id": 100 + 2 * turn,
                         "sender": sender(pid, turn), "timestamp": f"2025-03-01T09:{turn:02d}:00+00:00",
                         "session": 1, "media": None, "text": text})
    return rows


def chat_rows(texts: dict[str, list[str]], withdrawn_rows: dict | None = None) -> list[dict]:
    """The rows of ITEMS; `withdrawn_rows` (item: code) replaces WITHDRAWN."""
    withdrawn_rows = WITHDRAWN if withdrawn_rows is None else withdrawn_rows
    rules = json.loads((REPO_ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["tier_rule"]
    rows = []
    for item, stratum, locus, probe, recent, episodes, claims, (recorded, strict, strict2), on_screen in ITEMS:
        pid = item[:3]
        tier = {(False, False): "basic", (True, False): "intermediate", (False, True): "hard",
                (True, True): "edge"}[bool(claims), bool(episodes)]
        category = {"basic": "continuation", "intermediate": "biographical", "hard": "episode_callback",
                    "edge": "profile_episode_link"}[tier]
        cold = stratum == "abstention"
        withdrawn = withdrawn_rows.get(item)
        gold = None if cold or withdrawn else "A reply written from the recorded context."
        grounding = [dayid(pid, t) for t in recent + episodes]
        rows.append({
            "item_id": item, "participant_id": pid, "stratum": stratum, "cold_open": cold,
            "scoreable": not withdrawn, "withdrawn": withdrawn, "probe": texts[pid][probe],
            "probe_dayid": dayid(pid, probe), "gold_response": gold, "sampled_as": tier, "tier": tier,
            "category": category, "locus": locus,
            "required_context": {"recent_context": [dayid(pid, t) for t in recent], "profile_refs": claims,
                                 "episode_refs": [dayid(pid, t) for t in episodes], "recent_needed": bool(recent)},
            "grounding_dayids": grounding,
            "memory_bearing": {"recorded": recorded, "strict": strict, "strict2": strict2}, "on_screen": on_screen,
            "trace": {"A": {"result": "pass", "rationale": "Referent named.", "referent_text": REFERENTS.get(item),
                            "locus": locus},
                      "B": {"result": "pass", "rationale": None, "removed": []},
                      "C": {"result": "pass", "rationale": "Tier from the lists.", "tier": tier, "category": category,
                            "rule": rules[tier], "relabeled": None},
                      "D": {"result": "pass", "rationale": "Written from the context.", "gold_response": gold,
                            "grounding_dayids": grounding},
                      "E": {"result": "fail" if withdrawn else "pass", "rationale": None, "ok": not withdrawn,
                            "category_ok": True}},
        })
    return rows


def profile_rows() -> list[dict]:
    return [{"claim_id": claim, "participant_id": claim[:3], "field": field, "text": text,
             "evidence": [dayid(claim[:3], t) for t in turns], "evidence_count": len(turns), "confidence": 0.9,
             "confidence_label": "high", "first_seen": "2025-03-01", "last_seen": "2025-03-01",
             "temporality": "stable", "audit_verdict": "supported"} for claim, field, text, turns in CLAIMS]


def qa_rows(questions=QUESTIONS) -> list[dict]:
    return [{"item_id": item, "participant_id": item[:3], "question": question, "answer": answer,
             "answerable": answer is not None, "category": "basic_fact" if answer else "unanswerable",
             "evidence": [dayid(item[:3], t) for t in evidence], "asked_after": dayid(item[:3], after), "excluded": None}
            for item, question, answer, evidence, after in questions]


def persona_rows() -> list[dict]:
    """Every slot of the vocabulary for each participant, all empty (no score reads the persona file)."""
    slots = json.loads((REPO_ROOT / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["persona_slot"]
    return [{"participant_id": pid, "slot": slot, "category": category, "value": None, "evidence": None,
             "rationale": None} for pid in ("U01", "U02") for slot, category in slots.items()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def build(folder: Path, questions=QUESTIONS, withdrawn: dict | None = None, tracks=("chat", "qa")) -> Path:
    """Write the release into `folder` (the repository's descriptor and schemas, the rows above, `questions` for
    QUESTIONS, `withdrawn` for WITHDRAWN), stamped; a track not in `tracks` is left out, as a release without it."""
    from left_out import leave_out

    from realcompanion.stamp import stamp

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO_ROOT / "datapackage.json", folder / "datapackage.json")
    shutil.copytree(REPO_ROOT / "schemas", folder / "schemas")
    (folder / "data").mkdir()
    write_jsonl(folder / "data" / "source.jsonl", source_rows())
    write_jsonl(folder / "data" / "chat.jsonl", chat_rows({"U01": U01_TEXTS, "U02": U02_TEXTS}, withdrawn))
    write_jsonl(folder / "data" / "profile.jsonl", profile_rows())
    write_jsonl(folder / "data" / "persona.jsonl", persona_rows())
    write_jsonl(folder / "data" / "qa.jsonl", qa_rows(questions))
    for track in {"chat", "qa"} - set(tracks):
        leave_out(folder, track)
    stamp(folder)
    return folder
