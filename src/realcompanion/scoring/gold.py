"""Gold sets, candidate pools, populations and exclusions: the one place they are defined.

Chat track (one item per chat row)
  * Scored items are the `scoreable` rows. Every other row is listed as excluded
    with its reason: `cold_open` (the abstention stratum: no gold, scored only
    for restraint), `withdrawn:<code>` (Table 22), or `not_scoreable`.
  * Candidate pool: the participant's messages (both senders) strictly before
    the probe.
  * Gold set (the paper's "required message"): the reference set, i.e. the
    `episode_refs` plus the evidence messages of the `profile_refs` claims,
    restricted to messages before the probe. `recent_context` is not gold: it
    is the current thread, on screen by construction, which any recency window
    already supplies; the paper's reference set is "disjoint from the recent
    window by construction" (Table 46), gate E and Table 34 (10-message window
    covering 1% of memory-bearing probes) only hold for the reference set, and
    Table 38's distant populations add up to every memory-bearing row, which
    would fail if a cited thread message made a row non-distant.
  * Items whose gold set is empty (no reference set: current-thread or
    nothing-prior rows) are scored for judged quantities but are not
    retrieval-scoreable; they are counted and listed, never dropped silently.
  * Dependent: `memory_bearing[reading]`, by default the first reading the
    release declares (`recorded`).

Question track (one item per qa row)
  * Every row is scored. Candidate pool: the participant's messages at or
    before `asked_after`. Gold set: `evidence` restricted to that pool. Rows
    with an empty gold set (unanswerable questions) are not retrieval-
    scoreable; they are counted and listed. Dependent is a chat notion.

Both tracks
  * Detectability (Table 30) is measured on the scored items of the
    proportional stratum, the one stratum sampled without a memory condition.
  * Distant: every gold message lies outside the last `recent_window` messages
    of the pool (release parameter). Populations: `all`, `dependent`,
    `distant`, `distant_dependent` (chat); `all`, `distant` (qa).
  * A cited identifier that does not resolve to a message of the participant,
    or lies after the pool, is left out of the gold set and counted
    (`dropped_citations`); the validator reports it as a gate C/D failure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..release import Release
from .streams import Stream, load_streams

COLD_OPEN = "cold_open"
PROPORTIONAL = "proportional"
POPULATIONS = {"chat": ("all", "dependent", "distant", "distant_dependent"), "qa": ("all", "distant")}


@dataclass
class Item:
    item_id: str
    participant_id: str
    status: str                     # "scored" or the exclusion reason
    query: str                      # the probe (chat) or the question (qa)
    query_dayid: str                # probe_dayid (chat) or asked_after (qa)
    pool_end: int                   # the pool is positions [0, pool_end)
    gold: np.ndarray                # sorted positions
    reference: str | None = None    # gold_response (chat) or answer (qa), for the judge
    recorded: list[int] = field(default_factory=list)  # chat: the C2 context, in Table 28 order
    dropped_citations: int = 0
    dependent: bool = False
    distant: bool = False
    stratum: str | None = None
    locus: str | None = None
    memory_bearing: dict | None = None
    answerable: bool | None = None

    @property
    def scored(self) -> bool:
        return self.status == "scored"

    @property
    def posed(self) -> bool:
        """Put to a system (contexts, replies, verdicts): scored rows and cold opens."""
        return self.scored or self.status == COLD_OPEN

    @property
    def in_detectability(self) -> bool:
        return self.scored and self.stratum == PROPORTIONAL

    @property
    def retrievable(self) -> bool:
        return self.scored and self.gold.size > 0


@dataclass
class Track:
    """The items of one track over one release, with the streams they point into."""

    name: str
    items: list[Item]
    streams: dict[str, Stream]

    @cached_property
    def by_id(self) -> dict[str, Item]:
        return {item.item_id: item for item in self.items}

    def scored(self) -> list[Item]:
        return [i for i in self.items if i.scored]

    def retrievable(self) -> list[Item]:
        return [i for i in self.items if i.retrievable]

    def excluded(self) -> list[dict]:
        """Every row not retrieval-scored, with the reason."""
        out = [{"item_id": i.item_id, "reason": i.status} for i in self.items if not i.scored]
        reason = "no reference set" if self.name == "chat" else "no evidence"
        out += [{"item_id": i.item_id, "reason": reason} for i in self.items if i.scored and not i.gold.size]
        return out

    def detectability_items(self) -> list[Item]:
        return [i for i in self.items if i.in_detectability]

    def dropped_citations(self) -> dict[str, int]:
        """Items citing messages that do not resolve or lie after the pool, with how many."""
        return {i.item_id: i.dropped_citations for i in self.items if i.dropped_citations}

    def populations(self, item: Item) -> dict[str, bool]:
        flags = {"all": True, "dependent": item.dependent, "distant": item.distant,
                 "distant_dependent": item.distant and item.dependent}
        return {name: flags[name] for name in POPULATIONS[self.name]}


def readings(release: Release) -> list[str]:
    """The memory-bearing readings, as the release's nested schema declares them."""
    return list(release.schemas.nested("nested/memory_bearing.schema.json")["required"])


