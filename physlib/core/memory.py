"""Freed memory handed back to the operating system after the constructions of large models."""
from __future__ import annotations

LARGE = 1_000_000    # entries (positions, instructions) from which a construction is worth a trim


def release_free_memory() -> None:
    """Return the memory pages the C library's allocator holds free to the operating system
    (glibc's ``malloc_trim``; nothing elsewhere).

    Compiling a large model frees its intermediate forms at the end, and CasADi builds a
    large function's algorithm with temporaries of the whole expression graph (a
    million-element ladder's function of every variable keeps 180 MB and used 200 MB more
    while it was built). glibc keeps such freed pages in its heap, fragmented among the live
    blocks, while the next large allocations (a solver's vectors, a sparse factorization)
    take fresh ones: the process's peak memory grows by what lies free. A trim walks the heap
    once (10 ms for 2 GB), so it is worth calling after constructions of ``LARGE`` entries."""
    try:
        import ctypes
        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):     # not glibc: its allocator decides
        return
    trim(0)
