"""Fixed-step integration of the compiled DAE x' = f(x, z, p, t), 0 = g(x, z, p, t).

Solvers (step ``dt``, order p of the global error; the formulas are in
:mod:`physlib.analysis.simulation.fixed_step_methods`):

- ``"euler"`` (explicit, p = 1) and ``"rk4"`` (classical Runge–Kutta, explicit, p = 4): the
  algebraic variables z are found by Newton (:func:`~physlib.analysis.common.initialization.solve_algebraic`)
  at every stage, so every stage derivative is evaluated on the constraint manifold.
- ``"backward_euler"`` (p = 1) and ``"trapezoidal"`` (p = 2), implicit: the step equations for the new
  states and algebraic variables together, solved by a damped Newton method from the explicit
  Euler predictor (until the step is below 1e-12 of the unknowns),

      x1 − x0 − h·(θ·f(x1, z1, t1) + (1 − θ)·f(x0, z0, t0)) = 0,   g(x1, z1, t1) = 0

  (θ = 1 backward Euler, θ = ½ trapezoidal), with the exact sparse Jacobian from CasADi.

The step grid is ``t0, t0 + dt, t0 + 2·dt, …`` with a shorter last step ending at ``t_end``.
Time events of the model (a source's step) split the step they fall in, so no step
integrates across a discontinuity: the stages at the end of such a step see the left limit
of the inputs, and the algebraic variables are re-solved after it.

Output: without ``t_eval``, every step end (and, at a time event or where the ``step_end``
hook changed the state, the values just before and just after it at the same time stamp). With
``t_eval``, exactly those times: a time on the step grid (within 1e-9·dt) gets the step's value;
a time inside a step gets the method's interpolant of the states with z solved at the
interpolated states (and, with invariants, projected onto them): for rk4 the cubic Hermite
through both step ends and their derivatives (local error O(dt⁴), rk4's order), for euler,
backward_euler and trapezoidal linear interpolation between the two step values, which never
leaves their range (a cubic through the derivatives overshoots by |dt·λ| times the range on
a stiff state an implicit step steps over; see
:mod:`~physlib.analysis.simulation.fixed_step_methods`). The step grid does not depend on
``t_eval``.

Invariants: SymPy expressions of states (``sympy.Symbol("lv.x")``), parameters (``"lv.a"``)
and time (``"t"``) whose values at ``t0`` are kept by invariant projection after every
step — M-weighted by the energy matrix when that is positive definite at the current state,
Euclidean otherwise (states that store no energy) — and z re-solved
(:mod:`physlib.analysis.simulation.invariants`).

The ``step_end(t, x, z)`` hook runs at every step end after the invariant projection and may
return new ``(x, z)`` or ``(x, z, p)`` (p: parameters, e.g. modes changed by an event) or ``None``
for no change; z is then re-solved from the returned guess. Models with modes get a hook
that checks their guards at step ends and handles events there (:func:`step_end_events`).
"""
from __future__ import annotations

import numpy as np

from ...core.errors import PhyslibError
from .events import HybridStepper
from .fixed_step_methods import INTERPOLANT, StepMethod
from ..common.initialization import consistent_start
from .invariants import Invariants
from ..common.options import FIXED_STEP
from .result_rows import ResultRows
from .results import SimulationResult
from .run_stats import count, phase, reached
from .time_events import left_limit, run_events

_GRID_TOL = 1e-9          # relative to dt: times closer than this to a grid point are on it


# --- public entry points ------------------------------------------------------------------------

def simulate_fixed(model, options):
    """:func:`physlib.analysis.simulation.simulate.simulate` for the fixed-step solvers, with validated
    :class:`~physlib.analysis.common.options.SimulateOptions`.

    ``dt`` [s] is required. ``rtol``/``atol`` do not apply (the implicit solvers' Newton
    iterations converge to rounding level); ``max_step`` is an error (the step is ``dt``).
    Models with modes have their guards checked at step ends; an event found there is handled
    at the step end, where ``projection`` makes the overshot state consistent with the new
    modes' constraints (by default the state nearest in stored energy that meets them,
    :func:`~physlib.analysis.common.projection.energy_projection`).
    """
    t0, t_end = options.t0, options.t_end
    p = model.parameter_vector(options.params)
    with phase("initialization"):
        x, z = consistent_start(model, p, options)
    hook, events = None, []
    if model.has_modes:
        hook, events, (x, z, p) = step_end_events(model, p, t0, t_end, x, z, projection=options.projection,
                                                  atol=options.atol, max_events=options.max_events)
    times, X, Z, P, t_values = integrate_fixed(model, options.solver, t0, t_end, options.dt, x, z, p,
                                               t_eval=options.t_eval, step_end=hook,
                                               invariants=options.invariants, return_p=True)
    count("events", "time", n=sum(t0 < te < t_end for te in model.time_events(p, t0, t_end)))
    count("events", "state", n=len({e.t for e in events if e.cause == "state"}))
    return SimulationResult(model, times, X, Z, P, events, t_values=t_values,
                            interpolant=INTERPOLANT[options.solver])


