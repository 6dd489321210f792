"""``sensitivity``: the derivatives of a simulation's variables with respect to parameters,
through its events (see :mod:`.forward` and :mod:`.jumps`)."""
from __future__ import annotations

import numpy as np

from ...core import records
from ...core.errors import SensitivityError
from ..common.initialization import consistent_start
from ..common.options import OptionError, flag_option, simulate_options
from ..simulation.event_storms import EventStormError
from ..simulation.event_trace import tracing
from ..simulation.simulate import model_lock, simulate
from .event_record import EventRecorder
from .forward import ForwardRun, model_events
from ..common.sensitivity_parameters import resolve, with_initial_values
from .result import SensitivityEvent, SensitivityResult

METHODS = ("auto", "forward", "adjoint")


def sensitivity(model, t_end: float, *, params, outputs=None, t_eval=None, method: str = "auto",
                relative: bool = False, values: dict | None = None, t0: float = 0.0, solver: str = "idas",
                rtol: float = 1e-6, atol: float = 1e-8, x0: dict | None = None,
                projection: str | None = "energy", max_step: float | None = None, event_tol: float = 1e-10,
                max_events: int = 100, initial: str = "strict") -> SensitivityResult:
    """Simulate ``model`` from t0 to ``t_end`` [s] with the derivatives of its variables with
    respect to ``params``, through every event of the run.

    params: the parameters θ: a list of parameter paths (``"R1.R"``; ``"C1.v0"`` an initial
    value; ``"src.V.t0"`` a step's time, ``"pulse.width"``, ``"pwm.duty"``), model parameters,
    or state paths (``"C1.v"``: its initial value, as ``x0`` sets it); or a dict {name: value}
    to take them at those values. values: other parameter values of the run, not
    differentiated (as ``simulate``'s ``params``). outputs: variable paths whose sensitivities
    are checked now (with the forward method any variable can be read from the result; the
    adjoint method computes these alone). method: ``"forward"`` (the sensitivity equations
    integrated with the model, a cost growing with the number of parameters), ``"adjoint"``
    (one forward sweep, then one backward sweep per output and output time, a cost that does
    not grow with the number of parameters; ``sens.events`` then carry no ``dt``) or
    ``"auto"``: the adjoint where ``outputs`` and ``t_eval`` are given and
    len(outputs)·len(t_eval) is below the number of parameters, else the forward method.
    relative: ``sens[y, θ]`` gives θ·∂y/∂θ / max|y| instead of ∂y/∂θ.

    The remaining options are ``simulate``'s, with its defaults (variable-step solvers only:
    ``"idas"`` or ``"cvodes"``). The forward sensitivities are integrated by the same solver at
    the same tolerances as the states, each direction in the units of the states (θ·∂x/∂θ), so
    the accuracy of both is that of the run. The adjoint's sweeps integrate each interval
    between events by CVODES with the algebraic variables solved inside (whichever the solver:
    it decides the events of a run with modes), checkpointed, the parameter integrals under
    error control at the same tolerances. Across a state event the event's time moves with
    θ (its sensitivity from the guard), and the mode changes, the projection of the state onto
    newly active constraints and discrete updates carry the sensitivities over; across a time
    event whose instant depends on θ (a step's or a pulse's edge, a PWM's duty) likewise.
    Where a sensitivity does not exist — a guard that grazes zero or crosses it with zero
    slope, events that chase each other (an event storm), a fixed-step run whose guards are
    only seen at step ends — the run stops with a :class:`~physlib.core.errors.SensitivityError`
    naming the component, the guard and the time.

    Returns a :class:`~physlib.analysis.sensitivity.result.SensitivityResult`: a simulation
    result whose ``sens[output, parameter]`` is ∂output/∂parameter over ``sens.t``."""
    if method not in METHODS:
        raise OptionError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    relative = flag_option("sensitivity: relative", relative)    # "no" was truthy: scaled results
    names, given = _parameter_names(params)
    options = run_options(model, t_end, values={**(values or {}), **given}, t0=t0, solver=solver, rtol=rtol,
                          atol=atol, t_eval=t_eval, x0=x0, projection=projection, max_step=max_step,
                          event_tol=event_tol, max_events=max_events, initial=initial)
    for name in outputs or ():
        model.variable(name) if model.mode_slot(name) is None else None
    # (a model without states has nothing to integrate backward: the forward method solves its
    # algebraic variables at each output time, which is all the sensitivities need)
    if choose_method(method, outputs, options, names) == "adjoint" and len(model.states):
        with model_lock(model):
            return adjoint_sensitivity(model, options, names, list(outputs), relative)
    with model_lock(model):
        return forward_sensitivity(model, options, names, relative)


