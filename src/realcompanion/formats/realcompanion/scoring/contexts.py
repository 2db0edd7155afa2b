"""The context conditions of Table 28, built per chat item so any model can be run on them.

C0   nothing: the probe alone.
C1   the 3 messages immediately before the probe, either sender.
C2   the item's recorded messages: recent context, then episode references,
     then profile evidence, de-duplicated, only messages before the probe
     (every other message withheld). This is an oracle condition.
C3   the top 10 messages of the BM25 baseline (`bm25`, ties by recency),
     in rank order: only messages sharing a word with the probe are
     retrieved, so C3 holds fewer than 10 when fewer match (with fallback
     "recency" the unmatched ones pad it, most recent first).
C4   the 10 messages immediately before the probe, either sender. C1 and C4
     are counted in turns: when the release reader set a source row aside,
     the context is one message short (and the item is listed), never
     reaching further back.
C3m  the messages of C3 in chronological order.
Sizes and block headings come from `settings.CONDITIONS`. Contexts are built
for the scored items and the cold opens (the abstention control); withdrawn
and other unscored rows are listed as skipped.
"""
from __future__ import annotations

from realcompanion.scoring.bm25 import Indexes

from .settings import CONDITIONS


def context_positions(condition: str, item, indexes: Indexes, stream, fallback: str = "none") -> tuple[list[int], int]:
    """The context's positions, and how many turns a preceding-message condition lacks (set-aside source rows)."""
    spec = CONDITIONS[condition]
    kind, size = spec["kind"], spec["size"]
    if kind == "none":
        return [], 0
    if kind == "preceding":
        return stream.preceding(item.pool_end, size)
    if kind == "recorded":
        return list(item.recorded), 0
    top = indexes[item.participant_id].rank(item.query, item.pool_end, fallback)[0][:size].tolist()
    return (sorted(top) if kind == "bm25_chronological" else top), 0


def build_contexts(track, condition: str, progress=None, fallback: str = "none", short=None):
    """Yield the context record of every item put to a system (scored rows and cold opens); items whose context
    lacks set-aside source messages are appended to `short` as {"item_id", "missing"}."""
    indexes = Indexes(track.streams)
    for item in track.items:
        if item.posed:
            stream = track.streams[item.participant_id]
            positions, missing = context_positions(condition, item, indexes, stream, fallback)
            if missing and short is not None:
                short.append({"item_id": item.item_id, "missing": missing})
            yield {"item_id": item.item_id, "participant_id": item.participant_id, "condition": condition,
                   "heading": CONDITIONS[condition]["heading"], "probe_dayid": item.query_dayid,
                   "probe": item.query, "messages": [stream.message(p) for p in positions]}
        if progress:
            progress()


def skipped(track) -> list[dict]:
    return [{"item_id": i.item_id, "reason": i.status} for i in track.items if not i.posed]
