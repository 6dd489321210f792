"""The parameters a sensitivity is taken with respect to, and how the parameter vector and the
initial state depend on them.

A parameter θ is named by

* a parameter path (``"R1.R"``, ``"C1.v0"`` an initial value, ``"step.t0"`` a waveform's time,
  ``"pwm.duty"``): one entry of the compiled model's parameter vector p;
* a model parameter (:meth:`physlib.Model.parameter`): the entries given as expressions of it
  move with it (their derivatives by a five-point difference of the expressions, which are
  sums, products, quotients and powers: exact to about 1e-12 relative);
* a state path (``"C1.v"``): the state's initial value itself, as ``x0={"C1.v": ...}`` sets it.

Only a few entries of p can depend on θ: the parameters named, the entries computed from the
model parameters named, and the discrete variables of sampled blocks (which take values of the
solution at their sample instants). Those entries are the *varying* entries V, and P = dp_V/dθ
(|V| × Nθ) is carried along the run; between events it is constant.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from ...core.errors import SensitivityError
from .fast_call import fast
from .hybrid_components import hybrid_instances

FIVE_POINT = (np.array([-2.0, -1.0, 1.0, 2.0]), np.array([1.0, -8.0, 8.0, -1.0]) / 12.0)
RELATIVE_STEP = 1e-3        # of a model parameter's value, for the five-point difference


@dataclass
class Parameters:
    """The parameters θ of one sensitivity run.

    ``names``: as given; ``values``: their values in the run; ``scale``: |value| (1 where it is
    zero), by which each direction is integrated (θ·∂x/∂θ has the unit of x, so the solver's
    tolerances fit it whatever the size of θ: a diode's IS of 1e-14 A); ``varying``: the
    entries V of the parameter vector that can depend on θ; ``P0``: dp_V/dθ at the start
    (|V| × Nθ, unscaled); ``initial``: {column: (state index, sign)} for θ that are initial
    values of states."""

    names: list[str]
    values: np.ndarray
    scale: np.ndarray
    varying: np.ndarray
    P0: np.ndarray
    initial: dict

    @property
    def count(self) -> int:
        return len(self.names)

    def start_sensitivity(self, model, p, t0, x0_given) -> np.ndarray:
        """∂x(t0)/∂θ (nx × Nθ, unscaled) before the start's event iteration: the start values'
        derivatives (``system.start``), zero for states given in ``x0``, one for θ that are the
        initial values themselves."""
        system = model.system
        nx, rows = len(system.state_pos), self.varying.tolist()

        def build():
            # the varying columns alone: a dense copy of all of them took 2 ms for a 100-stage
            # ladder, a fifth of its sensitivity run by one parameter
            import casadi as cs
            ps, ts = cs.SX.sym("p", system.start.size1_in(0)), cs.SX.sym("t")
            return cs.Function("start_jacobian", [ps, ts], [cs.densify(cs.jacobian(system.start(ps, ts)[0], ps[rows]))])
        if rows:
            jacobian = fast(system, ("sensitivity_start", tuple(rows)), build)(p, t0).reshape(len(rows), nx).T
            S = jacobian @ self.P0
        else:
            S = np.zeros((nx, self.count))
        states = {int(pos): i for i, pos in enumerate(system.state_pos)}
        for name in x0_given:
            pos, _ = model.variable(name)
            S[states[pos], :] = 0.0
        for column, (row, sign) in self.initial.items():
            S[row, column] = sign
        return S


def resolve(model, names, p, params: dict) -> Parameters:
    """The :class:`Parameters` named ``names`` in a run with parameter vector p (set from
    ``params``, the run's own {path: value})."""
    if isinstance(names, str) or not names:
        raise SensitivityError("params must be a non-empty list of parameter paths, model parameters "
                               f"or state paths (initial values), e.g. params=['R1.R', 'C1.C']; got {names!r}")
    names = list(names)
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise SensitivityError(f"params names {', '.join(repeated)} more than once")
    direct: dict[int, int] = {}          # slot -> column
    derived: dict[int, np.ndarray] = {}  # slot -> row of dp_slot/dθ
    initial, values = {}, []
    states = model.states
    for column, name in enumerate(names):
        if not isinstance(name, str):
            raise SensitivityError(f"params: {name!r} is not a path; give names such as 'R1.R'")
        if model.has_parameter(name):
            slot = model.parameter_slot(name)
            direct[slot] = column
            values.append(float(p[slot]))
        elif name in model.model_parameters:
            for slot, derivative in _model_parameter_derivatives(model, name, p, params).items():
                derived.setdefault(slot, np.zeros(len(names)))[column] = derivative
            values.append(float(params.get(name, model.model_parameters[name])))
        elif name in states:
            pos, sign = model.variable(name)
            row = int(np.flatnonzero(model.system.state_pos == pos)[0])
            initial[column] = (row, sign)
            values.append(np.nan)        # filled in by the run from its start
        else:
            raise SensitivityError(_unknown(model, name))
    discrete = sorted({slot for inst in hybrid_instances(model) for slot in inst.discrete_slot.values()})
    varying = np.array(sorted(set(direct) | set(derived) | set(discrete)), dtype=int)
    P0 = np.zeros((len(varying), len(names)))
    for row, slot in enumerate(varying.tolist()):
        # an entry computed from a model parameter and also named itself moves with both: its
        # own column is the partial derivative, the model parameter's the total one through it
        if slot in derived:
            P0[row] = derived[slot]
        if slot in direct:
            P0[row, direct[slot]] = 1.0
    values = np.array(values)
    return Parameters(names, values, _scale(values), varying, P0, initial)


def with_initial_values(parameters: Parameters, x0: np.ndarray) -> Parameters:
    """``parameters`` with the values (and scales) of the initial-value parameters from the
    run's start state x0."""
    values = parameters.values.copy()
    for column, (row, sign) in parameters.initial.items():
        values[column] = sign * x0[row]
    parameters.values, parameters.scale = values, _scale(values)
    return parameters


def _scale(values):
    scale = np.abs(values)
    return np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)


def _model_parameter_derivatives(model, name, p, params) -> dict:
    """{slot: d p[slot] / d name} for the entries computed from model parameter ``name``."""
    value = float(params.get(name, model.model_parameters[name]))
    h = RELATIVE_STEP * (abs(value) if value else 1.0)
    offsets, weights = FIVE_POINT
    total = np.zeros_like(p)
    for offset, weight in zip(offsets, weights):
        total += weight * model.parameter_vector({**params, name: value + offset * h})
    derivative = total / h
    return {int(slot): float(derivative[slot]) for slot in np.flatnonzero(derivative)}


def _unknown(model, name: str) -> str:
    if model.mode_slot(name) is not None:
        return f"{name} is a mode; modes change only at events and have no sensitivity"
    model.refuse_structural(name)     # named as such, not as unknown
    known = [*model.parameters, *model.model_parameters, *model.states]
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return (f"unknown parameter {name!r} for a sensitivity: give a parameter path ('R1.R'), a model "
            f"parameter, or a state path ('C1.v') for its initial value{hint}")
