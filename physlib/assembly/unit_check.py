"""The dimension check of a component class's equations, run where they are derived.

Every symbol of an equation has the dimension of its declared unit (a parameter's, a
variable's, a port variable's its domain's, ``der(x)`` that of x per second, time seconds,
a constant of :mod:`physlib.constants` its own); the check walks each equation and reports the
first place where two things of different dimensions are added, compared or chosen between,
or where a function that needs a pure number (exp, log, sin, a non-integer power's exponent)
gets a dimensioned argument.

A bare number is a pure scale in a product, and takes the dimension of what it is added to or
compared with (``v - 0.7`` is fine; ``5.67e-8 * A * T**4`` is m2.K4, not W, unless σ is the
constant ``physlib.constants.sigma``): Modelica's rule for literals. Angles are ratios here
(``rad`` is 1), as in Modelica, so ``tau * w`` is a power.

Declared units must be coherent SI units (factor 1, no offset): an equation computes with a
parameter's number as given, so a parameter in ``eV`` or ``degC`` would be read as joules or
kelvin. The check reports those too.

The result is a tuple of messages stored with the class template (and cached with it);
:func:`physlib.assembly.unit_policy.report` turns them into warnings or an error, per
``Model.compile(units=...)``.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import sympy as sp

from ..core.symbolic import ConstantSymbol, t
from ..core.units import ANGLE, BASE_DIMENSIONS, UnitError, format_factors, parse

FREE = None                         # the dimension of a bare number: whatever it meets
ANY = "any"                         # a generic block's signal: any unit, the same in products
GENERIC = "?"                       # the declared unit that stands for ANY (see declared_units)
_DIMENSIONLESS = (0,) * (len(BASE_DIMENSIONS) - 1)
_SECOND = tuple(int(d == "s") for d in BASE_DIMENSIONS[:ANGLE])
_PURE = (sp.exp, sp.log, sp.sin, sp.cos, sp.tan, sp.asin, sp.acos, sp.atan, sp.sinh, sp.cosh, sp.tanh,
         sp.asinh, sp.acosh, sp.atanh, sp.cot, sp.sec, sp.csc, sp.erf, sp.LambertW)
_KEEPS = (sp.Abs, sp.floor, sp.ceiling, sp.re)
# Units a dimension is shown in, best first: the readable name of a product of base units.
_NAMED = ("V", "A", "W", "J", "N", "Pa", "Ohm", "S", "F", "H", "Wb", "C", "T", "K", "s", "m", "kg", "mol")


class _Mismatch(Exception):
    def __init__(self, what: str):
        super().__init__(what)
        self.what = what


def shown(dims) -> str:
    """A dimension as a readable unit: ``V``, ``V/s``, ``N.m``, else its SI base units."""
    if dims is FREE or dims == _DIMENSIONLESS:
        return "1"
    for name in _NAMED:
        if _dims(parse(name)) == dims:
            return name
    for name in _NAMED:
        named = _dims(parse(name))
        for other in ("s", "m", "A", "K"):
            extra = _dims(parse(other))
            if tuple(a - b for a, b in zip(named, extra)) == dims:
                return f"{name}/{other}"
            if tuple(a + b for a, b in zip(named, extra)) == dims:
                return f"{name}.{other}"
    return format_factors(dict(zip(BASE_DIMENSIONS[:ANGLE], dims)))


def _dims(unit) -> tuple:
    return _exact(unit.exponents[:ANGLE] + unit.exponents[ANGLE + 1:])


@lru_cache(maxsize=None)
def _parsed(text: str):
    """(Unit, its dimension without the angle) of a unit string."""
    unit = parse(text)
    return unit, _dims(unit)


def _exact(dims) -> tuple:
    """Exponents as ints where they are whole (Fractions only where they are not): the check
    adds exponents at every product, and adding ints is twenty times faster than Fractions
    (equal values compare and hash alike either way)."""
    return tuple(x if type(x) is int else int(x) if x.denominator == 1 else x for x in dims)


class _Walker:
    """The dimension of each subexpression of one class's equations."""

    def __init__(self, units: dict[str, str], label: str):
        self.units, self.label, self.problems = units, label, []
        self.memo: dict = {}

    def symbol(self, sym) -> tuple | None:
        if sym == t:
            return _SECOND
        if isinstance(sym, ConstantSymbol):
            return self.unit_dims(sym.unit, f"constant {sym.name}")
        text = self.units.get(sym.name)
        if text is None:
            return FREE            # not declared: derivation reports it
        if text == GENERIC:
            return ANY
        return self.unit_dims(text, f"{sym.name}")

    def unit_dims(self, text: str, what: str):
        try:
            unit, dims = _parsed(text)
        except UnitError as err:
            self.problem(f"the unit of {what}: {err}")
            return FREE
        if not unit.coherent:
            self.problem(f"{what} is declared in {text!r}, which is not a coherent SI unit (factor "
                         f"{unit.factor:g}{f', offset {unit.offset:g}' if unit.offset else ''}): its "
                         f"equations compute with the number as given; declare it in {shown(dims)}")
        return dims

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)

    def dims(self, e):
        if e in self.memo:
            return self.memo[e]
        out = self._dims(e)
        self.memo[e] = out
        return out

    def _dims(self, e):
        if e.is_Symbol:
            return self.symbol(e)
        if e.is_Atom:               # numbers, π, true/false: whatever they meet
            return FREE
        if e.is_Add or isinstance(e, (sp.Min, sp.Max)):
            return self.same(e.args, "adds" if e.is_Add else f"takes {e.func.__name__} of")
        if e.is_Mul:
            parts = [self.dims(a) for a in e.args]
            if ANY in parts:
                return ANY
            known = [p for p in parts if p is not FREE]
            return FREE if not known else _exact(map(sum, zip(*known))) if len(known) > 1 else known[0]
        if e.is_Pow:
            return self.power(e)
        if isinstance(e, sp.Piecewise):
            for _, cond in e.args:
                self.condition(cond)
            return self.same([value for value, _ in e.args], "chooses between")
        if e.func in _PURE or isinstance(e, sp.atan2):
            return self.pure(e)
        if isinstance(e, _KEEPS):
            return self.dims(e.args[0])
        if isinstance(e, (sp.sign, sp.Heaviside)):
            self.dims(e.args[0])
            return _DIMENSIONLESS
        if isinstance(e, sp.core.relational.Relational) or isinstance(e, sp.logic.boolalg.Boolean):
            self.condition(e)
            return _DIMENSIONLESS
        return FREE                  # a function the check does not know: no claim

    def same(self, args, verb: str):
        found, generic = None, False
        for arg in args:
            d = self.dims(arg)
            if d is FREE or d is ANY:
                generic = generic or d is ANY
                continue
            if found is None:
                found = (arg, d)
            elif d != found[1]:
                raise _Mismatch(f"{verb} {_short(found[0])} [{shown(found[1])}] and {_short(arg)} [{shown(d)}]")
        return found[1] if found is not None else ANY if generic else FREE

    def power(self, e):
        base, exponent = e.args
        if exponent.is_Rational or exponent.is_Float:
            d = self.dims(base)
            power = Fraction(int(exponent.p), int(exponent.q)) if exponent.is_Rational else \
                Fraction(float(exponent)).limit_denominator(1000)
            power = int(power) if power.denominator == 1 else power
            return d if d is FREE or d is ANY else _exact(x * power for x in d)
        for part, role in ((base, "base"), (exponent, "exponent")):
            d = self.dims(part)
            if d not in (FREE, ANY, _DIMENSIONLESS):
                raise _Mismatch(f"raises to the power {_short(exponent)} (not a number) the {role} {_short(part)} "
                                f"[{shown(d)}]; a {role} of a variable power must be a pure number [1]")
        return _DIMENSIONLESS

    def pure(self, e):
        if isinstance(e, sp.atan2):
            self.same(e.args, "takes atan2 of")
            return _DIMENSIONLESS
        d = self.dims(e.args[0])
        if d not in (FREE, ANY, _DIMENSIONLESS):
            raise _Mismatch(f"takes {e.func.__name__} of {_short(e.args[0])} [{shown(d)}], which must be a "
                            f"pure number [1]")
        return FREE if d is FREE else _DIMENSIONLESS

    def condition(self, cond) -> None:
        if isinstance(cond, sp.core.relational.Relational):
            self.same(cond.args, "compares")
        elif isinstance(cond, sp.logic.boolalg.Boolean):
            for arg in cond.args:
                self.condition(arg)


