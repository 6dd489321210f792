"""Results of the SPICE analyses, indexed by ngspice's vector names.

``res["v(out)"]``, ``res["v(x1.mid)"]`` (a node inside subcircuit instance x1),
``res["v(a,b)"]`` (the difference), ``res["i(v1)"]`` (the current through V source v1 from its +
node through it to its − node, as ngspice's ``v1#branch``; also of any other two-terminal
element, ``i(r1)``), and the scale by its ngspice name (``time``, ``frequency``, ``v-sweep``,
``i-sweep``). Names are case-insensitive. ``.op`` values are floats, the others NumPy arrays
(complex for ``.ac``). Analyses whose vectors are not node voltages or currents name them as
ngspice does: ``.noise`` ``onoise_spectrum``, ``inoise_spectrum``, ``onoise_r1``,
``onoise_d1_id``, ``onoise_total``, …; ``.pz`` ``pole(1)``, ``zero(1)``, …; ``.tf``
``transfer_function``, ``v1#input_impedance``, ``output_impedance_at_v(out)``; ``.sens`` ``r1``,
``v1``, ``d1:is``, …; ``.four`` (scale ``frequency``) ``magnitude(v(out))``, ``phase(v(out))``,
``norm_magnitude(v(out))``, ``norm_phase(v(out))``, ``thd(v(out))``.
"""
from __future__ import annotations

import csv
import re
from functools import cached_property

import numpy as np

from ..core.errors import UnknownNameError

__all__ = ["SpiceResult", "CircuitVectors"]

_VECTOR = re.compile(r"\s*([vi])\s*\(\s*([^,\s)]+)\s*(?:,\s*([^,\s)]+)\s*)?\)\s*$", re.I)


class CircuitVectors:
    """What a deck's results read their node voltages and element currents from: ``nodes``
    (node name → a pin path, None for ground), ``currents`` (element path → True for an
    independent source; every element with a current, not the subcircuit instances) and
    ``names``, the circuit's vectors as ngspice prints them (``v(node)``, then ``i(source)``).
    Shared by a deck's results; ``currents`` and ``names`` are made on first use from
    ``elements`` (path → card, the instances included) and ``sources`` (path → source): a
    million-element deck's take a second, and a run that reads v(n2) needs neither."""

    def __init__(self, nodes: dict, elements: dict, sources: dict):
        self.nodes, self._elements, self._sources = nodes, elements, sources

    @cached_property
    def currents(self) -> dict:
        # every element but the subcircuit instances (x1, x1.x2), in deck order, then the sources marked
        currents = dict.fromkeys((path for path in self._elements if path[path.rfind(".") + 1] != "x"), False)
        currents.update((path, True) for path in self._sources if path in currents)
        return currents

    @cached_property
    def names(self) -> list[str]:
        nodes = self.nodes
        return [f"v({n})" for n in nodes if nodes[n]] + [f"i({e})" for e, source in self.currents.items() if source]


NO_CIRCUIT = CircuitVectors({}, {}, {})     # results with only their own vectors (.four, const)


