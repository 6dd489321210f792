"""``.tf`` and ``.sens``: small-signal DC quantities at the operating point, from physlib's
linearization of the deck's model there (the DC gains −C·A⁻¹·B + D of its linear model, the
inputs being sources' values or element parameters).

``.tf output src`` gives ngspice-39's three vectors: ``transfer_function`` (the output's
change per unit of the input source's value), ``<src>#input_impedance`` (seen by the source:
−1/(∂i(src)/∂V) for a V source, 1e20 when that derivative is below 1e-20 A/V; the voltage from
its + to its − node per ampere for an I source) and the output impedance:
``output_impedance_at_v(out[,ref])`` for a voltage output (the voltage per ampere injected
into out and drawn from ref, from a copy of the model with those currents injected, compiled
once per deck and output) or ``<vname>#output_impedance`` for the current of V source vname
(1/max(1e-20, ∂i(vname)/∂V(vname)) [Ω], ngspice's formula, so a source that delivers more
current as its voltage rises reads 1e20; the input impedance when vname is the input).
"""
from __future__ import annotations

import re

import numpy as np

from .errors import SpiceError
from .runs import dc_op, node_voltage, spice_result, source_settings, injected

__all__ = ["run_tf", "run_sens"]

OPEN = 1e20                     # ngspice's value for an impedance it finds infinite
TINY = 1e-20                    # ngspice's floor under a current derivative [A/V]
_OUTPUT = re.compile(r"\s*([vi])\s*\(\s*([^,\s)]+)\s*(?:,\s*([^,\s)]+)\s*)?\)\s*$", re.I)


def output_paths(deck, output: str, what: str) -> tuple[str, list, int]:
    """(kind "v" or "i", [the variables whose difference is the output], sign of the second)
    of ``v(out)``, ``v(out,ref)`` or ``i(vname)``."""
    match = _OUTPUT.match(output)
    if not match or (match.group(1).lower() == "i" and match.group(3)):
        raise SpiceError(f"{what} output {output!r}: give v(out), v(out,ref) or i(vname)")
    letter, first, second = match.group(1).lower(), match.group(2).lower(), match.group(3)
    if letter == "i":
        source = deck.sources.get(first)
        if source is None or not source["input"].endswith(".V"):
            names = [n for n, s in deck.sources.items() if s["input"].endswith(".V")]
            raise SpiceError(f"{what} output i({first}): name an independent V source (V "
                             f"sources: {', '.join(names) or 'none'})")
        return "i", [first + ".i"], 0
    paths = [node_voltage(deck, first, what), node_voltage(deck, second, what) if second else None]
    if paths == [None, None] or (second and first == second.lower()):
        raise SpiceError(f"{what} output {output}: give two different nodes, not both ground")
    return "v", paths, -1


def _difference(values: dict, paths: list) -> float:
    """values[paths[0]] − values[paths[1]] (a None path is ground)."""
    first = values[paths[0]] if paths[0] else 0.0
    return float(first - (values[paths[1]] if len(paths) > 1 and paths[1] else 0.0))


def _input_source(deck, src: str) -> dict:
    if src not in deck.sources:
        raise SpiceError(f".tf: no independent source {src!r} (sources: "
                         f"{', '.join(deck.sources) or 'none'})")
    return deck.sources[src]


def run_tf(deck, output, src, params):
    source = _input_source(deck, src)
    letter, paths, _ = output_paths(deck, output, ".tf")
    is_voltage = source["input"].endswith(".V")
    port = [src + ".i"] if is_voltage else [src + ".p.v", src + ".n.v"]
    settings = source_settings(deck, params)
    op = dc_op(deck, settings, params=params)
    sim = deck.compile()
    outputs = list(dict.fromkeys([p for p in paths if p] + port))
    inputs = [source["input"]] + ([deck.sources[output[2:-1]]["input"]] if letter == "i" else [])
    gains = sim.linearize(inputs, outputs, at=op, descriptor="auto").dcgain()
    column = dict(zip(outputs, gains[:, 0]))
    transfer = _difference(column, paths)
    if is_voltage:
        d_current = column[port[0]]
        z_in = OPEN if abs(d_current) < TINY else -1.0 / float(d_current)
    else:
        z_in = float(column[port[1]] - column[port[0]])
    vectors = {"transfer_function": transfer}
    if letter == "i":
        name = output[2:-1]
        z_out = z_in if name == src else 1.0 / max(TINY, float(gains[outputs.index(paths[0]), 1]))
        vectors.update(sorted({f"{src}#input_impedance": z_in,
                               f"{name}#output_impedance": z_out}.items()))
    else:
        z_out = _output_impedance(deck, paths, settings, op)
        vectors.update(sorted({f"{src}#input_impedance": z_in,
                               f"output_impedance_at_{output}": z_out}.items()))
    return spice_result(deck, "tf", None, None, None, op, vectors)


