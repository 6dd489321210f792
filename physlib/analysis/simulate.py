"""Transient simulation of a compiled model with SUNDIALS (IDAS or CVODES) through CasADi.

Time events (steps, pulses) split the run into segments: the solver never integrates across a
discontinuity, the algebraic variables are re-initialized after each one, and the result holds
the values just before and just after it at the same time stamp.
"""
from __future__ import annotations

import numbers
import threading

import numpy as np

from ..core.errors import PhyslibError
from .events import left_limit, simulate_hybrid, snap_to_events
from .initialization import check_derivatives, solve_algebraic
from .integrators import Integration
from .options import SimulateOptions, simulate_options
from .results import SimulationResult
from .start_values import check_initial_state


def simulate(model, t_end: float, *, t0: float = 0.0, solver: str = "idas", dt: float | None = None,
             rtol: float = 1e-6, atol: float = 1e-8, t_eval=None, params: dict | None = None,
             x0: dict | None = None, projection: str | None = "energy", noise=None,
             noise_T: float = 300.15, max_step: float | None = None, event_tol: float = 1e-10,
             max_events: int = 100, invariants=None, initial: str = "strict") -> SimulationResult:
    """Simulate ``model`` from ``t0`` to ``t_end`` [s].

    solver: ``"idas"`` (default, DAE) or ``"cvodes"`` (models whose equations reduce to an ODE).
    rtol, atol: solver tolerances. t_eval: output times (default: 501 points plus both sides
    of every time event). params: parameter values by path, e.g. ``{"R1.R": 2e3}`` (no
    recompile). x0: initial values of states by path, e.g. ``{"C1.v": 1.0}``.
    max_step: largest solver step [s]; for models with modes also the guard sampling interval
    (default (t_end − t0)/1000). event_tol: time tolerance of event location [s]. max_events:
    more events than this within a microsecond is an event storm (an error). projection: how
    states are made consistent when an event activates a mode constraint: "energy" (ALGORITHMS
    §1), "naive" (keep the first state, for comparison) or None.
    Fixed step: ``solver`` ``"euler"``, ``"rk4"``, ``"trapezoidal"`` or ``"backward_euler"`` with
    the step ``dt`` [s] (required); output at every step unless ``t_eval`` is given (see
    :mod:`physlib.analysis.fixed_step`). invariants: SymPy expressions whose symbols are paths
    of states (``sympy.Symbol("lv.x")``), parameters or ``t``; their values at ``t0`` are kept
    by invariant projection after every step. Fixed-step solvers only: a variable-step solver
    cannot be corrected between its internal steps, so ``invariants`` with ``"idas"`` or
    ``"cvodes"`` is an error. initial: ``"strict"`` (default): a start value given explicitly
    (``Capacitor(v0=...)``) that the constraints override is an InitializationError naming the
    component, the value and the constraint; ``"relaxed"``: start from the consistent values
    with a :class:`~physlib.analysis.start_values.StartValueWarning` listing what changed.
    noise: variable paths whose thermal and shot noise is propagated along the run (at
    temperature ``noise_T`` [K]): ``res.noise_std(name)`` is its standard deviation around the
    noiseless trajectory at each output time (see :mod:`physlib.analysis.transient_noise`).

    Every option is validated before the run (:mod:`physlib.analysis.options`): a wrong type or
    an impossible value (``t_end`` not finite, ``event_tol`` or ``max_step`` not positive, an
    output that would not fit in memory) is an ``OptionError`` naming the option.

    Threads: calls on one compiled model are serialized by a lock held for the whole call
    (SUNDIALS integrators keep per-object work memory that concurrent calls would share, and
    CasADi releases the GIL while they run); calls on different compiled models run in
    parallel. For parallel runs of one model, compile it once per thread or use processes.
    """
    options = simulate_options(model, t_end, t0=t0, solver=solver, dt=dt, rtol=rtol, atol=atol,
                               t_eval=t_eval, params=params, x0=x0, projection=projection, noise=noise,
                               noise_T=noise_T, max_step=max_step, event_tol=event_tol,
                               max_events=max_events, invariants=invariants, initial=initial)
    with model_lock(model):
        if options.fixed_step:
            from .fixed_step import simulate_fixed
            result = simulate_fixed(model, options)
        else:
            result = _simulate_variable(model, options)
        if options.noise:
            from .transient_noise import propagate_noise
            result.noise = propagate_noise(model, result, options.noise, options.noise_T)
        return result


def model_lock(model) -> threading.RLock:
    """The lock that serializes solver calls on one compiled model (created on first use)."""
    return model.system.cache.setdefault("lock", threading.RLock())


