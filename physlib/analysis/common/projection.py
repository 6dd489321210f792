"""State projection: onto new constraints at an event, and back onto invariants during integration.

Energy-minimizing projection. When an event activates constraints ``C x = d`` (a clutch locks
two shafts, a switch closes onto a charged capacitor, two bodies stick), the state ``x0`` reached
under the old constraints (with a fixed-step solver, overshot past the event) is replaced by the
point on the new constraint manifold closest to it in the energy norm::

    minimize ½ (x − x0)ᵀ M (x − x0)  subject to  C x = d
    x = x0 − M⁻¹Cᵀ (C M⁻¹ Cᵀ)⁻¹ (C x0 − d)

with ``M = ∂²E/∂x²`` the matrix of the stored energy's quadratic form (inertias, masses,
inductances, capacitances, stiffnesses). For two locked shafts this gives the common speed
(J1·w1 + J2·w2)/(J1 + J2): momentum is conserved and the energy lost is that of a plastic
collision (for velocities, the perfectly plastic impact law: the velocity after the impact is
the M-orthogonal projection of the one before). The method is that of US Patent 8,019,575,
"State projection via minimization of error energy" (The MathWorks, filed 2006).
:func:`naive_projection` is the prior-art rule (keep one shaft's speed) kept for comparison: it
creates or destroys momentum.

Invariant projection. If the exact solution keeps ``g(x) = g0`` (a conservation law), the
minimum-norm correction ``x ← x + M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ R``, with ``J = ∂g/∂x`` and
``R = g0 − g(x)``, removes the drift of a numerical solution (C. W. Gear, "Maintaining solution
invariants in the numerical solution of ODEs", SIAM J. Sci. Stat. Comput. 7(3), 1986;
L. F. Shampine, Comput. Math. Appl. 12B, 1986).
"""
from __future__ import annotations

import sys
from typing import Sequence

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError
from ...core.lazy import lazy_module

# SciPy's sparse matrices and solvers serve large models only: imported on first use.
sps = lazy_module("scipy.sparse")
spla = lazy_module("scipy.sparse.linalg")

__all__ = ["energy_projection", "naive_projection", "invariant_projection", "energy_matrix",
           "state_chain"]


def _issparse(matrix) -> bool:
    """Whether ``matrix`` is a SciPy sparse matrix (never, without importing SciPy, when
    scipy.sparse has not been imported: no such matrix can exist then)."""
    return "scipy.sparse" in sys.modules and sps.issparse(matrix)


# --- projection onto constraints at an event -------------------------------------------------

