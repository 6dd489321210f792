"""``.dc``: operating points along one or two swept quantities, each an independent source's
DC value [V or A], a resistor's value [Ω] (its card's: m=, tc1=, … apply) or ``TEMP``, the
circuit temperature [°C], as ngspice-39 sweeps them: the
first one the inner loop, the second the outer (``.dc V1 0 5 0.1 V2 0 3 1`` gives every V1
point at V2 = 0, then every one at V2 = 1, …, in one vector per node, concatenated). Each
point starts its Newton from the one before. A temperature point recomputes every element
value that depends on the temperature (junction saturation currents, R's tc1/tc2, …) into
the compiled model's parameters: the model is compiled once."""
from __future__ import annotations

from contextlib import ExitStack

import numpy as np

from .alter import element_factor
from .errors import SpiceError
from .runs import dc_op, spice_result, source_settings

__all__ = ["run_dc", "run_at_temperatures", "TEMPERATURE"]

TEMPERATURE = "temp"          # ngspice's name for the circuit temperature in a .dc card


def _sweep_input(deck, name: str) -> str | None:
    """The compiled model's input a swept source or resistor sets, or None for TEMP."""
    if name == TEMPERATURE:
        return None
    sources = deck.sources
    if name in sources:
        return sources[name]["input"]
    if name in deck.elements and name.rsplit(".", 1)[-1][:1] == "r":
        return name + ".R"
    raise SpiceError(f".dc: no independent source or resistor {name!r} (sources: "
                     f"{', '.join(sources) or 'none'}; or a resistor, or TEMP)")


def _swept(deck, path: str, value) -> dict:
    """{input: its value} of a sweep's point: a resistance as the card's value, its m=, tc1=,
    … applied at the deck's temperature (ngspice-39's res-sweep)."""
    return {path: float(value) * (element_factor(deck, path) if path.endswith(".R") else 1.0)}


def run_dc(deck, sweeps, params):
    """``sweeps``: [(name, values)], the inner one first, then at most one outer one."""
    paths = [_sweep_input(deck, name) for name, _ in sweeps]
    inner_path, inner_values = paths[0], np.asarray(sweeps[0][1], dtype=float)
    outer = list(zip(*(sweeps[1][1], [paths[1]] * len(sweeps[1][1])))) if len(sweeps) > 1 \
        else [(None, None)]
    points, previous = [], None
    for outer_value, outer_path in outer:
        with ExitStack() as stack:
            inputs = {}
            if outer_value is not None:
                if outer_path is None:
                    stack.enter_context(deck.at_temperature(outer_value))
                else:
                    inputs.update(_swept(deck, outer_path, outer_value))
            settings = source_settings(deck, params) if inner_path is not None else None
            for value in inner_values:
                if inner_path is None:
                    with deck.at_temperature(value):
                        settings = source_settings(deck, params)
                        if outer_path is not None:    # a resistance's tc1 at this temperature
                            inputs.update(_swept(deck, outer_path, outer_value))
                        previous = dc_op(deck, settings, inputs, previous, params)
                else:
                    previous = dc_op(deck, settings, {**inputs, **_swept(deck, inner_path, value)},
                                     previous, params)
                points.append(previous)
    scale = "temp-sweep" if inner_path is None else {"V": "v-sweep", "I": "i-sweep",
                                                     "R": "res-sweep"}[inner_path[-1]]
    values = np.tile(inner_values, len(outer))
    return spice_result(deck, "dc", scale, values,
                   lambda name: np.array([op[name] for op in points]), points)


def run_at_temperatures(deck, params) -> dict:
    """Every analysis card of a deck whose ``.temp`` card lists several temperatures, at each
    of them in turn: ``{"op@0": …, "op@27": …}`` (each result's ``temperature`` [°C]) and the
    ``.meas`` values as ``"meas": {"name@0": …}``."""
    out = {}
    for celsius in deck.temperatures:
        with deck.at_temperature(celsius):
            for key, result in deck._run_cards({}, params).items():
                if key == "meas":
                    out.setdefault("meas", {}).update(
                        {f"{name}@{celsius:g}": value for name, value in result.items()})
                else:
                    result.temperature = celsius
                    out[f"{key}@{celsius:g}"] = result
    return out
