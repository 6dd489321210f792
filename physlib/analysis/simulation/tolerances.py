"""Absolute tolerances of the solvers' unknowns in their own units.

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
"""
from __future__ import annotations

import numpy as np


def derivative_order(name: str) -> int:
    """How many times ``name`` is differentiated in time: 2 for ``"der(der(m.x))"``."""
    order = 0
    while name.startswith("der(", 4 * order):
        order += 1
    return order


def absolute_tolerances(system, atol: float, step_bound: float) -> np.ndarray | None:
    """The absolute tolerance of each unknown [x; z] of ``system``: ``atol`` for the states
    and algebraic variables, atol/step_bound^k for an algebraic variable that is a k-th time
    derivative; None when no algebraic variable is one (the scalar ``atol`` then serves)."""
    names = system.position_names.take(system.z_pos)
    orders = np.array([derivative_order(name) for name in names], dtype=float)
    if not np.any(orders):
        return None
    return np.concatenate([np.full(len(system.state_pos), atol), atol / step_bound ** orders])
