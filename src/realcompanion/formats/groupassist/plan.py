"""How many of everything a synthetic GroupAssistBench release holds.

The paper plan reproduces the published totals (paper Abstract, App. A.6, App. B, App. D):
50 groups, 80,299 messages, 2,395 evaluated instances (1,374 L1, 1,021 L2) drawn
from a pool of 9,542 validated instances, 440 excluded instances, 97 feedback items
(23, 24, 21, 12, 17 by pattern). The paper prints no per-group split, so instances
are spread in proportion to history length. Its per-dependency split of evaluated
instances (Table 10, not in the text) is recovered from Table 3, whose overall L1
and L2 columns are instance-weighted means of the M1-M3 columns (docs/scoring.md);
pool instances, whose split the paper does not give, rotate over M1-M3.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...apportion import largest_remainder

DEPENDENCIES = ("M1", "M2", "M3")
# Evaluated instances per level and dependency M1/M2/M3, recovered from Table 3 (docs/scoring.md).
PAPER_DEPENDENCIES = {"L1": (776, 442, 156), "L2": (222, 646, 153)}
PAPER_FEEDBACK = {"current_state": 23, "recalled_fact": 24, "agreement_or_persona": 21, "superseded_value": 12,
                  "earlier_statement_or_plan": 17}


@dataclass(frozen=True)
class GroupPlan:
    group_id: str
    members: int
    messages: int
    eval_l1: int
    eval_l2: int
    pool: int
    audit: int
    feedback: dict  # pattern -> items
    dependencies: tuple = ()  # dependency of each eval instance, L1 then L2; () rotates M1-M3


def interleave(counts: tuple[int, ...]) -> list[str]:
    """`counts[k]` copies of each dependency, each dependency's copies evenly spaced over the sequence."""
    return [d for _, d in sorted(((j + 0.5) / n, d) for d, n in zip(DEPENDENCIES, counts) for j in range(n))]


def plan(groups: int, messages: int, eval_l1: int, eval_l2: int, pool: int, audit: int,
         feedback: dict, dependencies: dict | None = None) -> list[GroupPlan]:
    """`dependencies` (level -> eval counts for M1-M3) fixes the per-dependency totals; without it they rotate."""
    weights = [1.0 + (i * 7919 % 13) / 3 for i in range(groups)]  # uneven, fixed history lengths
    per = {name: largest_remainder(total, weights) for name, total in
           (("messages", messages), ("eval_l1", eval_l1), ("eval_l2", eval_l2), ("pool", pool), ("audit", audit))}
    fb = {pattern: largest_remainder(n, [1.0] * groups) for pattern, n in feedback.items()}
    deps = [() for _ in range(groups)]
    for level, total in (("L1", eval_l1), ("L2", eval_l2)) if dependencies else ():
        if sum(dependencies[level]) != total:
            raise ValueError(f"{level}: dependency counts {dependencies[level]} do not sum to {total}")
        sequence, start = interleave(dependencies[level]), 0
        for i, n in enumerate(per[f"eval_{level.lower()}"]):
            deps[i], start = deps[i] + tuple(sequence[start:start + n]), start + n
    return [GroupPlan(f"G{i + 1:02d}", 3 + i % 5, per["messages"][i], per["eval_l1"][i], per["eval_l2"][i],
                      per["pool"][i], per["audit"][i], {p: fb[p][i] for p in feedback}, deps[i])
            for i in range(groups)]


def paper_plan() -> list[GroupPlan]:
    return plan(50, 80_299, 1_374, 1_021, 9_542 - 2_395, 440, PAPER_FEEDBACK, PAPER_DEPENDENCIES)


def specimen_plan(scale: float = 1.0) -> list[GroupPlan]:
    """Four groups, about 3,000 messages; `scale` multiplies every count."""
    def k(n: int) -> int:
        return max(1, round(n * scale))

    return plan(4, k(3_000), k(40), k(32), k(48), k(12), {p: k(2) for p in PAPER_FEEDBACK})
