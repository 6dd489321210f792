"""The resonances of a noise spectrum: the poles of the linearized model with the noise sources
as inputs, as centre frequency and half-width in hertz, for the band integrals of
:class:`~physlib.analysis.noise.small_signal.NoiseResult` (:mod:`.band`).

A pole p = −σ + jω_d of the transfer functions gives each |H_k(f)|² a Lorentzian peak around
f0 = ω_d/2π of half-width w = σ/2π (quality Q = |p|/2σ ≈ f0/2w): a resonance that a grid of
fixed relative step misses or miscounts once w is below that step, whatever the step.

**Which poles.** Only states that can reach the output and that the sources reach count (a
free shaft's angle is neither seen nor bounded), found on the graph of A's pattern (and E's,
for a descriptor model). Their strongly connected blocks, in topological order, make A block
triangular, so its eigenvalues are those of the blocks.

* A block of at most :data:`DENSE_STATES` states: all its eigenvalues (LAPACK), once.
* A larger block (a long ladder or mesh), where n³ work would dwarf the frequency sweeps:
  shift-invert Arnoldi (ARPACK) at centres s_c = 2πj·f_c across the band, each finding the
  k eigenvalues nearest s_c (:data:`NEAREST` at first) from one sparse LU of A − s_c·E, to a
  coarse :data:`COARSE` (a tight tolerance stalls on poles clustered far from s_c). A narrow
  resonance (w < narrow·f0) whose centre lies in [a, b] is within 2π·hypot(max(b − f_c,
  f_c − a), narrow·b) of s_c: where the k found do not reach that far, the stretch is halved
  (in log f), or k doubled where the wedge term dominates, and searched again, so every
  narrow resonance in the band is found. Those of Q above 1/(2·COARSE) are then found again
  to full precision, each from its own estimate. Poles crowded beyond :data:`MAX_NEAREST` in
  a disc or :data:`MAX_SEARCHES` searches: all eigenvalues of the block after all, dense, up
  to :data:`DENSE_FALLBACK` states (else a :class:`~physlib.analysis.noise.sources.NoiseWarning`
  that narrow resonances may be missed).

Cost: a 3000-state RC ladder, 1 to 10⁷ Hz: 0.3 s of sparse searches (LAPACK would take 5 s).
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sps
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from .sources import NoiseWarning

DENSE_STATES = 800      # a block up to this many states: dense eigenvalues (0.3 s at 800)
DENSE_FALLBACK = 3000   # ... and a larger one whose poles crowd the band (5 s at 3000)
NEAREST = 12            # eigenvalues a sparse search finds around its centre (at first)
MAX_NEAREST = 64        # ... at most: more poles than that crowd the band
COARSE = 1e-3           # their relative tolerance (a tight one stalls on poles clustered far off)
MAX_SEARCHES = 200      # sparse searches per band integral: more, and the poles crowd the band


def reach(graph, start) -> np.ndarray:
    """Mask of the nodes reachable from ``start`` in the directed graph (``graph[u, v] != 0``:
    edge u → v), ``start`` included."""
    mask = np.zeros(graph.shape[0], bool)
    for node in start:
        if not mask[node]:
            mask[csgraph.breadth_first_order(graph, node, directed=True, return_predecessors=False)] = True
    return mask


class Resonances:
    """The resonances of the transfer functions from the inputs ``B`` with nonzero ``weights``
    to the outputs ``C`` of E·x' = A·x + B·u (E None: the identity), all SciPy sparse or NumPy.
    Calling it with a band and a relative width gives the narrow ones that reach into it."""

    def __init__(self, A, B, C, E=None, weights=None):
        self.matrices = (A, B, C, E, weights)
        self.blocks, self.poles = None, None          # found on the first call

    def _prepare(self):
        A, B, C, E, weights = self.matrices
        A, B, C = (sps.csr_matrix(M) for M in (A, B, C))
        E = None if E is None else sps.csr_matrix(E)
        weights = np.ones(B.shape[1]) if weights is None else np.asarray(weights, dtype=float)
        pattern = abs(A) if E is None else abs(A) + abs(E)
        pattern = sps.csr_matrix((pattern > 0).astype(float))
        # pattern[i, j]: x_i' depends on x_j. The output sees the states from which its support
        # is reached backwards; the sources drive the states their support reaches forwards.
        seen = reach(pattern, np.flatnonzero(np.asarray(abs(C).sum(axis=0)).ravel() > 0))
        driven = reach(pattern.T.tocsr(), np.flatnonzero(abs(B) @ np.abs(weights) > 0))
        keep = np.flatnonzero(seen & driven)
        self.blocks, small = [], []
        count, labels = csgraph.connected_components(pattern[keep][:, keep], directed=True,
                                                     connection="strong")
        for block in range(count if len(keep) else 0):
            states = keep[labels == block]
            pair = (A[states][:, states], None if E is None else E[states][:, states])
            (small if len(states) <= DENSE_STATES else self.blocks).append(pair)
        self.poles = np.concatenate([_eigenvalues(*pair) for pair in small] or [np.empty(0, complex)])

    def __call__(self, f_lo: float, f_hi: float, narrow: float):
        """(f0, w) [Hz]: centre and half-width of each resonance with w < narrow·f0 whose
        stretch [f0·(1 − narrow), f0·(1 + narrow)] meets [f_lo, f_hi]; conjugate poles once."""
        if self.poles is None:
            self._prepare()
        found = [self.poles]
        for block in list(self.blocks):
            values, crowded = _search(*block, f_lo, f_hi, narrow)
            if crowded and block[0].shape[0] <= DENSE_FALLBACK:     # all of them, once, after all
                self.blocks.remove(block)
                values = _eigenvalues(*block)
                self.poles = np.concatenate([self.poles, values])
            elif crowded:
                warnings.warn(f"noise: a band integral from {f_lo:g} to {f_hi:g} Hz: the poles of a block "
                              f"of {block[0].shape[0]} states crowd too densely near the band to locate "
                              "them all; the integral may miss narrow resonances there", NoiseWarning,
                              stacklevel=4)
            found.append(values)
        poles = np.concatenate(found)
        f0, w = np.abs(poles.imag) / (2 * np.pi), np.abs(poles.real) / (2 * np.pi)
        keep = (poles.imag >= 0) & (f0 > 0) & (w < narrow * f0) & \
            (f0 * (1 + narrow) >= f_lo) & (f0 * (1 - narrow) <= f_hi)
        f0, w = f0[keep], w[keep]
        order = np.argsort(f0)
        return f0[order], w[order]


def _eigenvalues(A, E):
    """All finite eigenvalues of the block, dense."""
    A = A.toarray()
    if E is None:
        return scipy.linalg.eigvals(A, overwrite_a=True, check_finite=False)
    values = scipy.linalg.eigvals(A, E.toarray(), overwrite_a=True, check_finite=False)
    return values[np.isfinite(values)]


def _search(A, E, f_lo, f_hi, narrow):
    """(the eigenvalues of a large block near the band's narrow resonances, whether they crowd
    too densely to find them all this way): see the module."""
    n = A.shape[0]
    E = sps.identity(n, format="csc") if E is None else sps.csc_matrix(E)
    A = sps.csc_matrix(A, dtype=complex)
    top, bottom = f_hi * (1 + narrow), max(f_lo * (1 - narrow), f_lo / 2)
    stretches = np.geomspace(bottom, top, max(2, int(np.ceil(np.log2(top / bottom)))) + 1)
    pending = [(a, b, NEAREST) for a, b in zip(stretches[:-1], stretches[1:])]
    found, searches = [], 0
    while pending:
        a, b, k = pending.pop()
        centre = np.sqrt(a * b)
        half, wedge = max(b - centre, centre - a), narrow * b
        values, radius = _nearest(A, E, 2j * np.pi * centre, k, COARSE)
        searches += 1
        if radius >= 2 * np.pi * np.hypot(half, wedge):
            found.append(values[(values.imag >= 2 * np.pi * a) & (values.imag < 2 * np.pi * b)])  # once
        elif searches + len(pending) >= MAX_SEARCHES or (half <= wedge and 2 * k > min(n - 2, MAX_NEAREST)):
            return np.concatenate(found + [values]), True
        elif half > wedge:           # a shorter stretch needs a smaller disc
            middle = np.sqrt(a * b)
            pending += [(a, middle, k), (middle, b, k)]
        else:                        # a disc as wide as the wedge: more of the nearest poles
            pending.append((a, b, 2 * k))
    values = np.concatenate(found) if found else np.empty(0, complex)
    return np.array([_refined(A, E, value) for value in values], dtype=complex), False


def _refined(A, E, value):
    """An eigenvalue found to COARSE relative to its distance from the search centre (below
    the centre's frequency), found again to full precision where its half-width is below
    that: Q above 1/(2·COARSE)."""
    if value.imag <= 0 or abs(value.real) >= COARSE * value.imag:
        return value
    better, _ = _nearest(A, E, value + 1e-3 * abs(value.real) * (1 + 1j), 1, 1e-12)
    return better[0] if len(better) else value


def _nearest(A, E, sigma, k, tol):
    """(the k eigenvalues nearest sigma, the distance within which all are found: 0 when the
    search did not converge). Shift-invert Arnoldi on (A − σE)⁻¹·E, whose eigenvalues
    1/(λ − σ) are largest for the λ nearest σ."""
    n = A.shape[0]
    k = min(k, n - 2)
    try:
        lu = spla.splu((A - sigma * E).tocsc())
    except RuntimeError:                         # sigma is an eigenvalue
        return np.array([sigma]), 0.0
    operator = spla.LinearOperator((n, n), matvec=lambda x: lu.solve(np.asarray(E @ x, dtype=complex)),
                                   dtype=complex)
    start = np.random.default_rng(n).standard_normal(n) + 0j       # the same search every time
    try:
        mu = spla.eigs(operator, k=k, which="LM", tol=tol, v0=start, return_eigenvectors=False)
    except spla.ArpackNoConvergence as err:
        return sigma + 1 / err.eigenvalues[np.abs(err.eigenvalues) > 0], 0.0
    values = sigma + 1 / mu[np.abs(mu) > 0]
    # The k converged values are the k nearest: everything closer than the farthest of them is
    # among them (to the search's relative tolerance).
    return values, np.abs(values - sigma).max() * (1 - 10 * tol) if len(values) == k else 0.0