def choose_method(method, outputs, options, names) -> str:
    """``"forward"`` or ``"adjoint"``: ``"auto"`` takes the adjoint where outputs are named and
    their number times that of the output times is below the number of parameters (a backward
    sweep per output and time against a direction per parameter), else the forward method."""
    if method == "adjoint" and not outputs:
        raise SensitivityError("sensitivity(method='adjoint') needs outputs=[...]: the variables whose "
                               "sensitivities the backward sweeps compute (one sweep per output and output "
                               "time)")
    if method != "auto":
        return method
    count = len(names) if isinstance(names, (list, tuple)) else 1
    if outputs and options.t_eval is not None and len(outputs) * len(options.grid) < count:
        return "adjoint"
    return "forward"


def gradient(model, objective, params, t_end: float, *, t_eval=None, values: dict | None = None, t0: float = 0.0,
             solver: str = "idas", rtol: float = 1e-6, atol: float = 1e-8, x0: dict | None = None,
             projection: str | None = "energy", max_step: float | None = None, event_tol: float = 1e-10,
             max_events: int = 100, initial: str = "strict"):
    """The gradient of a scalar objective of the run with respect to ``params`` (as for
    :func:`sensitivity`), by the adjoint method: one forward and one backward sweep, whatever
    the number of parameters, through the run's events.

    objective, one of:

    * a function of {path: values at ``t_eval``} returning (value, {path: ∂value/∂values}),
      naming the paths it needs in its attribute ``paths``;
      :func:`~physlib.analysis.sensitivity.objectives.sum_of_squares` makes the usual one,
      Σ w·(y(t_i) − data_i)²;
    * :func:`~physlib.analysis.sensitivity.objectives.integral`: ∫ g(y) dt from t0 to t_end, the
      integral a quadrature of the forward sweep under its error control;
    * :func:`~physlib.analysis.sensitivity.objectives.at_event`: the instant of a component's
      mode change (a clutch's lock), or a variable just after it.

    The other options are :func:`sensitivity`'s. Returns a
    :class:`~physlib.analysis.sensitivity.objectives.Gradient` (``value``, ``gradient``
    {parameter: ∂value/∂parameter}). The run's events and their jump conditions are those of
    the forward sensitivities; a sensitivity that does not exist is a SensitivityError."""
    from .adjoint import AdjointSweep
    from .objectives import AtEvent, Integral
    names, given = _parameter_names(params)
    paths = list(getattr(objective, "paths", ()))
    samples_needed = not isinstance(objective, (Integral, AtEvent))
    if samples_needed and not paths:
        raise SensitivityError("the objective must name the output paths it uses in its attribute 'paths' "
                               "(sum_of_squares(data) does), or be an integral(...) or at_event(...)")
    if samples_needed and t_eval is None:
        raise SensitivityError("an objective of sampled outputs needs the sample times: give t_eval")
    options = run_options(model, t_end, values={**(values or {}), **given}, t0=t0, solver=solver, rtol=rtol,
                          atol=atol, t_eval=t_eval, x0=x0, projection=projection, max_step=max_step,
                          event_tol=event_tol, max_events=max_events, initial=initial)
    for path in paths:
        model.variable(path)
    with model_lock(model):
        p = model.parameter_vector(options.params)
        theta = resolve(model, names, p, options.params)
        events, plain = record_events(model, options, p)
        theta = with_initial_values(theta, events[0].x)
        if isinstance(objective, Integral):
            if not len(model.system.state_pos):
                raise SensitivityError("integral(...) objectives integrate along the states; this model has none")
            return AdjointSweep(model, options, theta, events, objective.function(model)).run_integral()
        if not len(model.states) and not isinstance(objective, AtEvent):
            return _sampled_gradient(forward_sensitivity(model, options, names), objective, paths, theta.names)
        sweep = AdjointSweep(model, options, theta, events)
        if isinstance(objective, AtEvent):
            return sweep.run_at_event(objective, plain.events if plain is not None else [])
        return sweep.run(objective, paths, np.asarray(options.grid))