class SpiceResult:
    """One analysis' vectors. ``kind`` ("op", "dc", "tran", "ac", "noise", "pz", "tf", "sens",
    "four"), ``scale`` (its name, None for .op, .pz, .tf and .sens), ``names`` (every vector ngspice would print: node
    voltages and source currents, or the analysis' own vectors), ``raw`` (the physlib result it
    was read from: OperatingPoint(s), SimulationResult, LinearModel or NoiseResult)."""

    def __init__(self, kind: str, scale: str | None, scale_values, read, circuit: CircuitVectors, raw,
                 vectors: dict | None = None):
        self.kind, self.scale, self.raw = kind, scale, raw
        self._scale_values = scale_values
        self._read = read                 # variable path -> values
        self._nodes = circuit.nodes       # node name -> pin path (None: ground)
        self._circuit = circuit
        self._vectors = {k.lower(): v for k, v in (vectors or {}).items()}   # ngspice name -> value
        self._own = list(self._vectors)   # the analysis' own vectors, before any let()
        self._names: list[str] | None = None     # made on first use: see names
        self._added: list[str] = []       # let() before that

    @property
    def names(self) -> list[str]:
        """Every vector's name: the scale, the analysis' own vectors, the circuit's (node
        voltages, source currents), then those let() added."""
        if self._names is None:
            circuit = self._circuit.names if self._read is not None else []
            self._names = ([self.scale] if self.scale else []) + self._own + circuit + self._added
        return self._names

    @property
    def _currents(self) -> dict:
        """Element path -> True if a source."""
        return self._circuit.currents

    def _voltage(self, node: str):
        node = node.lower()
        if node in ("0", "gnd"):
            return 0.0 * self._zero()
        if node not in self._nodes:
            raise UnknownNameError(f"no node {node!r}; nodes: {', '.join(sorted(self._nodes))}")
        path = self._nodes[node]
        return 0.0 * self._zero() if path is None else self._read(path + ".v")

    def _zero(self):
        return 0.0 if self._scale_values is None else np.zeros(len(self._scale_values))

    def __getitem__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"vectors are read by name (one of {', '.join(self.names[:6])}, ...), "
                            f"not by {type(name).__name__}")
        key = name.strip().lower()
        if self.scale and key == self.scale:
            return self._scale_values
        if key in self._vectors:
            return self._vectors[key]
        match = _VECTOR.match(key) if self._read is not None else None
        if not match:
            raise UnknownNameError(f"{name!r} is not a vector of this .{self.kind}; its "
                                   f"vectors: {', '.join(self.names[:12])}"
                                   f"{', ...' if len(self.names) > 12 else ''}")
        kind, first, second = match.groups()
        if kind == "v":
            value = self._voltage(first)
            return value - self._voltage(second) if second else value
        if not second and first not in self._currents:
            first = _ngspice_element(first)
        if second or first not in self._currents:
            raise UnknownNameError(f"no element {first!r} with a current; elements: "
                                   f"{', '.join(sorted(self._currents))}")
        return self._read(first + ".i")

    def let(self, name: str, value):
        """Add (or replace) the vector ``name``: a ``.control`` script's ``let`` and ``meas``."""
        key = name.lower()
        if key not in self._vectors:
            (self._added if self._names is None else self._names).append(key)
        self._vectors[key] = value

    def __contains__(self, name: str) -> bool:
        try:
            self[name]
        except (UnknownNameError, KeyError):
            return False
        return True

    def __iter__(self):
        """The vector names, as a dict's keys: ``dict(result)`` and ``for name in result``."""
        return iter(list(self.names))

    def __len__(self) -> int:
        return len(self.names)

    def keys(self):
        return list(self.names)

    def items(self):
        return [(name, self[name]) for name in self.names]

    def __repr__(self):
        return f"<SpiceResult {self.kind}: {len(self.names)} vectors>"


def _ngspice_element(name: str) -> str:
    """An element inside subcircuits as ngspice-39 names its branch, ``e.xa.e1`` (the element's
    letter, then its path), as the path ``xa.e1``; other names unchanged."""
    letter, _, path = name.partition(".")
    return path if len(letter) == 1 and "." in path and path.rsplit(".", 1)[-1][:1] == letter else name


def read_csv(path) -> dict:
    """A table of vectors in the layout ``python -m physlib.spice --csv`` writes (and the
    ngspice references of physlib's tests use): a header of vector names, then one row per
    point; a complex vector as two columns ``name.re`` and ``name.im``, joined here. Returns
    {name: NumPy array}."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    table = {key: np.array([float(row[k]) for row in rows[1:]]) for k, key in enumerate(rows[0])}
    for key in [k for k in table if k.endswith(".re")]:
        base = key[:-3]
        table[base] = table.pop(key) + 1j * table.pop(base + ".im")
    return table
