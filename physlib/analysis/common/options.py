"""The options of ``simulate``, validated once at the API boundary for every solver.

Every option is checked for type and range before any work starts, so a bad value is a
:class:`~physlib.core.errors.PhyslibError` naming the option, never a hang (``t_end = inf``,
``event_tol = 0``), a foreign exception, or an output that would not fit in memory.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import field

import numpy as np

from ...core.errors import PhyslibError
from ...core.records import record
from .start_values import PointValues

VARIABLE_STEP = ("idas", "cvodes")
FIXED_STEP = ("euler", "rk4", "trapezoidal", "backward_euler")
INITIAL_MODES = ("strict", "relaxed")
PROJECTIONS = ("energy", "naive", None)
DEFAULT_POINTS = 501
MAX_OUTPUT_BYTES = 4 * 2**30    # stored results beyond this are refused (estimate before the run)
MAX_SAMPLES = 10**7             # guard samples per run (max_step): beyond this a run takes hours
MAX_FIXED_STEPS = 10**8         # fixed steps are orchestrated in Python (~10 µs each): hours beyond this


class OptionError(PhyslibError, ValueError):
    """A simulate option has the wrong type or an impossible value."""


@record(frozen=True)
class SimulateOptions:
    """The validated options of one ``simulate`` call (see
    :func:`physlib.analysis.simulation.simulate.simulate` for their meaning)."""

    t0: float
    t_end: float
    solver: str
    dt: float | None
    rtol: float
    atol: float
    t_eval: np.ndarray | None        # strictly increasing times within [t0, t_end], or None
    params: dict
    x0: Mapping
    projection: str | None
    max_step: float | None
    event_tol: float
    max_events: int
    invariants: object
    initial: str
    noise: tuple = ()                # variable paths whose noise is propagated along the run
    noise_T: float = 300.15          # K, temperature of the noise analysis
    z_guess: Mapping = field(default_factory=dict)  # algebraic variables' guesses at t0

    @property
    def fixed_step(self) -> bool:
        return self.solver in FIXED_STEP

    @property
    def grid(self) -> np.ndarray:
        """The output times: ``t_eval``, or the default grid of the variable-step solvers."""
        return self.t_eval if self.t_eval is not None else np.linspace(self.t0, self.t_end, DEFAULT_POINTS)


def simulate_options(model, t_end, *, t0=0.0, solver="idas", dt=None, rtol=1e-6, atol=1e-8, t_eval=None,
                     params=None, x0=None, projection="energy", noise=None, noise_T=300.15, max_step=None,
                     event_tol=1e-10, max_events=100, invariants=None, initial="strict",
                     z_guess=None) -> SimulateOptions:
    """Check every option of ``simulate`` on ``model``; return them as :class:`SimulateOptions`."""
    if not isinstance(solver, str) or solver not in VARIABLE_STEP + FIXED_STEP:
        raise OptionError(f"unknown solver {solver!r}; choose one of {', '.join(VARIABLE_STEP + FIXED_STEP)}")
    t0, t_end = _time_span(t0, t_end)
    rtol, atol = positive_option("rtol", rtol), positive_option("atol", atol)
    event_tol = positive_option("event_tol", event_tol)
    max_events = count_option("max_events", max_events)
    if initial not in INITIAL_MODES:
        raise OptionError(f"initial must be one of {', '.join(map(repr, INITIAL_MODES))}, got {initial!r}")
    if projection not in PROJECTIONS:
        raise OptionError(f"projection must be 'energy', 'naive' or None, got {projection!r}")
    noise = _noise_paths(model, noise)
    noise_T = positive_option("noise_T", noise_T)
    params = _mapping("params", params, "parameter paths to values, e.g. {'R1.R': 2e3}")
    x0 = _point_values(model, "x0", x0, "states", "state paths to initial values, e.g. {'C1.v': 1.0}")
    z_guess = _point_values(model, "z_guess", z_guess, "algebraic",
                            "algebraic variable paths to guesses, e.g. op.algebraic")
    grid = None if t_eval is None else _grid(t_eval, t0, t_end)
    if solver in FIXED_STEP:
        dt, points = _fixed_step(solver, dt, max_step, t_end - t0, grid)
    else:
        max_step, points = _variable_step(solver, dt, max_step, invariants, t0, t_end, grid)
    # counted, not named: the names of a large model's unknowns take a while to make (30 ms at 50,000)
    _check_output_size(points, len(model.system.state_pos) + len(model.system.z_pos) + 2)
    return SimulateOptions(t0=t0, t_end=t_end, solver=solver, dt=dt, rtol=rtol, atol=atol, t_eval=grid,
                           params=params, x0=x0, projection=projection, max_step=max_step,
                           event_tol=event_tol, max_events=max_events, invariants=invariants,
                           initial=initial, noise=tuple(noise), noise_T=noise_T, z_guess=z_guess)


def _time_span(t0, t_end) -> tuple[float, float]:
    t0 = finite_option("t0", t0)
    t_end = finite_option("t_end", t_end)
    if not t_end > t0:
        raise OptionError(f"t_end ({t_end}) must be greater than t0 ({t0})")
    resolution = _time_resolution(t0, t_end)
    if t_end - t0 < 1e6 * resolution:
        raise OptionError(f"t0 = {t0!r} and t_end = {t_end!r} are too close for floating-point time "
                          f"(resolution {resolution:.3g} s there): simulate from t0 = 0 instead")
    return t0, t_end


def _time_resolution(t0, t_end) -> float:
    """The spacing of floating-point times in [t0, t_end]."""
    return np.spacing(max(abs(t0), abs(t_end)))


def _noise_paths(model, noise) -> tuple:
    noise = () if noise is None else (noise,) if isinstance(noise, str) else noise
    if not isinstance(noise, (list, tuple)) or not all(isinstance(n, str) for n in noise):
        raise OptionError(f"noise must be a list of variable paths, e.g. noise=['C1.v'], got {noise!r}")
    for name in noise:
        model.variable(name)                    # an unknown name: an error suggesting near ones
    return noise


def _fixed_step(solver, dt, max_step, span, grid) -> tuple[float, float]:
    """(dt, number of output times) of a fixed-step run."""
    if dt is None:
        raise OptionError(f"solver {solver!r} is a fixed-step solver: give its step, e.g. dt=1e-4 [s]")
    dt = positive_option("dt", dt)
    if max_step is not None:
        raise OptionError(f"max_step caps the steps of the variable-step solvers; solver {solver!r} "
                          f"takes the fixed step dt = {dt:g} s")
    steps = span / dt
    if steps > MAX_FIXED_STEPS:
        raise OptionError(f"dt = {dt:g} s gives {steps:.3g} steps over {span:g} s (more than "
                          f"{MAX_FIXED_STEPS:.0e}, hours of stepping): use a larger dt or a "
                          "variable-step solver")
    return dt, (len(grid) if grid is not None else steps + 1)


def _variable_step(solver, dt, max_step, invariants, t0, t_end, grid) -> tuple[float | None, int]:
    """(max_step, number of output times) of a variable-step run."""
    if dt is not None:
        raise OptionError("dt is the step of the fixed-step solvers; variable-step solvers choose "
                          "their own steps (use max_step to cap them)")
    if invariants is not None:
        raise OptionError(
            f"invariants are kept by projection after each step of a fixed-step solver; {solver!r} "
            f"does not support them: use one of {', '.join(FIXED_STEP)} with a step dt")
    if max_step is not None:
        max_step = positive_option("max_step", max_step)
        span = t_end - t0
        if span / max_step > MAX_SAMPLES or max_step < 1e3 * _time_resolution(t0, t_end):
            raise OptionError(f"max_step = {max_step:g} s gives more than {MAX_SAMPLES:.0e} steps "
                              f"over {span:g} s: use a larger max_step")
    return max_step, (len(grid) if grid is not None else DEFAULT_POINTS)


def _check_output_size(points, width) -> None:
    estimate = points * width * 8.0
    if estimate > MAX_OUTPUT_BYTES:
        raise OptionError(
            f"the result would hold {points:.3g} output times x {width} values ({estimate / 2**30:.1f} "
            f"GiB, more than {MAX_OUTPUT_BYTES / 2**30:.0f} GiB): give fewer output times with t_eval")


def number_option(name, value) -> float:
    """A real number (Python or NumPy scalar; not a bool or a string)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise OptionError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    return float(value)