def _resolve(stream: Stream | None, dayids, pool_end: int) -> tuple[list[int], int]:
    """Positions of the cited dayids inside the pool, in citation order, and how many were dropped."""
    kept = [stream.position.get(d, -1) if stream else -1 for d in dayids or []]
    inside = [p for p in kept if 0 <= p < pool_end]
    return inside, len(kept) - len(inside)


def _distant(gold: np.ndarray, pool_end: int, window: int) -> bool:
    return bool(gold.size) and bool((gold < pool_end - window).all())


def _chat_status(row: dict) -> str:
    if row["cold_open"]:
        return COLD_OPEN
    if row["withdrawn"]:
        return f"withdrawn:{row['withdrawn']}"
    return "scored" if row["scoreable"] else "not_scoreable"


def chat_items(release: Release, streams: dict[str, Stream], reading: str) -> list[Item]:
    window = release.params["recent_window"]
    evidence = {c["claim_id"]: c["evidence"] or [] for c in release.table("profile").select(
        ["claim_id", "evidence"]).to_pylist()}
    items = []
    for row in release.table("chat").to_pylist():
        stream = streams.get(row["participant_id"])
        probe = stream.position.get(row["probe_dayid"]) if stream else None
        status = _chat_status(row) if probe is not None else "probe_dayid not in source"
        pool_end = probe or 0
        context = row["required_context"] or {}
        recent, d1 = _resolve(stream, context.get("recent_context"), pool_end)
        episodes, d2 = _resolve(stream, context.get("episode_refs"), pool_end)
        cited = [d for claim in context.get("profile_refs") or [] for d in evidence.get(claim, [])]
        profile, d3 = _resolve(stream, cited, pool_end)
        gold = np.array(sorted(set(episodes) | set(profile)), dtype=np.int64)
        mb = row["memory_bearing"] or {}
        items.append(Item(
            item_id=row["item_id"], participant_id=row["participant_id"], status=status, query=row["probe"],
            query_dayid=row["probe_dayid"], pool_end=pool_end, gold=gold, reference=row["gold_response"],
            recorded=list(dict.fromkeys(recent + episodes + profile)), dropped_citations=d1 + d2 + d3,
            dependent=bool(mb.get(reading)), distant=_distant(gold, pool_end, window), stratum=row["stratum"],
            locus=row["locus"], memory_bearing=mb))
    return items


def qa_items(release: Release, streams: dict[str, Stream]) -> list[Item]:
    window = release.params["recent_window"]
    items = []
    for row in release.table("qa").to_pylist():
        stream = streams.get(row["participant_id"])
        asked = stream.position.get(row["asked_after"]) if stream else None
        pool_end = 0 if asked is None else asked + 1
        evidence, dropped = _resolve(stream, row["evidence"], pool_end)
        gold = np.array(sorted(set(evidence)), dtype=np.int64)
        items.append(Item(
            item_id=row["item_id"], participant_id=row["participant_id"],
            status="scored" if asked is not None else "asked_after not in source", query=row["question"],
            query_dayid=row["asked_after"], pool_end=pool_end, gold=gold, reference=row["answer"],
            dropped_citations=dropped,
            distant=_distant(gold, pool_end, window), answerable=row["answerable"]))
    return items


def load_track(release: Release, name: str, reading: str | None = None) -> Track:
    """The items of track `name` ("chat" or "qa"), dependent under `reading` (default: the first declared)."""
    reading = reading or readings(release)[0]
    streams = load_streams(release)
    items = chat_items(release, streams, reading) if name == "chat" else qa_items(release, streams)
    return Track(name, items, streams)