def _sampled_gradient(sens, objective, paths, parameters):
    """The gradient of a sampled objective from forward sensitivities ``sens`` at its samples:
    Σ ∂objective/∂y(t_i)·∂y(t_i)/∂θ (a model without states, whose backward sweep would have
    nothing to integrate)."""
    from .objectives import Gradient
    value, slopes = objective({path: sens[path] for path in paths})
    return Gradient(float(value), {name: float(sum(np.dot(slopes[path], sens.derivative(path, name))
                                                   for path in paths)) for name in parameters})


class RepeatedSensitivity:
    """Forward sensitivity runs of ``model`` by the parameters ``names`` with the same
    ``simulate`` options at changing parameter values (a fit's runs, :meth:`__call__`).

    The options are checked once, and every run takes the first's solver, restarted, with
    its tolerances: the runs are then one smooth function of the values rather than one whose
    tolerances move with them. ``close()`` frees the solver."""

    def __init__(self, model, t_end: float, names, values: dict, **options):
        self.model, self.names = model, list(names)
        self.options = run_options(model, t_end, values=values, **options)
        self.stepper = None

    def __call__(self, values: dict, x0: dict | None = None) -> SensitivityResult:
        """The run with the parameters ``values`` ({path: value}) and the initial values ``x0``
        ({state path: value}) set over the options' own."""
        options = records.replace(self.options, params={**self.options.params, **values},
                                      x0={**(self.options.x0 or {}), **(x0 or {})})
        with model_lock(self.model):
            return forward_sensitivity(self.model, options, self.names, reuse=self)

    def close(self) -> None:
        if self.stepper is not None:
            self.stepper.close()
            self.stepper = None


def run_options(model, t_end, *, values, t_eval=None, **options):
    """The validated simulate options of a sensitivity run; a fixed-step solver is an error."""
    solver = options.get("solver", "idas")
    if solver not in ("idas", "cvodes"):
        raise SensitivityError(
            f"sensitivities need a variable-step solver ('idas' or 'cvodes'): the fixed-step solver "
            f"{solver!r} looks at the guards at step ends only, so its event times, and the "
            "sensitivities through them, move in steps of dt")
    return simulate_options(model, t_end, params=values, t_eval=t_eval, **options)


def forward_sensitivity(model, options, names, relative=False, reuse=None) -> SensitivityResult:
    """:func:`sensitivity` by the forward method, with validated ``options``; ``reuse``: a
    :class:`RepeatedSensitivity` whose solver the run takes (if it has one) and leaves to it
    for the next run."""
    p = model.parameter_vector(options.params)
    theta = resolve(model, names, p, options.params)
    events, plain = record_events(model, options, p)
    theta = with_initial_values(theta, events[0].x)
    stepper = reuse.stepper if reuse is not None else None
    sizes = None
    if plain is not None:
        sizes = magnitudes(plain)
    elif reuse is not None and stepper is None:
        # the first of many runs: the plain run's floors cost one simulation and save each
        # later run steps (a DC motor's from 0 A and 0 rad/s: 372 steps without, 258 with)
        sizes = magnitudes(plain_run(model, options))
    run = ForwardRun(model, options, theta, sizes, stepper=stepper)
    try:
        rows = run.run(events[0].x, events[0].z, p, events)
    finally:
        if reuse is None:
            run.close()
        else:
            reuse.stepper = run.stepper
    arrays = _arrays(rows, theta, run.nx, run.nz)
    plain_events = plain.events if plain is not None else []
    return SensitivityResult(model, arrays, theta, _events(plain_events, run.time_sensitivities, theta), relative,
                             continuation=_continuation(options))


