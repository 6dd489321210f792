"""Frequency responses H(f) = C (s E − A)⁻¹ B + D at s = 2πj·f of linear models, small or large.

One LU factorization of s E − A per frequency, of whichever kind suits the model:

* up to :data:`DENSE_STATES` states, dense: the frequencies are solved together, batched
  (NumPy's stacked ``solve``), a few megabytes at a time;
* larger models are sparse (a circuit's node equations couple each state to a few others):
  the states are renumbered once by reverse Cuthill–McKee so that the nonzeros cluster
  around the diagonal, within l diagonals below it and u above. When a banded LU is cheap
  (n·l·(l + u) at most :data:`BANDED_WORK`), each frequency is one banded solve with
  partial pivoting: LAPACK's zgbsv, or for a tridiagonal pencil (a ladder) zgtsv's elimination
  written in C and run on eight frequencies at once (``c/band_sweep.c``; 2.6 times zgtsv's
  speed on 5 000 states); otherwise one SuperLU factorization (``scipy.sparse.linalg.splu``) of
  the matrix assembled on the structure computed once, whose fill-reducing ordering wins
  when the band is wide (a mesh rather than a chain).

Only the direction with fewer right-hand sides is solved: (s E − A) X = B with the inputs
as columns when there are no more inputs than outputs, else the transposed system with the
outputs as columns (the adjoint, as for a noise spectrum: many sources, one output).
"""
from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import scipy.linalg
import scipy.sparse as sps
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from ...core.errors import PhyslibError
from ..common.c_compiler import native_library

DENSE_STATES = 16           # up to this many states: batched dense solves
# Sparse: banded LU while n·l·(l + u) is at most this (about 0.3 ms of LAPACK per frequency,
# SuperLU's time on a random sparse system of 128 states; measured on the benchmark machine).
BANDED_WORK = 2.5e6
_CHUNK_BYTES = 1 << 23      # a chunk of frequencies holds about this much [bytes]
_SWEEP_BLOCK = 8            # frequencies the C loop solves together (BLOCK in the C file)
_THREADED_WORK = 200_000    # states × frequencies from which a C sweep is shared among cores
# ... while each thread's work arrays (BLOCK interleaved systems) stay within this [bytes]: a
# million-element ladder's (500,000 states) took 256 MB a thread, and a second thread saved
# 0.16 s of its 0.49 s sweep
_THREAD_WORK_BYTES = 128 << 20


