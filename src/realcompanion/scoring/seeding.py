"""Per-item random streams, so a seeded result does not depend on item order or on which items run."""
from __future__ import annotations

import zlib

import numpy as np


def item_rng(seed: int, purpose: str, item_id: str) -> np.random.Generator:
    """A generator determined by the run seed, what it is for, and the item."""
    return np.random.default_rng([seed, zlib.crc32(f"{purpose}:{item_id}".encode())])
