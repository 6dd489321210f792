"""Absolute tolerances of the solvers' unknowns in their own units.

Each unknown's is atol times its declared nominal size (``Variable(..., nominal=...)``,
Modelica's attribute; 1 unless declared): a BJT's junction charges, a few picocoulombs, declare
1e-8 C. Under the scalar atol of 1e-8, meant for volts, their error test was rtol·|q| + 1e-8 C,
a charge a thousand times the junction's whole: the steps were sized by the node voltages
alone, and a saturating NPN's turn-off came out 11 % of its collector swing off ngspice-39.

A DAE written as x' = f(x, z), 0 = g(x, z, x') keeps time derivatives among its algebraic
variables z: a capacitor's der(v) in its current C·der(v), and the derivatives of the dummy
states index reduction leaves (a MOSFET's der(vgs) when its gate–source overlap capacitance
closes a loop with a voltage source). Their unit is the state's per second, and the scalar
``atol`` (volts, for a circuit) does not fit it. IDA's Newton iteration has converged when
every unknown's correction is within its tolerance, and such a derivative is only known to
one rounding error of the node voltages it is solved from times the node's G/C: a node of
2.5 mS and 0.45 pF, with voltages near 3.3 V, has its der(v) only to ±2.4e-6 V/s, which at
rest (der(v) = 0, so rtol·|der(v)| adds nothing) never meets an absolute tolerance of
1e-8 V/s, at any step size: IDA's corrector fails at every step it tries and the run stops.

IDA in its own fully implicit form, F(t, y, y') = 0, has no such unknowns: its corrections are
on y, and y' = cj·(y − predicted y) follows from them, so a derivative is weighted as
atol·cj, atol over the step. Here a k-th derivative gets atol/T^k with T a bound on the
solver's steps (``max_step``, else the length of the run): its correction moves the state it
is the rate of by at most T·correction over a step, within the state's own atol.

Neither may lie below what rounding leaves of an unknown: solved from 0 = g(x, z), z moves by
about |g_z⁻¹|·ε·(|g_x|·|x| + |g_z|·|z|) when each equation's terms round (ε the unit
roundoff), and where a stiff branch joins two nodes that rounding is large in a derivative
even at rest. A power MOSFET's 1.1 fF gate–drain overlap behind its 0.05 Ω drain resistance,
at 24 V: the drain equation's terms are 480 A, which round by 5e-14 A, and der(vgd) by that
over 1.1 fF, 190 V/s (200 perturbations of the states by two roundings gave up to 150 V/s).
Against its atol/T of 1 V/s, IDA's corrector failed its convergence test at every step
size, and the run stopped after 50,000 steps at 2.4e-12 s, in a circuit at rest. Given the
start of a run, every algebraic variable's atol is at least ROUNDING_MARGIN times its
rounding there (the margin for terms that grow during the run: a drain that swings to four
times its start); the algebraic variables are out of IDA's error test, so this only stops
the corrector chasing rounding, while the states' own corrections still meet their atol.
"""
from __future__ import annotations

import numpy as np

from .time_scale import dense_jacobians

EPS = float(np.finfo(float).eps)
ROUNDING_MARGIN = 10.0      # an algebraic variable's atol over its rounding at the run's start


def derivative_order(name: str) -> int:
    """How many times ``name`` is differentiated in time: 2 for ``"der(der(m.x))"``."""
    order = 0
    while name.startswith("der(", 4 * order):
        order += 1
    return order


def absolute_tolerances(system, atol: float, step_bound: float, start=None) -> np.ndarray | None:
    """The absolute tolerance of each unknown [x; z] of ``system``: ``atol`` times the
    unknown's declared nominal size (``system.nominal``, 1 unless a component declares
    another: a junction charge's 1e-8 C) for the states and algebraic variables, and over
    step_bound^k for an algebraic variable that is a k-th time derivative; with ``start``
    (x, z, p, t), every algebraic variable's at least ROUNDING_MARGIN times its rounding there
    (:func:`rounding_floor`), up to a power of ten. None when every unknown's is ``atol``
    (the scalar ``atol`` then serves)."""
    nx = len(system.state_pos)
    nominal = system.nominal if system.nominal is not None else np.ones(nx + len(system.z_pos))
    names = system.position_names.take(system.z_pos)
    orders = np.array([derivative_order(name) for name in names], dtype=float)
    algebraic = atol * nominal[nx:] / step_bound ** orders
    floor = rounding_floor(system, *start) if start is not None else None
    if floor is not None:
        # up to a power of ten: runs from nearby starts share their solvers (built per atol)
        floor = ROUNDING_MARGIN * floor
        positive = floor > 0
        floor[positive] = 10.0 ** np.ceil(np.log10(floor[positive]))
        algebraic = np.maximum(algebraic, floor)
    states = atol * nominal[:nx]
    if np.all(algebraic == atol) and np.all(states == atol):
        return None
    return np.concatenate([states, algebraic])


def rounding_floor(system, x, z, p, t) -> np.ndarray | None:
    """How far rounding moves each algebraic variable at (x, z, p, t):
    |g_z⁻¹|·ε·(|g_x|·|x| + |g_z|·|z|), the rounding of each equation's terms (to first order)
    carried through the solve for z; None for a model too large to form g_z densely, or with
    g_z singular there."""
    if not len(z):
        return None
    jacobians = dense_jacobians(system, x, z, p, t)
    if jacobians is None:
        return None
    _, _, gx, gz = jacobians
    try:
        inverse = np.linalg.inv(gz)
    except np.linalg.LinAlgError:
        return None
    terms = EPS * (np.abs(gx) @ np.abs(x) + np.abs(gz) @ np.abs(z))
    floor = np.abs(inverse) @ terms
    return floor if np.all(np.isfinite(floor)) else None
