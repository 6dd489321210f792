"""Model parameters: named values of a model that component parameters are computed from.

``rload = m.parameter("rload", 1e3, unit="Ohm")`` declares one on a model;
``Resistor("R2", R=2 * rload)`` gives a component parameter as an expression of it. The
component's value is the expression at the model parameters' values (here 2 kΩ); a compiled
model keeps the expression, so ``simulate(..., params={"rload": 2e3})`` recomputes R2.R
without recompiling (see :meth:`physlib.assembly.compiled.CompiledModel.parameter_vector`).

Expressions are built with ``+ - * / **``, unary ``-`` and ``abs()`` from model parameters and
real numbers. Other kinds of expression (the SPICE reader's ``.param`` expressions) subclass
:class:`ParameterExpression`: :meth:`~ParameterExpression.evaluate` computes the value from
the model parameters' values, :meth:`~ParameterExpression.parameters` names those it reads.
Everything here pickles with the standard ``pickle`` module (compiled models travel to
sweep workers with their expressions).
"""
from __future__ import annotations

import math
import numbers
import operator
from fractions import Fraction
from typing import Callable

from .errors import ParameterError
from .units import ANGLE, Unit, UnitError, parse, quantity_value

__all__ = ["ParameterExpression", "ModelParameter", "nominal_value", "resolver", "depends_on",
           "value_in"]

ValueOf = Callable[["ModelParameter"], float]

_OPERATIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "**": operator.pow}
_UNARY = {"-": operator.neg, "abs": abs}


class ParameterExpression:
    """A value computed from model parameters (a :class:`ModelParameter` is one too)."""

    __slots__ = ()

    def evaluate(self, value_of: ValueOf) -> float:
        """The value [in the unit of the parameter it is given to], with ``value_of(p)`` the
        value of model parameter ``p``."""
        raise NotImplementedError

    def parameters(self) -> tuple["ModelParameter", ...]:
        """The model parameters this expression reads directly."""
        raise NotImplementedError

    def dimension(self) -> tuple[Fraction, ...] | None:
        """The exponents of the expression's dimension over the SI base dimensions and angle
        (:data:`~physlib.core.units.BASE_DIMENSIONS`), or None for a pure number, which takes
        the dimension of the parameter it is given to (Modelica's rule for literals). Kinds of
        expression without units (a SPICE deck's ``.param``) are pure numbers."""
        return None

    def _combine(self, op, other, reflected=False):
        if isinstance(other, ParameterExpression):
            pair = (other, self) if reflected else (self, other)
        elif isinstance(other, numbers.Real) and not isinstance(other, bool) and math.isfinite(other):
            pair = (float(other), self) if reflected else (self, float(other))
        else:
            return NotImplemented
        return _Operation(op, pair)

    def __add__(self, other):
        return self._combine("+", other)

    def __radd__(self, other):
        return self._combine("+", other, True)

    def __sub__(self, other):
        return self._combine("-", other)

    def __rsub__(self, other):
        return self._combine("-", other, True)

    def __mul__(self, other):
        return self._combine("*", other)

    def __rmul__(self, other):
        return self._combine("*", other, True)

    def __truediv__(self, other):
        return self._combine("/", other)

    def __rtruediv__(self, other):
        return self._combine("/", other, True)

    def __pow__(self, other):
        return self._combine("**", other)

    def __rpow__(self, other):
        return self._combine("**", other, True)

    def __neg__(self):
        return _Operation("-", (self,))

    def __pos__(self):
        return self

    def __abs__(self):
        return _Operation("abs", (self,))

    def __bool__(self):
        raise ParameterError(f"{self} is a model-parameter expression, not a number: its truth "
                             "is known only when the model parameters are (give numbers where "
                             "a condition is decided)")


class _Operation(ParameterExpression):
    """``op`` applied to ``operands`` (expressions or floats)."""

    __slots__ = ("op", "operands")

    def __init__(self, op: str, operands: tuple):
        self.op, self.operands = op, operands

    def evaluate(self, value_of: ValueOf) -> float:
        values = [x.evaluate(value_of) if isinstance(x, ParameterExpression) else x
                  for x in self.operands]
        function = _OPERATIONS[self.op] if len(values) == 2 else _UNARY[self.op]
        return float(function(*values))

    def parameters(self):
        found = {}
        for x in self.operands:
            if isinstance(x, ParameterExpression):
                found.update(dict.fromkeys(x.parameters()))
        return tuple(found)

    def dimension(self):
        dims = [x.dimension() if isinstance(x, ParameterExpression) else None for x in self.operands]
        if len(dims) == 1:
            return dims[0]
        a, b = dims
        if self.op in ("+", "-"):
            if a is not None and b is not None and a != b:
                raise ParameterError(f"{self} {'adds' if self.op == '+' else 'subtracts'} quantities of "
                                     f"different dimensions, {_shown(a)} and {_shown(b)}")
            return a if b is None else b
        return self._product(a, b)

    def _product(self, a, b):
        """The dimension of a * b, a / b or a ** b (operands of dimensions a and b)."""
        if self.op == "**":
            exponent = self.operands[1]
            if b is not None:
                raise ParameterError(f"{self}: an exponent must be a pure number, not a quantity in {_shown(b)}")
            if a is not None and isinstance(exponent, ParameterExpression):
                raise ParameterError(f"{self}: a quantity in {_shown(a)} raised to a model parameter has no "
                                     "fixed unit; give the exponent as a number")
            return None if a is None else \
                tuple(e * Fraction(exponent).limit_denominator(1000) for e in a)
        if a is None or b is None:
            return a if b is None else (b if self.op == "*" else tuple(-e for e in b))
        sign = 1 if self.op == "*" else -1
        out = tuple(x + sign * y for x, y in zip(a, b))
        return out if any(out) else None

    def __str__(self):
        if len(self.operands) == 1:
            inner = _text(self.operands[0])
            return f"abs({inner})" if self.op == "abs" else f"-{inner}"
        return f"{_text(self.operands[0])} {self.op} {_text(self.operands[1])}"

    __repr__ = __str__