def integrate_fixed(model, solver: str, t0: float, t_end: float, dt: float, x, z, p, t_eval=None,
                    step_end=None, invariants=None, *, return_p: bool = False):
    """Integrate from consistent ``(x, z)`` at ``t0`` to ``t_end`` with the fixed step ``dt``.

    Returns ``(times, X, Z)`` with X (nx, k) and Z (nz, k) the states and algebraic variables
    at ``times`` (k,) — see the module docstring for which times; with ``return_p=True`` also the
    parameter vectors P (np, k) in force at those times (the ``step_end`` hook may change modes)
    and the times at which to evaluate outputs (the left limit for a row just before a time event). ``invariants`` is a list
    of SymPy expressions or an :class:`Invariants`. Raises :class:`SimulationError` when a step
    fails (Newton does not converge, the solution is no longer finite).
    """
    if solver not in FIXED_STEP:
        raise PhyslibError(f"unknown fixed-step solver {solver!r}; choose one of {', '.join(FIXED_STEP)}")
    run = _FixedStepRun(model, solver, t0, t_end, dt, x, z, p, t_eval, step_end, invariants)
    times, X, Z, P, t_values = run.run().arrays()
    return (times, X, Z, P, t_values) if return_p else (times, X, Z)


class _FixedStepRun:
    """One run of :func:`integrate_fixed`: the step grid, the output times, and the current
    states x, algebraic variables z and parameters p."""

    def __init__(self, model, solver, t0, t_end, dt, x, z, p, t_eval, step_end, invariants):
        self.t0, self.t_end, self.step_end = t0, t_end, step_end
        self.x, self.z, self.p = (np.array(v, dtype=float).ravel() for v in (x, z, p))
        names = list(model.states) + list(model.algebraic)
        self.method = StepMethod(model.system, solver, names, lambda i: model.algebraic[i])
        if invariants is not None and not isinstance(invariants, Invariants):
            invariants = Invariants(model, invariants)
        self.invariants = invariants if invariants is not None and invariants.size else None
        self.target = self.invariants.values(self.x, self.p, t0) if self.invariants is not None else None
        # an edge at t_end (a pulse train whose period divides the horizon) changes nothing:
        # the last step ends at its left limit, as the variable-step solvers' runs do
        events, run_end = run_events(model, self.p, t0, t_end)
        self.points, self.is_event = _step_points(t0, t_end, dt, events)
        self.end_eval = run_end
        self.tol = _GRID_TOL * dt
        self.t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float).ravel()
        if self.t_eval is not None and self.t_eval.size and (self.t_eval[0] < t0 - self.tol
                                                               or self.t_eval[-1] > t_end + self.tol):
            raise PhyslibError(f"t_eval must lie within [t0, t_end] = [{t0}, {t_end}]")
        self.k_eval = 0                     # next t_eval point to place
        self.rows = ResultRows(self.x.size, self.z.size, self.p.size)

    def run(self) -> ResultRows:
        if self.t_eval is None:
            self._record(self.t0, self.x, self.z)
        else:
            self._record_t_eval(self.t0)
        for k in range(len(self.points) - 1):
            self._step(self.points[k], self.points[k + 1], self.is_event[k + 1])
        return self.rows

    def _step(self, a, b, event) -> None:
        """The step from a to b (``event``: b is a time event), with its output rows."""
        count("steps")
        reached(b)
        user_grid = self.t_eval is not None
        # At a time event the stages at the end of the step see the input's left limit.
        b_eval = left_limit(b, self.t0, self.t_end) if event else self.end_eval if b == self.t_end else b
        xa, za = self.x, self.z
        x, z = self._keep_invariants(*self.method.step(xa, za, self.p, a, b, b_eval), b_eval)
        if user_grid:
            self._record_inside(xa, za, a, x, z, b, b_eval)
        if event:
            if not user_grid:
                self._record(b, x, z, t_value=b_eval)     # left limit
            z = self.method.consistent(x, z, self.p, b)
        if self.step_end is not None:       # its guards see the inputs the step's end saw
            x, z = self._apply_step_end(b if event else b_eval, x, z, event)
        self.x, self.z = x, z
        if user_grid:
            self._record_t_eval(b)
        else:
            self._record(b, x, z)

    def _keep_invariants(self, x, z, t):
        if self.invariants is None:
            return x, z
        x = self.invariants.project(x, self.target, self.p, t, self.method.system, z)
        return x, self.method.consistent(x, z, self.p, t)

    def _apply_step_end(self, b, x, z, event):
        """The ``step_end`` hook at b; a change it makes gets a row before it (at a time event
        the left-limit row is there already)."""
        x_before, z_before, p_before = x, z, self.p
        x, z, self.p = _apply_hook(self.step_end, b, x, z, self.p, self.method)
        # The algebraic variables follow from the states and parameters: where the hook
        # changed neither, its re-solve moved them by rounding only, and nothing happened.
        changed = not (np.array_equal(x, x_before) and np.array_equal(self.p, p_before))
        if not changed:
            return x_before, z_before
        if self.t_eval is None and not event:
            self._record(b, x_before, z_before, p_before)
        return x, z

    def _record(self, t, x, z, p=None, t_value=None) -> None:
        self.rows.add(float(t), x, z, self.p if p is None else p,
                      None if t_value is None else float(t_value))

    def _record_t_eval(self, b) -> None:
        """The ``t_eval`` points up to b (on the step grid within its tolerance): the values at b."""
        while self.k_eval < self.t_eval.size and self.t_eval[self.k_eval] <= b + self.tol:
            self._record(self.t_eval[self.k_eval], self.x, self.z)
            self.k_eval += 1

    def _record_inside(self, xa, za, a, x, z, b, b_eval) -> None:
        """The ``t_eval`` points strictly inside the step from a to b: interpolated."""
        inner = []
        while self.k_eval < self.t_eval.size and self.t_eval[self.k_eval] < b - self.tol:
            inner.append(self.t_eval[self.k_eval])
            self.k_eval += 1
        if inner:
            for tt, xi, zi in self.method.interpolate(xa, za, a, x, z, b, b_eval, self.p, inner):
                # The interpolant keeps invariants only approximately: project it too.
                self._record(tt, *self._keep_invariants(xi, zi, tt))


