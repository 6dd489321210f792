"""Operating points: a consistent set of states, algebraic variables and parameters at a time.

:func:`operating_point` finds a steady state (x' = 0 and 0 = g together) for given inputs and
parameters; :func:`trim` also chooses free inputs or parameters so that chosen outputs meet
targets there with every derivative zero (e.g. the torque that holds a cart at rest on a
beam). Both solve one square nonlinear system with exact CasADi Jacobians
(:mod:`physlib.analysis.linear.steady_state`): first Newton's method with full steps
(``casadi.rootfinder`` for small systems), then, if that fails, a damped Newton method with continuation
(:mod:`physlib.analysis.linear.homotopy`) — gmin stepping (the junctions' conductances stepped
down from 1e-2 S), source stepping (every source value scaled from 0 to 1) and a Newton
homotopy from the start values (F(w) − (1 − λ)·F(w₀) = 0 for λ from 0 to 1); ``op.method``
says which one solved it. Inputs are source values or
waveform-driven signals, set through the parameter vector (:mod:`physlib.analysis.linear.model_inputs`).

States that no equation reads (angles and positions whose only role is der(phi) = w: the
model is invariant to them) cannot be fixed by a steady state. They keep their start (or
guessed) value and their derivative is not required to vanish: a motor turning at constant
speed is in steady state although its angle grows.

In a model with modes, both settle the modes as a simulation does at its start: the hybrid
components' transitions are asked at the solved point and the steady state is solved again in
the modes they choose until nothing changes (a switch whose control is 1 is closed, a
forward-biased ideal diode conducts). ``op.modes`` holds the modes, ``op.events`` the changes
from the start modes; linearization and noise at the point use them. Modes that never settle
are a :class:`~physlib.core.errors.ModeSettlingError` naming the components; a clutch, brake or
contact that must stick (its lock is not a steady-state equation yet) an
:class:`InitializationError` naming it.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import InitializationError, PhyslibError, UnknownNameError
from ..common.fast_call import fast
from ..common.options import OptionError, count_option, finite_option, positive_option, values_option
from .model_inputs import input_names, parameter_slot, resolve_input
from .steady_state import solve_steady_state, steady_residual

__all__ = ["OperatingPoint", "input_names", "operating_point", "resolve_input", "trim"]


class OperatingPoint:
    """Values of every variable of a compiled model at one time, with named access.

    ``op["C1.v"]`` (any variable path, a parameter path such as ``"tau1.tau"``, or a mode path
    such as ``"S1.closed"``); ``op.t``; ``op.x``/``op.z``/``op.p`` hold the solver vectors (the
    modes are in ``p``); ``op.states``, ``op.algebraic``, ``op.derivatives`` and ``op.modes`` are
    dicts by name. ``op.events``: the mode changes (:class:`Event`, cause ``"initial"``) that
    settled the modes of a steady state from the start modes; empty for a point read from a
    simulation result, whose ``res.events`` lists them. ``op.method``: how the steady state was
    solved — ``"newton"``, or the continuation that reached it when Newton's method did not,
    ``"gmin stepping"``, ``"source stepping"`` or ``"homotopy"``
    (:mod:`physlib.analysis.linear.homotopy`) — and ``op.steps`` the number of continuation
    solves (0 for Newton); None and 0 for a point read from a simulation result.
    """

    def __init__(self, model, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray, events=(),
                 convergence=(None, 0)):
        self.model = model
        self.method, self.steps = convergence
        self.t = float(t)
        self.x = np.asarray(x, dtype=float)
        self.z = np.asarray(z, dtype=float)
        self.p = np.asarray(p, dtype=float)
        self.events = list(events)
        self._values = None

    @property
    def values(self) -> np.ndarray:
        """The value of every representative variable (positions as in ``model.system``),
        computed when first read: a transient started from the point, or a linearization at
        it, reads only x, z and p, and a million-element model's function of every variable
        takes 0.6 s to build and 280 MB to keep. Evaluated through the outputs' buffers that
        every run's start check uses: no CasADi matrix converted to NumPy."""
        if self._values is None:
            self._values = fast(self.model.system, "outputs")(self.x, self.z, self.p, self.t)
        return self._values

    def __getitem__(self, name: str) -> float:
        try:
            pos, sign = self.model.variable(name)
        except UnknownNameError:
            slot = parameter_slot(self.model, name)
            if slot is None:
                slot = self.model.mode_slot(name)
            if slot is None:
                raise
            return float(self.p[slot])
        return sign * float(self.values[pos])

    def __contains__(self, name: str) -> bool:
        return (self.model.has_variable(name) or parameter_slot(self.model, name) is not None
                or self.model.mode_slot(name) is not None)

    @property
    def modes(self) -> dict[str, float]:
        """The value of every mode (and discrete variable) at this point, by path, read like
        variables as ``res["S1.closed"]`` reads them: ``{"S1.closed": 1.0}``."""
        return {name: self[name] for name in self.model.modes}

    @property
    def states(self) -> dict[str, float]:
        return dict(zip(self.model.states, self.x.tolist()))

    @property
    def algebraic(self) -> dict[str, float]:
        return dict(zip(self.model.algebraic, self.z.tolist()))

    @property
    def derivatives(self) -> dict[str, float]:
        """x' at this point, by state name."""
        f = np.asarray(self.model.system.dae(self.x, self.z, self.p, self.t)[0]).ravel()
        return dict(zip(self.model.states, f.tolist()))

    @property
    def is_steady(self) -> bool:
        """True when every derivative a steady state can fix vanishes (within 1e-8 relative)."""
        return steady_residual(self.model, self.x, self.z, self.p, self.t) <= 1e-8

    def __repr__(self):
        return f"<OperatingPoint t={self.t:g} of {self.model.name}: {len(self.x)} states>"


