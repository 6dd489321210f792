"""An experiment to fit a model to: measured data, its noise, and the run that produced it."""
from __future__ import annotations

import difflib
import inspect
import numbers
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import FitError
from ..common.options import simulate_options

TIME_COLUMNS = ("t", "time")
# simulate options an Experiment sets from its own fields: {option: the field that gives it}
OWN_OPTIONS = {"t0": "t0=", "params": "params= (or inputs=)", "t_eval": "data (its times)"}


@dataclass
class Experiment:
    """Measurements of some of a model's variables over one run.

    data: a pandas DataFrame whose columns are variable paths (``"rotor.w"``) and whose time [s]
    is a column ``"t"`` or ``"time"`` or else the index; or a tuple ``(t, {path: y})``. Every
    value finite, every time within [t0, t_end].
    sigma: the standard deviation of the measurement noise, in the variable's unit: one number
    for all, a dict {path: number or array}, or None (unknown: estimated from the residuals of
    the fit, the same for all data).
    inputs, params: values of the model's parameters in this experiment (a source's amplitude,
    a load): the inputs applied and the conditions, not fitted. ``t0``, ``t_end`` [s]: the run's
    span (t_end default: the last measurement). ``name``: how reports name the experiment.
    ``options``: further ``simulate`` options of its runs (``rtol``, ``atol``, ``max_step``...).
    x0_free: states whose initial values are unknown, estimated with the parameters, each
    this experiment's own: a list of state paths (``["C1.v"]``, the guess the model's start
    value or ``options["x0"]``'s, unbounded) or a dict {path: guess or (guess, lower, upper)}.
    The fit names them ``"C1.v(t0)"`` (``"C1.v(t0)@name"`` where several experiments free the
    same state).
    """

    data: object
    sigma: object = None
    inputs: dict | None = None
    t_end: float | None = None
    params: dict | None = None
    t0: float = 0.0
    name: str | None = None
    options: dict = field(default_factory=dict)
    x0_free: object = None

    def __post_init__(self):
        # checked here, where they are given: a string t0 failed in a NumPy comparison, an
        # unknown option in the first run as a TypeError of a function the user never called
        for name in ("t0", "t_end"):
            value = getattr(self, name)
            if (value is not None or name == "t0") and (isinstance(value, (bool, np.bool_))
                                                         or not isinstance(value, numbers.Real)
                                                         or not np.isfinite(value)):
                raise FitError(f"Experiment: {name} must be a finite number of seconds, got {value!r}")
        if not isinstance(self.options, dict):
            raise FitError(f"Experiment: options must be a dict of simulate options, e.g. {{'rtol': 1e-8}}, "
                           f"got {self.options!r:.60}")
        valid = [name for name in inspect.signature(simulate_options).parameters
                 if name not in ("model", "t_end", *OWN_OPTIONS)]
        for name in self.options:
            if name in OWN_OPTIONS:
                raise FitError(f"Experiment: give {name} as the Experiment's own {OWN_OPTIONS[name]}, not in options")
            if name not in valid:
                close = difflib.get_close_matches(str(name), valid, n=1)
                raise FitError(f"Experiment: options has no {name!r}" + (f" (did you mean {close[0]!r}?)" if close
                                                                         else "") + f"; its options are {', '.join(valid)}")

    def free_states(self, label: str) -> dict:
        """{state path: (guess or None, lower, upper)} of ``x0_free``."""
        if self.x0_free is None:
            return {}
        if isinstance(self.x0_free, str) or not isinstance(self.x0_free, (list, tuple, dict)):
            raise FitError(f"{label}: x0_free must be a list of state paths or a dict {{path: guess or "
                           f"(guess, lower, upper)}}, got {self.x0_free!r:.60}")
        if not isinstance(self.x0_free, dict):
            return {path: (None, -np.inf, np.inf) for path in self.x0_free}
        out = {}
        for path, spec in self.x0_free.items():
            spec = tuple(spec) if isinstance(spec, (tuple, list)) else (spec, -np.inf, np.inf)
            if len(spec) != 3:
                raise FitError(f"{label}: x0_free[{path!r}]: give (guess, lower, upper) or a guess alone")
            if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) for v in spec):
                raise FitError(f"{label}: x0_free[{path!r}]: the guess and bounds must be numbers, got {spec!r}")
            out[path] = tuple(float(v) for v in spec)
        return out

    def measurements(self, label: str):
        """(t, {path: y}) as float arrays, time sorted; ``label`` names the experiment in errors."""
        t, columns = _columns(self.data, label)
        order = np.argsort(t, kind="stable")
        t = t[order]
        out = {}
        for path, y in columns.items():
            y = np.asarray(y, dtype=float).ravel()
            if y.shape != t.shape:
                raise FitError(f"{label}: {path!r} has {y.size} values for {t.size} times")
            y = y[order]
            bad = np.flatnonzero(~np.isfinite(y))
            if bad.size:
                raise FitError(f"{label}: {path!r} has {bad.size} values that are NaN or infinite (the "
                               f"first at t = {t[bad[0]]:.6g} s); drop those rows before fitting")
            out[path] = y
        if not np.all(np.isfinite(t)):
            raise FitError(f"{label}: the measurement times must be finite")
        t_end = self.span_end(t)
        if t[0] < self.t0 or t[-1] > t_end:
            raise FitError(f"{label}: measurements from t = {t[0]:.6g} s to {t[-1]:.6g} s lie outside the "
                           f"experiment's span [{self.t0:.6g}, {t_end:.6g}] s; set t0 and t_end to cover them")
        return t, out

    def span_end(self, t) -> float:
        return float(self.t_end) if self.t_end is not None else float(np.max(t))

    def values(self) -> dict:
        """The parameter values of this experiment's runs: its inputs and params."""
        return {**(self.inputs or {}), **(self.params or {})}

    def noise(self, path: str, count: int, label: str) -> np.ndarray | None:
        """The standard deviation of each measurement of ``path`` (None where sigma is unknown)."""
        sigma = self.sigma.get(path) if isinstance(self.sigma, dict) else self.sigma
        if sigma is None:
            if isinstance(self.sigma, dict):
                raise FitError(f"{label}: sigma has no entry for {path!r}; give one for every measured path")
            return None
        sigma = np.broadcast_to(np.asarray(sigma, dtype=float), (count,)).copy()
        if not np.all(np.isfinite(sigma) & (sigma > 0)):
            raise FitError(f"{label}: sigma of {path!r} must be positive and finite")
        return sigma


def _columns(data, label):
    """(t, {path: values}) from a DataFrame or a (t, dict) pair."""
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[1], dict):
        return np.asarray(data[0], dtype=float).ravel(), dict(data[1])
    if hasattr(data, "columns"):
        names = [c for c in data.columns if str(c) in TIME_COLUMNS]
        t = data[names[0]].to_numpy(dtype=float) if names else data.index.to_numpy(dtype=float)
        return t, {str(c): data[c].to_numpy() for c in data.columns if c not in names}
    raise FitError(f"{label}: data must be a pandas DataFrame (time in a column 't' or 'time', or the "
                   "index; one column per variable path) or a tuple (t, {path: values})")