def energy_projection(x0, M, C, d, fixed: Sequence[int] = ()) -> np.ndarray:
    """The state on ``C x = d`` nearest to ``x0`` in the energy norm ``½ (x − x0)ᵀ M (x − x0)``.

    x0: (n,) state before projection. M: (n, n) symmetric positive semi-definite energy matrix
    (dense or scipy sparse), e.g. from :func:`energy_matrix`. C: (m, n) constraint matrix, d: (m,)
    right-hand side. fixed: indices of states that keep their value (they are removed from the
    free coordinates; their part of ``C x0`` moves to the right-hand side).

    One linear solve of the optimality (KKT) system ``[[M, Cᵀ], [C, 0]] [Δx; λ] = [0; d − C x0]``,
    which is ``x = x0 − M⁻¹Cᵀ (C M⁻¹ Cᵀ)⁻¹ (C x0 − d)`` when M is invertible, and also covers
    states that store no energy (a zero row of M) as long as the constraints or the other states
    determine them. Redundant (but consistent) constraints are allowed; the minimum-norm
    solution is taken. Inconsistent constraints, or constraints the free states cannot satisfy,
    raise :class:`PhyslibError`.
    """
    x0 = np.asarray(x0, dtype=float).ravel()
    n = x0.size
    M = _as_matrix(M, (n, n), "M")
    C = _as_matrix(C, (None, n), "C")
    d = np.asarray(d, dtype=float).ravel()
    if d.size != C.shape[0]:
        raise PhyslibError(f"energy_projection: C has {C.shape[0]} rows but d has {d.size} entries")
    free = _free_indices(n, fixed)
    # States that store no energy and no constraint involves (angles, integrator states) stay
    # as they are; leaving them out keeps the KKT matrix nonsingular.
    m_rows = np.asarray(abs(M).sum(axis=1)).ravel()
    c_cols = np.asarray(abs(C).sum(axis=0)).ravel()
    free = free[(m_rows[free] > 0) | (c_cols[free] > 0)]
    x = x0.copy()
    if C.shape[0] == 0 or free.size == 0:
        _check_satisfied(C, x, d)
        return x
    Cf = C[:, free]
    Mf = M[free][:, free]
    rhs_c = d - C @ x0                          # C (x0 + Δx) = d with Δx zero on fixed states
    m, nf = Cf.shape
    if _issparse(Mf) or _issparse(Cf):
        kkt = sps.bmat([[sps.csc_matrix(Mf), sps.csc_matrix(Cf).T], [sps.csc_matrix(Cf), None]],
                       format="csc")
        rhs = np.concatenate([np.zeros(nf), rhs_c])
        sol = _sparse_solve(kkt, rhs)
    else:
        Cr, dr = _independent_rows(Cf, rhs_c)
        r = Cr.shape[0]
        kkt = np.block([[Mf, Cr.T], [Cr, np.zeros((r, r))]])
        rhs = np.concatenate([np.zeros(nf), dr])
        try:
            sol = np.linalg.solve(kkt, rhs)
            if not (np.all(np.isfinite(sol)) and np.allclose(kkt @ sol, rhs, rtol=1e-9, atol=1e-12)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:     # a free state that stores no energy: minimum-norm change
            sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
    x[free] += sol[:nf]
    _check_satisfied(C, x, d)
    return x


def naive_projection(x0, C, d) -> np.ndarray:
    """The prior-art projection, for comparison: keep one state of each constraint, set another.

    Rows are taken in order. In each row the first involved state (lowest index) keeps its
    value, and so does every state an earlier row already set; the last involved state not yet
    set is solved from the row. For a lock ``w1 − w2 = 0`` this keeps ``w1`` and sets
    ``w2 = w1`` — which does not conserve momentum. A row with no state left to set is skipped.
    """
    x = np.asarray(x0, dtype=float).ravel().copy()
    C = _as_matrix(C, (None, x.size), "C")
    C = C.toarray() if _issparse(C) else C
    d = np.asarray(d, dtype=float).ravel()
    assigned: set[int] = set()
    for row, rhs in zip(C, d):
        involved = np.flatnonzero(row)
        if involved.size == 0:
            continue
        assigned.add(int(involved[0]))
        candidates = [int(j) for j in involved if int(j) not in assigned]
        if not candidates:
            continue
        j = candidates[-1]
        x[j] = (rhs - (row @ x - row[j] * x[j])) / row[j]
        assigned.add(j)
    return x


# --- projection onto invariants --------------------------------------------------------------

def invariant_projection(x, residual, jacobian, M=None, *, tol: float = 0.0,
                         max_iter: int = 8) -> np.ndarray:
    """Move ``x`` onto invariants by the minimum-norm correction ``x + M⁻¹Jᵀ (J M⁻¹ Jᵀ)⁻¹ R``.

    residual: ``R = g0 − g(x)`` (k,), the amount by which the invariants ``g`` miss their known
    values ``g0``; jacobian: ``J = ∂g/∂x`` (k, n). M: optional (n, n) symmetric positive-definite
    weight (the energy matrix for physical states); without it the Euclidean norm is used.

    With arrays, one correction is applied (exact for linear invariants). With callables
    ``residual(x)`` and ``jacobian(x)`` (nonlinear invariants), the correction is repeated — a
    Gauss–Newton iteration in the same metric, converging quadratically — until
    ``max |R| <= tol``, until a correction no longer reduces ``max |R|`` (rounding level; the
    best iterate is returned), or after ``max_iter`` corrections.
    """
    x = np.asarray(x, dtype=float).ravel().copy()
    if not callable(residual):
        return x + _correction(np.asarray(residual, dtype=float).ravel(),
                               np.atleast_2d(np.asarray(jacobian, dtype=float)), M)
    best, best_size = x, np.inf
    for _ in range(max_iter + 1):
        R = np.asarray(residual(x), dtype=float).ravel()
        size = np.linalg.norm(R, np.inf) if R.size else 0.0
        if not size < best_size:
            return best
        best, best_size = x, size
        if size <= tol:
            return x
        x = x + _correction(R, np.atleast_2d(np.asarray(jacobian(x), dtype=float)), M)
    return best


def _correction(R, J, M):
    if R.size == 0:
        return np.zeros(J.shape[1])
    if J.shape[0] != R.size:
        raise PhyslibError(f"invariant_projection: J has {J.shape[0]} rows but R has {R.size} entries")
    if M is None:
        MinvJt = J.T
    else:
        M = M.toarray() if _issparse(M) else np.asarray(M, dtype=float)
        try:
            MinvJt = np.linalg.solve(M, J.T)
        except np.linalg.LinAlgError:
            raise PhyslibError("invariant_projection: the weight M is singular; pass M=None for "
                               "the Euclidean norm") from None
    S = J @ MinvJt
    try:
        lam = np.linalg.solve(S, R)
    except np.linalg.LinAlgError:
        lam = np.linalg.lstsq(S, R, rcond=None)[0]     # dependent invariants
    return MinvJt @ lam


# --- the energy matrix of a compiled model ---------------------------------------------------

def energy_matrix(system, x, z, p, t, *, sparse: bool = False):
    """``M = d²E/dx²``: the Hessian of the total stored energy with respect to the states.

    system: a compiled model's :class:`~physlib.assembly.compiled.DaeSystem` (``model.system``);
    a :class:`~physlib.assembly.compiled.CompiledModel` is accepted too. E is the sum of the
    ``system.energy`` outputs. Algebraic variables follow the states through 0 = g(x, z):
    with Z = dz/dx = −g_z⁻¹ g_x, M = [I; Z]ᵀ H [I; Z], H the Hessian of E in (x, z). This
    matters after index reduction, where a dummy state (the second inertia on a gear, say) is
    algebraic but still stores energy. The CasADi functions are built once and cached.
    Returns a dense (n, n) array, or a scipy CSC matrix with ``sparse=True``. States that store
    no energy (positions without springs, integrator states) give zero rows.
    """
    system = getattr(system, "system", system)
    fun = system.cache.get("energy_hessian")
    if fun is None:
        energy = system.energy
        xs, zs, ps, ts = system.symbols()
        total = cs.sum1(energy(xs, zs, ps, ts)) if energy.size1_out(0) else cs.SX(0)
        w = cs.vertcat(xs, zs)
        hess = cs.hessian(total, w)[0] if w.numel() else cs.SX(0, 0)
        alg = system.dae(xs, zs, ps, ts)[1]
        g_w = cs.jacobian(alg, w) if zs.numel() else cs.SX(0, w.numel())
        fun = cs.Function("energy_hessian", [xs, zs, ps, ts], [hess, g_w])
        system.cache["energy_hessian"] = fun
    hess, g_w = (np.array(cs.DM(m)) for m in fun(x, z, p, t))
    nx = np.asarray(x).size
    chain = state_chain(g_w, nx)
    hess = (chain.T @ hess @ chain).reshape(nx, nx)
    return sps.csc_matrix(hess) if sparse else hess


def constraint_jacobian(system, x, z, p, t) -> np.ndarray:
    """d(mode constraint expressions)/dx at (x, z, p, t), every constraint row (active or
    not), following the algebraic variables (dummy states after index reduction, say) through
    0 = g(x, z)."""
    if "constraint_jac" not in system.cache:
        xs, zs, ps, ts = system.symbols()
        w = cs.vertcat(xs, zs)
        expr = system.constraints(xs, zs, ps, ts)[0]
        alg = system.dae(xs, zs, ps, ts)[1]
        system.cache["constraint_jac"] = cs.Function(
            "cjac", [xs, zs, ps, ts], [cs.jacobian(expr, w), cs.jacobian(alg, w)])
    h_w, g_w = (np.array(cs.DM(m)) for m in system.cache["constraint_jac"](x, z, p, t))
    return h_w @ state_chain(g_w, len(x))


def state_chain(g_w, nx: int) -> np.ndarray:
    """d(x, z)/dx = [I; −g_z⁻¹ g_x]: how the algebraic variables follow the states through
    0 = g(x, z), given g's Jacobian ``g_w`` with respect to w = (x, z)."""
    if g_w.shape[1] == nx:
        return np.eye(nx)
    return np.vstack([np.eye(nx), -np.linalg.solve(g_w[:, nx:], g_w[:, :nx])])


# --- helpers ---------------------------------------------------------------------------------

def _as_matrix(a, shape, name):
    if _issparse(a):
        a = sps.csr_matrix(a, dtype=float)
    else:
        a = np.atleast_2d(np.asarray(a, dtype=float))
        if a.size == 0 and shape[0] is None:
            a = a.reshape(0, shape[1])
    rows, cols = shape
    if (rows is not None and a.shape[0] != rows) or a.shape[1] != cols:
        want = f"({rows if rows is not None else 'm'}, {cols})"
        raise PhyslibError(f"projection: {name} has shape {a.shape}, expected {want}")
    return a


def _free_indices(n, fixed):
    fixed = np.asarray(list(fixed), dtype=int).ravel()
    if fixed.size and (fixed.min() < -n or fixed.max() >= n):
        raise PhyslibError(f"projection: fixed state index out of range for {n} states: {fixed.tolist()}")
    mask = np.ones(n, dtype=bool)
    mask[fixed] = False
    return np.flatnonzero(mask)


def _independent_rows(C, rhs):
    """An equivalent set of linearly independent constraint rows (redundant locks, e.g. three
    shafts locked pairwise around a loop, are allowed): C = U S Vᵀ, keep S_r V_rᵀ and U_rᵀ rhs."""
    if C.shape[0] <= 1 and np.any(C):
        return C, rhs
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    r = int(np.sum(s > s[0] * 1e-10)) if s.size and s[0] > 0 else 0
    return s[:r, None] * Vt[:r], U[:, :r].T @ rhs


def _sparse_solve(kkt, rhs):
    try:
        sol = spla.spsolve(kkt, rhs)
        if np.all(np.isfinite(sol)):
            return sol
    except RuntimeError:
        pass
    return spla.lsqr(kkt, rhs, atol=1e-15, btol=1e-15, iter_lim=10 * kkt.shape[0])[0]


def _check_satisfied(C, x, d):
    if C.shape[0] == 0:
        return
    miss = np.abs(C @ x - d)
    scale = 1.0 + abs(C).max() * np.abs(x).max() + np.abs(d).max()
    if np.max(miss) > 1e-9 * scale:
        worst = int(np.argmax(miss))
        raise PhyslibError(
            f"projection: constraint row {worst} cannot be satisfied (residual {miss[worst]:.3g}); "
            "the constraints are inconsistent or involve only fixed states")
