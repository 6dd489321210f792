"""``fit``: a model's parameters from measured data by bounded nonlinear least squares, the
Jacobian exact from the forward sensitivities (through the runs' events)."""
from __future__ import annotations

import difflib
import numbers

import numpy as np
from scipy.optimize import least_squares

from ...core.errors import FitError, ParameterError
from .parallel import ExperimentRuns, executor_for
from .experiment import Experiment
from .result import FitResult, Prediction

LOSSES = ("linear", "huber", "soft_l1", "cauchy")
NEAR_ZERO = 1e-3     # of its guess (or of 1 where the guess is 0): an estimate judged at the guess's size


def fit(sim, experiments, params: dict, *, log: bool = True, loss: str = "linear", rtol: float = 1e-8,
        atol: float = 1e-10, max_nfev: int = 100, tol: float = 1e-10, executor="serial",
        workers: int | None = None) -> FitResult:
    """Fit the parameters ``params`` of the compiled model ``sim`` to ``experiments``.

    experiments: an :class:`Experiment` or a list of them (they share the fitted parameters;
    each has its own inputs, span and conditions). params: {path: (guess, lower, upper)} or
    {path: guess} (unbounded; positive with ``log``), parameter paths or model parameters.
    log: search over log θ (parameters that are positive and span decades: the steps are
    relative). loss: ``"linear"`` (least squares: the statistics of the result assume it) or a
    robust loss of SciPy's (``"huber"``...) with residuals in units of sigma. rtol, atol: the
    runs' tolerances (their error must stay well below the noise). max_nfev: most runs of the
    model; tol: SciPy's xtol, ftol and gtol. executor: where the experiments' runs of each
    evaluation go, side by side: ``"serial"``, ``"processes"`` (a pool of ``workers`` processes
    kept for the fit), ``"dask"``, a ``distributed.Client`` or a scheduler address, as for
    ``sweep``; worth it for several experiments whose runs take well over the 1 ms or so
    each task costs (the results do not depend on it).

    The residuals are (model − data)/sigma at every measurement, the runs those of
    ``sim.sensitivity`` at the measurement times, so each evaluation gives the residuals and
    their exact Jacobian at once. Bounded trust-region least squares (SciPy's ``trf``, a bounded
    Gauss-Newton / Levenberg-Marquardt). Returns a :class:`FitResult` (estimates, standard
    errors, covariance, confidence intervals, which combinations the data cannot determine)."""
    experiments = _experiments(experiments)
    log, max_nfev, tol = check_search(sim, "fit", loss, log, max_nfev, tol)
    names, guess, lower, upper = parameter_bounds(sim, params, log)
    problem = Problem(sim, experiments, names, rtol, atol, executor, workers)
    # the experiments' free initial values, after the shared parameters: searched linearly (a
    # voltage may start at zero or below)
    names = names + [name for name, *_ in problem.free]
    guess, lower, upper = (np.concatenate([column, [state[k] for state in problem.free]])
                           for k, column in enumerate((guess, lower, upper), start=1))
    additive = np.arange(len(names)) >= len(names) - len(problem.free)
    return solve(problem, names, (guess, lower, upper), log=log & ~additive, loss=loss, max_nfev=max_nfev,
                 tol=tol)


def _experiments(experiments) -> list:
    """``experiments`` as a list of :class:`Experiment`: a DataFrame or file name in their place
    failed with an AttributeError deep in the set-up."""
    experiments = [experiments] if isinstance(experiments, Experiment) else experiments
    if not isinstance(experiments, (list, tuple)) or not experiments:
        raise FitError(f"fit needs an Experiment or a non-empty list of them, got {experiments!r:.60}; wrap "
                       "measured data as Experiment(data, sigma=...)")
    for k, experiment in enumerate(experiments):
        if not isinstance(experiment, Experiment):
            raise FitError(f"fit: experiment {k} is a {type(experiment).__name__}, not an Experiment; wrap "
                           "measured data as Experiment(data, sigma=...)")
    return list(experiments)


