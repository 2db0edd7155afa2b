"""A system's replies, and turning them into verdicts with a judge.

Replies file: one JSON object per line, {"item_id", "condition", "reply"} on
the chat track (items put to a system: scored rows and cold opens) or
{"item_id", "condition", "answer"} on the question track. The judge sees the
probe or question, the reference (the gold response or answer; a stated
absence when there is none) and the reply, and returns the track's verdict
fields (`verdicts.FIELDS`).
"""
from __future__ import annotations

from realcompanion.release import ReadError
from realcompanion.scoring.jsonl import condition as condition_of
from realcompanion.scoring.jsonl import field, known_item, rows
from realcompanion.scoring.verdicts import FIELDS, OPTIONAL_FIELDS, ask_each, reply_sha256

from .settings import TRACK_CONDITIONS

REPLY_FIELD = {"chat": "reply", "qa": "answer"}
NO_REFERENCE = {"chat": "(none: the probe opens a conversation and has no reference reply)",
                "qa": "(none: the conversation history does not answer this question)"}


def read_replies(path, track, data: bytes | None = None) -> list[dict]:
    out, seen = [], set()
    for line, row in rows(path, data):
        item = known_item(row, track, path, line)
        item_id = item.item_id
        if not item.posed:
            raise ReadError(path, f"'{item_id}' is not put to a system ({item.status})", line=line, field="item_id")
        condition = condition_of(row, path, line, TRACK_CONDITIONS[track.name])
        if (item_id, condition) in seen:
            raise ReadError(path, f"'{item_id}' under '{condition}' appears twice", line=line, field="condition")
        seen.add((item_id, condition))
        reply = field(row, REPLY_FIELD[track.name], (str,), path, line)
        out.append({"item_id": item_id, "condition": condition, "reply": reply, "reply_sha256": reply_sha256(reply)})
    return out


def prompt_values(track, item, reply: str) -> dict:
    reference = item.reference if item.reference is not None else NO_REFERENCE[track.name]
    if track.name == "chat":
        return {"probe": item.query, "reference": reference, "reply": reply}
    return {"question": item.query, "reference": reference, "answer": reply}


def judge_replies(track, out, judge, prompt, concurrency: int = 1, progress=None) -> list[dict]:
    """Ask the judge about each reply `out` has no verdict for, `concurrency` at a time, writing each verdict as it
    comes (`verdicts.ask_each`); returns the replies left unjudged."""
    optional = {name: (kinds, track.vocabulary.get(choices))
                for name, (kinds, choices) in OPTIONAL_FIELDS[track.name].items()}

    async def verdict_of(reply: dict) -> dict:
        values = prompt_values(track, track.by_id[reply["item_id"]], reply["reply"])
        return {**await judge.ask_async(prompt, values, FIELDS[track.name], optional), "judge": judge.stamp(prompt)}

    return ask_each(out, verdict_of, concurrency, progress)
