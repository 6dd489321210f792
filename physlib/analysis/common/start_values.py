"""Checks of the consistent initial state: explicitly given start values honoured, every
variable finite.

Constraints can decide a start value the user gave: a capacitor given ``v0 = 0`` directly
across a 1 V source starts at 1 V, and of two capacitors in parallel given 0 V and 1 V only
one can be a state. physlib never overrides such a value silently: by default it is an
:class:`~physlib.core.errors.InitializationError` naming the component, the value and the
constraint; with ``initial="relaxed"`` the run starts from the consistent values and a
:class:`StartValueWarning` lists what changed.
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping

import numpy as np

from ...core.errors import InitializationError, PhyslibError
from ...core.memory import LARGE, release_free_memory
from ...core.units import quantity_value
from .fast_call import FastFunction, fast


class PointValues(Mapping):
    """The states or algebraic variables (``kind``: ``"states"`` or ``"algebraic"``) of an
    operating point of ``model``, given as ``x0`` or ``z_guess``: a mapping by path whose
    vector (``vector``, in the model's order) a run takes as it is, without the names, which
    are made only if asked for (half a second for a million-element model's)."""

    def __init__(self, model, vector, kind: str):
        self.model, self.vector, self.kind = model, np.asarray(vector, dtype=float), kind
        self._index: dict[str, int] | None = None

    def _names(self) -> list[str]:
        return getattr(self.model, self.kind)

    def __getitem__(self, name):
        if self._index is None:
            self._index = {n: k for k, n in enumerate(self._names())}
        return float(self.vector[self._index[name]])

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self.vector)


def apply_x0(model, x, x0):
    """The start values ``x`` of the states with ``x0`` ({path: value or quantity}) put in."""
    if isinstance(x0, PointValues):        # an operating point's states, in the model's order
        return x0.vector.copy()
    names, values = list(x0), list(x0.values())
    if names == model.states:
        # Every state, in the model's order and by its own name (an operating point's states,
        # a SPICE deck's initial state of 5,000 capacitors): one vector, no name lookups.
        if all(type(value) is float for value in values):    # checked as one array
            x = np.array(values, dtype=float)
            bad = np.flatnonzero(~np.isfinite(x))
            if bad.size:
                _check_x0_value(names[bad[0]], values[bad[0]])
            return x
        return np.array([_x0_number(model, name, value) for name, value in zip(names, values)], dtype=float)
    x = x.copy()
    state_pos = {int(pos): i for i, pos in enumerate(model.system.state_pos)}
    for name, value in x0.items():
        pos, sign = model.variable(name)
        if pos not in state_pos:
            states = ", ".join(model.states[:10]) if model.states else "none (it is purely algebraic)"
            raise PhyslibError(f"x0: {name} is not a state of {model.name}; its states: {states}")
        value = _x0_number(model, name, value)
        x[state_pos[pos]] = sign * float(value)
    return x


def _x0_number(model, name, value):
    """An initial value given in x0: a number, or a quantity converted to the state's unit."""
    if not isinstance(value, numbers.Real):
        number = quantity_value(value, model.unit(name), f"x0: the initial value of {name}")
        value = value if number is None else number
    _check_x0_value(name, value)
    return value


def _check_x0_value(name, value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise PhyslibError(f"x0: the initial value of {name} must be a finite number, got {value!r}")


def guessed_algebraic(model, z, guess: dict) -> np.ndarray:
    """The start values ``z`` of the algebraic variables with ``guess`` ({path: value}, e.g. an
    operating point's ``op.algebraic``) put in: where the solve of the start begins. Every
    algebraic variable by its own name in the model's order (an operating point's): one
    vector, no name lookups."""
    if isinstance(guess, PointValues):     # an operating point's algebraic variables
        return guess.vector.copy()
    names, values = list(guess), list(guess.values())
    if names == model.algebraic:
        return np.array(values, dtype=float)
    z = z.copy()
    alg_pos = {int(pos): i for i, pos in enumerate(model.system.z_pos)}
    for name, value in guess.items():
        pos, sign = model.variable(name)        # an unknown name: an error suggesting near ones
        if pos not in alg_pos:
            raise PhyslibError(f"z_guess: {name} is not an algebraic variable of {model.name} "
                               f"(its algebraic variables: {', '.join(model.algebraic[:10])})")
        z[alg_pos[pos]] = sign * float(value)
    return z


class StartValueWarning(UserWarning):
    """A start value given explicitly was replaced by the value the constraints require."""


def check_initial_state(model, x, z, p, t, *, initial: str = "strict") -> None:
    """Raise (or, with ``initial="relaxed"``, warn) when the consistent state at ``t`` does not
    honour explicitly given start values; raise when any variable is not finite there."""
    system = model.system
    check_finite(model, x, z, p, t)
    if not system.start_check_info:
        return
    requested, reached = (np.asarray(v).ravel() for v in system.start_check(x, z, p, t))
    # The consistent state comes from a Newton solve converged to ~1e-12 relative: anything
    # beyond 1e-9 of the value's scale is a real conflict, not rounding.
    off = np.flatnonzero(np.abs(reached - requested) > 1e-9 * (1.0 + np.abs(requested)))
    if not len(off):
        return
    lines = []
    for i in off.tolist():
        variable, (given, reason) = system.start_check_info[i]
        unit = model.unit(variable)
        lines.append(f"{variable} was given {requested[i]:.6g} {unit} ({given}) but starts at "
                     f"{reached[i]:.6g} {unit}: {reason}")
    if initial == "relaxed":
        warnings.warn("start values adjusted to the constraints at t = %g s:\n  " % t + "\n  ".join(lines),
                      StartValueWarning, stacklevel=4)
        return
    raise InitializationError(
        "start values given explicitly cannot be honoured at t = %g s:\n  " % t + "\n  ".join(lines)
        + "\nGive consistent values, drop the start value of the constrained component, or "
          "simulate(..., initial='relaxed') to start from the consistent values with a warning")


def check_finite(model, x, z, p, t, when: str = "at the start") -> None:
    """Every variable must be finite at a run's start and at an operating point: a division by
    zero in an explicitly solved equation (a loop whose resistances cancel, a mode whose
    coefficient is zero) is reported with the equation, never as inf."""
    system = model.system
    bad = _non_finite(model, x, z, p, t)
    if not len(bad):
        return
    # The first block (in evaluation order) that produced a non-finite value is the culprit;
    # later ones only inherit it.
    blocks = system.defining_block[bad]
    first = bad[blocks == blocks[blocks >= 0].min()] if np.any(blocks >= 0) else bad
    names = [system.position_names[i] for i in bad[:8]]
    equations = sorted({system.describe_equation(int(system.defining_equation[i]))
                        for i in first if system.defining_equation[i] >= 0})
    raise InitializationError(
        f"{', '.join(names)}{' ...' if len(bad) > 8 else ''} not finite at t = {t:g} s "
        f"(numerically singular equations {when}). First failing: "
        + ("; ".join(equations[:4]) if equations else ", ".join(names[:4]))
        + ". Check the parameters of these components (a loop whose coefficients cancel)")


# positions from which the check asks the compiled model's finiteness guard first
# (physlib.assembly.finiteness): below, the function of every position is small, and its
# runs' rows read it anyway
GUARDED_FROM = 100_000


def _non_finite(model, x, z, p, t) -> np.ndarray:
    """The positions whose values at (x, z, p, t) are not finite, by the function of every
    position (``outputs``), for a run's start or an operating point.

    A model of ``GUARDED_FROM`` positions or more without modes asks its finiteness guard
    first (:mod:`physlib.assembly.finiteness`): where its parameters show that every value
    is finite at the point, no value is evaluated (a million-element ladder: 0.8 s and 460 MB
    of peak memory saved). Otherwise the function of every position decides.

    A large model without modes lets that function go once it has answered: nothing else
    its run needs it (a hybrid model's event iteration reads every output; an operating
    point computes its values when they are first read, which a transient started from it or
    a linearization at it never does), and a million-element ladder's kept 280 MB (its
    algorithm and call buffers) beside the transient's solver for this one check. A later
    check at the same point (the same x, z, p and t: a transient from an operating point) is
    not made again; at another one, the function is made again (0.6 s at a million
    elements)."""
    system = model.system
    if system.output_function is not None or model.has_modes or "output_sx" not in system.cache:
        return np.flatnonzero(~np.isfinite(fast(system, "outputs")(x, z, p, t)))
    checked = system.cache.get("finite_point")
    if checked is not None and checked[0] == t and all(map(np.array_equal, checked[1:], (x, z, p))):
        return np.zeros(0, dtype=np.int64)
    guard = system.finite_guard
    if guard is not None and system.n_positions >= GUARDED_FROM and guard.holds(x, z, p, t):
        bad = np.zeros(0, dtype=np.int64)
    else:
        outputs = system.outputs
        if outputs.n_instructions() < LARGE:
            return np.flatnonzero(~np.isfinite(fast(system, "outputs")(x, z, p, t)))
        bad = np.flatnonzero(~np.isfinite(FastFunction(outputs)(x, z, p, t)))
        system.output_function = None
        release_free_memory()
    if not len(bad):
        system.cache["finite_point"] = (float(t), *(np.array(v, dtype=float) for v in (x, z, p)))
    return bad