def check_search(sim, caller, loss, log, max_nfev, tol) -> tuple:
    """(log, max_nfev, tol) of ``caller`` (fit or fit_frequency), checked with ``loss`` and the
    model before any run: a string or zero there failed inside SciPy's least_squares, a truthy
    string as ``log`` in NumPy, an uncompiled Model as a missing attribute."""
    from ...assembly.compiled import CompiledModel
    if not isinstance(sim, CompiledModel):
        raise FitError(f"{caller} fits a compiled model: give it model.compile(), got {type(sim).__name__}")
    if not isinstance(loss, str) or loss not in LOSSES:
        raise FitError(f"{caller}: loss must be one of {', '.join(map(repr, LOSSES))}, got {loss!r}")
    if not isinstance(log, (bool, np.bool_)):
        raise FitError(f"{caller}: log must be True or False, got {log!r}")
    if isinstance(max_nfev, (bool, np.bool_)) or not isinstance(max_nfev, numbers.Integral) or max_nfev < 1:
        raise FitError(f"{caller}: max_nfev must be a positive integer (the most runs of the model), got {max_nfev!r}")
    if (isinstance(tol, (bool, np.bool_)) or not isinstance(tol, numbers.Real)
            or not np.finfo(float).eps <= tol < 1):
        raise FitError(f"{caller}: tol must be a number from 2.2e-16 (machine precision) to 1, got {tol!r}")
    return bool(log), int(max_nfev), float(tol)


def solve(problem, names, bounds, *, log, loss, max_nfev, tol) -> FitResult:
    """The :class:`FitResult` of ``problem`` (a :class:`LeastSquares`) from the guess within the
    bounds ``(guess, lower, upper)``: SciPy's bounded trust-region least squares, over log θ
    where ``log`` (one flag, or one per parameter)."""
    guess, lower, upper = (np.asarray(column, dtype=float) for column in bounds)
    log = np.broadcast_to(np.asarray(log, dtype=bool), guess.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        limits = (to_search(lower, log), to_search(upper, log))
    try:
        size = np.where(guess != 0, np.abs(guess), 1.0)
        solution = least_squares(problem.residuals_at(log), to_search(guess, log), jac=problem.jacobian_at(log),
                                 bounds=limits, method="trf", loss=loss, max_nfev=max_nfev, xtol=tol, ftol=tol,
                                 gtol=tol, x_scale=np.where(log, 1.0, size))
        theta = from_search(solution.x, log)
        residual, jacobian = problem.evaluate(theta)
    finally:
        problem.close()
    # each estimate's size, by which its Jacobian column is judged against the others: its value,
    # except a linearly searched one (an offset, an initial value) that ended near zero, whose
    # value says nothing of how far it is determined: a start voltage fitted to -5e-9 V with a
    # standard error of 6 mV would read "not determined"; the search's own scale there
    near_zero = ~log & (np.abs(theta) < NEAR_ZERO * size)
    return FitResult(names, theta, residual, jacobian, problem.predictions(theta), problem.sigma_known,
                     solution, scales=np.where(near_zero, size, theta))


def to_search(theta, log):
    """The search variables of θ: log θ where ``log``, θ elsewhere."""
    return np.where(log, np.log(np.where(log, theta, 1.0)), theta)


def from_search(q, log):
    """θ of the search variables q."""
    return np.where(log, np.exp(np.where(log, q, 0.0)), q)


def parameter_bounds(sim, params, log):
    """(names, guess, lower, upper) of ``params``, each checked against the model."""
    if not isinstance(params, dict) or not params:
        raise FitError("params must be a dict {path: (guess, lower, upper)} or {path: guess}, e.g. "
                       "{'R1.R': (1e3, 10.0, 1e6)}")
    names, rows = list(params), []
    for name, spec in params.items():
        if not (sim.has_parameter(name) or name in sim.model_parameters):
            sim.refuse_structural(name)     # named as such, not as unknown
            close = difflib.get_close_matches(name, [*sim.parameters, *sim.model_parameters], n=3)
            raise FitError(f"fit: unknown parameter {name!r}" + (f"; did you mean {', '.join(close)}?" if close
                                                                 else ""))
        spec = tuple(spec) if isinstance(spec, (tuple, list)) else (spec, 0.0 if log else -np.inf, np.inf)
        if len(spec) != 3:
            raise FitError(f"fit: {name!r}: give (guess, lower, upper) or a guess alone, got {spec!r}")
        if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) for v in spec):
            raise FitError(f"fit: {name!r}: the guess and bounds must be numbers, got {spec!r}")
        guess, lower, upper = (float(v) for v in spec)
        if not lower <= guess <= upper or lower == upper:
            raise FitError(f"fit: {name!r}: the guess {guess:g} must lie within its bounds "
                           f"[{lower:g}, {upper:g}] (which must not coincide)")
        if log and (lower < 0 or guess <= 0):
            raise FitError(f"fit: {name!r}: log=True searches over log θ and needs bounds >= 0 and a guess "
                           f"> 0, got {guess:g} in [{lower:g}, {upper:g}]; use log=False for parameters that "
                           "can be zero or negative")
        for value in (guess, lower, upper):
            if np.isfinite(value) and not (log and value == 0):
                try:
                    sim.parameter_vector({name: value})
                except ParameterError as err:
                    raise FitError(f"fit: {name!r}: the bound or guess {value:g} is not a valid value: "
                                   f"{err}") from None
        rows.append((guess, lower, upper))
    guess, lower, upper = (np.array(column) for column in zip(*rows))
    return names, guess, lower, upper


