"""``fit_frequency``: a model's parameters from a measured frequency response, the Jacobian exact
from the linearization's own parameter sensitivities (the operating point's motion included)."""
from __future__ import annotations

import numpy as np

from ...core.errors import FitError
from ..linear.linearize import linearize
from ..linear.operating_point import OperatingPoint, operating_point
from .fit import LeastSquares, check_search, parameter_bounds, solve
from .result import FitResult, Prediction


def fit_frequency(sim, f, H_measured, inputs, outputs, params: dict, *, at: dict | None = None,
                  values: dict | None = None, sigma=None, t: float = 0.0, log: bool = True,
                  loss: str = "linear", max_nfev: int = 100, tol: float = 1e-10) -> FitResult:
    """Fit the parameters ``params`` of the compiled model ``sim`` to a measured frequency
    response ``H_measured`` (complex) from ``inputs`` to ``outputs`` at the frequencies ``f`` [Hz].

    inputs, outputs: paths as for :meth:`linearize` (``"src.V"``, ``"R1.i"``). H_measured: an
    array of shape (len(outputs), len(inputs), len(f)), as ``LinearModel.frequency_response``
    gives, or (len(f),) for one input and one output. sigma: the standard deviation of the
    noise of each point's real part and of its imaginary part (one number, or an array of
    H_measured's shape: 1 % of |H| is ``0.01 * abs(H_measured)``); None: unknown, estimated
    from the residuals. at: the inputs' values {path: value} the response was measured around
    (the bias of a transistor stage; default: the model's own source values). values: other
    parameters' values during the measurement, not fitted. t: the time of the steady state.
    params, log, loss, max_nfev, tol: as for :func:`~physlib.analysis.fitting.fit.fit`.

    Each evaluation finds the steady state with the parameters' values, linearizes there and
    compares C (sE − A)⁻¹ B + D with the data; its Jacobian is
    ``LinearModel.sensitivity``: exact, including how the operating point itself moves with
    the parameters. The residuals are the real and imaginary parts of (model − data)/sigma.
    Returns a :class:`FitResult`; its ``residuals`` and ``predictions`` are by pair
    ``"input → output"`` over the frequencies."""
    log, max_nfev, tol = check_search(sim, "fit_frequency", loss, log, max_nfev, tol)
    names, guess, lower, upper = parameter_bounds(sim, params, log)
    problem = FrequencyProblem(sim, f, H_measured, inputs, outputs, names, at, values, sigma, t)
    return solve(problem, names, (guess, lower, upper), log=log, loss=loss, max_nfev=max_nfev, tol=tol)


class FrequencyProblem(LeastSquares):
    """The weighted residuals of a measured frequency response and their Jacobian."""

    def __init__(self, sim, f, H, inputs, outputs, names, at, values, sigma, t):
        self.sim, self.names, self.t = sim, names, float(t)
        self.inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        self.outputs = [outputs] if isinstance(outputs, str) else list(outputs)
        self.f = np.atleast_1d(np.asarray(f, dtype=float))
        if self.f.ndim != 1 or not np.all(np.isfinite(self.f) & (self.f >= 0)):
            raise FitError("fit_frequency: f must be a 1-D array of finite frequencies >= 0 [Hz]")
        self.H = _measured(H, len(self.outputs), len(self.inputs), self.f.size)
        if isinstance(at, OperatingPoint) or (at is not None and not isinstance(at, dict)):
            raise FitError("fit_frequency: at is the inputs' values {path: value} the response was measured "
                           "around; the operating point itself moves with the fitted parameters, so it is "
                           "found again at each step (an OperatingPoint cannot be given)")
        self.at, self.values = dict(at or {}), dict(values or {})
        fixed = set(self.values) & set(names)
        if fixed:
            raise FitError(f"fit_frequency: {', '.join(sorted(fixed))} fitted and also given in values")
        self.sigma = _noise(sigma, self.H.shape)
        self.sigma_known = sigma is not None
        self.labels = [[f"{i} → {o}" for i in self.inputs] for o in self.outputs]
        self._guess = (None, None)

    def _evaluate(self, theta):
        values = {**self.values, **dict(zip(self.names, (float(v) for v in theta)))}
        op = operating_point(self.sim, t=self.t, params=values, inputs=self.at, x_guess=self._guess[0],
                             z_guess=self._guess[1])
        self._guess = (op.states, op.algebraic)
        linear = linearize(self.sim, self.inputs, self.outputs, at=op)
        H = linear.frequency_response(self.f)
        sensitivities = linear.sensitivity(self.names, self.f, params=values)
        weight = 1.0 / self.sigma
        residual = _real((H - self.H) * weight)
        jacobian = np.column_stack([_real(s.H * weight) for s in sensitivities])
        labels = [label for row in self.labels for label in row]
        pairs = [(i, j) for i in range(len(self.outputs)) for j in range(len(self.inputs))]
        prediction = Prediction("frequency response", self.f, {k: self.H[ij] for k, ij in zip(labels, pairs)},
                                {k: H[ij] for k, ij in zip(labels, pairs)},
                                {k: self.sigma[ij] for k, ij in zip(labels, pairs)}, axis="frequency [Hz]")
        return residual, jacobian, [prediction]


def _measured(H, outputs, inputs, count):
    """H_measured as a complex array (outputs, inputs, count), checked."""
    H = np.asarray(H, dtype=complex)
    if H.ndim == 1 and outputs == inputs == 1:
        H = H.reshape(1, 1, -1)
    if H.shape != (outputs, inputs, count):
        raise FitError(f"fit_frequency: H_measured has shape {H.shape}; give ({outputs}, {inputs}, {count}) "
                       "(outputs, inputs, frequencies), or one value per frequency for one input and one output")
    bad = np.flatnonzero(~np.isfinite(H).all(axis=(0, 1)))
    if bad.size:
        raise FitError(f"fit_frequency: H_measured has NaN or infinite values at {bad.size} frequencies (the "
                       f"first the {bad[0]}th); drop those frequencies before fitting")
    return H


def _noise(sigma, shape):
    """The standard deviation of each point's real and imaginary parts (ones if unknown)."""
    if sigma is None:
        return np.ones(shape)
    try:
        sigma = np.broadcast_to(np.asarray(sigma, dtype=float), shape).copy()
    except ValueError:
        raise FitError(f"fit_frequency: sigma must be one number or an array of H_measured's shape {shape}") from None
    if not np.all(np.isfinite(sigma) & (sigma > 0)):
        raise FitError("fit_frequency: sigma must be positive and finite")
    return sigma


def _real(values):
    """A complex array's real parts, then its imaginary parts, as one vector."""
    return np.concatenate([values.real.ravel(), values.imag.ravel()])
