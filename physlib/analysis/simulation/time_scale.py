"""The fastest time scale of a model at a point: the rate at which its quickest mode moves.

IDAS starts every call (the start of a run, the restart after each event) with a consistent
initialization (IDACalcIC) that takes its Newton step size, and IDAS its first step size,
from the first requested output time. Requested at a time far beyond the model's fastest
dynamics (an ideal diode's Ron·C = 1e-11 s in a run with outputs 1 ms apart), that Newton
iteration diverges, or accepts the zero initial rates CasADi starts from, and IDAS's first
step fails its error test repeatedly. :func:`fastest_rate` bounds the largest magnitude of
the eigenvalues of the state Jacobian with the algebraic variables eliminated,
A = f_x − f_z·g_z⁻¹·g_x, by its largest absolute row sum (any norm bounds the spectral radius;
this one costs n² operations where the eigenvalues cost 20 ms at 200 states, on every solver
start), so the integrator can ask for a first output that the fastest dynamics allow
(:mod:`physlib.analysis.simulation.integrators`); an overestimate only asks for that output
earlier.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..common.fast_call import fast

DENSE_LIMIT = 400       # states + algebraic variables up to which the Jacobian is formed densely


def fastest_rate(system, x, z, p, t) -> float | None:
    """A bound [1/s] on the spectral radius of the reduced state Jacobian at (x, z, p, t): its
    largest absolute row sum; None for a model too large to form it densely or whose algebraic
    Jacobian is singular there."""
    nx, nz = len(x), len(z)
    if not nx or nx + nz > DENSE_LIMIT:
        return None
    fx, fz, gx, gz = fast(system, "rate_jacobians", lambda: _jacobians(system))(x, z, p, t)
    A = fx.reshape((nx, nx), order="F")
    if nz:
        try:
            A = A - fz.reshape((nx, nz), order="F") @ np.linalg.solve(
                gz.reshape((nz, nz), order="F"), gx.reshape((nz, nx), order="F"))
        except np.linalg.LinAlgError:
            return None
    if not np.all(np.isfinite(A)):
        return None
    return float(np.abs(A).sum(axis=1).max())


def _jacobians(system) -> cs.Function:
    dae = system.dae_dict()
    x, z, p, t = dae["x"], dae["z"], dae["p"], dae["t"]
    ode, alg = dae["ode"], dae["alg"]
    outs = [cs.jacobian(ode, x), cs.jacobian(ode, z), cs.jacobian(alg, x), cs.jacobian(alg, z)]
    return cs.Function("rate_jacobians", [x, z, p, t], [cs.densify(o) for o in outs])
