"""What `realcompanion respond` asks a system on a RealCompanion track (`scoring.respond` asks it and writes the
replies file).

Each item is asked with its context as `realcompanion contexts` builds it (`contexts.build_contexts`, Table 28), on
the chat track under C0-C4 and C3m and on the question track under every condition but C2 (a question has no
recorded context: C2 is the chat items' oracle), in the versioned prompt of its track: its probe (`reply` in the
replies file) or question (`answer`). The context block lists each message as `[timestamp] sender: text` under
the condition's heading.
"""
from __future__ import annotations

from realcompanion.scoring.judge_client import fill
from realcompanion.scoring.respond import asked, chosen_conditions, first, respond_all, respond_prompt, responder_from

from .settings import CONDITIONS

RESPOND_PROMPTS = {"chat": "respond-chat.v1.txt", "qa": "respond-qa.v1.txt"}
TRACK_RESPOND_CONDITIONS = {"chat": tuple(CONDITIONS), "qa": tuple(c for c in CONDITIONS if c != "C2")}
NO_CONTEXT = "(no earlier messages are shown)"


def context_block(record: dict) -> str:
    """A `contexts` record's messages under its heading, one line each."""
    if not record["messages"]:
        return NO_CONTEXT
    return "\n".join([f"{record['heading'][0].upper()}{record['heading'][1:]}:"] +
                     [f"[{m['timestamp']}] {m['sender']}: {m['text']}" for m in record["messages"]])


def realcompanion_asked(track, conditions, fallback: str = "none", short=None, progress=None) -> list[dict]:
    """Everything to ask on `track` under `conditions`: each item put to a system, with its Table 28 context."""
    from .contexts import build_contexts

    prompt = respond_prompt(track.name, RESPOND_PROMPTS[track.name])
    query = "probe" if track.name == "chat" else "question"
    out = []
    for condition in conditions:
        for record in build_contexts(track, condition, progress=progress, fallback=fallback, short=short):
            messages = fill(prompt, {"context": context_block(record), query: record["probe"]})
            out.append(asked("item_id", record["item_id"], condition, prompt, messages))
    return out


def realcompanion_replies(track, args, out, bar_position: int | None = None):
    """`respond` on a RealCompanion track: the replies file and the items left unanswered (None, None: a usage
    error, already said)."""
    from tqdm import tqdm

    from realcompanion.scoring.options import bm25_fallback

    from .replies import REPLY_FIELD, read_replies

    conditions = chosen_conditions(args.condition, TRACK_RESPOND_CONDITIONS[track.name])
    if conditions is None:
        return None, None
    with tqdm(total=len(track.items) * len(conditions), unit="item", desc="contexts", disable=None, position=bar_position) as bar:
        items = first(realcompanion_asked(track, conditions, bm25_fallback(args), progress=bar.update), args.limit)
    read = (lambda path, data: read_replies(path, track, data)) if args.resume else None
    return respond_all(out, "item_id", items, read, responder_from(args), REPLY_FIELD[track.name], args.concurrency,
                       "item", bar_position)