def _sweep_threads() -> int:
    """The threads a large C sweep uses: the cores this process may run on (at most 8)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:              # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 8))


def frequency_response(A, B, C, D, f, E=None) -> np.ndarray:
    """C (s E − A)⁻¹ B + D at s = 2πj·f for each frequency f [Hz]; E = None is the identity.

    A, E (n×n), B (n×m), C (p×n), D (p×m): real NumPy arrays or SciPy sparse matrices.
    Returns a complex array of shape (p, m, len(f)); a pole at one of the frequencies
    (s E − A singular) is a :class:`PhyslibError` naming it."""
    f = np.atleast_1d(np.asarray(f, dtype=float))
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    D = D.toarray() if sps.issparse(D) else np.asarray(D, dtype=float)
    if p < m:            # the adjoint: fewer right-hand sides
        Et = None if E is None else E.T
        return frequency_response(A.T, C.T, B.T, D.T, f, Et).transpose(1, 0, 2)
    out = np.zeros((p, m, f.size), dtype=complex)
    if n and m and p:
        solver = _Dense(A, E) if n <= DENSE_STATES else _SparsePencil(A, E)
        C = sps.csr_matrix(C)[:, solver.order]
        rhs = solver.rows(B)
        if not solver.sweep(rhs, C, f, out):
            _chunked(solver, rhs, C, f, out)
    if np.any(D):
        out += D[:, :, None]
    return out


def _chunked(solver, rhs, C, f, out) -> None:
    """``out`` = C X(f) a chunk of frequencies at a time: the states of the chunk, then C times
    them into the output. The chunk's arrays are reused (a fresh array of the whole output's
    size costs more in page faults than the product) and stay in cache."""
    n, m = rhs.shape
    p = C.shape[0]
    step = max(1, _CHUNK_BYTES // (16 * (n * (solver.held + m) + p * m)))
    states = np.empty((n, m, min(step, f.size)), dtype=complex)
    for first in range(0, f.size, step):
        chunk = slice(first, first + step)
        size = len(f[chunk])
        X = states[:, :, :size]
        solver.solve(rhs, 2j * np.pi * f[chunk], f[chunk], X)
        # C is real: C·X from the real and imaginary parts side by side
        product = C @ np.ascontiguousarray(X).reshape(n, -1).view(float)
        out[:, :, chunk] = np.asarray(product).view(complex).reshape(p, m, size)


_SWEEP = Path(__file__).parent / "c" / "band_sweep.c"
_sweep: list = []


def _band_sweep():
    """(the C sweep as a ctypes function, SciPy's zgbsv as a pointer), built and loaded once
    (:func:`~physlib.analysis.common.c_compiler.native_library`); None where it
    cannot be (then the NumPy loop of :meth:`_SparsePencil._banded` serves)."""
    if not _sweep:
        lib = native_library(_SWEEP, "frequency_sweep")
        found = None
        if lib is not None:
            from scipy.linalg import cython_lapack
            function = lib.physlib_band_sweep
            function.restype = ctypes.c_int
            function.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * 4 + [ctypes.c_void_p] * 4 + \
                [ctypes.c_int] * 2 + [ctypes.c_void_p] * 4 + [ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
            found = (function, _capsule_address(cython_lapack.__pyx_capi__["zgbsv"]))
        _sweep.append(found)
    return _sweep[0]


def _capsule_address(capsule) -> int:
    """The C function pointer a Cython ``__pyx_capi__`` capsule holds."""
    get_name, get_pointer = ctypes.pythonapi.PyCapsule_GetName, ctypes.pythonapi.PyCapsule_GetPointer
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


def _pole(fk, sk):
    return PhyslibError(f"the model has a pole at f = {fk:g} Hz (s = {sk:g}); its frequency "
                        "response is infinite there")


def _dense(M):
    return M.toarray() if sps.issparse(M) else np.asarray(M, dtype=float)


class _Dense:
    """s E − A for a few states: the frequencies of a chunk solved together (batched)."""

    def __init__(self, A, E):
        self.A = _dense(A)
        n = self.A.shape[0]
        self.E = np.eye(n) if E is None else _dense(E)
        self.order = np.arange(n)
        self.held = n                   # columns of n numbers held per frequency: a matrix

    def rows(self, B):
        return _dense(B)

    def sweep(self, B, C, f, out) -> bool:
        return False            # batched in NumPy (:func:`_chunked`)

    def solve(self, B, s, f, out):
        """``out[:, :, k]`` = X with (s_k E − A) X = B (out: n × m × len(s))."""
        matrices = s[:, None, None] * self.E - self.A
        try:
            out[...] = np.linalg.solve(matrices, B).transpose(1, 2, 0)
            return
        except np.linalg.LinAlgError:
            for k, matrix in enumerate(matrices):
                try:
                    np.linalg.solve(matrix, B)
                except np.linalg.LinAlgError:
                    raise _pole(f[k], s[k]) from None
            raise


class _SparsePencil:
    """s E − A for many s: the states renumbered once (reverse Cuthill–McKee, ``order``) and
    the structure of s E − A kept, so that each frequency only fills in numbers."""

    held = 1                            # columns of n numbers held per frequency: B

    def __init__(self, A, E):
        n = A.shape[0]
        A = sps.csr_matrix(A, dtype=float)
        E = sps.identity(n, format="csr") if E is None else sps.csr_matrix(E, dtype=float)
        pattern = (abs(A) + abs(E)).tocsr()
        self.order = csgraph.reverse_cuthill_mckee((pattern + pattern.T).tocsr(), symmetric_mode=True)
        # Both matrices on the union of their structures (explicit zeros kept), renumbered.
        union = sps.csr_matrix((np.ones(pattern.nnz), pattern.indices, pattern.indptr), shape=(n, n))
        union = union[self.order][:, self.order].tocoo()
        A_p, E_p = A[self.order][:, self.order], E[self.order][:, self.order]
        self.i, self.j = union.row, union.col
        self.a = np.asarray(A_p[self.i, self.j]).ravel()
        self.e = np.asarray(E_p[self.i, self.j]).ravel()
        self.lower = int(max(0, np.max(self.i - self.j, initial=0)))
        self.upper = int(max(0, np.max(self.j - self.i, initial=0)))
        self.n = n
        self.banded = n * self.lower * (self.lower + self.upper) <= BANDED_WORK
        if self.banded:
            # LAPACK's band storage (gbsv): row l + u + i − j holds entry (i, j), the first l
            # rows are room for the factors' fill.
            shape = (2 * self.lower + self.upper + 1, n)
            self.band_a, self.band_e = np.zeros(shape), np.zeros(shape)
            self.band_a[self.lower + self.upper + self.i - self.j, self.j] = self.a
            self.band_e[self.lower + self.upper + self.i - self.j, self.j] = self.e

    def rows(self, B):
        """B's rows in the pencil's order."""
        return _dense(B)[self.order]

    def solve(self, B, s, f, out):
        """``out[:, :, k]`` = X with (s_k E − A) X = B (rows in ``order``; out: n × m × len(s))."""
        if self.banded:
            self._banded(B, s, f, out)
        else:
            self._splu(B, s, f, out)

    def sweep(self, B, C, f, out) -> bool:
        """``out`` = C X(f) for all frequencies in the C loop (``c/band_sweep.c``) when the
        pencil is banded and the loop could be built (:func:`_band_sweep`); False otherwise
        (then :func:`_chunked` solves chunk by chunk). A large sweep is shared among the
        processor's cores (:func:`_sweep_threads`), each thread a range of whole blocks of
        frequencies and its own work arrays (ctypes lets the GIL go during the call)."""
        native = _band_sweep() if self.banded else None
        if native is None:
            return False
        function, gbsv = native
        n, m = B.shape
        p = C.shape[0]
        rows = self.band_a.shape[0]
        rhs = np.ascontiguousarray(B, dtype=complex)
        s = np.ascontiguousarray(2j * np.pi * f)
        start, column = C.indptr.astype(np.intc), C.indices.astype(np.intc)
        value = np.ascontiguousarray(C.data, dtype=float)
        pointer = lambda a: a.ctypes.data_as(ctypes.c_void_p)      # noqa: E731
        fixed = (pointer(self.band_a), pointer(self.band_e), pointer(rhs))
        matrix = (p, pointer(start), pointer(column), pointer(value))

        def part(first: int, stop: int) -> int:
            """Frequencies first..stop−1; the index of the first pole among them, or −1."""
            tridiagonal = self.lower == 1 and self.upper == 1     # (zgbsv's room is not needed)
            work = np.empty(_SWEEP_BLOCK * n * (m + 3) + (0 if tridiagonal else rows * n + n * m), dtype=complex)
            pivots = np.empty(n, dtype=np.intc)
            failed = function(gbsv, n, self.lower, self.upper, m, *fixed,
                              ctypes.c_void_p(s.ctypes.data + first * s.itemsize), stop - first, *matrix,
                              ctypes.c_void_p(out.ctypes.data + first * out.itemsize), out.shape[2],
                              pointer(work), pointer(pivots))
            return -1 if failed < 0 else first + failed

        blocks = -(-len(f) // _SWEEP_BLOCK)
        shared = n * len(f) >= _THREADED_WORK and _SWEEP_BLOCK * n * (m + 3) * 16 <= _THREAD_WORK_BYTES
        threads = min(_sweep_threads(), blocks) if shared else 1
        if threads > 1:
            edges = [_SWEEP_BLOCK * (blocks * k // threads) for k in range(threads)] + [len(f)]
            with ThreadPoolExecutor(threads) as pool:
                found = list(pool.map(part, edges[:-1], edges[1:]))
        else:
            found = [part(0, len(f))]
        poles = [k for k in found if k >= 0]
        if poles:
            raise _pole(f[min(poles)], s[min(poles)])
        return True

    def _banded(self, B, s, f, X):
        """LAPACK with partial pivoting where the C loop of :meth:`sweep` cannot be built:
        gtsv when tridiagonal, else gbsv, one call per frequency, called directly
        (scipy.linalg.solve_banded's checks cost more than the solve for a few hundred states).
        Every argument is a contiguous complex array LAPACK overwrites (f2py would copy it
        otherwise, which doubled the time of a 5 000-state tridiagonal solve)."""
        l, u = self.lower, self.upper
        band = np.empty(self.band_a.shape, dtype=complex)
        rhs = B.astype(complex)
        work = np.empty(B.shape, dtype=complex, order="F")
        if l == u == 1:                     # rows: fill, superdiagonal, diagonal, subdiagonal
            gtsv = scipy.linalg.get_lapack_funcs("gtsv", dtype=complex)
            def factor_solve():
                return gtsv(band[3, :-1], band[2], band[1, 1:], work, overwrite_dl=True,
                            overwrite_d=True, overwrite_du=True, overwrite_b=True)[3:]
        else:
            gbsv = scipy.linalg.get_lapack_funcs("gbsv", dtype=complex)
            def factor_solve():
                return gbsv(l, u, band, work, overwrite_ab=True, overwrite_b=True)[2:]
        for k, sk in enumerate(s):
            np.multiply(self.band_e, sk, out=band)
            band -= self.band_a
            work[...] = rhs
            X[:, :, k], info = factor_solve()
            if info > 0:                    # a zero pivot: s E − A is singular
                raise _pole(f[k], sk)

    def _splu(self, B, s, f, X):
        """SuperLU ordered by minimum degree on Aᵀ + A: a network's pencil is structurally
        (nearly) symmetric, and on a 70 × 70 RC mesh this halves the fill and the time of
        SuperLU's default column ordering (159 000 nonzeros in L and U, 7.5 ms, against
        275 000 and 14 ms)."""
        shape = (self.n, self.n)
        rhs = B.astype(complex)
        for k, sk in enumerate(s):
            matrix = sps.csc_matrix((sk * self.e - self.a, (self.i, self.j)), shape=shape)
            try:
                X[:, :, k] = spla.splu(matrix, permc_spec="MMD_AT_PLUS_A").solve(rhs)
            except RuntimeError:          # SuperLU: "Factor is exactly singular"
                raise _pole(f[k], sk) from None