def _short(expr, limit: int = 120) -> str:
    text = str(expr)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _equations(residual):
    """The equations a residual stands for: a Piecewise residual is one equation per branch
    (a clutch's ``der(w_rel) = 0`` while stuck, ``tau = μ·fn`` while slipping)."""
    if isinstance(residual, sp.Piecewise):
        return [eq for value, _ in residual.args for eq in _equations(value)]
    return [residual]


def check(label: str, residuals: list, units: dict[str, str]) -> tuple[str, ...]:
    """The unit problems of a class's equations (residual expressions, = 0), as messages that
    name the class (``label``), the equation and both units; ``units`` maps the name of each
    parameter, variable, port variable and derivative symbol to its declared unit."""
    walker = _Walker(units, label)
    for residual in residuals:
        for equation in _equations(residual):
            try:
                walker.dims(equation)
            except _Mismatch as mismatch:
                walker.problem(f"equation {_short(equation)} = 0 {mismatch.what}")
            except (TypeError, ValueError) as err:      # an exponent SymPy cannot make rational
                walker.problem(f"equation {_short(equation)} = 0 cannot be checked: {err}")
    return tuple(f"{label}: {p}" for p in walker.problems)


def declared_units(cls, names: list[str], units: list[str], generic: set[str]) -> dict[str, str]:
    """Unit of each symbol name of a class's equations: its locals, parameters and modes.

    The ``generic`` names left at the default unit ``"1"`` get :data:`GENERIC`: the signal
    ports of a generic block (a gain, a filter, a table), whose signals carry whatever unit the
    model connects, and the variables of a block whose ports are all signals (a filter's
    states, a PID's integral)."""
    table = {n: p.unit for n, p in cls._parameters.items() if not p.structural}
    table.update({n: getattr(m, "unit", "1") for n, m in cls._modes.items()})
    table.update(zip(names, units))
    for name in generic:
        if table.get(name) == "1":
            table[name] = GENERIC
    return table


def substituted(expr):
    """``expr`` with each constant of :mod:`physlib.constants` replaced by its value."""
    if not isinstance(expr, sp.Basic):
        return expr
    constants = {s: sp.Integer(int(s.value)) if float(s.value).is_integer() and abs(s.value) < 2**53
                 else sp.Float(s.value) for s in expr.atoms(ConstantSymbol)}
    return expr.xreplace(constants) if constants else expr

