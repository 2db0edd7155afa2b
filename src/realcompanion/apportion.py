"""Counts shared out in proportion, as the generators share a paper's totals among participants and groups."""
from __future__ import annotations


def largest_remainder(total: int, weights: list[float]) -> list[int]:
    """`total` shared in proportion to `weights`, each share rounded down and the rest given one by one to the
    largest remainders (the earliest first among equal ones): the shares sum to `total` exactly."""
    exact = [total * w / sum(weights) for w in weights]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(weights)), key=lambda i: counts[i] - exact[i])[:total - sum(counts)]:
        counts[i] += 1
    return counts
