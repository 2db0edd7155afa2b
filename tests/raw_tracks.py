"""The scoring tracks as docs/scoring.md defines them, read from the raw JSON Lines only.

Tests of the scorer derive their expected values here, so they do not share code with what they check.
"""
from __future__ import annotations

import json


def data_rows(repo, name: str) -> list[dict]:
    """The rows of data/<name>.jsonl as plain JSON, bypassing the release reader the scorer uses."""
    return [json.loads(line) for line in (repo / "data" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def raw_track(repo, name: str) -> tuple[dict[str, str], dict[str, tuple[dict, list[dict], set[str]]]]:
    """A track as docs/scoring.md defines it, read from the raw files only, to check the scorer against.

    Returns the reason of every row that is not retrieval-scored, and for every other row (its row, its pool:
    the participant's source messages before the probe or up to asked_after, in turn order, its required
    messages: the recorded dayids inside the pool, and its reference set: the episode references and profile
    evidence inside the pool; for questions both are the evidence).
    """
    streams: dict[str, list[dict]] = {}
    for message in sorted(data_rows(repo, "source"), key=lambda m: m["turn"]):
        streams.setdefault(message["participant_id"], []).append(message)
    evidence = {claim["claim_id"]: claim["evidence"] or [] for claim in data_rows(repo, "profile")}
    reasons, retrievable = {}, {}
    for row in data_rows(repo, name):
        stream = streams[row["participant_id"]]
        dayids = [m["dayid"] for m in stream]
        if name == "chat":
            need, reason = row["required_context"], None
            if row["cold_open"]:
                reason = "cold_open"
            elif row["withdrawn"]:
                reason = f"withdrawn:{row['withdrawn']}"
            elif not row["scoreable"]:
                reason = "not_scoreable"
            pool = stream[:dayids.index(row["probe_dayid"])]
            cited = need["episode_refs"] + [d for claim in need["profile_refs"] for d in evidence[claim]]
            required = need["recent_context"] + cited
        else:
            reason = f"excluded:{row['excluded']}" if row["excluded"] else None
            pool, cited = stream[:dayids.index(row["asked_after"]) + 1], row["evidence"]
            required = cited
        inside = {m["dayid"] for m in pool}
        gold, references = set(required) & inside, set(cited) & inside
        if reason is None and not gold:
            reason = "no required message" if name == "chat" else "no evidence"
        if reason:
            reasons[row["item_id"]] = reason
        else:
            retrievable[row["item_id"]] = (row, pool, gold, references)
    return reasons, retrievable