def _output_impedance(deck, paths, settings, op) -> float:
    """The voltage between the output nodes per ampere injected into the first and drawn
    from the second, every independent source held at its value."""
    pins = tuple(p[:-2] for p in paths if p)
    sim, currents = injected(deck, pins)
    p, inputs = settings
    guess = {}
    for group, names in (("x_guess", sim.states), ("z_guess", sim.algebraic)):
        guess[group] = {n: op[n] for n in names if _known(op, n)}
    point = sim.operating_point(t=0.0, params=p, inputs=inputs, **guess)
    outputs = [p + ".v" for p in pins]
    gains = sim.linearize(currents, outputs, at=point, descriptor="auto").dcgain()
    # the response of (v_out − v_ref) to +1 A into out and −1 A into ref
    signs = np.array([1.0, -1.0][:len(pins)]) if paths[0] else np.array([-1.0])
    return float(signs @ gains @ signs)


def _known(point, name: str) -> bool:
    try:
        point[name]
    except (KeyError, ValueError, LookupError):
        return False
    return True


# ngspice's names of the controlled sources' gains in its sensitivity list
GAINS = {"e": "gain", "g": "gm", "f": "gain", "h": "r"}


def _model_keywords() -> dict:
    """{element letter: {physlib parameter: ngspice's .model keyword}} (the first alias)."""
    from .bjt import BJT_PARAMETERS
    from .devices import DIODE_PARAMETERS
    from .jfet import JFET_PARAMETERS
    from .mosfet import MOSFET_PARAMETERS
    out = {}
    for letter, table in (("d", DIODE_PARAMETERS), ("q", BJT_PARAMETERS),
                          ("j", JFET_PARAMETERS), ("m", MOSFET_PARAMETERS)):
        out[letter] = {}
        for keyword, target in table.items():
            out[letter].setdefault(target, keyword)
    return out


def sensitivity_names(deck) -> dict:
    """{ngspice's name of a DC sensitivity: the compiled model's input or parameter path}
    for every parameter of the deck physlib can differentiate and ngspice-39 lists: a
    resistor's resistance (``r1``), an independent source's DC value (``v1``), a
    controlled source's gain (``e1_gain``), a device's .model parameters given on its card
    (``d1:is``), its temperature (``d1_temp``) and nominal temperature (``d1:tnom``)."""
    keywords, out = _model_keywords(), {}
    for name, source in deck.sources.items():
        out[_element_name(name)] = source["input"]
    for path in deck._builder.bindings:
        element, _, param = path.rpartition(".")
        if element not in deck.elements:
            continue
        letter, label = element.rsplit(".", 1)[-1][0], _element_name(element)
        if letter == "r" and param == "R":
            out[label] = path
        elif GAINS.get(letter) == param:
            out[f"{label}_gain"] = path
        elif letter in keywords and param in ("T", "TNOM"):
            out[f"{label}_temp" if param == "T" else f"{label}:tnom"] = path
        elif letter in keywords and param in keywords[letter]:
            out[f"{label}:{keywords[letter][param]}"] = path
    return dict(sorted(out.items()))


def _element_name(path: str) -> str:
    """ngspice's instance name: ``r1``, or ``r.x1.r1`` inside subcircuit instance x1."""
    return f"{path.rsplit('.', 1)[-1][0]}.{path}" if "." in path else path


def run_sens(deck, output, params):
    """∂output/∂p [output unit per parameter unit] of every parameter of
    :func:`sensitivity_names`, at the DC operating point; ``relative`` holds p·∂output/∂p."""
    letter, paths, _ = output_paths(deck, output, ".sens")
    op = dc_op(deck, source_settings(deck, params), params=params)
    names = sensitivity_names(deck)
    outputs = [p for p in paths if p]
    gains = deck.compile().linearize(list(names.values()), outputs, at=op, descriptor="auto").dcgain()
    rows = dict(zip(outputs, gains))
    derivative = rows[paths[0]] - rows[paths[1]] if len(paths) > 1 and paths[1] else \
        (rows[paths[0]] if paths[0] else -rows[paths[1]])
    vectors = {name: float(d) for name, d in zip(names, derivative)}
    result = spice_result(deck, "sens", None, None, None, op, vectors)
    sim = deck.compile()
    result.relative = {name: vectors[name] * float(
        op.p[sim.parameter_slot(path)] if sim.has_parameter(path) else op[path])
        for name, path in names.items()}
    return result
