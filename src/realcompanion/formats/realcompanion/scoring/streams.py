"""Each participant's message stream, indexed by position, as scoring needs it.

Positions are the order of `turn` within the participant (gate B makes them
equal to `turn` on a valid release); every ranking, pool and gold set is a set
of positions, and dayids are used only at the edges (run files, reports).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Stream:
    participant_id: str
    dayids: list[str]
    senders: np.ndarray
    texts: list[str]
    timestamps: list[str]
    turns: np.ndarray
    position: dict[str, int] = field(init=False)

    def __post_init__(self):
        self.position = {dayid: i for i, dayid in enumerate(self.dayids)}

    def preceding(self, position: int, size: int) -> tuple[list[int], int]:
        """Positions of the messages among the `size` turns before the one at `position`, and how many of those
        turns the stream lacks (rows set aside by the reader): a missing message is never replaced by an older one."""
        turn = self.turns[position] if position < len(self.turns) else (self.turns[-1] + 1 if len(self.turns) else 0)
        first = max(0, turn - size)
        kept = [p for p in range(max(0, position - size), position) if self.turns[p] >= first]
        return kept, int(turn - first) - len(kept)

    def user_positions(self) -> np.ndarray:
        return np.flatnonzero(self.senders == "user")

    def message(self, position: int) -> dict:
        return {"dayid": self.dayids[position], "sender": str(self.senders[position]),
                "timestamp": self.timestamps[position], "text": self.texts[position]}


def load_streams(release) -> dict[str, Stream]:
    """One `Stream` per participant of the release's `source` file."""
    source = release.frame("source").sort_values(["participant_id", "turn"], kind="stable")
    streams = {}
    for pid, rows in source.groupby("participant_id", sort=True):
        streams[str(pid)] = Stream(
            participant_id=str(pid),
            dayids=rows["dayid"].tolist(),
            senders=rows["sender"].to_numpy(dtype=object),
            texts=rows["text"].fillna("").tolist(),
            timestamps=rows["timestamp"].tolist(),
            turns=rows["turn"].to_numpy(dtype=np.int64),
        )
    return streams
