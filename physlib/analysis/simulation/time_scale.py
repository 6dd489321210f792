"""The fastest time scale of a model at a point: the rate at which its quickest mode moves.

IDAS starts every call (the start of a run, the restart after each event) with a consistent
initialization (IDACalcIC) that takes its Newton step size, and IDAS its first step size,
from the first requested output time. Requested at a time far beyond the model's fastest
dynamics (an ideal diode's Ron·C = 1e-11 s in a run with outputs 1 ms apart), that Newton
iteration diverges, or accepts the zero initial rates CasADi starts from, and IDAS's first
step fails its error test repeatedly. :func:`fastest_rate` bounds the largest magnitude of
the eigenvalues of the state Jacobian with the algebraic variables eliminated,
A = f_x − f_z·g_z⁻¹·g_x, by the largest absolute row sum of a balanced similar matrix (any
norm bounds the spectral radius; this one costs n² operations where the eigenvalues cost
20 ms at 200 states, on every solver start), so the integrator can ask for a first output
that the fastest dynamics allow (:mod:`physlib.analysis.simulation.integrators`). An
overestimate asks for that output earlier, and far too early (below 1e-15 s) IDAS's
corrector cannot converge. The stepped IDA's first step after a (re)start is bounded from
below by :func:`least_first_step`.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..common.fast_call import fast

DENSE_LIMIT = 400       # states + algebraic variables up to which the Jacobian is formed densely
EPS = float(np.finfo(float).eps)
LEAST_FIRST_STEP = 100  # rounding steps of t: CVODE's lower bound on its own first step (HLB_FACTOR)


def fastest_rate(system, x, z, p, t) -> float | None:
    """A bound [1/s] on the spectral radius of the reduced state Jacobian at (x, z, p, t): its
    largest absolute row sum; None for a model too large to form it densely or whose algebraic
    Jacobian is singular there."""
    nx, nz = len(x), len(z)
    if not nx:
        return None
    jacobians = dense_jacobians(system, x, z, p, t)
    if jacobians is None:
        return None
    fx, fz, gx, gz = jacobians
    A = fx
    if nz:
        try:
            A = A - fz @ np.linalg.solve(gz, gx)
        except np.linalg.LinAlgError:
            return None
    if not np.all(np.isfinite(A)):
        return None
    return _balanced_row_sum_bound(np.abs(A))


def _balanced_row_sum_bound(B: np.ndarray, sweeps: int = 8) -> float:
    """The smallest largest row sum of D⁻¹·B·D over a few diagonal scalings D (B = |A|).

    Every such matrix is similar to A, so each row-sum norm bounds its spectral radius; but
    states in different units (a junction charge of 1e-12 C beside a capacitor voltage) make
    the plain row sums of A overestimate it by their ratio (a transistor stage: 1.2e17 1/s
    for dynamics near 1e10 1/s, and IDAS was asked for a first output at 2e-16 s, where its
    corrector could not converge). Each sweep scales every state so that its row and column
    (off the diagonal) carry equal weight (Osborne's balancing, all states at once)."""
    best = float(B.sum(axis=1).max())
    diagonal = np.diag(B).copy()
    for _ in range(sweeps):
        rows = B.sum(axis=1) - diagonal
        cols = B.sum(axis=0) - diagonal
        factor = np.ones_like(rows)
        both = (rows > 0) & (cols > 0)
        factor[both] = np.sqrt(rows[both] / cols[both])
        B = B / factor[:, None] * factor[None, :]
        best = min(best, float(B.sum(axis=1).max()))
    return best


def dense_jacobians(system, x, z, p, t):
    """(f_x, f_z, g_x, g_z) of the semi-explicit DAE x' = f(x, z), 0 = g(x, z) at (x, z, p, t)
    as dense arrays, or None for a model of more than DENSE_LIMIT unknowns."""
    nx, nz = len(x), len(z)
    if nx + nz > DENSE_LIMIT:
        return None
    fx, fz, gx, gz = fast(system, "rate_jacobians", lambda: _jacobians(system))(x, z, p, t)
    return (fx.reshape((nx, nx), order="F"), fz.reshape((nx, nz), order="F"),
            gx.reshape((nz, nx), order="F"), gz.reshape((nz, nz), order="F"))


def _jacobians(system) -> cs.Function:
    dae = system.dae_dict()
    x, z, p, t = dae["x"], dae["z"], dae["p"], dae["t"]
    ode, alg = dae["ode"], dae["alg"]
    outs = [cs.jacobian(ode, x), cs.jacobian(ode, z), cs.jacobian(alg, x), cs.jacobian(alg, z)]
    return cs.Function("rate_jacobians", [x, z, p, t], [cs.densify(o) for o in outs])


def least_first_step(t, y, yp, nx, rtol, atol) -> float:
    """The first step for IDA after a (re)start at t from y with rates yp (the first nx
    entries the states'): 0 (IDA's own), or LEAST_FIRST_STEP rounding steps of t where IDA's
    own would be shorter. IDA's own is at most 0.5/‖y'‖ (its weighted RMS norm, the algebraic
    variables left out as in its error test): after an event that starts a transient far
    faster than t can resolve, a step that does not move the time. A switch closing a source
    onto a capacitor through Ron·C = 1e-11 s at t = 1 ms starts at dv/dt = 9e11 V/s, a first
    step of 1.5e-20 s, a fifteenth of t's rounding step: the run stopped there with steps that
    no longer moved the time. CVODE bounds its own first step from below the same way. (Where
    even this step fails IDA's error test and the steps it cuts to do not move t either, the
    run still stops: the same switch closing at t = 1 s, where Ron·C is 45,000 rounding steps
    of t.)"""
    least = LEAST_FIRST_STEP * EPS * abs(t)
    weights = 1.0 / (rtol * np.abs(y[:nx]) + atol)
    rate = np.sqrt(np.sum((yp[:nx] * weights) ** 2) / len(y))
    return least if 0.5 < rate * least else 0.0
