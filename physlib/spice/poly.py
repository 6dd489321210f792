"""SPICE's polynomial controlled sources: ``POLY(n)`` on E, G, F and H.

``Ename n+ n- POLY(n) nc1+ nc1- … ncn+ ncn- p0 p1 …`` (and G, with the node pairs also written
``(nc+,nc-)``) or ``Fname n+ n- POLY(n) vname1 … vnamen p0 p1 …`` (and H) give the output
(E: v(n+, n-); G, F: the current from n+ through the source to n-; H: v(n+, n-)) as the
polynomial of the n controlling voltages or currents x1 … xn in SPICE2's order, which
ngspice-39's spice2poly code model evaluates: the constant p0, the linear terms x1 … xn, then
each higher degree's products x_i·x_j·… with i ≤ j ≤ … in lexicographic order (for n = 2:
x1², x1·x2, x2², x1³, x1²·x2, x1·x2², x2³). As in ngspice-39 a single coefficient is the
constant p0 (SPICE2 and PSpice read POLY(1) with one coefficient as the gain p1: a warning).

The source is a :class:`~physlib.components.electrical.BehaviouralSource` whose coefficients
are its parameters k1 … (so ``params=`` of a ``.param`` they use needs no recompile), whose
sense pins read the controlling nodes and whose control inputs the controlling V sources'
currents.
"""
from __future__ import annotations

import itertools
import math

from ..components import electrical as el
from ..core.lazy import lazy_module
from .errors import SpiceError

sp = lazy_module("sympy")

__all__ = ["is_poly", "poly_source", "poly_sensed_sources"]

GROUND = ("0", "gnd")


def is_poly(tokens) -> bool:
    """Whether an E, G, F or H card's tokens are its POLY form."""
    return len(tokens) > 3 and tokens[3].lower() == "poly"


def _dimension(tokens, card) -> int:
    if len(tokens) < 5 or not tokens[4].isdigit() or int(tokens[4]) < 1:
        raise SpiceError("POLY takes its number of controlling inputs: POLY(n), n ≥ 1", card.where)
    return int(tokens[4])


def poly_sensed_sources(tokens) -> list[str]:
    """The controlling V sources named by an F or H POLY card (none when it is malformed)."""
    count = int(tokens[4]) if len(tokens) > 4 and tokens[4].isdigit() else 0
    return [token.lower() for token in tokens[5:5 + count]]


def monomials(inputs: int, count: int):
    """The first ``count`` products of SPICE2's POLY order over ``inputs`` inputs, each a tuple
    of input indices (``()`` is the constant)."""
    out, degree = [()], 1
    while len(out) < count:
        out += itertools.combinations_with_replacement(range(inputs), degree)
        degree += 1
    return out[:count]


def poly_source(b, letter, name, tokens, card, scope, prefix):
    """(BehaviouralSource, its pins p, n) of one POLY card; its sense pins go to ``b.senses``,
    its control inputs to ``b.controls`` and its coefficients to ``b.bind``."""
    inputs = _dimension(tokens, card)
    width = 2 if letter in "EG" else 1
    controls, coefficients = tokens[5:5 + width * inputs], tokens[5 + width * inputs:]
    form = "nc+ nc-" if letter in "EG" else "vname"
    if len(controls) < width * inputs or not coefficients:
        raise SpiceError(f"{letter} POLY({inputs}) takes {inputs} controlling input(s) "
                         f"({form} each) and then its coefficients", card.where)
    if letter in "EG":
        variables = _node_differences(b, controls)
    else:
        variables = [sp.Symbol(f"c{k + 1}") for k in range(inputs)]
        b.controls += [(f"c{k + 1}", source.lower()) for k, source in enumerate(controls)]
    if inputs == 1 and len(coefficients) == 1:
        b.ctx.warn(card.where, f"{name}: POLY(1) with one coefficient is the constant p0 in "
                   "ngspice-39 (read so here); SPICE2 and PSpice read it as the gain p1")
    values, expr = {}, sp.Integer(0)
    for index, (token, product) in enumerate(zip(coefficients, monomials(inputs, len(coefficients)))):
        symbol = f"k{index + 1}"
        function = b.value(token, scope, card.where)
        values[symbol] = b.bind(f"{prefix}{name}.{symbol}", function, card.where)
        expr += sp.Symbol(symbol) * math.prod((variables[i] for i in product), start=sp.Integer(1))
    used = {str(symbol) for symbol in expr.free_symbols}     # a short POLY may not read x2 …
    b.senses[:] = [(pin, node) for pin, node in b.senses if pin in used]
    b.controls[:] = [(pin, source) for pin, source in b.controls if pin in used]
    kind = "V" if letter in "EH" else "I"
    return el.BehaviouralSource(name, kind=kind, expr=expr, **values), ["p", "n"]


def _node_differences(b, controls):
    """x_k = v(nc_k+) − v(nc_k−) as differences of sense pins s1 … (ground: 0), one pin per
    distinct node, recorded in ``b.senses``."""
    pins: dict[str, sp.Symbol] = {}

    def potential(node):
        node = node.lower()
        if node in GROUND:
            return sp.Integer(0)
        if node not in pins:
            pins[node] = sp.Symbol(f"s{len(pins) + 1}")
            b.senses.append((str(pins[node]), node))
        return pins[node]

    return [potential(plus) - potential(minus) for plus, minus in zip(controls[::2], controls[1::2])]