def adjoint_sensitivity(model, options, names, outputs, relative=False) -> SensitivityResult:
    """:func:`sensitivity` by the adjoint method, with validated ``options``: one forward sweep,
    then for each output the backward sweeps of its values at the output times (one objective
    each, integrated backward together). The result holds the sensitivities of ``outputs``
    only."""
    from .adjoint import AdjointSweep
    p = model.parameter_vector(options.params)
    theta = resolve(model, names, p, options.params)
    events, plain = record_events(model, options, p)
    theta = with_initial_values(theta, events[0].x)
    sweep = AdjointSweep(model, options, theta, events)
    samples = np.asarray(options.grid)
    sweep.forward(samples)
    columns, count = {}, len(samples)
    for path in outputs:
        if model.mode_slot(path) is None and model.variable(path)[0] not in columns:
            # objective k: the output at sample k; all of them carried back together
            pos, sign = model.variable(path)
            columns[pos] = sign * sweep.backward(lambda j: {path: np.eye(count)[j]}, count).T
    points = [sweep.points[k] for k in range(len(samples))]
    X, Z = (np.array([point[i] for point in points]).reshape(len(samples), -1).T for i in (1, 2))
    P = np.array([point[3] for point in points]).T
    plain_events = plain.events if plain is not None else []
    events = [SensitivityEvent(e.t, e.component, e.before, e.after, e.cause, None) for e in plain_events]
    return SensitivityResult(model, (samples, samples, X, Z, P, None, None, None), theta, events, relative,
                             continuation=_continuation(options), computed=(columns, outputs))


def _continuation(options):
    """(solver, rtol, atol, max step) with which a result's ``at(t)`` continues the run."""
    return (options.solver, options.rtol, options.atol,
            options.max_step if options.max_step is not None else options.t_end - options.t0)


def record_events(model, options, p):
    """(events, plain result): the start and every event of a plain simulation of ``model``,
    and that simulation; for a model without modes its start and time events (the states are
    continuous there) and no simulation (its sensitivity run takes the magnitudes a plain run
    would give from its start, :class:`~.forward.ForwardRun`)."""
    if not model.has_modes:
        x, z = consistent_start(model, p, options)
        return model_events(model, options, p, x, z), None
    recorder = EventRecorder()
    try:
        with tracing(recorder):
            plain = plain_run(model, options)
    except EventStormError as err:
        raise SensitivityError(f"sensitivities are undefined where events chase each other: {err}") from None
    return recorder.events, plain


def plain_run(model, options):
    """The simulation of ``model`` with the sensitivity run's ``options``, on the default grid."""
    return simulate(model, options.t_end, t0=options.t0, solver=options.solver, rtol=options.rtol,
                    atol=options.atol, params=options.params, x0=options.x0, projection=options.projection,
                    max_step=options.max_step, event_tol=options.event_tol, max_events=options.max_events,
                    initial=options.initial)


def magnitudes(plain):
    """The largest magnitude of each state and algebraic variable over a plain run (x, z)."""
    x, z = plain.x, plain.z
    return (np.max(np.abs(x), axis=1) if x.size else np.zeros(x.shape[0]),
            np.max(np.abs(z), axis=1) if z.size else np.zeros(z.shape[0]))


def _parameter_names(params):
    """(names, {name: value} to set) from ``params`` (a list of names, or a dict)."""
    if isinstance(params, dict):
        return list(params), {name: value for name, value in params.items()}
    return (list(params) if isinstance(params, (list, tuple)) else params), {}


def _arrays(rows, theta, nx, nz):
    """The row arrays of a result, the sensitivities unscaled (∂/∂θ): t, t_value, X, Z, the
    parameter vectors (one column per row) and S, S_z, ∂p_V/∂θ (rows × n × Nθ)."""
    n, count = len(rows.t), theta.count
    Y, YZ = np.array(rows.y).reshape(n, -1), np.array(rows.yz).reshape(n, -1)
    P = np.array(rows.P).reshape(n, -1, count)
    S = Y[:, nx:].reshape(n, count, nx).transpose(0, 2, 1) / theta.scale
    Sz = YZ[:, nz:].reshape(n, count, nz).transpose(0, 2, 1) / theta.scale
    return (np.array(rows.t), np.array(rows.t_value), Y[:, :nx].T.copy(), YZ[:, :nz].T.copy(),
            np.array(rows.p).T, S, Sz, P / theta.scale)


def _events(plain_events, time_sensitivities, theta):
    """The run's mode changes (those of its plain run), each with the sensitivity of its instant."""
    at = {}
    for event, tau in time_sensitivities:
        at.setdefault(event.t, tau / theta.scale)
    out = []
    for e in plain_events:
        tau = at.get(e.t, np.zeros(theta.count))
        out.append(SensitivityEvent(e.t, e.component, e.before, e.after, e.cause,
                                    dict(zip(theta.names, tau.tolist()))))
    return out
