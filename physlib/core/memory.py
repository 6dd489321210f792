"""The process's memory around the constructions of large models: freed pages handed back to
the operating system after them, and the allocator's policy while they run."""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from functools import cache

LARGE = 1_000_000    # entries (positions, instructions) from which a construction is worth a trim
LARGE_MODEL = 250_000   # components from which a compile runs in large_construction

# glibc's mallopt parameters, and the values its dynamic rule settles at (64-bit): an mmapped
# block freed raises the mmap threshold to its size, up to 32 MiB, and the trim threshold to
# twice that
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_SETTLED_MMAP, _SETTLED_TRIM = 32 * 2**20, 64 * 2**20
_KEEP = 2**30        # no block below a gigabyte mapped on its own, no heap top handed back
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")

_lock = threading.Lock()
_depth = 0           # constructions running (threads may compile at once)
_numpy_advice = None  # NumPy's huge-page advice as the outermost construction found it
_allocator_set = False  # whether the outermost construction set glibc's thresholds


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
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


@contextmanager
def large_construction():
    """Run a large construction (the compile of a model of ``LARGE_MODEL`` components or more)
    with the allocator reusing the memory it frees, and hand what is free back at the end.

    A compile makes and drops arrays of millions of entries pass after pass. glibc maps each
    block above its mmap threshold (at most 32 MiB) on its own and unmaps it when it is freed,
    and NumPy asks the kernel for huge pages for every array of 4 MiB or more: each new array
    then took fresh pages from the kernel, which zeroes them (and, for huge pages, first
    compacts memory to find 2 MiB of it), and the kernel's share was a fifth of a
    million-element ladder's compile (1.9 s of 9.0). Inside this context blocks below a
    gigabyte come from the heap, where a freed array's pages serve the next one, the heap's
    top is not handed back at each free, and NumPy gives no huge-page advice (with the heap
    reused, the advice made faults dearer, not fewer): that compile takes 7.6 s, its peak
    memory unchanged (both changes are needed: each alone gave 8.5–8.9 s). On leaving, the
    free pages go back (:func:`release_free_memory`) and the thresholds are set to the values
    glibc's own dynamic rule settles at (it cannot be restored once set, nor read), NumPy's
    advice to what it was. Elsewhere than glibc the allocator is left alone, and so is an
    allocator its user set up (glibc's ``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_``,
    ``MALLOC_TOP_PAD_``, ``MALLOC_MMAP_MAX_`` or ``glibc.malloc`` tunables in
    ``GLIBC_TUNABLES`` when the process started), and NumPy's advice where
    ``NUMPY_MADVISE_HUGEPAGE`` sets it."""
    global _depth, _numpy_advice, _allocator_set
    with _lock:
        _depth += 1
        if _depth == 1:
            if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
                _numpy_advice = _set_numpy_advice(False)
            _allocator_set = not _tuned_by_user()
            if _allocator_set:
                _mallopt(_M_MMAP_THRESHOLD, _KEEP)
                _mallopt(_M_TRIM_THRESHOLD, _KEEP)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _allocator_set:
                    settle_malloc_thresholds()
                _set_numpy_advice(_numpy_advice)
                _numpy_advice = None
                release_free_memory()


def settle_malloc_thresholds() -> bool:
    """Set glibc's mmap and trim thresholds to the values its own dynamic rule settles at
    (32 MiB and 64 MiB); returns whether it did (False elsewhere than glibc)."""
    mmap = _mallopt(_M_MMAP_THRESHOLD, _SETTLED_MMAP)
    trim = _mallopt(_M_TRIM_THRESHOLD, _SETTLED_TRIM)
    return bool(mmap and trim)


def _tuned_by_user() -> bool:
    """Whether the process's allocator was set up by its user (glibc's ``MALLOC_*_``
    variables or ``glibc.malloc`` tunables when it started): then its settings stay theirs."""
    start = _start_environment()
    return any(name in start for name in _USER_SETTINGS) or "glibc.malloc." in start.get("GLIBC_TUNABLES", "")


@cache
def _start_environment() -> dict[str, str]:
    """The environment the process started with, which glibc read its settings from (Linux's
    ``/proc/self/environ``; elsewhere ``os.environ``). A variable set since changes nothing
    here: dask's nanny sets ``MALLOC_TRIM_THRESHOLD_`` in its own process for the workers it
    starts."""
    try:
        with open("/proc/self/environ", "rb") as f:
            entries = f.read().split(b"\0")
    except OSError:
        return dict(os.environ)
    return dict(entry.decode(errors="replace").split("=", 1) for entry in entries if b"=" in entry)


@cache
def _glibc():
    """The C library when it is glibc (its ``gnu_get_libc_version`` is there); else None."""
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version
    except (ImportError, OSError, AttributeError, TypeError):   # TypeError: Windows has no CDLL(None)
        return None
    return libc


def _mallopt(parameter: int, value: int) -> bool:
    """glibc's ``mallopt``; whether it took the setting."""
    libc = _glibc()
    return libc is not None and bool(libc.mallopt(parameter, value))


def _set_numpy_advice(advise: bool | None) -> bool | None:
    """Set whether NumPy advises huge pages for large arrays; returns the previous setting
    (None, and nothing set, with a NumPy that has no such switch)."""
    import numpy as np
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    switch = getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)
    if switch is None or advise is None:
        return None
    return bool(switch(advise))