# --- helpers ------------------------------------------------------------------------------------

def _step_points(t0, t_end, dt, events):
    """Step ends t0 + k·dt (last one t_end), with time events inserted; and which are events."""
    n = int(np.ceil((t_end - t0) / dt - _GRID_TOL))
    points = t0 + dt * np.arange(n + 1)
    points[-1] = t_end
    is_event = np.zeros(points.size, dtype=bool)
    extra = []
    for te in events:
        k = int(np.argmin(np.abs(points - te)))
        if abs(points[k] - te) <= _GRID_TOL * dt:
            points[k] = te
            is_event[k] = 0 < k < points.size - 1
        else:
            extra.append(te)
    if extra:
        points = np.concatenate([points, extra])
        is_event = np.concatenate([is_event, np.ones(len(extra), dtype=bool)])
        order = np.argsort(points, kind="stable")
        points, is_event = points[order], is_event[order]
    return points.tolist(), is_event.tolist()


def step_end_events(model, p, t0, t_end, x, z, *, projection, atol, max_events):
    """A ``step_end`` hook that checks guards at step ends and handles events there. Returns the
    hook, the list it fills with events, and the initial (x, z, p) with consistent modes."""
    # Settling looks 100·event_tol (1e-8 s) ahead: one rk4 step, far more accurate there than
    # the sign it is asked for needs.
    rk4 = StepMethod(model.system, "rk4", model.states + model.algebraic, lambda i: model.algebraic[i])
    stepper = HybridStepper(model, p, solver="idas", rtol=1e-8, atol=atol, event_tol=1e-10,
                            max_events=max_events, projection=projection,
                            step=lambda x, z, pp, ta, tb, _watch: (tb, *rk4.step(x, z, pp, ta, tb, tb)))
    x, z = stepper.start(t0, t_end, x, z)
    _, x, z, g, mask = stepper.settle(t0, x, z, stepper.no_guards())
    time_events = set(model.time_events(stepper.p, t0, t_end))
    state = {"g": g, "mask": mask}

    def hook(t, x, z):
        g = stepper.guards(x, z, t)
        fired = stepper.crossed(state["g"], g, state["mask"])
        if np.any(fired) or t in time_events:
            # Events are handled at the step end. A guard that is zero there and leaves zero
            # (a normal force ramping up from 0) calls for another mode a moment later
            # (100·event_tol): settling takes the state from then, but the step clock stays.
            _, x, z, g_ref, mask = stepper.handle_event(t, x, z, fired, "state" if np.any(fired) else "time",
                                                        g_before=state["g"])
            state["g"], state["mask"] = g_ref, mask
        else:
            state["g"], state["mask"] = stepper.watch(state["g"], g, state["mask"])
        return x, z, stepper.p.copy()

    return hook, stepper.events, (x, z, stepper.p.copy())


def _apply_hook(step_end, t, x, z, p, method):
    out = step_end(t, x, z)
    if out is None:
        return x, z, p
    if len(out) == 3:
        x_new, z_new, p_new = out
        p = np.array(p_new, dtype=float).ravel()
    else:
        x_new, z_new = out
    x_new = np.array(x_new, dtype=float).ravel()
    z_new = np.array(z_new, dtype=float).ravel()
    if z_new.size:
        z_new = method.consistent(x_new, z_new, p, t)
    return x_new, z_new, p
