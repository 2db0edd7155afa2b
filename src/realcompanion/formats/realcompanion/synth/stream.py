"""The skeleton of one participant's stream: days, sessions, senders, timestamps.

Days are local calendar days (the timestamp carries the participant's UTC
offset), sessions are separated by more than the release's session gap, and
every session opens with a user message, so its first user turn is a cold-open
candidate. Identifiers follow SPEC §2: dayid from local day and order in the
day, db_id increasing with gaps.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

OFFSETS = ["+01:00", "-05:00", "+09:00", "+00:00", "+05:30", "-03:00"]
EPOCH = datetime(2025, 1, 6)


@dataclass
class Message:
    turn: int
    day: int
    seq: int
    db_id: int
    sender: str
    local: datetime
    offset: str
    session: int | None
    opens_session: bool
    media: str | None = None
    parts: list[str] = field(default_factory=list)
    roles: set[str] = field(default_factory=set)

    def dayid(self, pid: str) -> str:
        return f"{pid}:d{self.day:03d}:{self.seq:03d}"

    @property
    def timestamp(self) -> str:
        return self.local.strftime("%Y-%m-%dT%H:%M:%S") + self.offset

    @property
    def date(self) -> str:
        return self.local.strftime("%Y-%m-%d")


def _partition(rng: random.Random, total: int, parts: int, minimum: int) -> list[int]:
    """`total` split into `parts` random sizes, each at least `minimum`."""
    free = total - parts * minimum
    cuts = sorted(rng.randint(0, free) for _ in range(parts - 1))
    return [minimum + b - a for a, b in zip([0, *cuts], [*cuts, free])]


def skeleton(rng: random.Random, days: int, active_days: int, messages: int, gap_minutes: int,
             start_offset_days: int, offset: str) -> list[Message]:
    active = min(active_days, days, messages // 4)
    chosen = sorted({1, days} | set(rng.sample(range(2, days), max(0, active - 2))))
    per_day = _partition(rng, messages, len(chosen), 4)
    start = EPOCH + timedelta(days=start_offset_days)
    out: list[Message] = []
    session, db_id = 0, rng.randint(1000, 9000)
    for day, count in zip(chosen, per_day):
        sessions = _partition(rng, count, min(3, count // 4), 4) if count >= 8 else [count]
        clock = start + timedelta(days=day - 1, hours=7, minutes=rng.randint(0, 30))
        # keep the whole day between 07:00 and 23:30 local time, so day and dayid agree
        budget = 900 - (len(sessions) - 1) * (gap_minutes + 120)
        step = 60 * min(4.0, budget / count)
        seq = 0
        for size in sessions:
            session += 1
            sender = "user"
            for i in range(size):
                seq += 1
                db_id += rng.randint(1, 7)
                out.append(Message(len(out), day, seq, db_id, sender, clock, offset, session, i == 0))
                clock += timedelta(seconds=max(1, int(step * (0.5 + rng.random()))))
                double = sender == "user" and rng.random() < 0.15
                sender = "user" if double else ("companion" if sender == "user" else "user")
            clock += timedelta(minutes=gap_minutes + rng.randint(20, 120))
    return out
