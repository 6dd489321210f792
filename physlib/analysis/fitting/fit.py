"""``fit``: a model's parameters from measured data by bounded nonlinear least squares, the
Jacobian exact from the forward sensitivities (through the runs' events)."""
from __future__ import annotations

import difflib

import numpy as np
from scipy.optimize import least_squares

from ...core.errors import FitError, ParameterError
from ..sensitivity.sensitivity import RepeatedSensitivity
from .experiment import Experiment
from .result import FitResult, Prediction

LOSSES = ("linear", "huber", "soft_l1", "cauchy")


def fit(sim, experiments, params: dict, *, log: bool = True, loss: str = "linear", rtol: float = 1e-8,
        atol: float = 1e-10, max_nfev: int = 100, tol: float = 1e-10) -> FitResult:
    """Fit the parameters ``params`` of the compiled model ``sim`` to ``experiments``.

    experiments: an :class:`Experiment` or a list of them (they share the fitted parameters;
    each has its own inputs, span and conditions). params: {path: (guess, lower, upper)} or
    {path: guess} (unbounded; positive with ``log``), parameter paths or model parameters.
    log: search over log θ (parameters that are positive and span decades: the steps are
    relative). loss: ``"linear"`` (least squares: the statistics of the result assume it) or a
    robust loss of SciPy's (``"huber"``...) with residuals in units of sigma. rtol, atol: the
    runs' tolerances (their error must stay well below the noise). max_nfev: most runs of the
    model; tol: SciPy's xtol, ftol and gtol.

    The residuals are (model − data)/sigma at every measurement, the runs those of
    ``sim.sensitivity`` at the measurement times, so each evaluation gives the residuals and
    their exact Jacobian at once. Bounded trust-region least squares (SciPy's ``trf``, a bounded
    Gauss-Newton / Levenberg-Marquardt). Returns a :class:`FitResult` (estimates, standard
    errors, covariance, confidence intervals, which combinations the data cannot determine)."""
    experiments = [experiments] if isinstance(experiments, Experiment) else list(experiments)
    if not experiments:
        raise FitError("fit needs at least one Experiment")
    check_loss(loss)
    names, guess, lower, upper = parameter_bounds(sim, params, log)
    problem = Problem(sim, experiments, names, rtol, atol)
    return solve(problem, names, (guess, lower, upper), log=log, loss=loss, max_nfev=max_nfev, tol=tol)


def check_loss(loss):
    if loss not in LOSSES:
        raise FitError(f"loss must be one of {', '.join(map(repr, LOSSES))}, got {loss!r}")


def solve(problem, names, bounds, *, log, loss, max_nfev, tol) -> FitResult:
    """The :class:`FitResult` of ``problem`` (a :class:`LeastSquares`) from the guess within the
    bounds ``(guess, lower, upper)``: SciPy's bounded trust-region least squares, over log θ
    with ``log``."""
    guess, lower, upper = bounds
    forward = np.log if log else (lambda v: np.asarray(v, dtype=float))
    with np.errstate(divide="ignore"):
        limits = (forward(lower), forward(upper))
    try:
        solution = least_squares(problem.residuals_at(log), forward(guess), jac=problem.jacobian_at(log),
                                 bounds=limits, method="trf", loss=loss, max_nfev=max_nfev, xtol=tol, ftol=tol,
                                 gtol=tol, x_scale=1.0 if log else np.maximum(np.abs(guess), 1e-300))
        theta = np.exp(solution.x) if log else solution.x
        residual, jacobian = problem.evaluate(theta)
    finally:
        problem.close()
    return FitResult(names, theta, residual, jacobian, problem.predictions(theta), problem.sigma_known,
                     solution)


def parameter_bounds(sim, params, log):
    """(names, guess, lower, upper) of ``params``, each checked against the model."""
    if not isinstance(params, dict) or not params:
        raise FitError("params must be a dict {path: (guess, lower, upper)} or {path: guess}, e.g. "
                       "{'R1.R': (1e3, 10.0, 1e6)}")
    names, rows = list(params), []
    for name, spec in params.items():
        if not (sim.has_parameter(name) or name in sim.model_parameters):
            close = difflib.get_close_matches(name, [*sim.parameters, *sim.model_parameters], n=3)
            raise FitError(f"fit: unknown parameter {name!r}" + (f"; did you mean {', '.join(close)}?" if close
                                                                 else ""))
        spec = tuple(spec) if isinstance(spec, (tuple, list)) else (spec, 0.0 if log else -np.inf, np.inf)
        if len(spec) != 3:
            raise FitError(f"fit: {name!r}: give (guess, lower, upper) or a guess alone, got {spec!r}")
        guess, lower, upper = (float(v) for v in spec)
        if not lower <= guess <= upper or lower == upper:
            raise FitError(f"fit: {name!r}: the guess {guess:g} must lie within its bounds "
                           f"[{lower:g}, {upper:g}] (which must not coincide)")
        if log and lower < 0:
            raise FitError(f"fit: {name!r}: log=True searches over log θ and needs bounds >= 0, got "
                           f"[{lower:g}, {upper:g}]; use log=False for parameters that can be negative")
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
        return lambda q: self.evaluate(np.exp(q) if log else q)[0]

    def jacobian_at(self, log):
        def jacobian(q):
            theta = np.exp(q) if log else q
            return self.evaluate(theta)[1] * (theta if log else 1.0)
        return jacobian


class Problem(LeastSquares):
    """The weighted residuals of ``experiments`` (one sensitivity run per experiment,
    :class:`~physlib.analysis.sensitivity.sensitivity.RepeatedSensitivity`) and their Jacobian."""

    def __init__(self, sim, experiments, names, rtol, atol):
        self.sim, self.names, self.rtol, self.atol = sim, names, rtol, atol
        self.data = []
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
        self.sigma_known = all(s is not None for *_, sigmas in self.data for s in sigmas.values())
        self.runs = [RepeatedSensitivity(sim, experiment.span_end(t), names, experiment.values(), t_eval=t,
                                         t0=experiment.t0, **{"rtol": rtol, "atol": atol, **experiment.options})
                     for experiment, _, t, *_ in self.data]

    def close(self) -> None:
        for run in self.runs:
            run.close()

    def _evaluate(self, theta):
        values = dict(zip(self.names, (float(v) for v in theta)))
        residuals, rows, predictions = [], [], []
        for run, (experiment, label, t, columns, sigmas) in zip(self.runs, self.data):
            sens = run(values)
            model = {}
            for path, y in columns.items():
                weight = 1.0 / sigmas[path] if sigmas[path] is not None else np.ones_like(y)
                model[path] = sens[path]
                residuals.append((model[path] - y) * weight)
                rows.append(np.column_stack([sens.derivative(path, n) for n in self.names]) * weight[:, None])
            predictions.append(Prediction(label, t, columns, model, sigmas))
        return np.concatenate(residuals), np.vstack(rows), predictions
