"""A system's run file: one JSON object per line, {"item_id", "ranking": [dayid, ...]}.

Optional per row: "scores", one number per ranked message (the first is the
system's top-1 confidence, used for detectability). A run is checked before
anything is scored: an unknown item id, a repeated item, a ranked message that
is not in the item's candidate pool (chat: before the probe; qa: at or before
asked_after) or that is ranked twice makes the file unreadable (exit 2).
Items the run leaves out are not an error: each counts as a miss (an empty
ranking) and the count is reported.
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
            run.top_scores[item_id] = float(scores[0]) if scores else 0.0
        run.rankings[item_id] = np.array(positions, dtype=np.int64)
    return run
