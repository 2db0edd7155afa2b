"""Python's cyclic garbage collector, paused where a run allocates far more than it could free.

Validation and the conversions of Arrow columns into Python values allocate millions of
objects that form almost no cycles, in processes that end within seconds; each pass of the
collector walks every object alive (the libraries' hundreds of thousands imported included),
and in a forked process it writes to each object it inherited, copying the memory pages it
shared with its parent. Reference counting still frees everything that forms no cycle.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused():
    """The collector off within the block, and on again after it if it was on before."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
