"""Transient simulation of a compiled model with SUNDIALS (IDAS or CVODES) through CasADi.

Time events (steps, pulses) split the run into segments: the solver never integrates across a
discontinuity, the algebraic variables are re-initialized after each one, and the result holds
the values just before and just after it at the same time stamp.
"""
from __future__ import annotations

import numpy as np
import casadi as cs

from ..core.errors import PhyslibError, SimulationError
from .events import has_modes, simulate_hybrid
from .initialization import check_derivatives, solve_algebraic
from .results import SimulationResult
from .start_values import INITIAL_MODES, check_initial_state

VARIABLE_STEP = ("idas", "cvodes")
FIXED_STEP = ("euler", "rk4", "trapezoidal", "backward_euler")  # fixed_step.py
DEFAULT_POINTS = 501
_CACHE_LIMIT = 64


def simulate(model, t_end: float, *, t0: float = 0.0, solver: str = "idas", dt: float | None = None,
             rtol: float = 1e-6, atol: float = 1e-8, t_eval=None, params: dict | None = None,
             x0: dict | None = None, projection: str | None = "energy", noise=None,
             max_step: float | None = None, event_tol: float = 1e-10,
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
    """
    # --- fixed-step solvers: physlib.analysis.fixed_step -------------------------------------
    if solver in FIXED_STEP:
        from .fixed_step import simulate_fixed
        return simulate_fixed(model, t_end, t0=t0, solver=solver, dt=dt, rtol=rtol, atol=atol,
                              t_eval=t_eval, params=params, x0=x0, projection=projection,
                              noise=noise, max_step=max_step, invariants=invariants,
                              max_events=max_events, initial=initial)
    if invariants is not None:
        raise PhyslibError(
            f"invariants are kept by projection after each step of a fixed-step solver; {solver!r} "
            f"does not support them: use one of {', '.join(FIXED_STEP)} with a step dt")
    # --- variable-step solvers ---------------------------------------------------------------
    system = model.system
    _check_options(solver, dt, noise, projection, t0, t_end, rtol, atol, initial)
    p = model.parameter_vector(params)
    events = model.time_events(p, t0, t_end)
    user_grid = t_eval is not None
    grid = _output_grid(t_eval, t0, t_end)
    nz = len(system.z_pos)
    if solver == "cvodes" and nz:
        raise PhyslibError(
            f"solver 'cvodes' needs an ODE, but {model.name} keeps {nz} algebraic variables "
            f"({', '.join(model.algebraic[:5])}); use solver='idas'")

    start = np.asarray(system.start(p, t0)).ravel()
    x = start[system.state_pos]
    if x0:
        x = _apply_x0(model, x, x0)
    z = start[system.z_pos]
    describe = lambda i: model.algebraic[i]  # noqa: E731
    z = solve_algebraic(system, x, z, p, t0, describe)
    check_derivatives(model, x, z, p, t0)
    check_initial_state(model, x, z, p, t0, initial=initial)

    if has_modes(model):
        times, xs, zs, ps, t_values = [], [], [], [], []

        def record_hybrid(tt, xx, zz, pp, t_value=None):
            times.append(tt), xs.append(xx), zs.append(zz), ps.append(pp.copy())
            t_values.append(tt if t_value is None else t_value)

        events = simulate_hybrid(model, t0, t_end, grid, user_grid, p, x, z, solver=solver, rtol=rtol,
                                 atol=atol, max_step=max_step, event_tol=event_tol,
                                 max_events=max_events, projection=projection, record=record_hybrid)
        return SimulationResult(model, np.array(times), _stack(xs, len(x)), _stack(zs, nz),
                                _stack(ps, len(p)), events, t_values=np.array(t_values))

    times, xs, zs, t_values = [], [], [], []

    def record(tt, xx, zz, t_value=None):
        # t_value: when to evaluate time-dependent outputs; just before a time event it is the
        # left limit, although the row carries the event's time stamp.
        times.append(tt), xs.append(xx), zs.append(zz)
        t_values.append(tt if t_value is None else t_value)

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
        X, Z = _integrate(system, solver, a, np.append(inner, b), x, z, p, rtol, atol, max_step, model)
        for i, tt in enumerate(inner):
            record(tt, X[:, i], Z[:, i])
        x, z = X[:, -1], Z[:, -1]
        if b == t_end:
            if grid[-1] == t_end:
                record(b, x, z)
        elif not user_grid:
            # Just before the event, at the same time stamp: the left limit in time.
            left = np.nextafter(b, -np.inf)
            record(b, x, solve_algebraic(system, x, z, p, left, describe), left)
    return SimulationResult(model, np.array(times), _stack(xs, len(x)), _stack(zs, nz), p,
                            t_values=np.array(t_values))


def _check_options(solver, dt, noise, projection, t0, t_end, rtol, atol, initial):
    if solver not in VARIABLE_STEP:
        raise PhyslibError(f"unknown solver {solver!r}; choose one of {', '.join(VARIABLE_STEP + FIXED_STEP)}")
    if dt is not None:
        raise PhyslibError("dt is the step of the fixed-step solvers; variable-step solvers choose "
                           "their own steps (use max_step to cap them)")
    check_common_options(noise, projection, t0, t_end, initial)
    if not (rtol > 0 and atol > 0):
        raise PhyslibError(f"rtol and atol must be positive (got {rtol}, {atol})")


def check_common_options(noise, projection, t0, t_end, initial):
    """Checks shared by the variable- and fixed-step paths."""
    if initial not in INITIAL_MODES:
        raise PhyslibError(f"initial must be one of {', '.join(map(repr, INITIAL_MODES))}, got {initial!r}")
    if noise is not None:
        raise PhyslibError("transient noise analysis (noise=...) is not available yet")
    if projection not in ("energy", "naive", None):
        raise PhyslibError(f"projection must be 'energy', 'naive' or None, got {projection!r}")
    if not t_end > t0:
        raise PhyslibError(f"t_end ({t_end}) must be greater than t0 ({t0})")


def _output_grid(t_eval, t0, t_end) -> np.ndarray:
    if t_eval is None:
        return np.linspace(t0, t_end, DEFAULT_POINTS)
    grid = np.asarray(t_eval, dtype=float).ravel()
    if grid.size == 0 or np.any(np.diff(grid) <= 0):
        raise PhyslibError("t_eval must be a non-empty, strictly increasing sequence of times")
    if grid[0] < t0 or grid[-1] > t_end:
        raise PhyslibError(f"t_eval must lie within [t0, t_end] = [{t0}, {t_end}]")
    return grid


def _apply_x0(model, x, x0):
    x = x.copy()
    state_pos = {int(pos): i for i, pos in enumerate(model.system.state_pos)}
    for name, value in x0.items():
        pos, sign = model.variable(name)
        if pos not in state_pos:
            states = ", ".join(model.states[:10]) if model.states else "none (it is purely algebraic)"
            raise PhyslibError(f"x0: {name} is not a state of {model.name}; its states: {states}")
        x[state_pos[pos]] = sign * float(value)
    return x


def _integrate(system, solver, t_start, out_t, x, z, p, rtol, atol, max_step, model):
    """States and algebraic variables at ``out_t`` (all > t_start), starting from (x, z)."""
    nx, nz = len(x), len(z)
    if nx == 0:
        Z = np.empty((nz, len(out_t)))
        describe = lambda i: model.algebraic[i]  # noqa: E731
        for i, tt in enumerate(out_t):
            z = solve_algebraic(system, x, z, p, tt, describe)
            Z[:, i] = z
        return np.empty((0, len(out_t))), Z
    key = (solver, t_start, tuple(out_t.tolist()), rtol, atol, max_step)
    integrator = system.cache.get(key)
    if integrator is None:
        options = {"abstol": atol, "reltol": rtol, "max_num_steps": 1_000_000}
        if solver == "idas":
            # Algebraic variables carry no initial rates, so keep them out of the local error
            # test; their accuracy follows from the states they are solved from.
            options["suppress_algebraic"] = True
        if max_step is not None:
            options["max_step_size"] = max_step
        integrator = cs.integrator("simulate", solver, system.dae_dict(), t_start, out_t.tolist(), options)
        if len(system.cache) > _CACHE_LIMIT:
            system.cache.pop(next(k for k in system.cache if isinstance(k, tuple)))
        system.cache[key] = integrator
    try:
        out = integrator(x0=x, z0=z, p=p)
    except RuntimeError as err:
        message = str(err).strip().splitlines()[-1] if str(err).strip() else repr(err)
        raise SimulationError(
            f"{solver} failed between t = {t_start:g} s and {out_t[-1]:g} s: {message}. "
            "Check parameters and initial values, or tighten rtol/atol") from None
    X = out["xf"].full().reshape(nx, len(out_t))
    Z = out["zf"].full().reshape(nz, len(out_t)) if nz else np.empty((0, len(out_t)))
    return X, Z


def _stack(rows, n):
    return np.array(rows).reshape(len(rows), n).T if rows else np.empty((n, 0))
