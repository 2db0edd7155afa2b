"""Many requests to an endpoint at a time, each answer written as it comes, for `respond` and `judge`.

`run_all` keeps `concurrency` requests under way (asyncio workers sharing one iterator of what is still to
ask): what is pending is read as it is needed and each answer is written and dropped at once, so memory stays
flat however many requests a run makes. A request left `Unanswered` (an answer the judge's format rules out,
a prompt the endpoint refuses) is named and the run goes on; anything else the endpoint does after the
client's retries (`endpoint`) ends the run: the requests still under way are cancelled, and every answer
written before stays in the output for `--resume`.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from .endpoint import Unanswered


def run_all(pending: Iterable, ask: Callable[[object], Awaitable[dict]], write: Callable[[object, dict], None],
            concurrency: int, progress=None) -> list[tuple[object, str]]:
    """Ask `ask(item)` for every item of `pending`, `concurrency` at a time, and `write(item, answer)` each answer in
    the order answers come; returns (item, reason) for each item left unanswered. The first other error ends the run
    and is raised once the requests under way are cancelled."""
    return asyncio.run(_run(pending, ask, write, concurrency, progress))


async def _run(pending, ask, write, concurrency: int, progress) -> list[tuple[object, str]]:
    items, failures = iter(pending), []

    async def worker():
        for item in items:  # one shared iterator: each item goes to one worker
            try:
                answer = await ask(item)
            except Unanswered as exc:
                failures.append((item, str(exc)))
            else:
                write(item, answer)
            if progress:
                progress()

    workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
    try:
        done, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            task.result()  # the first error, raised here
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return failures
