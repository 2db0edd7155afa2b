"""docs/forking.md §4's second worked example: a LongMemEval-shaped dataset (a list of questions, each with its own
haystack of dated sessions, evidence turns marked `has_answer`, abstention ids ending `_abs`) converted as the guide
says, into a release of `source` and `qa` alone. It validates, the qa baselines score it, and publish --dry-run plans
it. The records are made here; no outside data.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from test_forks import fork, refresh_validate_publish  # noqa: F401  (the fork fixture: a clone with its documents)
from test_locomo_conversion import packaged

from realcompanion.cli import main


def turns(*said, marked=()):
    """A haystack session: alternating user and assistant turns, those at `marked` carrying has_answer."""
    return [dict({"role": ("user", "assistant")[i % 2], "content": text}, **({"has_answer": True} if i in marked else {}))
            for i, text in enumerate(said)]


FILLER = turns("Can you give me a recipe for banana bread?", "Mash three bananas, mix with flour and an egg, bake.")
EMPTY_REPLY = turns("What is the capital of Australia?", "Canberra.", "Thanks!", "")  # ShareGPT keeps empty replies
DEGREE = turns("I graduated with a degree in Business Administration.", "An MBA could build on that.", marked=(0,))


def question(qid, kind, text, answer, asked, sessions):
    """One LongMemEval_S question: `sessions` as (session id, date as the dataset writes it, turns)."""
    return {"question_id": qid, "question_type": kind, "question": text, "answer": answer, "question_date": asked,
            "haystack_session_ids": [s[0] for s in sessions], "haystack_dates": [s[1] for s in sessions],
            "haystack_sessions": [s[2] for s in sessions],
            "answer_session_ids": [s[0] for s in sessions if s[0].startswith("answer_")]}


# LongMemEval_S's shape (longmemeval_s.json): one record per question, its haystack sessions dated
# `2023/05/20 (Sat) 02:21`; two sessions of one haystack 15 minutes apart are one session by the gap rule
QUESTIONS = [
    question("e47becba", "single-session-user", "What degree did I graduate with?", "Business Administration",
             "2023/05/30 (Tue) 23:40", [("sharegpt_a1", "2023/05/22 (Mon) 14:20", FILLER),
                                        ("answer_e47becba", "2023/05/22 (Mon) 14:05", DEGREE)]),
    question("58ef2f1c", "single-session-assistant", "Which city did you recommend for temples?", "Kyoto",
             "2023/06/10 (Sat) 09:00", [("answer_58ef2f1c", "2023/06/01 (Thu) 18:30", turns(
                 "Where should I see temples in Japan?", "Kyoto, with over a thousand of them.", marked=(1,)))]),
    question("0a995998", "multi-session", "How many items of clothing do I need to pick up or return?", "3",
             "2023/02/15 (Wed) 23:50", [
                 ("answer_0a995998_1", "2023/02/05 (Sun) 10:00",
                  turns("I need to return boots to Zara and pick up a blazer.", "Two errands.", marked=(0,))),
                 ("sharegpt_c3", "2023/02/08 (Wed) 21:12", EMPTY_REPLY),
                 ("answer_0a995998_2", "2023/02/11 (Sat) 16:45",
                  turns("I still have to exchange a sweater at H&M.", "That makes three.", marked=(0,)))]),
    question("6a1eabeb", "knowledge-update", "What is my personal best time in the 5K?", "25:50",
             "2023/09/01 (Fri) 08:00", [
                 ("answer_6a1eabeb_1", "2023/08/01 (Tue) 07:15", turns("My 5K best is 27:12.", "Nice.", marked=(0,))),
                 ("answer_6a1eabeb_2", "2023/08/20 (Sun) 19:02", turns("New 5K best: 25:50!", "Great.", marked=(0,)))]),
    question("gpt4_2655b836", "temporal-reasoning", "How many days ago did I buy the new bike?", "10 days ago",
             "2023/03/20 (Mon) 10:00", [("answer_2655b836", "2023/03/10 (Fri) 17:30",
                                         turns("I bought a blue gravel bike today!", "Enjoy it.", marked=(0,)))]),
    question("75832dbd", "single-session-preference", "Can you recommend some recent publications?",
             "The user would prefer papers on AI in healthcare.", "2023/05/25 (Thu) 12:00",
             [("answer_75832dbd", "2023/05/21 (Sun) 13:00", turns("I work on deep learning for medical imaging.", "Nice."))]),
    question("e47becba_abs", "single-session-user", "What degree did I get from my master's program?",
             "You did not mention this information.", "2023/05/30 (Tue) 23:40",
             [("answer_e47becba", "2023/05/22 (Mon) 14:05", DEGREE)]),
]
CATEGORIES = {"single-session-user": "basic_fact", "single-session-assistant": "basic_fact",
              "single-session-preference": "preference", "multi-session": "multi_hop",
              "knowledge-update": "knowledge_update", "temporal-reasoning": "temporal"}
WRITTEN = "%Y/%m/%d (%a) %H:%M"
GAP = timedelta(minutes=30)  # the specimen's session_gap_minutes
PROVENANCE = "LongMemEval-shaped records made for the conversion guide."


def convert(questions):
    """The guide's steps: one participant per question's haystack, sessions in date order at their time, has_answer
    turns as evidence, an abstention unanswerable, a question counting days to its own date kept out of scoring."""
    source, qa = [], []
    counts = dict.fromkeys(("empty turns dropped", "no evidence: not a question row",
                            "counts from the date asked: excluded outside_messages"), 0)
    for index, q in enumerate(questions, 1):
        pid, asked = f"U{index:02d}", datetime.strptime(q["question_date"], WRITTEN)
        turn, seq, evidence, session, last = 0, {}, [], 0, None
        sessions = sorted(((datetime.strptime(d, WRITTEN), t) for d, t in zip(q["haystack_dates"], q["haystack_sessions"])),
                          key=lambda s: s[0])
        for when, said in sessions:
            session += last is None or when - last > GAP
            last, day = when, (when.date() - sessions[0][0].date()).days + 1
            for t in said:
                if not t["content"].strip():
                    counts["empty turns dropped"] += 1
                    continue
                seq[day] = seq.get(day, 0) + 1
                source.append({"participant_id": pid, "turn": turn, "dayid": f"{pid}:d{day:03d}:{seq[day]:03d}",
                               "db_id": turn, "sender": "user" if t["role"] == "user" else "companion",
                               "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "session": session, "media": None,
                               "text": t["content"]})
                evidence += [source[-1]["dayid"]] if t.get("has_answer") else []
                turn += 1
        abstains = q["question_id"].endswith("_abs")
        if not evidence and not abstains:
            counts["no evidence: not a question row"] += 1
            continue
        excluded = None
        if q["question_type"] == "temporal-reasoning" and " ago" in q["question"] and asked.date() > last.date():
            excluded = "outside_messages"  # "ago" counts from the day asked, which no message dates
            counts["counts from the date asked: excluded outside_messages"] += 1
        qa.append({"item_id": f"{pid}:Q0001", "participant_id": pid, "question": q["question"],
                   "answer": None if abstains else q["answer"], "answerable": not abstains,
                   "category": "unanswerable" if abstains else CATEGORIES[q["question_type"]], "evidence": evidence,
                   "asked_after": source[-1]["dayid"], "excluded": excluded})
    return source, qa, counts


def test_a_longmemeval_shaped_dataset_converts_to_a_valid_release_of_source_and_qa(fork, capsys):  # noqa: F811
    source, qa, counts = convert(QUESTIONS)
    assert counts == {"empty turns dropped": 1, "no evidence: not a question row": 1,
                      "counts from the date asked: excluded outside_messages": 1}
    assert [q["category"] for q in qa] == ["basic_fact", "basic_fact", "multi_hop", "knowledge_update", "temporal",
                                          "unanswerable"]
    assert {m["session"] for m in source if m["participant_id"] == "U01"} == {1}  # 15 minutes apart: one session
    packaged(fork, source, qa, PROVENANCE)
    planned = refresh_validate_publish(fork, capsys)
    assert "data/qa.jsonl" in planned and "data/chat.jsonl" not in planned
    assert main(["baselines", str(fork), "--track", "qa", "--resamples", "10"]) == 0
    assert "1 of 6 rows kept out of scoring by the release (excluded: outside_messages 1)" in capsys.readouterr().out


def test_an_empty_reply_kept_is_one_line_naming_the_message(fork, capsys):  # noqa: F811
    """The guide's table: a dataset's empty reply packaged as it is (here in the place of "Canberra.") fails FLD1 on
    that message alone, and refresh names the rule."""
    source, qa, _ = convert(QUESTIONS)
    empty = next(m for m in source if m["text"] == "Canberra.")
    empty["text"] = ""
    packaged(fork, source, qa, PROVENANCE)
    assert main(["refresh", str(fork)]) == 1 and "fails rule(s) FLD1;" in capsys.readouterr().err
    assert main(["stamp", "--force", str(fork)]) == 0
    capsys.readouterr()
    assert main(["validate", str(fork)]) == 1
    failing = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("  source ")]
    assert failing == [f"source {empty['dayid']} text= : a message's text is empty only when it carries a media marker"]
