"""Inputs of a compiled model, reached through its parameter vector.

An input is a source value given as a number (a parameter named like the input, ``"src.V"``)
or a signal driven by a waveform (``VoltageSource("src", V=Step(...))`` makes ``"src.V"`` one):
then a parameter of the waveform that moves its value — its offset, preferably — stands for
it, with the gain ∂u/∂p. Operating points set inputs this way, linearization perturbs them,
and source stepping scales all source values together.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ...core.errors import PhyslibError, UnknownNameError

# Names of waveform parameters that shift the waveform's value additively (source stepping and
# the perturbation of waveform-driven inputs use them first).
ADDITIVE = ("offset", "k", "height", "amplitude")


def parameter_slot(model, name) -> int | None:
    """The slot of parameter ``name`` in the parameter vector, None if it is not a parameter.
    Checked first (:meth:`~physlib.assembly.compiled.CompiledModel.has_parameter`, a lookup),
    so that a name that is not one costs no error message with suggestions (a string
    comparison against every parameter: 0.2 s at 15 000 parameters)."""
    return model.parameter_slot(name) if model.has_parameter(name) else None


def _parameter_names(model) -> tuple[tuple, frozenset]:
    """The parameter names in order and as a set (made once per compiled model: the
    ``parameters`` dict of a 10 000-element circuit takes 35 ms to build)."""
    cache = model.system.cache
    if "parameter_names" not in cache:
        ordered = tuple(model.parameters)
        cache["parameter_names"] = ordered, frozenset(ordered)
    return cache["parameter_names"]


def input_names(model) -> list[str]:
    """Paths usable as inputs: source values given as numbers (parameters named like the input,
    ``"src.V"``) and inputs driven by a waveform (``"src.V"`` with ``V=Step(...)``)."""
    names = [n for n in model.parameters if model.has_variable(n)]
    driven = {n.rsplit(".", 1)[0] for n in model.parameters
              if "." in n and model.has_variable(n.rsplit(".", 1)[0])}
    return sorted(set(names) | driven)


def resolve_input(model, name: str, p: np.ndarray, t: float) -> tuple[int, float]:
    """(parameter slot, gain): how input ``name`` is perturbed through the parameter vector.

    ``name`` is a parameter path (a source value given as a number, ``"src.V"``, or any other
    parameter such as ``"R1.R"``): gain 1. Or it is a signal variable driven by a waveform
    (``VoltageSource("src", V=Step(...))`` makes ``"src.V"`` one): a parameter of that waveform
    that moves its value (its offset, preferably) is perturbed, and gain = ∂u/∂p there. Since
    a waveform's parameters enter the model only through its value, ∂F/∂u = (∂F/∂p)/gain
    exactly.
    """
    slot = parameter_slot(model, name)
    if slot is not None:
        return slot, 1.0
    if not model.has_variable(name):
        model.refuse_structural(name)     # named as such, not as unknown
        raise UnknownNameError(
            f"unknown input {name!r}; inputs are source values or parameters — valid inputs: "
            f"{', '.join(input_names(model)) or '(none)'}; parameters: {', '.join(list(model.parameters)[:20])}")
    pos, sign = model.variable(name)
    prefix = name + "."
    # The additive ones first, looked up by name; the waveform's other parameters only if none
    # of those moves the value (finding them scans every parameter name).
    additive = [prefix + a for a in ADDITIVE if model.has_parameter(prefix + a)]
    for group in (additive, None):
        if group is None:
            group = [n for n in _parameter_names(model)[0]
                     if n.startswith(prefix) and "." not in n[len(prefix):] and n not in additive]
        for cand in group:
            slot = model.parameter_slot(cand)
            gain = sign * _output_derivative(model, pos, slot, p, t)
            if gain != 0.0:
                return slot, float(gain)
    raise PhyslibError(
        f"{name} is not an input that can be perturbed: it is neither a source value given as a "
        "number nor driven by a waveform with a parameter that moves it (it may be computed by "
        f"the model, e.g. a signal in a feedback loop). Valid inputs: {', '.join(input_names(model)) or '(none)'}")


def _output_derivative(model, pos, slot, p, t) -> float:
    """∂(output at position ``pos``)/∂p[slot] at (p, t): the derivative by one parameter, whose
    function reads the few symbols the output does (by all 15,000 parameters of a
    10,000-element circuit it took 9 ms)."""
    system = model.system
    key = ("op_output_derivative", int(pos), int(slot))
    if key not in system.cache:
        d = system.dae_dict()
        row = system.output_expressions()[int(pos)]
        system.cache[key] = cs.Function("du_dp", [d["p"], d["t"]], [cs.jacobian(row, d["p"][int(slot)])])
    return float(system.cache[key](p, t))


def set_inputs(model, p, t, inputs):
    """Apply ``inputs`` ({path: value}) to the parameter vector ``p`` (in place)."""
    for name, value in (inputs or {}).items():
        slot, gain = resolve_input(model, name, p, t)
        if gain == 1.0 and parameter_slot(model, name) is not None:
            p[slot] = float(value)
            continue
        pos, sign = model.variable(name)
        for _ in range(4):   # waveforms are affine in their offset: one step is exact
            current = sign * _evaluate_output(model, pos, p, t)
            if abs(current - value) <= 1e-14 * (1 + abs(value)):
                break
            p[slot] += (value - current) / gain
    return p


def _evaluate_output(model, pos, p, t):
    system = model.system
    x, z = system.start(p, t)
    return float(np.asarray(system.outputs(x, z, p, t)).ravel()[pos])


def source_slots(model) -> np.ndarray:
    """Parameter slots of source values (numbers given to inputs, and additive parameters of
    waveforms driving inputs): scaled together for source stepping."""
    slots = []
    for name in model.parameters:
        head, _, tail = name.rpartition(".")
        if model.has_variable(name) or (tail in ADDITIVE and model.has_variable(head)):
            slots.append(model.parameter_slot(name))
    return np.array(sorted(set(slots)), dtype=int)


def rate_input_reason(model, name: str) -> str | None:
    """Why the response to input ``name`` needs its rate, or None: index reduction
    differentiated its value (the value given to it, or its waveform at that path), so an ideal
    source fixes the current of an inductor or the voltage of a capacitor (a cut-set of current
    sources and inductors, a loop of voltage sources and capacitors) and the response has s·u
    terms (s·L, s·C) that a linear model of u cannot carry."""
    system = model.system
    own = f"the value given to input {name}"
    if not any(e == own or e.partition(": ")[0].endswith(" " + name) for e in system.differentiated):
        return None
    fixed = ", ".join(system.dummy_states[:4]) + (", ..." if len(system.dummy_states) > 4 else "")
    return (f"the input {name} drives a state directly ({fixed} fixed by constraints: an ideal source "
            "across a capacitor or feeding an inductor alone), so its response has terms in s·u (the "
            "capacitor's s·C, the inductor's s·L) that a linear model of u leaves out: it gives the gain at "
            "zero frequency only (dcgain). For other frequencies give the source an internal impedance (a "
            "resistance in series with a voltage source, in parallel with a current source)")