def consistent_start(model, p: np.ndarray, options: SimulateOptions):
    """States and algebraic variables at t0: start values and ``x0``, the algebraic equations
    solved, derivatives and explicitly given start values checked."""
    system = model.system
    start = np.asarray(system.start(p, options.t0)).ravel()
    x = start[system.state_pos]
    if options.x0:
        x = _apply_x0(model, x, options.x0)
    z = solve_algebraic(system, x, start[system.z_pos], p, options.t0, lambda i: model.algebraic[i])
    check_derivatives(model, x, z, p, options.t0)
    check_initial_state(model, x, z, p, options.t0, initial=options.initial)
    return x, z


def _simulate_variable(model, options: SimulateOptions) -> SimulationResult:
    system = model.system
    solver, t0, t_end = options.solver, options.t0, options.t_end
    p = model.parameter_vector(options.params)
    events = model.time_events(p, t0, t_end)
    user_grid = options.t_eval is not None
    grid = snap_to_events(options.grid, events, t0, t_end)
    nz = len(system.z_pos)
    if solver == "cvodes" and nz:
        raise PhyslibError(
            f"solver 'cvodes' needs an ODE, but {model.name} keeps {nz} algebraic variables "
            f"({', '.join(model.algebraic[:5])}); use solver='idas'")
    x, z = consistent_start(model, p, options)
    describe = lambda i: model.algebraic[i]  # noqa: E731

    if model.has_modes:
        times, xs, zs, ps, t_values = [], [], [], [], []

        def record_hybrid(tt, xx, zz, pp, t_value=None):
            times.append(tt), xs.append(xx), zs.append(zz), ps.append(pp.copy())
            t_values.append(tt if t_value is None else t_value)

        events = simulate_hybrid(model, t0, t_end, grid, user_grid, p, x, z, solver=solver,
                                 rtol=options.rtol, atol=options.atol, max_step=options.max_step,
                                 event_tol=options.event_tol, max_events=options.max_events,
                                 projection=options.projection, record=record_hybrid)
        return SimulationResult(model, np.array(times), _stack(xs, len(x)), _stack(zs, nz),
                                _stack(ps, len(p)), events, t_values=np.array(t_values),
                                continuation=(solver, options.rtol, options.atol))

    times, xs, zs, t_values = [], [], [], []

    def record(tt, xx, zz, t_value=None):
        # t_value: when to evaluate time-dependent outputs; just before a time event it is the
        # left limit, although the row carries the event's time stamp.
        times.append(tt), xs.append(xx), zs.append(zz)
        t_values.append(tt if t_value is None else t_value)

    integration = Integration(model, solver, options.rtol, options.atol)
    if grid[0] == t0:
        record(t0, x, z)
    bounds = [t0] + events + [t_end]
    for k in range(len(bounds) - 1):
        a, b = bounds[k], bounds[k + 1]
        if k > 0:
            # After a time event: states are continuous, algebraic variables are re-solved.
            z = solve_algebraic(system, x, z, p, a, describe)
            if not user_grid or np.any(grid == a):
                record(a, x, z)
        inner = grid[(grid > a) & (grid < b)]
        X, Z = _integrate(integration, a, np.append(inner, b), x, z, p, options.max_step, model)
        for i, tt in enumerate(inner):
            record(tt, X[:, i], Z[:, i])
        x, z = X[:, -1], Z[:, -1]
        if b == t_end:
            if grid[-1] == t_end:
                record(b, x, z)
        elif not user_grid:
            # Just before the event, at the same time stamp: the left limit in time.
            left = left_limit(b, t0, t_end)
            record(b, x, solve_algebraic(system, x, z, p, left, describe), left)
    return SimulationResult(model, np.array(times), _stack(xs, len(x)), _stack(zs, nz), p,
                            t_values=np.array(t_values), continuation=(solver, options.rtol, options.atol))


def _apply_x0(model, x, x0):
    x = x.copy()
    state_pos = {int(pos): i for i, pos in enumerate(model.system.state_pos)}
    for name, value in x0.items():
        pos, sign = model.variable(name)
        if pos not in state_pos:
            states = ", ".join(model.states[:10]) if model.states else "none (it is purely algebraic)"
            raise PhyslibError(f"x0: {name} is not a state of {model.name}; its states: {states}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise PhyslibError(f"x0: the initial value of {name} must be a finite number, got {value!r}")
        x[state_pos[pos]] = sign * float(value)
    return x


def _integrate(integration, t_start, out_t, x, z, p, max_step, model):
    """States and algebraic variables at ``out_t`` (all > t_start), starting from (x, z)."""
    nz = len(z)
    if not len(x):
        Z = np.empty((nz, len(out_t)))
        describe = lambda i: model.algebraic[i]  # noqa: E731
        for i, tt in enumerate(out_t):
            z = solve_algebraic(model.system, x, z, p, tt, describe)
            Z[:, i] = z
        return np.empty((0, len(out_t))), Z
    h = out_t[-1] - t_start
    return integration(x, z, p, t_start, out_t[-1], (out_t - t_start) / h, max_step=max_step)


def _stack(rows, n):
    return np.array(rows).reshape(len(rows), n).T if rows else np.empty((n, 0))
