"""Required messages, candidate pools, populations and exclusions: the one place they are defined.

The paper's figures fix these definitions; docs/scoring.md checks each one
against every number the paper reports with it.

Chat track (one item per chat row)
  * Scored items are the `scoreable` rows. Every other row is listed as excluded
    with its reason: `cold_open` (the abstention stratum: no gold, scored only
    for restraint), `withdrawn:<code>` (Table 22), or `not_scoreable`.
  * Candidate pool: the participant's messages (both senders) strictly before
    the probe.
  * Required messages (the gold set, "the required message"): the item's
    recorded context, i.e. `recent_context`, `episode_refs` and the evidence of
    the `profile_refs` claims, restricted to the pool. A current-thread item's
    required messages are its recent context. Population `all` (Table 33,
    abstract "95.9% of probes") is every scored item with a required message,
    scored against this set; a scored item without one is listed under
    `no required message`.
  * Reference set: `episode_refs` plus the evidence of the `profile_refs`
    claims, restricted to the pool: what the item needs from memory, off screen
    by construction (Table 46) except where a cited reference lies inside the
    window (Table 20's 11 rows).
  * Distant items (Tables 4, 38; abstract "2.2% of those that need memory"):
    the scored items memory-bearing under the reading (`memory_bearing[reading]`,
    default `recorded`: 404 rows in the paper), scored against their reference
    set. A memory-bearing item without a reference set is listed under
    `memory-bearing without reference set`.
  * Distant dependent items (Table 4's third column): distant items that are
    also memory-bearing under the dependent reading (default `strict`).
  * Dependent (the label of detectability, appropriate application and ρ* = 1,
    Table 7): `memory_bearing[reading]`; ρ* = 0 is its complement.

Question track (one item per qa row)
  * Scored items are the rows without an `excluded` reason (3,235 of 3,312 in the
    paper, Tables 3, 41 against Table 11); every other row is listed as excluded
    with its reason, `excluded:<reason>`. Candidate pool: the participant's messages at or
    before `asked_after`. Gold set: `evidence` restricted to that pool, in
    every category. Rows with an empty gold set (an unanswerable question that
    cites nothing) are listed under `no evidence`; an unanswerable question
    citing a distractor is scored against it. Distant: every gold message lies outside the last
    `recent_window` messages of the pool.

Both tracks
  * Detectability (Table 30) is measured on the scored items of the
    proportional stratum, the one stratum sampled without a memory condition.
  * A cited identifier that does not resolve to a message of the participant,
    or lies after the pool, is left out and counted (`dropped_citations`); the
    validator reports it as a gate C/D failure.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from realcompanion.errors import ReadError
from realcompanion.release import Release

from .settings import TRACK_CONDITIONS
from .streams import Stream, load_streams

COLD_OPEN = "cold_open"
PROPORTIONAL = "proportional"
EXCLUDED = "excluded:"  # the status of a qa row the release keeps out of scoring, before its reason
POPULATIONS = {"chat": ("all", "distant", "distant_dependent"), "qa": ("all", "distant")}
# why a scored item is not in a population (the first population needs a required message)
NOT_IN = {"chat": {"all": "no required message", "distant": "memory-bearing without reference set"},
          "qa": {"all": "no evidence"}}


@dataclass
class Item:
    item_id: str
    participant_id: str
    status: str                     # "scored" or the exclusion reason
    query: str                      # the probe (chat) or the question (qa)
    query_dayid: str                # probe_dayid (chat) or asked_after (qa)
    pool_end: int                   # the pool is positions [0, pool_end)
    gold: np.ndarray                # sorted positions of the required messages
    references: np.ndarray | None = None  # chat: sorted positions of the reference set
    reference: str | None = None    # gold_response (chat) or answer (qa), for the judge
    recorded: list[int] = field(default_factory=list)  # chat: the C2 context, in Table 28 order
    dropped_citations: int = 0
    dependent: bool = False
    distant: bool = False
    distant_dependent: bool = False
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
    definitions: dict = field(default_factory=dict)
    vocabulary: dict = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[str, Item]:
        return {item.item_id: item for item in self.items}

    @property
    def conditions(self) -> tuple[str, ...] | None:
        """The conditions its replies and verdicts may name (settings.TRACK_CONDITIONS; None: any)."""
        return TRACK_CONDITIONS[self.name]

    def scored(self) -> list[Item]:
        return [i for i in self.items if i.scored]

    def retrievable(self) -> list[Item]:
        return [i for i in self.items if i.retrievable]

    def excluded(self) -> list[dict]:
        """Every row left out of a retrieval population, with the population and the reason."""
        out = [{"item_id": i.item_id, "population": "all", "reason": i.status} for i in self.items if not i.scored]
        for population, reason in NOT_IN[self.name].items():
            out += [{"item_id": i.item_id, "population": population, "reason": reason} for i in self.items
                    if i.scored and (not i.gold.size if population == "all" else
                                     i.dependent and not i.references.size)]
        return out

    def kept_out_by_release(self, row: dict) -> bool:
        """Whether an `excluded` row is one the release itself keeps out of scoring (qa `excluded`)."""
        return row["reason"].startswith(EXCLUDED)

    def kept_out(self) -> dict[str, int]:
        """How many rows the release itself keeps out of scoring (qa `excluded`), by reason."""
        from collections import Counter

        return dict(sorted(Counter(i.status.partition(":")[2] for i in self.items
                                   if i.status.startswith(EXCLUDED)).items()))

    def detectability_items(self) -> list[Item]:
        return [i for i in self.items if i.in_detectability]

    def dropped_citations(self) -> dict[str, int]:
        """Items citing messages that do not resolve or lie after the pool, with how many."""
        return {i.item_id: i.dropped_citations for i in self.items if i.dropped_citations}

    def populations(self, item: Item) -> dict[str, np.ndarray]:
        """The retrieval populations the item belongs to, each with the gold set it is scored against there."""
        if not item.retrievable:
            return {}
        if self.name == "qa":
            return {"all": item.gold} | ({"distant": item.gold} if item.distant else {})
        out = {"all": item.gold}
        if item.distant:
            out["distant"] = item.references
        if item.distant_dependent:
            out["distant_dependent"] = item.references
        return out


def refuse_absent(release: Release, *names: str) -> None:
    """A track (or resource) the release leaves out is one line (exit 2), naming what it carries: scored as empty, it
    printed a table of zeros."""
    absent = [name for name in names if name in release.absent]
    if absent:
        carried = [name for name in release.TRACKS.optional if name in release.resources]
        raise ReadError(release.root / "datapackage.json", f"the release leaves out '{absent[0]}': no such track to "
                        f"score (it carries {', '.join(carried) or 'source only'})", field="resources")


def readings(release: Release) -> list[str]:
    """The memory-bearing readings, as the release's nested schema declares them."""
    return list(release.schemas.nested("nested/memory_bearing.schema.json")["required"])


