"""docs/forking.md §6's worked example: a LoCoMo-shaped dataset (two speakers, dated sessions, dialogue ids, image
turns, questions of categories 1-5) converted as the guide says, into a release of `source` and `qa` alone. It
validates, the qa baselines score it, and publish --dry-run plans it. The records are made here; no outside data.
"""
from __future__ import annotations

import json
from datetime import datetime

from left_out import leave_out
from test_forks import fork, refresh_validate_publish  # noqa: F401  (the fork fixture: a clone with its documents)
from test_rules import write

from realcompanion.cli import main

# LoCoMo's shape: per conversation two speakers, session_<n>_date_time as the dataset writes it, session_<n> turns
# with dia_id "D<session>:<n>", an image turn carrying img_url and blip_caption; questions with category 1-5
# (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial with adversarial_answer and no answer)
SAMPLES = [{
    "sample_id": "conv-1",
    "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Ana" if n % 2 else "Ben", "dia_id": f"D1:{n}", "text": text} for n, text in enumerate(
            ["I started pottery classes last week.", "How are you finding them?", "Messy but fun. My first bowl cracked.",
             "Keep at it!", "I will, the teacher is patient.", "Good to hear."], 1)],
        "session_2_date_time": "7:10 pm on 20 June, 2023",
        "session_2": [{"speaker": "Ana" if n % 2 else "Ben", "dia_id": f"D2:{n}", "text": text} for n, text in enumerate(
            ["My bowl survived the kiln this time!", "Congratulations!", "Here it is.", "It looks great.",
             "I gave it to my sister Lia.", "She must love it."], 1)],
        "session_3_date_time": "9:05 am on 2 August, 2023",
        "session_3": [{"speaker": "Ana" if n % 2 else "Ben", "dia_id": f"D3:{n}", "text": text} for n, text in enumerate(
            ["I signed up for the advanced pottery course.", "Ambitious!", "It starts in September.",
             "Tell me how it goes.", "I will.", "Good luck."], 1)],
    },
    "qa": [
        {"question": "What class did Ana start?", "answer": "pottery", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Ana's bowl survive the kiln?", "answer": "June 2023", "evidence": ["D2:1"], "category": 2},
        {"question": "Who got Ana's bowl, and what happened to her first one?", "answer": "Lia; it cracked",
         "evidence": ["D1:3", "D2:5"], "category": 1},
        {"question": "Is Ana likely to keep doing pottery?", "answer": "Yes", "evidence": ["D3:1"], "category": 3},
        {"question": "What did Ana's bowl look like?", "answer": "a blue glazed bowl", "evidence": ["D2:3"],
         "category": 4},
        {"question": "What did Ben's sister get?", "adversarial_answer": "a bowl", "evidence": ["D2:5"],
         "category": 5},
        {"question": "When does the advanced course start?", "answer": "September", "evidence": ["D30:3"],
         "category": 2},  # an evidence typo: D30 for D3
        {"question": "What is Ana's favourite colour?", "answer": "green", "evidence": [], "category": 4},
        {"question": "Which two things did Ana do in pottery within one session?", "answer": "a bowl; a class",
         "evidence": ["D1:1", "D1:3"], "category": 1},  # "multi-hop" within one session
    ],
}]
# the image turn (the dataset's img_url and blip_caption): the picture of the bowl
SAMPLES[0]["conversation"]["session_2"][2].update(img_url=["https://example.org/bowl.jpg"],
                                                   blip_caption="a photo of a blue glazed bowl")
CATEGORIES = {1: "multi_hop", 2: "temporal", 4: "basic_fact", 5: "unanswerable"}  # 3 is left out of scoring


