"""The context conditions of Table 28, built per chat item so any model can be run on them.

C0   nothing: the probe alone.
C1   the 3 messages immediately before the probe, either sender.
C2   the item's recorded messages: recent context, then episode references,
     then profile evidence, de-duplicated, only messages before the probe
     (every other message withheld). This is an oracle condition.
C3   the top 10 messages of the BM25 baseline (`bm25`, ties by recency),
     in rank order.
C4   the 10 messages immediately before the probe, either sender.
C3m  the messages of C3 in chronological order.
Sizes and block headings come from `settings.CONDITIONS`. Contexts are built
for the scored items and the cold opens (the abstention control); withdrawn
and other unscored rows are listed as skipped.
"""
from __future__ import annotations

from .bm25 import Indexes
from .settings import CONDITIONS


def context_positions(condition: str, item, indexes: Indexes) -> list[int]:
    spec = CONDITIONS[condition]
    kind, size = spec["kind"], spec["size"]
    if kind == "none":
        return []
    if kind == "preceding":
        return list(range(max(0, item.pool_end - size), item.pool_end))
    if kind == "recorded":
        return list(item.recorded)
    top = indexes[item.participant_id].rank(item.query, item.pool_end)[0][:size].tolist()
    return sorted(top) if kind == "bm25_chronological" else top


def build_contexts(track, condition: str, progress=None):
    """Yield the context record of every item put to a system (scored rows and cold opens)."""
    indexes = Indexes(track.streams)
    for item in track.items:
        if item.posed:
            stream = track.streams[item.participant_id]
            yield {"item_id": item.item_id, "participant_id": item.participant_id, "condition": condition,
                   "heading": CONDITIONS[condition]["heading"], "probe_dayid": item.query_dayid,
                   "probe": item.query,
                   "messages": [stream.message(p) for p in context_positions(condition, item, indexes)]}
        if progress:
            progress()


def skipped(track) -> list[dict]:
    return [{"item_id": i.item_id, "reason": i.status} for i in track.items if not i.posed]