def free_initial_values(sim, experiment, k, label) -> list[tuple]:
    """(None, guess, lower, upper, k, state path) of each of the experiment's free initial
    values (named later, :func:`_name_free_states`), the guess the experiment's x0 or else the
    model's start value."""
    out = []
    given = experiment.options.get("x0") or {}
    for path, (guess, lower, upper) in experiment.free_states(label).items():
        if path not in sim.states:
            close = difflib.get_close_matches(path, sim.states, n=3)
            raise FitError(f"{label}: x0_free names {path!r}, which is not a state of the model"
                           + (f"; did you mean {', '.join(close)}?" if close else f"; its states: "
                              f"{', '.join(sim.states[:8])}"))
        if guess is None:
            guess = float(given[path]) if path in given else start_value(sim, experiment, path)
        if not lower <= guess <= upper or lower == upper:
            raise FitError(f"{label}: x0_free[{path!r}]: the guess {guess:g} must lie within its bounds "
                           f"[{lower:g}, {upper:g}] (which must not coincide)")
        out.append([None, guess, lower, upper, k, path])
    return out


def start_value(sim, experiment, path) -> float:
    """The model's own start value of the state ``path`` in the experiment's conditions."""
    p = sim.parameter_vector(experiment.values())
    start = np.array(sim.system.start(p, experiment.t0)[0]).ravel()
    pos, sign = sim.variable(path)
    return sign * float(start[list(sim.system.state_pos).index(pos)])


def _name_free_states(free, experiments) -> None:
    """Name each free initial value ``path(t0)``, with ``@experiment`` where several experiments
    free the same state."""
    for state in free:
        _, _, _, _, k, path = state
        shared = sum(other[5] == path for other in free) > 1
        state[0] = f"{path}(t0)" + (f"@{experiments[k].name or k}" if shared else "")


class LeastSquares:
    """Weighted residuals and their Jacobian as functions of θ (``_evaluate``: (residuals,
    Jacobian, predictions)), each evaluation kept for the next call at the same point (SciPy
    asks for the residuals, then the Jacobian, at each point)."""

    sigma_known = True
    _last = (None, None)

    def evaluate(self, theta):
        """(weighted residual vector, its Jacobian ∂r/∂θ) at θ."""
        key = np.asarray(theta, dtype=float).tobytes()
        if self._last[0] != key:
            self._last = (key, self._evaluate(theta))
        return self._last[1][:2]

    def close(self) -> None:
        """Free what the evaluations kept (solvers)."""

    def predictions(self, theta) -> list:
        self.evaluate(theta)
        return self._last[1][2]

    def residuals_at(self, log):
        return lambda q: self.evaluate(from_search(q, log))[0]

    def jacobian_at(self, log):
        def jacobian(q):
            theta = from_search(q, log)
            return self.evaluate(theta)[1] * np.where(log, theta, 1.0)
        return jacobian


