"""The scalar objectives whose gradient ``sim.gradient`` takes by the adjoint method: a function
of sampled outputs (:func:`sum_of_squares` makes the usual one), an integral over the run
(:func:`integral`) and a value at an event (:func:`at_event`); and the :class:`Gradient` it
returns."""
from __future__ import annotations

from dataclasses import dataclass

import casadi as cs
import numpy as np


@dataclass
class Gradient:
    """``value``: the objective; ``gradient``: {parameter: ∂objective/∂parameter}."""

    value: float
    gradient: dict

    def __getitem__(self, name):
        return self.gradient[name]


def sum_of_squares(data: dict, weights: dict | None = None):
    """The objective Σ w·(y(t_i) − data_i)² over the sample times, ``data`` {path: values at
    them}, ``weights`` {path: w} (default 1): a function of {path: y at the samples} returning
    (value, {path: ∂value/∂y})."""
    def objective(values):
        total, slopes = 0.0, {}
        for path, target in data.items():
            w = 1.0 if weights is None else weights.get(path, 1.0)
            error = np.asarray(values[path]) - np.asarray(target)
            total += float(np.sum(w * error ** 2))
            slopes[path] = 2 * w * error
        return total, slopes
    objective.paths = list(data)
    return objective


class Integral:
    """The objective ∫ g dt over the run, g = ``integrand({path: y})`` of the variables
    ``paths`` (each a CasADi symbol: write g with operators and casadi's functions, e.g.
    ``lambda y: y["R1.i"] ** 2``). Its adjoint source is g's derivative, integrated backward
    with the states; an event whose instant moves with θ moves the integral by the jump of g
    across it times that motion."""

    def __init__(self, integrand, paths):
        self.integrand, self.paths = integrand, list(paths)

    def function(self, model) -> cs.Function:
        """(x, z, p, t) -> g."""
        x, z, p, t = model.system.symbols(cs.SX)
        y = model.system.outputs(x, z, p, t)
        values = {}
        for path in self.paths:
            pos, sign = model.variable(path)
            values[path] = sign * y[pos]
        return cs.Function("integrand", [x, z, p, t], [cs.SX(self.integrand(values))])


def integral(integrand, paths) -> Integral:
    """The objective ∫ integrand({path: y}) dt from t0 to t_end (:class:`Integral`), e.g. the energy
    a resistor dissipates, ``integral(lambda y: 1e3 * y["R1.i"] ** 2, ["R1.i"])``."""
    return Integral(integrand, paths)


@dataclass
class AtEvent:
    """The objective: the instant of the ``occurrence``-th mode change of ``component`` (1 the
    first), or with ``path`` that variable just after it."""

    component: str
    occurrence: int = 1
    path: str | None = None

    @property
    def paths(self):
        return [] if self.path is None else [self.path]


def at_event(component: str, occurrence: int = 1, path: str | None = None) -> AtEvent:
    """The objective: the time [s] of the ``occurrence``-th mode change of ``component`` (a
    clutch's lock, a diode's turn-on), or the variable ``path`` just after it."""
    return AtEvent(component, occurrence, path)
