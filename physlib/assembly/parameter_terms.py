"""Parameter terms: the parts of a class's equations that read parameters and constants only,
each set aside as one placeholder symbol while the equations are classified and differentiated.

A semiconductor's equations carry large expressions of its parameters alone: saturation
currents scaled to the temperature, junction potentials, the exponent limit
max(40, min(ln(1e4 A/IS(T)), 200)). SymPy re-evaluates each of them wherever an equation is
rebuilt — substituting the physical constants' values, differentiating by every variable,
building a Piecewise whose condition holds one (``vbe < limit``) — and that was most of a
bipolar transistor's derivation (11 s, a new structure each time a card gives other parameters).
Set aside as placeholders, the equations are small; the placeholders' expressions become CasADi
once, as parameters' functions, when the template's functions are built.

A placeholder counts as nonzero where its expression would have (a product of nonzero numbers and
nonzero parameters or their powers: :func:`physlib.assembly.derivation._solvability`'s rule), so
no equation's classification changes. A term of constants alone becomes its number.
"""
from __future__ import annotations

import sympy as sp
from sympy.core.function import Application

from ..core.symbolic import ConstantSymbol
from . import unit_check


class ParameterTerm(sp.Dummy):
    """A placeholder for an expression of parameters and constants (real, constant in time)."""


def set_aside(exprs, parameters, nonzero_params):
    """(``exprs`` with their parameter terms replaced by :class:`ParameterTerm` placeholders,
    {placeholder: its expression with the constants' values}, the placeholders that are nonzero).

    ``parameters``: the symbols of the class's non-structural parameters. A parameter term is a
    largest subexpression whose symbols are all parameters or constants, with at least one
    parameter, that applies a function (exp, log, Max, Piecewise, ...); an equal term anywhere is
    the same placeholder. Arithmetic of parameters alone stays in place, so that its rounding is
    the equations' own: a sawtooth's phase floor((t − t0)/period) is not floor((t − t0)·(1/period)),
    which lands a hair below a whole period at its drops."""
    terms, nonzero, made = {}, set(), {}

    def replace(expr):
        if isinstance(expr, ConstantSymbol):
            return unit_check.substituted(expr)
        if expr.is_Atom or not isinstance(expr, sp.Basic):
            return expr
        symbols = expr.free_symbols
        if isinstance(expr, sp.Expr) and symbols:
            constants = {s for s in symbols if isinstance(s, ConstantSymbol)}
            if symbols == constants:
                return unit_check.substituted(expr)
            if symbols <= parameters | constants and expr.has(Application):
                if expr not in made:
                    made[expr] = ParameterTerm(f"term{len(made)}", real=True)
                    terms[made[expr]] = unit_check.substituted(expr)
                    if _nonzero(expr, nonzero_params):
                        nonzero.add(made[expr])
                return made[expr]
        args = [replace(arg) for arg in expr.args]
        return expr if all(new is old for new, old in zip(args, expr.args)) else expr.func(*args)

    return [replace(e) for e in exprs], terms, nonzero


def _nonzero(expr, nonzero_params) -> bool:
    """Whether each factor of ``expr`` is a nonzero number, a nonzero parameter or a power of one."""
    return all(f.is_Number and f != 0 or f in nonzero_params or (f.is_Pow and f.base in nonzero_params)
               for f in expr.as_ordered_factors())