class Problem(LeastSquares):
    """The weighted residuals of ``experiments`` (one sensitivity run per experiment,
    :class:`~physlib.analysis.sensitivity.sensitivity.RepeatedSensitivity`) and their Jacobian."""

    def __init__(self, sim, experiments, names, rtol, atol, executor="serial", workers=None):
        self.sim, self.names, self.rtol, self.atol = sim, names, rtol, atol
        self.data = []
        self.free = []      # [fit name, guess, lower, upper, experiment index, state path] each
        for k, experiment in enumerate(experiments):
            label = f"experiment {experiment.name or k}"
            t, columns = experiment.measurements(label)
            for path in columns:
                if not sim.has_variable(path):
                    close = difflib.get_close_matches(path, sim.variables, n=3)
                    raise FitError(f"{label}: the model has no variable {path!r}"
                                   + (f"; did you mean {', '.join(close)}?" if close else ""))
            fixed = set(experiment.values()) & set(names)
            if fixed:
                raise FitError(f"{label}: {', '.join(sorted(fixed))} fitted and also set by the experiment")
            sigma = {path: experiment.noise(path, t.size, label) for path in columns}
            self.data.append((experiment, label, t, columns, sigma))
            self.free += free_initial_values(sim, experiment, k, label)
        self.sigma_known = all(s is not None for *_, sigmas in self.data for s in sigmas.values())
        _name_free_states(self.free, experiments)
        specs, self.repeats = [], []
        for k, (experiment, _, t, *_) in enumerate(self.data):
            states = self.free_of(k)
            # measurements repeated at one time (replicates) share one output time of the runs
            times, where = np.unique(t, return_inverse=True)
            self.repeats.append(where)
            options = {"rtol": rtol, "atol": atol, **experiment.options, "t_eval": times, "t0": experiment.t0}
            options["x0"] = {**(options.get("x0") or {}), **{path: guess for path, guess in states}}
            specs.append((experiment.span_end(t), names + [path for path, _ in states], experiment.values(), options))
        self.executor = executor_for(ExperimentRuns(sim, specs), executor, workers)

    def free_of(self, k) -> list[tuple[str, float]]:
        """(state path, guess) of experiment k's free initial values."""
        return [(path, guess) for _, guess, _, _, index, path in self.free if index == k]

    def close(self) -> None:
        self.executor.close()

    def _evaluate(self, theta):
        shared = len(self.names)
        values = dict(zip(self.names, (float(v) for v in theta[:shared])))
        residuals, rows, predictions = [], [], []
        own = [[j for j, state in enumerate(self.free) if state[4] == k] for k in range(len(self.data))]
        tasks = [(k, values, {self.free[j][5]: float(theta[shared + j]) for j in own[k]}, list(columns))
                 for k, (_, _, _, columns, _) in enumerate(self.data)]
        for k, runs in enumerate(self.executor.map(tasks)):
            _, label, t, columns, sigmas = self.data[k]
            model = {}
            for path, y in columns.items():
                weight = 1.0 / sigmas[path] if sigmas[path] is not None else np.ones_like(y)
                model[path], derivatives = (values[self.repeats[k]] for values in runs[path])
                residuals.append((model[path] - y) * weight)
                # the run's columns: the shared parameters, then the experiment's free initial values
                row = np.zeros((y.size, shared + len(self.free)))
                row[:, :shared] = derivatives[:, :shared]
                row[:, [shared + j for j in own[k]]] = derivatives[:, shared:]
                rows.append(row * weight[:, None])
            predictions.append(Prediction(label, t, columns, model, sigmas))
        return np.concatenate(residuals), np.vstack(rows), predictions