def _resolve(stream: Stream | None, dayids, pool_end: int) -> tuple[list[int], int]:
    """Positions of the cited dayids inside the pool, in citation order, and how many were dropped."""
    kept = [stream.position.get(d, -1) if stream else -1 for d in dayids or []]
    inside = [p for p in kept if 0 <= p < pool_end]
    return inside, len(kept) - len(inside)


def _positions(*lists) -> np.ndarray:
    return np.array(sorted(set().union(*lists)), dtype=np.int64)


def _chat_status(row: dict) -> str:
    if row["cold_open"]:
        return COLD_OPEN
    if row["withdrawn"]:
        return f"withdrawn:{row['withdrawn']}"
    return "scored" if row["scoreable"] else "not_scoreable"


def chat_items(release: Release, streams: dict[str, Stream], reading: str, dependent_reading: str) -> list[Item]:
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
        references = _positions(episodes, profile)
        mb = row["memory_bearing"] or {}
        distant = bool(mb.get(reading)) and bool(references.size)
        items.append(Item(
            item_id=row["item_id"], participant_id=row["participant_id"], status=status, query=row["probe"],
            query_dayid=row["probe_dayid"], pool_end=pool_end, gold=_positions(recent, episodes, profile),
            references=references, reference=row["gold_response"],
            recorded=list(dict.fromkeys(recent + episodes + profile)), dropped_citations=d1 + d2 + d3,
            dependent=bool(mb.get(reading)), distant=distant,
            distant_dependent=distant and bool(mb.get(dependent_reading)), stratum=row["stratum"],
            locus=row["locus"], memory_bearing=mb))
    return items


def _qa_status(row: dict, asked: int | None) -> str:
    if asked is None:
        return "asked_after not in source"
    return f"{EXCLUDED}{row['excluded']}" if row.get("excluded") else "scored"


def qa_items(release: Release, streams: dict[str, Stream]) -> list[Item]:
    window = release.params["recent_window"]
    items = []
    for row in release.table("qa").to_pylist():
        stream = streams.get(row["participant_id"])
        asked = stream.position.get(row["asked_after"]) if stream else None
        pool_end = 0 if asked is None else asked + 1
        evidence, dropped = _resolve(stream, row["evidence"], pool_end)
        gold = _positions(evidence)
        items.append(Item(
            item_id=row["item_id"], participant_id=row["participant_id"],
            status=_qa_status(row, asked), query=row["question"],
            query_dayid=row["asked_after"], pool_end=pool_end, gold=gold, references=gold, reference=row["answer"],
            dropped_citations=dropped, distant=bool(gold.size) and bool((gold < pool_end - window).all()),
            answerable=row["answerable"]))
    return items


def load_track(release: Release, name: str, reading: str | None = None,
               dependent_reading: str | None = None) -> Track:
    """The items of track `name` ("chat" or "qa"): dependent under `reading` (default: the first declared),
    Table 4's dependent column under `dependent_reading` (default: the second declared, strict)."""
    refuse_absent(release, name)
    declared = readings(release)
    reading = reading or declared[0]
    dependent_reading = dependent_reading or declared[min(1, len(declared) - 1)]
    streams = load_streams(release)
    if name == "chat":
        items = chat_items(release, streams, reading, dependent_reading)
        definitions = {"reading": reading, "dependent_reading": dependent_reading, "readings": declared,
                       "required_messages": "recent_context + episode_refs + profile evidence",
                       "distant": "memory-bearing under the reading, scored against the reference set"}
    else:
        items = qa_items(release, streams)
        definitions = {"required_messages": "evidence", "distant": "every evidence message outside the window"}
    _one_row_each(release, name, items)
    return Track(name, items, streams, definitions, release.schemas.vocabulary)


def _one_row_each(release: Release, name: str, items: list[Item]) -> None:
    """Each item id names one row (`items` are the track's rows, in order): a run's row, a verdict and a gold set
    find their item by it. An id twice, which only a release scored `--unvalidated` can hold, scored one row
    against another's gold set (an IndexError traceback from the broken oracle)."""
    first: dict[str, int] = {}
    for position, item in enumerate(items):
        line = release.line(name, position)
        if item.item_id in first:
            raise ReadError(release.path(name), f"item_id '{item.item_id}' is not unique (first at line "
                            f"{first[item.item_id]}): every score finds its item by it", line=line, field="item_id")
        first[item.item_id] = line