def operating_point(model, *, t: float = 0.0, params: dict | None = None, inputs: dict | None = None,
                    x_guess: dict | None = None, z_guess: dict | None = None,
                    tol: float = 1e-12, max_iter: int = 100) -> OperatingPoint:
    """The steady state of ``model`` at time ``t``: x' = 0 and 0 = g(x, z, p, t).

    params: parameter values by path; inputs: source values by path (``{"src.V": 5.0}``, also
    for a source driven by a waveform: its offset is shifted to give that value at ``t``);
    x_guess, z_guess: starting values of states / algebraic variables by path (default: the
    start values). Modes settle as at the start of a simulation (see the module docstring):
    ``op.modes``, ``op.events``. Raises :class:`InitializationError` naming the equations and
    variables that did not converge, :class:`ModeSettlingError` naming the components whose
    modes do not settle."""
    t, inputs, x_guess, z_guess, tol, max_iter = _checked("operating_point", t, inputs, x_guess, z_guess,
                                                         tol, max_iter)
    x, z, p, events, convergence = solve_steady_state(model, t, params, inputs, x_guess, z_guess, {}, [],
                                                      tol, max_iter)
    return OperatingPoint(model, t, x, z, p, events, convergence)


def _checked(caller, t, inputs, x_guess, z_guess, tol, max_iter) -> tuple:
    """The options of ``caller`` (operating_point or trim) shared by both, checked: a string
    ``tol`` or value reached CasADi or ``float()`` deep in the solver, and ``t = nan``, a
    non-positive ``tol`` or ``max_iter = 0`` gave a point without complaint."""
    return (finite_option(f"{caller}: t", t),
            values_option(f"{caller}: inputs", inputs, "input paths to values, e.g. {'src.V': 5.0}"),
            values_option(f"{caller}: x_guess", x_guess, "state paths to guesses, e.g. {'C1.v': 1.0}"),
            values_option(f"{caller}: z_guess", z_guess, "algebraic variable paths to guesses"),
            positive_option(f"{caller}: tol", tol), count_option(f"{caller}: max_iter", max_iter))


def trim(model, targets: dict, free: list, *, t: float = 0.0, params: dict | None = None,
         inputs: dict | None = None, x_guess: dict | None = None, z_guess: dict | None = None,
         free_guess: dict | None = None, tol: float = 1e-12, max_iter: int = 100) -> OperatingPoint:
    """A steady state where the variables in ``targets`` ({path: value}) take their values,
    found by choosing the inputs or parameters listed in ``free``.

    As many free names as targets (the system must be square). The free values are in the
    returned point's parameter vector: ``op["tau1.tau"]``. ``free_guess``: starting values of
    the free names (default: their current values). Modes settle as in :func:`operating_point`."""
    targets = values_option("trim: targets", targets, "variable paths to target values, e.g. {'C1.v': 0.5}")
    free = _free_names(free)
    t, inputs, x_guess, z_guess, tol, max_iter = _checked("trim", t, inputs, x_guess, z_guess, tol, max_iter)
    if len(free) != len(targets):
        raise PhyslibError(
            f"trim needs as many free inputs/parameters as targets (a square system): got "
            f"{len(targets)} target(s) ({', '.join(targets)}) and {len(free)} free "
            f"({', '.join(free) or 'none'})")
    if not targets:
        raise PhyslibError("trim needs at least one target, e.g. targets={'cart.z': 1.0}")
    free_guess = values_option("trim: free_guess", free_guess, "free names to starting values")
    stray = [name for name in free_guess if name not in free]
    if stray:
        # merged into the inputs below, a guess for a name that is not free would set it
        raise OptionError(f"trim: free_guess gives {', '.join(stray)}, not among the free names "
                          f"({', '.join(free)}): guess only free names; set fixed values with inputs= or params=")
    if free_guess:
        inputs = {**inputs, **free_guess}
    try:
        solved = solve_steady_state(model, t, params, inputs, x_guess, z_guess, targets, free, tol, max_iter)
    except InitializationError as err:
        solved = _trim_from_operating_point(model, t, params, inputs, (x_guess, z_guess), targets, free,
                                            (tol, max_iter), err)
    return OperatingPoint(model, t, *solved)


def _free_names(free) -> list:
    """``free`` as a list of paths; one path alone is one name (iterated, it was its letters)."""
    free = [free] if isinstance(free, str) else free
    if not isinstance(free, (list, tuple)) or not all(isinstance(name, str) for name in free):
        raise OptionError(f"trim: free must be a list of input or parameter paths, e.g. ['src.V'], got {free!r}")
    return list(free)


def _trim_from_operating_point(model, t, params, inputs, guesses, targets, free, limits, error):
    """The trim solved again from the steady state with the free values at their guesses; the
    trim's ``error`` from the start values where that has none. A free parameter that multiplies
    states starting at zero (a motor's k·i and d·w at rest) has a zero column in the trim's
    Jacobian there, and no continuation moves the states off zero; at a running point it has
    none."""
    try:
        x, z, *_ = solve_steady_state(model, t, params, inputs, *guesses, {}, [], *limits)
        return solve_steady_state(model, t, params, inputs, dict(zip(model.states, x.tolist())),
                                  dict(zip(model.algebraic, z.tolist())), targets, free, *limits)
    except PhyslibError:
        raise error from None