def finite_option(name, value) -> float:
    value = number_option(name, value)
    if not np.isfinite(value):
        raise OptionError(f"{name} must be finite, got {value}")
    return value


def positive_option(name, value) -> float:
    value = number_option(name, value)
    if not (np.isfinite(value) and value > 0):
        raise OptionError(f"{name} must be a positive, finite number, got {value:g}")
    return value


def count_option(name, value) -> int:
    """A positive integer (Python or NumPy; not a bool, not a float such as 10.0)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) or value < 1:
        raise OptionError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def flag_option(name, value) -> bool:
    """True or False (a NumPy bool too): a string such as "no" is truthy and would turn the
    option on."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def values_option(name, value, what) -> dict:
    """A dict of paths to finite numbers (``what`` says what it maps, for the message), its
    values as floats: a string value would otherwise reach ``float()`` deep in a solver."""
    value = _mapping(name, value, what)
    for key, number in value.items():
        if type(number) is not float or not math.isfinite(number):     # one test for a plain float
            value[key] = finite_option(f"{name}[{key!r}]", number)
    return value


def _point_values(model, name, value, kind: str, what: str) -> Mapping:
    """``x0`` (``kind`` "states") or ``z_guess`` ("algebraic"): an operating point of ``model``
    as :class:`PointValues` (its vector), else a mapping of ``what`` (:func:`_mapping`)."""
    if value is None or isinstance(value, Mapping) or not (hasattr(value, "model") and hasattr(value, "x")):
        return _mapping(name, value, what + ", or an operating point")
    if value.model is not model:
        raise OptionError(f"{name}: an operating point of {value.model.name}, not of {model.name}; "
                          f"give one of this model, or a dict of {kind} paths to values")
    return PointValues(model, value.x if kind == "states" else value.z, kind)


def _mapping(name, value, what) -> dict:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise OptionError(f"{name} must be a dict of {what}, got {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise OptionError(f"{name}: keys are paths (strings) such as 'R1.R', got {key!r}")
    return dict(value)


def _grid(t_eval, t0, t_end) -> np.ndarray:
    try:
        grid = np.asarray(t_eval, dtype=float)
    except (TypeError, ValueError):
        raise OptionError(f"t_eval must be a sequence of times in seconds, got {t_eval!r}") from None
    if grid.ndim > 1:       # flattened, a table of times gave a run at times no one listed in order
        raise OptionError(f"t_eval must be a 1-D sequence of times in seconds, got an array of shape {grid.shape}; "
                          "give its times in one row (t_eval.ravel() if they are in order)")
    grid = grid.ravel()
    if grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(np.diff(grid) <= 0):
        raise OptionError("t_eval must be a non-empty, strictly increasing sequence of finite times")
    if grid[0] < t0 or grid[-1] > t_end:
        raise OptionError(f"t_eval must lie within [t0, t_end] = [{t0}, {t_end}]")
    return grid