def _text(x) -> str:
    return f"({x})" if isinstance(x, _Operation) else f"{x}" if isinstance(x, ParameterExpression) \
        else repr(x)


class ModelParameter(ParameterExpression):
    """A named value of a model, made by :meth:`Model.parameter <physlib.Model.parameter>`:
    ``name`` (an identifier, no dots: model parameters have one namespace per compiled model),
    ``default`` (a number, or an expression of other model parameters), ``unit``,
    ``description``, ``model`` (the name of the model that declared it). ``value`` is its
    value [unit] with every model parameter at its default.

    Its value is in its ``unit`` (``params={"rload": 2}`` with ``unit="kOhm"`` is 2 kΩ); in an
    expression given to a component parameter it counts in coherent SI units (2000 Ω; 25 degC
    is 298.15 K), and the expression's dimension must be the parameter's. A model parameter of
    unit ``"1"`` is a pure number, which takes the dimension it is given to."""

    __slots__ = ("name", "default", "unit", "description", "model", "si")

    def __init__(self, name: str, default, unit: str = "1", description: str = "",
                 model: str | None = None):
        if not isinstance(name, str) or not (name.isascii() and name.isidentifier()):
            raise ParameterError(f"model parameter name {name!r} is not valid: use letters, "
                                 "digits and '_' (not starting with a digit), no dots")
        try:
            self.si = parse(unit)
        except UnitError as err:
            raise ParameterError(f"model parameter {name}: {err}") from None
        if isinstance(default, ParameterExpression):
            check_dimension(default, unit, f"model parameter {name}")
        else:
            number = default if type(default) is float else _real(default)
            if number is None:
                number = quantity_value(default, unit, f"model parameter {name}")
            if number is None or not math.isfinite(number):
                raise ParameterError(f"model parameter {name}: give a finite real number [{unit}] "
                                     f"or an expression of other model parameters, got "
                                     f"{default!r:.60}")
            default = number
        self.name, self.default, self.unit, self.description = name, default, unit, description
        self.model = model

    def evaluate(self, value_of: ValueOf) -> float:
        """The value in coherent SI units (``value_of`` gives it in :attr:`unit`)."""
        value = value_of(self)
        return value * self.si.factor + self.si.offset if self.si.offset else value * self.si.factor

    def parameters(self):
        return (self,)

    def dimension(self):
        return None if self.si.dimensionless else self.si.exponents

    @property
    def value(self) -> float:
        """The value [unit] with every model parameter at its default."""
        return resolver()(self)

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<model parameter {self.name} = {self.default} [{self.unit}]>"


def _real(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value)


def resolver(given: dict | None = None) -> ValueOf:
    """``value_of(p)``: model parameter ``p``'s value in ``given`` ({ModelParameter: value}),
    else its default (an expression's defaults resolved the same way, each once)."""
    known = dict(given or {})

    def value_of(parameter: ModelParameter) -> float:
        value = known.get(parameter)
        if value is None:
            default = parameter.default
            value = known[parameter] = default if type(default) is float else \
                _from_si(float(default.evaluate(value_of)), parameter.si)
        return value
    return value_of


def _from_si(value: float, unit: Unit) -> float:
    return (value - unit.offset) / unit.factor


def value_in(expression: ParameterExpression, unit: str, value_of: ValueOf | None = None) -> float:
    """The value of ``expression`` in ``unit`` (a component parameter's), with ``value_of``
    giving the model parameters' values (default: their defaults)."""
    value = float(expression.evaluate(value_of or resolver()))
    try:
        declared = parse(unit or "1")
    except UnitError:               # a class's own unit slip: the unit check reports it
        return value
    return value if declared.coherent else _from_si(value, declared)


def check_dimension(expression: ParameterExpression, unit: str, what: str) -> None:
    """A :class:`ParameterError` naming ``what`` (``"parameter R of R1"``) when ``expression``
    has a dimension other than that of ``unit``; an expression that is a pure number, or a
    dimensionless ``unit`` (a generic signal's), passes."""
    try:
        declared = parse(unit or "1")
    except UnitError:
        return
    found = expression.dimension()
    if found is None or declared.dimensionless or found == declared.exponents:
        return
    given = (f"model parameter {expression} is declared in {expression.unit}" if isinstance(expression, ModelParameter)
             else f"the expression {expression} is")
    hint = (" (cycles and radians do not convert silently: a frequency in Hz is cycles per second, "
            "an angular velocity rad/s or rpm)" if found[:ANGLE] == declared.exponents[:ANGLE] else "")
    raise ParameterError(f"{what} is in {unit} ({declared.dimension()}); {given} ({_shown(found)}): "
                         f"declare the model parameters with the units they are in{hint}")


def _shown(exponents) -> str:
    return Unit(1.0, 0.0, tuple(exponents)).dimension()


def nominal_value(expression: ParameterExpression) -> float:
    """The value of ``expression`` with every model parameter at its default."""
    return float(expression.evaluate(resolver()))


def depends_on(expression: ParameterExpression, parameter: ModelParameter) -> bool:
    """Whether ``expression`` reads ``parameter``, directly or through other model parameters'
    defaults."""
    pending, seen = list(expression.parameters()), set()
    while pending:
        p = pending.pop()
        if p is parameter:
            return True
        if p not in seen:
            seen.add(p)
            if isinstance(p.default, ParameterExpression):
                pending.extend(p.default.parameters())
    return False
