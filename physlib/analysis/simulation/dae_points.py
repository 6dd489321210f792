"""Rates and algebraic variables at points the solver did not solve for: consistent rates at a
(re)start, and algebraic variables between two solver steps."""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..common.fast_call import fast


def _rate_parts(system):
    def build():
        xs, zs, ps, ts = system.symbols(cs.SX)
        ode, alg = system.dae(xs, zs, ps, ts)
        outputs = [ode, alg] + [cs.densify(cs.jacobian(e, v)) for e, v in
                                ((alg, xs), (alg, zs), (alg, ts), (ode, zs))]
        return cs.Function("rate_parts", [xs, zs, ps, ts], outputs)

    return fast(system, "rate_parts", build)


def consistent_rates(system, x, z, p, t) -> np.ndarray:
    """y' = [x'; z'] consistent with the equations at (x, z, p, t): x' = f and, from the time
    derivative of 0 = g, z' = −(∂g/∂z)⁻¹·(∂g/∂x·x' + ∂g/∂t). IDA starts from them, so a restart
    needs no initial-condition search and its first steps no correction of the rates."""
    xdot, _, g_x, g_z, g_t, _ = _rate_parts(system)(x, z, p, t)
    nx, nz = len(x), len(z)
    if not nz:
        return xdot
    g_x, g_z = (g_x.reshape(nx, nz).T if nx else np.zeros((nz, 0))), g_z.reshape(nz, nz).T
    try:
        zdot = -np.linalg.solve(g_z, g_x @ xdot + g_t)
    except np.linalg.LinAlgError:
        zdot = np.zeros(nz)
    return np.concatenate([xdot, zdot if np.all(np.isfinite(zdot)) else np.zeros(nz)])


def algebraic_between_steps(system, x, x_rate, z, p, t, rtol, atol, h, iterations: int = 3):
    """The algebraic variables at a time t between two solver steps, from the interpolated
    states x and their rates x' (the polynomial's derivative).

    IDA keeps algebraic variables out of its error test (their values at the steps are exact
    for the states there, but their own polynomial between steps is not controlled), and
    solving 0 = g(x, z) from the interpolated x alone can amplify the interpolation error:
    an ideal diode's current through its 1e-5 Ω on-resistance changes by 10⁵ A per volt of
    error. Both rows of the DAE hold at t, x' = f(x, z) and 0 = g(x, z), so z is their
    weighted least-squares solution, each row weighted by the accuracy its interpolated inputs
    have: an x row by 1/(rtol·|x'| + (rtol·|x| + atol)/h) (the polynomial's derivative), a g
    row by 1/(Σ_j |∂g/∂x_j|·(rtol·|x_j| + atol) + atol). The diode's current then comes from
    the capacitor's charging rate, a resistive divider's node from its equation; at the steps
    both rows hold exactly. Gauss–Newton from the polynomial's own values, at most
    ``iterations`` steps (one for equations linear in z)."""
    parts = _rate_parts(system)
    nx, nz = len(x), len(z)
    dx = rtol * np.abs(x) + atol
    for _ in range(iterations):
        f, g, g_x, g_z, _, f_z = parts(x, z, p, t)
        g_x = g_x.reshape(nx, nz).T if nx else np.zeros((nz, 0))
        w_x = 1.0 / (rtol * np.abs(x_rate) + dx / h)
        w_g = 1.0 / (np.abs(g_x) @ dx + atol)
        J = np.vstack([(w_x[:, None] * f_z.reshape(nz, nx).T) if nx else np.zeros((0, nz)),
                       w_g[:, None] * g_z.reshape(nz, nz).T])
        r = np.concatenate([w_x * (x_rate - f), -w_g * g])
        step = np.linalg.lstsq(J, r, rcond=None)[0]
        z = z + step
        if np.all(np.abs(step) <= 1e-10 * (np.abs(z) + atol)):
            break
    return z


def consistent_row(system, x, z, p, t, rtol, atol, iterations: int = 8):
    """(x, z) moved the least, each variable in units of its tolerance (rtol·|v| + atol), onto
    the algebraic equations 0 = g(x, z, p, t): an output row between solver steps then
    satisfies the model's equations (a resistor's v = R·i to rounding), the correction lying
    within the interpolation's accuracy. Minimum-norm Newton steps on [∂g/∂x ∂g/∂z]."""
    parts = _rate_parts(system)
    nx, nz = len(x), len(z)
    for _ in range(iterations):
        _, g, g_x, g_z, _, _ = parts(x, z, p, t)
        if not np.any(g):
            break
        scale = np.concatenate([rtol * np.abs(x) + atol, rtol * np.abs(z) + atol])
        J = np.hstack([g_x.reshape(nx, nz).T if nx else np.zeros((nz, 0)), g_z.reshape(nz, nz).T])
        Js = J * scale
        try:
            step = -scale * (Js.T @ np.linalg.solve(Js @ Js.T, g))
        except np.linalg.LinAlgError:
            break
        x, z = x + step[:nx], z + step[nx:]
        if np.all(np.abs(step) <= 1e-15 * scale / (rtol + 1e-300)):
            break
    return x, z
