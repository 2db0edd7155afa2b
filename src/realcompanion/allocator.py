"""Where a validation run's memory comes from: Arrow's buffers from C malloc, like every other library's.

pyarrow's default pool (mimalloc) keeps freed pages for its next allocations, in segments
of its own that C malloc's trimming never reaches, and it faults pages in afresh after each fork.
A validation run reads every table, forks a process to judge the descriptor and, for large
releases, a worker, and frees what each rule built: measured at 10 and 100 times paper size, the
system pool held 130-200 MB less after the read and about 230 MB less at the run's peak, summed over
its processes, and took 20-40% less system time (benchmarks/RESULTS.md). C malloc's memory is
also what `given_back` hands back, with one call.
"""
from __future__ import annotations

import ctypes

import pyarrow as pa

_LIBC = ctypes.CDLL(None)
_MALLOC_TRIM = getattr(_LIBC, "malloc_trim", None)  # glibc's; other C libraries have none


def from_malloc() -> None:
    """Arrow allocates from C malloc from now on (buffers allocated before keep their pool)."""
    pa.set_memory_pool(pa.system_memory_pool())


def trimmed() -> None:
    """Memory freed but kept, by Arrow's current pool and by C malloc, returned to the system."""
    pa.default_memory_pool().release_unused()
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