def convert(samples):
    """The guide's steps: one participant per conversation (speaker_a the user), a message per turn at its
    session's time, questions mapped and kept out of scoring with a reason, or not kept and counted."""
    source, qa, counts = [], [], {"evidence typo dropped": 0, "no evidence: not a question row": 0,
                                  "multi-hop within one session: relabelled basic_fact": 0}
    for index, sample in enumerate(samples, 1):
        pid, talk, turn, seq, dayids, sessions = f"U{index:02d}", sample["conversation"], 0, {}, {}, {}
        numbers = sorted(int(k.split("_")[1]) for k in talk if k.startswith("session_") and k.endswith("_date_time"))
        first = None
        for number in numbers:
            when = datetime.strptime(talk[f"session_{number}_date_time"], "%I:%M %p on %d %B, %Y")
            first = first or when.date()
            day = (when.date() - first).days + 1
            for t in talk[f"session_{number}"]:
                seq[day] = seq.get(day, 0) + 1
                dayids[t["dia_id"]] = f"{pid}:d{day:03d}:{seq[day]:03d}"
                sessions[t["dia_id"]] = number
                source.append({"participant_id": pid, "turn": turn, "dayid": dayids[t["dia_id"]], "db_id": turn + 1,
                               "sender": "user" if t["speaker"] == talk["speaker_a"] else "companion",
                               "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "session": number,
                               "media": "image" if t.get("img_url") else None, "text": t["text"]})
                turn += 1
        images = {t["dia_id"] for n in numbers for t in talk[f"session_{n}"] if t.get("img_url")}
        for q in sample["qa"]:
            cited = [d for d in q["evidence"] if d in dayids]
            counts["evidence typo dropped"] += len(q["evidence"]) - len(cited)
            answer = None if q["category"] == 5 else q["answer"]
            if answer is not None and not cited:
                counts["no evidence: not a question row"] += 1
                continue
            category, excluded = CATEGORIES.get(q["category"], "basic_fact"), None
            if q["category"] == 3:
                excluded = "outside_messages"  # world knowledge beyond the conversation
            elif cited and set(cited) <= images:
                excluded = "outside_messages"  # the answer lies in the picture, which no message holds
            if category == "multi_hop" and len({sessions[d] for d in cited}) < 2:
                category = "basic_fact"
                counts["multi-hop within one session: relabelled basic_fact"] += 1
            qa.append({"item_id": f"{pid}:Q{len(qa) + 1:04d}", "participant_id": pid, "question": q["question"],
                       "answer": answer, "answerable": answer is not None, "category": category,
                       "evidence": [dayids[d] for d in cited], "asked_after": source[-1]["dayid"],
                       "excluded": excluded})
    return source, qa, counts


def packaged(root, source, qa, provenance):
    """A release of `source` and `qa` alone (no evidenced claims, no portrait, no companion probes with memory
    labels), its records said to be made for the guide."""
    write(root, "source", source)
    write(root, "qa", qa)
    for name in ("profile", "persona", "chat"):
        leave_out(root, name)
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["realcompanion"].update(synthetic=True, relabeled=0, provenance=provenance)
    (root / "datapackage.json").write_text(json.dumps(descriptor, indent=2), encoding="utf-8")


def test_a_locomo_shaped_dataset_converts_to_a_valid_release_of_source_and_qa(fork, capsys):  # noqa: F811
    source, qa, counts = convert(SAMPLES)
    assert counts == {"evidence typo dropped": 1, "no evidence: not a question row": 2,
                      "multi-hop within one session: relabelled basic_fact": 1}
    assert [q["excluded"] for q in qa].count("outside_messages") == 2 and len(qa) == 7
    packaged(fork, source, qa, "LoCoMo-shaped records made for the conversion guide.")
    planned = refresh_validate_publish(fork, capsys)
    assert "data/qa.jsonl" in planned and "data/chat.jsonl" not in planned
    assert main(["baselines", str(fork), "--track", "qa", "--resamples", "10"]) == 0
    assert "2 of 7 rows kept out of scoring by the release (excluded: outside_messages 2)" in capsys.readouterr().out
    assert main(["baselines", str(fork), "--track", "chat"]) == 2
