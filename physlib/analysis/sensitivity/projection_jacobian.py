"""The derivatives of the energy projection at an event (the state moved onto newly active mode
constraints: a clutch that locks, a contact that closes, an impact with restitution e).

The simulator's projection (:func:`~physlib.analysis.common.projection.energy_projection`) moves
x to the point nearest in the energy metric M = ∂²E/∂x² that meets the constraints
h(x, z, p, t)⁺ = −e·h⁻ of the rows now enforced:

    [ M_f  J_fᵀ ] [Δ_f]   [      0      ]
    [ J_f   0   ] [ λ ] = [ −(1 + e)·h  ],        x⁺ = x + Δ   (Δ zero outside the free states f)

with J = ∂h/∂x following the algebraic variables (dz/dx = −g_z⁻¹g_x). Here the same solve is
written as a CasADi expression of (x, z, p, t) — for the rows enforced and the free states of
the event at hand, with linearly dependent rows left out — so that its Jacobians with respect
to the state, the algebraic variables, the parameters (masses, inertias, e) and the time are
exact. (x⁺ depends on the masses through M when two moving bodies collide.)
"""
from __future__ import annotations

import casadi as cs
import numpy as np
import scipy.linalg as sla

from ...core.errors import SensitivityError
from ..common.fast_call import fast
from ..common.initialization import SYMBOLIC_SOLVE_LIMIT
from ..common.projection import constraint_jacobian, energy_matrix


def enforced_rows(system, x, z, p_after, p_before, t) -> np.ndarray:
    """The constraint rows the simulator's projection enforces when the modes change from
    ``p_before`` to ``p_after`` (newly active ones, and active ones with e = 0)."""
    constraints = fast(system, "constraints")
    _, active, e = constraints(x, z, p_after, t)
    was_active = constraints(x, z, p_before, t)[1] > 0.5
    return np.flatnonzero((active > 0.5) & (~was_active | (e == 0)))


def projection_jacobians(system, rows, x, z, p, t):
    """(x⁺, ∂x⁺/∂x, ∂x⁺/∂z, ∂x⁺/∂p, ∂x⁺/∂t) of the energy projection enforcing constraint
    ``rows`` at the point (x, z, p, t) (p with the modes after the change)."""
    C = constraint_jacobian(system, x, z, p, t)[rows]
    M = energy_matrix(system, x, z, p, t)
    free = np.flatnonzero((np.abs(M).sum(axis=1) > 0) | (np.abs(C).sum(axis=0) > 0))
    independent = _independent_rows(C[:, free])
    key = ("sensitivity_projection", tuple(rows[independent].tolist()), tuple(free.tolist()))
    if key not in system.cache:
        system.cache[key] = _projection_function(system, rows[independent], free)
    x_new, jx, jz, jp, jt = (np.array(v) for v in system.cache[key](x, z, p, t))
    if not (np.all(np.isfinite(x_new)) and np.all(np.isfinite(jx)) and np.all(np.isfinite(jp))):
        raise SensitivityError(
            f"at t = {t:.10g} s the projection onto the constraints enforced there has no unique "
            "solution (a free state that stores no energy); its sensitivities are undefined")
    return x_new.ravel(), jx, jz, jp, jt.ravel()


def _independent_rows(C) -> np.ndarray:
    """Indices of a largest set of linearly independent rows of C (pivoted QR of Cᵀ)."""
    if C.shape[0] <= 1:
        return np.arange(C.shape[0])
    _, R, order = sla.qr(C.T, mode="economic", pivoting=True)
    diagonal = np.abs(np.diag(R))
    rank = int(np.sum(diagonal > diagonal[0] * 1e-10)) if diagonal.size and diagonal[0] > 0 else 0
    return np.sort(order[:rank])


def _projection_function(system, rows, free) -> cs.Function:
    nz = len(system.z_pos)
    kind = cs.SX if nz <= SYMBOLIC_SOLVE_LIMIT else cs.MX
    x, z, p, t = system.symbols(kind)
    nx = x.numel()
    h_all, _, e_all = system.constraints(x, z, p, t)
    h, e = h_all[rows.tolist()], e_all[rows.tolist()]
    alg = system.dae(x, z, p, t)[1]
    w = cs.vertcat(x, z)
    if nz:
        chain = cs.vertcat(kind.eye(nx), -_solve(cs.jacobian(alg, z), cs.jacobian(alg, x), kind))
    else:
        chain = kind.eye(nx)
    J = cs.mtimes(cs.jacobian(h, w), chain)
    energy = system.energy(x, z, p, t)
    total = cs.sum1(energy) if energy.numel() else kind(0)
    M = cs.mtimes([chain.T, cs.hessian(total, w)[0], chain])
    free_list = free.tolist()
    Jf, Mf = J[:, free_list], M[free_list, free_list]
    m, nf = len(rows), len(free_list)
    kkt = cs.blockcat([[Mf, Jf.T], [Jf, kind(m, m)]])
    rhs = cs.vertcat(kind(nf, 1), -(1 + e) * h)
    step = _solve(kkt, rhs, kind)[:nf]
    x_new = x + cs.mtimes(_selection(nx, free_list, kind), step)
    return cs.Function("projection_jacobians", [x, z, p, t],
                       [x_new, cs.jacobian(x_new, x), cs.jacobian(x_new, z), cs.jacobian(x_new, p),
                        cs.jacobian(x_new, t)])


def _selection(n, columns, kind):
    """The n × len(columns) matrix with a one at (columns[k], k)."""
    matrix = np.zeros((n, len(columns)))
    matrix[columns, np.arange(len(columns))] = 1.0
    return kind(cs.DM(matrix))


def _solve(A, b, kind):
    return cs.solve(A, b) if kind is cs.SX else cs.solve(A, b, "csparse")
