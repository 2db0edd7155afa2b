"""How many of everything each synthetic participant gets.

The specimen shipped in `data/` is `specimen_plan()`; `paper_plan()` reproduces
the real release's counts (paper Tables 2, 11, 14): U01-U06 with their own
message, chat and question counts, U07-U10 sharing what remains of the totals;
its chat rows hold the paper's 434 cold opens (Table 3), 364 enriched rows
(Table 20) and 38 withdrawn rows by reason (Table 22), shared in proportion.
`--scale K` multiplies the number of participants, never the length of one
stream, so every participant keeps a realistic 120-day history.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from ....apportion import largest_remainder

PAPER_TOTALS = {"source": 27218, "profile": 3580, "persona": 390, "chat": 2034, "qa": 3312}
# qa rows kept out of scoring (`excluded`): 3,312 rows (Table 11), 3,235 scored (Tables 3, 41)
PAPER_QA_EXCLUDED = 3312 - 3235
# chat rows: cold opens (Table 3: 1,533 + 434), enriched (Table 20: 364), withdrawn by reason in Table 22's order;
# the rest are proportional. The paper's 2,034 rows (Table 11) also hold 29 that are neither scoreable (1,967, Table
# 25) nor withdrawn, which no table explains: here they are proportional rows, scoreable (1,996 scoreable in all)
PAPER_COLD_OPENS, PAPER_ENRICHED = 434, 364
PAPER_WITHDRAWN = {"context_lost": 17, "gold_outside_empty_context": 3, "stage_b_empty_context": 2,
                   "gold_unsupported_rebuild_failed": 12, "stored_verdict_failed": 3, "stage_b_gold_unsupported": 1}
SPECIMEN_QA_EXCLUDED = 6  # the specimen's: one row per reason of the vocabulary (`qa_excluded`), spread over participants
# participant: (span days, active days, messages, chat rows, qa rows, profile claims)
PAPER_TABLE_2 = {
    "U01": (36, 9, 115, 28, 23, 39),
    "U02": (101, 19, 173, 35, 27, 22),
    "U03": (46, 12, 173, 26, 36, 36),
    "U04": (71, 19, 195, 39, 35, 40),
    "U05": (46, 23, 420, 37, 47, 120),
    "U06": (120, 53, 1349, 81, 110, 330),
}


@dataclass(frozen=True)
class ParticipantPlan:
    pid: str
    days: int
    active_days: int
    messages: int
    chat: int
    qa: int
    claims: int
    qa_excluded: int = 0  # of its qa rows, how many are kept out of scoring (its last ones)
    first_reason: int = 0  # the position, in the vocabulary's order, of the reason its first excluded row gives
    # its chat rows' cold opens, enriched rows and withdrawn rows' codes, when the plan fixes them (the paper's)
    chat_strata: tuple[int, int, tuple[str, ...]] | None = None


def _with_excluded(plans: list[ParticipantPlan], total: int) -> list[ParticipantPlan]:
    """`total` excluded qa rows shared among the plans in proportion to their qa rows (largest remainder), each
    plan's reasons following on from the last plan's."""
    counts = largest_remainder(total, [p.qa for p in plans])
    firsts = [sum(counts[:i]) for i in range(len(plans))]
    return [replace(p, qa_excluded=n, first_reason=first) for p, n, first in zip(plans, counts, firsts)]


def _with_chat_strata(plans: list[ParticipantPlan]) -> list[ParticipantPlan]:
    """The paper's cold opens, enriched and withdrawn rows shared among the plans in proportion to their chat rows,
    the withdrawn rows' codes taken in Table 22's order."""
    chat = [p.chat for p in plans]
    codes = [code for code, n in PAPER_WITHDRAWN.items() for _ in range(n)]
    ends = itertools.accumulate(largest_remainder(len(codes), chat), initial=0)
    spans = list(itertools.pairwise(ends))
    return [replace(p, chat_strata=(cold, enriched, tuple(codes[a:b])))
            for p, cold, enriched, (a, b) in zip(plans, largest_remainder(PAPER_COLD_OPENS, chat),
                                                largest_remainder(PAPER_ENRICHED, chat), spans)]


def _split(total: int, parts: int) -> list[int]:
    base, extra = divmod(total, parts)
    return [base + (i < extra) for i in range(parts)]


def paper_plan(scale: int = 1) -> list[ParticipantPlan]:
    """The paper's per-participant counts; U07-U10 fill the totals; `scale` copies of the ten."""
    fixed = [ParticipantPlan(pid, *row) for pid, row in PAPER_TABLE_2.items()]
    rest = {key: PAPER_TOTALS[key] - sum(getattr(p, attr) for p in fixed)
            for key, attr in (("source", "messages"), ("chat", "chat"), ("qa", "qa"), ("profile", "claims"))}
    split = {key: _split(value, 4) for key, value in rest.items()}
    filled = [
        ParticipantPlan(f"U{7 + i:02d}", 120, 100 + 5 * i, split["source"][i], split["chat"][i], split["qa"][i],
                        split["profile"][i])
        for i in range(4)
    ]
    plans = _with_chat_strata(_with_excluded(fixed + filled, PAPER_QA_EXCLUDED))
    if scale == 1:
        return plans
    width = max(4, len(str(10 * scale)))
    return [replace(p, pid=f"U{copy * 10 + i + 1:0{width}d}") for copy in range(scale) for i, p in enumerate(plans)]


def specimen_plan(participants: int = 4, scale: float = 1.0) -> list[ParticipantPlan]:
    """A small release: 4 participants, about 1,600 messages, every value of every field exercised."""
    shapes = [(45, 14, 260, 40, 30, 36), (101, 22, 330, 44, 32, 40), (74, 20, 420, 50, 34, 48),
              (120, 30, 560, 60, 40, 60)]
    plans = []
    for i in range(participants):
        days, active, messages, chat, qa, claims = shapes[i % len(shapes)]
        plans.append(ParticipantPlan(f"U{i + 1:02d}", days, active, max(120, round(messages * scale)),
                                     max(30, round(chat * scale)), max(26, round(qa * scale)),
                                     max(20, round(claims * scale))))
    return _with_excluded(plans, SPECIMEN_QA_EXCLUDED)
