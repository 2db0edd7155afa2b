"""Run one `realcompanion` command in this process and report its peak memory summed over processes.

`benchmarks/run.py` times `validate` through this wrapper (the same imports and work as the
console script, which it ends as `cli.end` does). On exit it writes to standard error, as its last line,
`peak-rss-kb SELF CHILDREN`: the largest resident set of this process and of the largest
child it waited for (the descriptor's judge or a rule worker), from `getrusage`. Their sum
bounds what the run held at once when one child peaks at a time; RSS counts pages a
forked child shares with its parent in both, so the sum over-states physical memory.

    python benchmarks/peak.py validate RELEASE
"""
from __future__ import annotations

import resource
import sys

from realcompanion.cli import end, main


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    finally:
        own, children = (resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF,
                                                                        resource.RUSAGE_CHILDREN))
        print(f"peak-rss-kb {own} {children}", file=sys.stderr)


if __name__ == "__main__":
    end(run(sys.argv[1:]))  # as the console script ends
