"""Transient simulation of a compiled model with SUNDIALS (IDAS or CVODES) through CasADi.

Time events (steps, pulses) split the run into segments: the solver never integrates across a
discontinuity, the algebraic variables are re-initialized after each one, and the result holds
the values just before and just after it at the same time stamp.
"""
from __future__ import annotations

import threading

import numpy as np

from ...core.errors import PhyslibError
from .hybrid_simulation import simulate_hybrid
from ..common.initialization import consistent_start, solve_algebraic
from .dae_points import algebraic_rows
from .integrators import Integration, StartFailure
from .sundials import DENSE_LIMIT
from ..common.options import SimulateOptions, simulate_options
from .result_rows import ResultRows
from .results import SimulationResult
from ..common.progress import SimulationProgress, progress_option
from .run_stats import RunStats, count, phase, reached, recording
from .time_events import left_limit, run_events, snap_to_events

STEPS_PER_INPUT_PERIOD = 50     # solver steps per period of a time-varying input, at least


def simulate(model, t_end: float, *, t0: float = 0.0, solver: str = "idas", dt: float | None = None,
             rtol: float = 1e-6, atol: float = 1e-8, t_eval=None, params: dict | None = None,
             x0: dict | None = None, projection: str | None = "energy", noise=None,
             noise_T: float = 300.15, max_step: float | None = None, event_tol: float = 1e-10,
             max_events: int = 100, invariants=None, initial: str = "strict",
             progress: bool | None = None, z_guess: dict | None = None) -> SimulationResult:
    """Simulate ``model`` from ``t0`` to ``t_end`` [s].

    solver: ``"idas"`` (default, DAE) or ``"cvodes"`` (models whose equations reduce to an ODE).
    rtol, atol: solver tolerances. t_eval: output times (default: 501 points plus both sides
    of every time event); any grid costs interpolation only, never a solver restart. An output
    time within 2e-12·max(|t|, t_end − t0) of a time event is taken at the event (the value
    after it), and such times make one row.
    params: parameter values by path, e.g. ``{"R1.R": 2e3}`` (no recompile). x0: initial
    values of states by path, e.g. ``{"C1.v": 1.0}``, or an operating point of this model
    (``x0=op``: its states, taken as a vector without their names). z_guess: where the solve of
    the algebraic variables at ``t0`` starts, by path (default: their start values), or an
    operating point (``z_guess=op``: its algebraic variables). max_step: largest solver step [s]
    (default: none; for a model without states, the interval at which its algebraic
    variables are solved and its guards looked at, default (t_end − t0)/1000). event_tol:
    time tolerance of event location [s] (located closer where the states move more than
    their tolerance in it). max_events: more events than this within a
    microsecond, or in a row with their guard still at zero (a sliding mode chased by
    events), is an event storm (an error). progress: a line on stderr with the simulated
    time, the events and an estimate of the time left (True, False; None: by itself on a
    terminal when the run would take more than 3 s). projection: how
    states are made consistent when an event activates a mode constraint: "energy" (the state
    nearest in the metric of stored energy that meets the constraints: a plastic lock, which
    conserves momentum), "naive" (keep the first state, for comparison) or None.
    Fixed step: ``solver`` ``"euler"``, ``"rk4"``, ``"trapezoidal"`` or ``"backward_euler"`` with
    the step ``dt`` [s] (required); output at every step unless ``t_eval`` is given (see
    :mod:`physlib.analysis.simulation.fixed_step`). invariants: SymPy expressions whose symbols are paths
    of states (``sympy.Symbol("lv.x")``), parameters or ``t``; their values at ``t0`` are kept
    by invariant projection after every step. Fixed-step solvers only: a variable-step solver
    cannot be corrected between its internal steps, so ``invariants`` with ``"idas"`` or
    ``"cvodes"`` is an error. initial: ``"strict"`` (default): a start value given explicitly
    (``Capacitor(v0=...)``) that the constraints override is an InitializationError naming the
    component, the value and the constraint; ``"relaxed"``: start from the consistent values
    with a :class:`~physlib.analysis.common.start_values.StartValueWarning` listing what changed.
    noise: variable paths whose thermal and shot noise is propagated along the run (at
    temperature ``noise_T`` [K]): ``res.noise_std(name)`` is its standard deviation around the
    noiseless trajectory at each output time (see :mod:`physlib.analysis.noise.transient`).

    Every option is validated before the run (:mod:`physlib.analysis.common.options`): a wrong type or
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
                               max_events=max_events, invariants=invariants, initial=initial,
                               z_guess=z_guess)
    return _run(model, options, progress_option(progress, "simulate"))


def _run(model, options: SimulateOptions, progress: bool | None) -> SimulationResult:
    """The run of :func:`simulate` with validated options: its statistics, progress line and
    the lock of the model around the solver calls."""
    stats = RunStats(fixed_step=options.fixed_step)
    stats.progress = SimulationProgress(options.t0, options.t_end, progress)
    with model_lock(model), recording(stats):
        try:
            if options.fixed_step:
                from .fixed_step import simulate_fixed      # its methods and invariants: on first use
                result = simulate_fixed(model, options)
            else:
                result = _simulate_variable(model, options)
        finally:
            stats.progress.close(stats.reached_t, sum(stats.events.values()))
        result.stats = stats.as_dict()
        if options.noise:
            from ..noise.transient import propagate_noise
            result.noise = propagate_noise(model, result, options.noise, options.noise_T)
        return result


def model_lock(model) -> threading.RLock:
    """The lock that serializes solver calls on one compiled model (created on first use)."""
    return model.system.cache.setdefault("lock", threading.RLock())


def _simulate_variable(model, options: SimulateOptions) -> SimulationResult:
    solver, t0, t_end = options.solver, options.t0, options.t_end
    p = model.parameter_vector(options.params)
    events, run_end = run_events(model, p, t0, t_end)
    grid = snap_to_events(options.grid, events, t0, t_end)
    nz = len(model.system.z_pos)
    if solver == "cvodes" and nz:
        raise PhyslibError(
            f"solver 'cvodes' needs an ODE, but {model.name} keeps {nz} algebraic variables "
            f"({', '.join(model.algebraic[:5])}); use solver='idas'")
    with phase("initialization"):
        x, z = consistent_start(model, p, options)
    continuation = (solver, options.rtol, options.atol,
                    options.max_step if options.max_step is not None else t_end - t0)
    if not model.has_modes and not stepped_without_modes(model.system):
        rows = ResultRows(len(x), nz, len(p))
        try:
            _run_segments(model, options, p, x, z, events, run_end, grid, rows)
            times, X, Z, _, t_values = rows.arrays()
            return SimulationResult(model, times, X, Z, p, t_values=t_values, continuation=continuation)
        except StartFailure:
            if not len(model.system.state_pos):
                raise
            # IDACalcIC failed (junction charges of picocoulombs, a Zener diode beside a large
            # ladder at rtol 1e-8): the stepped solver starts from consistent rates, as it does
            # for models with modes, whatever their size.
    rows = ResultRows(len(x), nz, len(p), keep_p=model.has_modes)
    events = simulate_hybrid(model, t0, t_end, grid, options.t_eval is not None, p, x, z,
                             solver=solver, rtol=options.rtol, atol=options.atol,
                             max_step=_max_step(model, p, options, guards=True), event_tol=options.event_tol,
                             max_events=options.max_events, projection=options.projection,
                             record=rows.add, record_block=rows.add_block)
    times, X, Z, P, t_values = rows.arrays()
    return SimulationResult(model, times, X, Z, P if model.has_modes else p, events, t_values=t_values,
                            continuation=continuation)


def _run_segments(model, options: SimulateOptions, p, x, z, events, run_end, grid, rows: ResultRows) -> None:
    """A run without modes: integrate from time event to time event (see the module
    docstring) and on to ``run_end`` (t_end, or its left limit where an input has an edge at
    t_end: :func:`.time_events.run_events`) through the output times ``grid``, adding the
    output rows to ``rows``."""
    system, t0, t_end = model.system, options.t0, options.t_end
    user_grid = options.t_eval is not None
    describe = lambda i: model.algebraic[i]  # noqa: E731
    max_step = _max_step(model, p, options)
    integration = Integration(model, options.solver, options.rtol, options.atol,
                              max_step if max_step is not None else t_end - t0)
    if grid[0] == t0:
        rows.add(t0, x, z)
    bounds = [t0] + events + [run_end]
    for k in range(len(bounds) - 1):
        a, b = bounds[k], bounds[k + 1]
        if k > 0:
            # After a time event: states are continuous, algebraic variables are re-solved.
            count("events", "time")
            with phase("events"):
                z = solve_algebraic(system, x, z, p, a, describe)
            if not user_grid or np.any(grid == a):
                rows.add(a, x, z)
        inner = grid[(grid > a) & (grid < b)]
        X, Z = _integrate(integration, a, np.append(inner, b), x, z, p, max_step, model)
        reached(b)
        # IDAS interpolates the algebraic variables between its steps (they are out of its
        # error test): solved again from the interpolated states, the rows satisfy the
        # model's equations (a diode's i = Is·(exp(v/vt) − 1) to rounding).
        Z_rows = algebraic_rows(system, X[:, :len(inner)], Z[:, :len(inner)], p, inner, describe)
        if len(inner):
            rows.add_block(inner.tolist(), X[:, :len(inner)], Z_rows)      # X: fresh per call
        x, z = X[:, -1], Z[:, -1]
        if b == run_end:
            if grid[-1] == t_end:
                # the end's algebraic variables solved too: IDAS's own there are interpolated
                # as well (a Zener clipper beside a 400-stage ladder ended at 1.8e11 V)
                # (at t_end, past an input's edge there that the run stopped short of)
                rows.add(t_end, x, solve_algebraic(system, x, z, p, t_end, describe))
        elif not user_grid:
            # Just before the event, at the same time stamp: the left limit in time.
            left = left_limit(b, t0, t_end)
            rows.add(b, x, solve_algebraic(system, x, z, p, left, describe), t_value=left)


def _max_step(model, p, options, guards: bool = False) -> float | None:
    """The largest solver step of a run: ``max_step``, and where algebraic variables (or, with
    ``guards``, a hybrid run's guards) may follow an input that varies in time (a sine source
    of period T), at most T/STEPS_PER_INPUT_PERIOD.

    IDAS keeps the algebraic variables out of its error test and interpolates them between
    steps that the states alone size. A resistive network driven by a sine beside a capacitor
    that barely moves took steps of a whole period, and its node voltages between them were
    60 % off (an energy balance found it); with 50 steps a period they are within 1e-3. SPICE
    bounds its steps by its sources' periods likewise. Guards are looked at only at the
    steps: a brake held stuck on a shaft at rest, its torque a sine input's, took steps of
    0.09 s while the torque passed its break-away limit and came back within 40 ms (a quarter
    of a 2 Hz period), and the brake stayed stuck through it (a random draw of the stick-slip
    test against an independent solver found it). With 50 steps a period, a guard's excursion
    shorter than 1/50 of the input's period can still go unseen, as in any solver that looks
    for sign changes between steps."""
    scale = model.input_time_scale(p) if guards or len(model.system.z_pos) else None
    cap = None if scale is None else scale / STEPS_PER_INPUT_PERIOD
    if options.max_step is None or cap is None:
        return cap if options.max_step is None else options.max_step
    return min(options.max_step, cap)


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


def stepped_without_modes(system) -> bool:
    """Whether a run without modes goes through the stepped solver from the start: a large
    ODE (no algebraic variables, more than DENSE_LIMIT states), which the stepped solver
    takes with a sparse Jacobian. CasADi's integrator derives the model's Jacobian again for
    every output pattern (one per interval between time events; 0.1–0.2 s for 5 000 states),
    where the stepped solver derives it once per compiled model and restarts at a time event
    for nothing. Other runs without modes take CasADi's integrators (faster on small models
    without events; the stepped solver's consistent rates and rows between steps are dense in
    large models with algebraic variables)."""
    nx, nz = len(system.state_pos), len(system.z_pos)
    return nz == 0 and nx > DENSE_LIMIT
