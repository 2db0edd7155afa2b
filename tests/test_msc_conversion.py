"""docs/forking.md §4's third worked example: a Multi-Session Chat-shaped dataset (MSC, Xu et al. 2022: two
crowdworkers role-playing sessions hours or days apart, per-session persona summaries per speaker, the ConvAI2
role-play card as `init_personas`) converted as the guide says, into a release of `source`, `profile` and
`persona`. It validates, the reconstruction scorer scores it, and publish --dry-run plans it. The records are made
here; no outside data.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from left_out import leave_out
from test_forks import fork, mistakes_table, refresh_validate_publish  # noqa: F401  (the fork fixture: a clone with its documents)
from test_rules import write

from realcompanion.cli import main


def dialog(*said, annotated=None):
    """A session's turns, Speaker 1 first; `annotated` maps a turn's index to the persona line an annotator wrote
    for it (`persona_text`, as msc_personasummary carries it)."""
    return [dict({"text": text}, **({"persona_text": annotated[i]} if i in (annotated or {}) else {}))
            for i, text in enumerate(said)]


# MSC's shape (msc_dialogue/session_4/*.txt): one line per dialogue, its earlier sessions in `previous_dialogs`
# (each with the time to the next session, `time_num` `time_unit`, and the speakers' persona lines), the last
# session in `dialog` with speaker ids
EPISODES = [{
    "metadata": {"initial_data_id": "train:ordered_7", "session_id": 3},
    "init_personas": [["I am a nurse.", "I have two dogs.", "I like to bake."],
                      ["I play guitar.", "I live in Ohio."]],
    "previous_dialogs": [
        {"dialog": dialog("Long shift at the hospital today, I am a nurse.", "That sounds exhausting!",
                          "My two dogs were waiting at the door though.", "Dogs are the best.",
                          annotated={0: "I am a nurse.", 2: "I have two dogs."}),
         "personas": [["I am a nurse.", "I have two dogs."], ["I like dogs."]],
         "time_num": 4, "time_unit": "hours", "time_back": "4 hours later"},
        {"dialog": dialog("I baked banana bread for my coworkers.", "Lucky coworkers!", "", "Ha, I would eat it all.",
                          "I am going back to school for my master's next fall.", "Good luck with it.",
                          annotated={0: "I like to bake.", 4: "I plan to get a master's degree."}),
         "personas": [["I like to bake.", "I plan to get a master's degree.", "I feel tired lately."],
                      ["I like banana bread."]],
         "time_num": 7, "time_unit": "days", "time_back": "7 days later"},
    ],
    "dialog": [{"id": "Speaker 1", "text": "The dogs chewed my scrubs, can you believe it?"},
               {"id": "Speaker 2", "text": "Oh no! Puppies?"},
               {"id": "Speaker 1", "text": "No, they are three years old. My sister says I spoil them."},
               {"id": "Speaker 2", "text": "Sisters know."}],
    "personas": [["I am a nurse.", "I have two dogs.", "I like to bake.", "I plan to get a master's degree.",
                  "I have a sister."], ["I like dogs.", "I like banana bread."]],
}]
FIELDS = [  # the conversion's declared mapping of a persona line onto profile fields, first match wins
    ("occupation", ("nurse", "work as", "job")), ("education", ("degree", "school", "college")),
    ("relationships", ("sister", "brother", "wife", "husband", "friend", "dogs", "cat")),
    ("interests", ("like to", "enjoy", "play")), ("emotional_state", ("feel",))]
SLOTS = {"occupation": FIELDS[0][1], "pets": ("dogs", "cat"), "family_members": ("sister", "brother")}  # slot: words
UNITS = {"hours": "hours", "days": "days", "weeks": "weeks"}
FIRST = datetime(2022, 1, 1)  # the nominal day of every dialogue's first session: MSC dates nothing


def sessions(episode):
    """(nominal start, turns, persona lines of Speaker 1) per session, in order: each session after the last by
    the time MSC says passed."""
    out, when = [], FIRST
    for prev in episode["previous_dialogs"]:
        out.append((when, prev["dialog"], prev["personas"][0]))
        when += timedelta(**{UNITS[prev["time_unit"]]: prev["time_num"]})
    return out + [(when, episode["dialog"], episode["personas"][0])]


def convert(episodes, slots):
    """The guide's steps: Speaker 1 the user, Speaker 2 the companion; a persona line a claim, its evidence the
    first user turn annotated with it, else none; the role-play card (`init_personas`) left out, counted."""
    source, profile, persona = [], [], []
    counts = dict.fromkeys(("empty turns dropped", "persona lines without an annotated turn: evidence null",
                            "persona lines no field maps: not a claim", "init_personas lines: not claims"), 0)
    for index, episode in enumerate(episodes, 1):
        pid, turn, seq, first_said, lines = f"U{index:02d}", 0, {}, {}, {}
        for number, (when, said, stated) in enumerate(sessions(episode), 1):
            day = (when.date() - FIRST.date()).days + 1
            for n, t in enumerate(said):
                if not t["text"].strip():
                    counts["empty turns dropped"] += 1
                    continue
                seq[day] = seq.get(day, 0) + 1
                user = t.get("id", f"Speaker {n % 2 + 1}") == "Speaker 1"
                source.append({"participant_id": pid, "turn": turn, "dayid": f"{pid}:d{day:03d}:{seq[day]:03d}",
                               "db_id": number * 1000 + n, "sender": "user" if user else "companion",
                               "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "session": number, "media": None,
                               "text": t["text"]})
                if user and t.get("persona_text"):
                    first_said.setdefault(t["persona_text"], source[-1])
                turn += 1
            lines.update(dict.fromkeys(stated))
        counts["init_personas lines: not claims"] += len(episode["init_personas"][0])
        claims = []
        for line in list(lines) + [p for p in episode["personas"][0] if p not in lines]:
            field = next((f for f, words in FIELDS if any(w in line.lower() for w in words)), None)
            if field is None:
                counts["persona lines no field maps: not a claim"] += 1
                continue
            said = first_said.get(line)
            counts["persona lines without an annotated turn: evidence null"] += said is None
            seen = said and said["timestamp"][:10]
            claims.append({"claim_id": f"{pid}:P{len(claims) + 1:04d}", "participant_id": pid, "field": field,
                           "text": line, "evidence": [said["dayid"]] if said else None, "evidence_count": int(bool(said)),
                           "confidence": None, "confidence_label": None, "first_seen": seen or None,
                           "last_seen": seen or None, "temporality": None, "audit_verdict": None})
        profile += claims
        for slot, category in slots.items():
            held = [c for c in claims if c["evidence"] and any(w in c["text"].lower() for w in SLOTS.get(slot, ()))]
            persona.append({"participant_id": pid, "slot": slot, "category": category,
                            "value": "; ".join(c["text"] for c in held) or None,
                            "evidence": [c["evidence"][0] for c in held] or None,
                            "rationale": "MSC's persona lines, as annotated on the user's turns" if held else None})
    return source, profile, persona, counts


def packaged(root, source, profile, persona):
    write(root, "source", source)
    write(root, "profile", profile)
    write(root, "persona", persona)
    for name in ("chat", "qa"):
        leave_out(root, name)
    descriptor = json.loads((root / "datapackage.json").read_text(encoding="utf-8"))
    descriptor["realcompanion"].update(synthetic=True, relabeled=0,
                                       provenance="MSC-shaped records made for the conversion guide.")
    (root / "datapackage.json").write_text(json.dumps(descriptor, indent=2), encoding="utf-8")


def slots_of(root):
    return json.loads((root / "schemas" / "vocabulary.json").read_text(encoding="utf-8"))["persona_slot"]


def test_an_msc_shaped_dataset_converts_to_a_valid_release_of_source_profile_and_persona(fork, capsys):  # noqa: F811
    source, profile, persona, counts = convert(EPISODES, slots_of(fork))
    assert counts == {"empty turns dropped": 1, "persona lines without an annotated turn: evidence null": 2,
                      "persona lines no field maps: not a claim": 0, "init_personas lines: not claims": 3}
    assert [m["session"] for m in source][::4] == [1, 2, 2, 3]  # sessions 4 hours and 7 days apart
    packaged(fork, source, profile, persona)
    planned = refresh_validate_publish(fork, capsys)
    assert "data/persona.jsonl" in planned and "data/qa.jsonl" not in planned
    assert main(["score-reconstruction", str(fork), "--pred", str(fork / "data")]) == 0
    assert "1.000" in capsys.readouterr().out


def test_a_claim_without_evidence_written_as_an_empty_list_is_the_guides_v5_line(fork, capsys):  # noqa: F811
    """The guide's table: a persona line no turn carries, its evidence written `[]` instead of null, fails V5 on
    that claim alone, with the words the guide quotes."""
    source, profile, persona, _ = convert(EPISODES, slots_of(fork))
    bare = [c for c in profile if c["evidence"] is None]
    for claim in bare:
        claim["evidence"] = []
    packaged(fork, source, profile, persona)
    assert main(["stamp", "--force", str(fork)]) == 0
    capsys.readouterr()
    assert main(["validate", str(fork)]) == 1
    said = dict(mistakes_table((Path(__file__).parents[1] / "docs" / "forking.md").read_text(encoding="utf-8")))["V5"]
    failing = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("  profile ") and "[]" in line]
    assert failing == [f"profile {c['claim_id']} evidence=[] : {said}" for c in bare]


def test_the_datasheet_of_a_release_without_chat_crosses_no_tiers(fork, capsys):  # noqa: F811
    """The datasheet's tier block follows the resources present: a conversion that leaves out `chat` gets a sentence
    saying so, not a table of zeros read as sixteen empty cells of a sample it never drew."""
    packaged(fork, *convert(EPISODES, slots_of(fork))[:3])
    assert main(["refresh", str(fork)]) == 0
    sheet = (fork / "DATASHEET.md").read_text(encoding="utf-8")
    block = sheet[sheet.index("<!-- generated:tiers -->"):sheet.index("<!-- /generated:tiers -->")]
    assert "leaves out `chat`" in block and "|" not in block
