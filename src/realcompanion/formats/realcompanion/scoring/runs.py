"""A system's run file: one JSON object per line, {"item_id", "ranking": [dayid, ...]}.

Optional per row: "scores", one number per ranked message (the first is the
system's top-1 confidence, used for detectability). The ranking is the order
the row lists, best first: messages of equal score keep that order, and the
scores may not rise along it, since the first would then not be the system's
best (a distance, lower for closer, read as a confidence inverts the AUROC).
An empty ranking with its empty scores retrieves nothing: its top-1 is below
every score (-inf), as BM25's 0 for a probe matching no message is; without
"scores" the item has no top-1 and is counted as missing. A run is checked
before anything is scored: an unknown item id, a repeated item, a ranked
message that is not in the item's candidate pool (chat: before the probe; qa:
at or before asked_after) or that is ranked twice, or scores that rise, make
the file unreadable (exit 2). Items the run leaves out are not an error: each
counts as a miss (an empty ranking) and the count is reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field

import numpy as np

from realcompanion.release import ReadError
from realcompanion.scoring.jsonl import field, known_item, problem, rows
from realcompanion.stamp import sha256_of


@dataclass
class Run:
    path: str
    sha256: str
    rankings: dict[str, np.ndarray] = dc_field(default_factory=dict)
    top_scores: dict[str, float] = dc_field(default_factory=dict)


def read_run(path, track) -> Run:
    lines = rows(path)
    run = Run(str(path), sha256_of(path))
    pool_word = "before the probe" if track.name == "chat" else "at or before asked_after"
    for line, row in lines:
        item = known_item(row, track, path, line)
        item_id, stream = item.item_id, track.streams.get(item.participant_id)
        if item_id in run.rankings:
            raise ReadError(path, f"item_id '{item_id}' appears twice", line=line, field="item_id")
        ranking = field(row, "ranking", (list,), path, line)
        positions = []
        for k, dayid in enumerate(ranking):
            position = stream.position.get(dayid, -1) if isinstance(dayid, str) and stream else -1
            if not 0 <= position < item.pool_end:
                raise ReadError(path, f"ranking[{k}] {dayid!r} is not a message of {item.participant_id} {pool_word}",
                                line=line, field="ranking")
            positions.append(position)
        if len(set(positions)) != len(positions):
            raise ReadError(path, "a message is ranked twice", line=line, field="ranking")
        scores = field(row, "scores", (list,), path, line, required=False)
        if scores is not None:
            why = next(filter(None, (problem(s, (int, float)) for s in scores)), None)
            if len(scores) != len(ranking) or why:
                raise ReadError(path, "must hold one number per ranked message" + (f" ({why})" if why else ""),
                                line=line, field="scores")
            rise = next((k for k in range(1, len(scores)) if scores[k] > scores[k - 1]), None)
            if rise is not None:
                raise ReadError(path, f"scores[{rise}] {scores[rise]} exceeds scores[{rise - 1}] {scores[rise - 1]}: "
                                "a ranking is best first, so its scores may not rise (a distance is not a score)",
                                line=line, field="scores")
            run.top_scores[item_id] = float(scores[0]) if scores else float("-inf")
        run.rankings[item_id] = np.array(positions, dtype=np.int64)
    return run
