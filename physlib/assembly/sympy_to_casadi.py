"""Translate SymPy expressions into CasADi SX expressions.

Used once per component class (never on the whole system), so clarity beats speed here.
"""
import casadi as cs
import numpy as np
import sympy as sp

from ..core.errors import PhyslibError
from ..core.symbolic import with_derivative

_UNARY = {
    sp.exp: cs.exp, sp.log: cs.log, sp.sin: cs.sin, sp.cos: cs.cos, sp.tan: cs.tan,
    sp.asin: cs.asin, sp.acos: cs.acos, sp.atan: cs.atan, sp.sinh: cs.sinh, sp.cosh: cs.cosh,
    sp.tanh: cs.tanh, sp.asinh: cs.asinh, sp.acosh: cs.acosh, sp.atanh: cs.atanh,
    sp.Abs: cs.fabs, sp.sign: cs.sign, sp.floor: cs.floor, sp.ceiling: cs.ceil,
}


def to_casadi(expr, symbols: dict):
    """Return the CasADi SX form of ``expr``; ``symbols`` maps SymPy symbols to SX scalars."""
    memo = {}

    def conv(e):
        if e in memo:
            return memo[e]
        out = _convert(e, conv, symbols)
        memo[e] = out
        return out

    return conv(sp.sympify(expr))


def _convert(e, conv, symbols):
    if e.is_Symbol:
        try:
            return symbols[e]
        except KeyError:
            raise PhyslibError(f"symbol {e} is not a variable, parameter or t here") from None
    if e.is_number and not isinstance(e, (sp.logic.boolalg.Boolean, sp.core.relational.Relational)):
        return _constant(e)
    if e is sp.true or e is sp.false:
        return cs.SX(1.0 if e is sp.true else 0.0)
    if e.is_Add or e.is_Mul or e.is_Pow:
        return _arithmetic(e, conv)
    if e.func in _UNARY:
        return _UNARY[e.func](conv(e.args[0]))
    for kind, convert in _SPECIAL:
        if e.func is kind or isinstance(e, kind):
            return convert(e, conv)
    raise PhyslibError(f"physlib cannot translate {e.func.__name__} in {e} to CasADi; "
                       "use elementary functions, Min/Max, Abs, sign, Heaviside or Piecewise")


def _constant(e):
    value = complex(e.evalf())
    if value.imag != 0 or not np.isfinite(value.real):
        raise PhyslibError(f"physlib cannot translate the constant {e} to CasADi: equations must be "
                           "real and finite (no complex or infinite constants)")
    return cs.SX(value.real)


def _arithmetic(e, conv):
    if e.is_Add:
        return _fold(cs.plus, [conv(a) for a in e.args])
    if e.is_Mul:
        return _fold(cs.times, [conv(a) for a in e.args])
    base, exponent = e.args
    if exponent == sp.Rational(1, 2):
        return cs.sqrt(conv(base))
    if exponent.is_Integer and int(exponent) in (-1, 2, 3):
        b = conv(base)
        return {-1: lambda: 1 / b, 2: lambda: b * b, 3: lambda: b * b * b}[int(exponent)]()
    return cs.power(conv(base), conv(exponent))


def _heaviside(e, conv):
    # Right-continuous, like the waveforms: a step in time takes its new value at the step.
    # SymPy's default value at zero (1/2) gives way to that; an explicit other one is kept.
    at_zero = 1.0 if len(e.args) < 2 or e.args[1] == sp.S.Half else conv(e.args[1])
    x = conv(e.args[0])
    return cs.if_else(x > 0, 1.0, cs.if_else(x == 0, at_zero, 0.0))


def _piecewise(e, conv):
    result = None
    for value, cond in reversed(e.args):
        if cond is sp.true:
            result = conv(value)
        else:
            if result is None:
                result = cs.SX(float("nan"))
            result = cs.if_else(conv(cond), conv(value), result)
    return result


_RELATIONS = {sp.StrictLessThan: cs.lt, sp.LessThan: cs.le, sp.StrictGreaterThan: cs.gt,
              sp.GreaterThan: cs.ge, sp.Equality: cs.eq, sp.Unequality: cs.ne}

# (SymPy function or class, conversion), tried in this order after the unary functions.
_SPECIAL = [
    (sp.atan2, lambda e, conv: cs.atan2(conv(e.args[0]), conv(e.args[1]))),
    (sp.Max, lambda e, conv: _fold(cs.fmax, [conv(a) for a in e.args])),
    (sp.Min, lambda e, conv: _fold(cs.fmin, [conv(a) for a in e.args])),
    (sp.Heaviside, _heaviside),
    (sp.Piecewise, _piecewise),
    (sp.core.relational.Relational, lambda e, conv: _RELATIONS[type(e)](conv(e.lhs), conv(e.rhs))),
    (sp.And, lambda e, conv: _fold(cs.logic_and, [conv(a) for a in e.args])),
    (sp.Or, lambda e, conv: _fold(cs.logic_or, [conv(a) for a in e.args])),
    (sp.Not, lambda e, conv: cs.logic_not(conv(e.args[0]))),
    (sp.ITE, lambda e, conv: cs.if_else(conv(e.args[0]), conv(e.args[1]), conv(e.args[2]))),
    (with_derivative, lambda e, conv: conv(e.args[0])),    # its value; its derivative is SymPy's
]


def _fold(op, items):
    out = items[0]
    for item in items[1:]:
        out = op(out, item)
    return out
