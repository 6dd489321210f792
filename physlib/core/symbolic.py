"""The SymPy side of component equations: time ``t``, variable and mode symbols, ``der``.

Imported only when a class's equations are derived (see :mod:`physlib.core.symbols`, which
hands these names out on first use, so that importing physlib does not import SymPy)."""
import sympy as sp
from sympy.core.sympify import converter

from ..constants import Constant

t = sp.Symbol("t", real=True)
"""Simulation time [s]; use it in equations and in :class:`~physlib.components.signals.Expression`."""


class VariableSymbol(sp.Symbol):
    """A SymPy symbol that stands for a component variable (not a parameter).

    Kept as its own class so that :func:`der` can tell variables from parameters.
    """


class ModeSymbol(sp.Symbol):
    """A SymPy symbol for a component's discrete mode (constant between events)."""


class ConstantSymbol(sp.Symbol):
    """A physical constant with its unit inside equations (a :class:`physlib.constants.Constant`
    that met a SymPy expression): the unit check reads its unit, and deriving the equations
    replaces it by its value. Two constants are one symbol when name, value and unit agree."""

    def __new__(cls, name: str, value: float, unit: str):
        self = sp.Symbol.__xnew__(cls, name, real=True)
        self.value, self.unit = value, unit
        return self

    def __getnewargs_ex__(self):
        return (self.name, self.value, self.unit), {}

    def _hashable_content(self):
        return super()._hashable_content() + (self.value, self.unit)


def der(expr):
    """Time derivative of a variable, or of an expression of variables, parameters and ``t``.

    ``der(v)`` makes ``v`` a state of the component. Parameters are constant in time, so
    ``der(C*v) == C*der(v)``.
    """
    from .errors import DeclarationError
    if isinstance(expr, str):
        raise DeclarationError(f"der({expr!r}): give the variable itself, der(self.{expr}), not a string")
    try:
        expr = sp.sympify(expr, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        raise DeclarationError(f"der() takes a variable or an expression of variables, got {expr!r}") from None
    if not isinstance(expr, sp.Expr) or not (
            t in expr.free_symbols or any(isinstance(s, VariableSymbol) for s in expr.free_symbols)):
        raise DeclarationError(
            f"der({expr}): {expr} contains no variable of the component (parameters are constant, so "
            "its derivative would be 0); take the derivative of a variable, e.g. der(self.x) with "
            "x = Variable(...)")
    result = sp.diff(expr, t)
    for sym in expr.free_symbols:
        if isinstance(sym, VariableSymbol):
            result += sp.diff(expr, sym) * derivative_symbol(sym)
    return result


def derivative_symbol(sym: VariableSymbol) -> VariableSymbol:
    return VariableSymbol(f"der({sym.name})", real=True)


def parameter_symbol(name: str) -> sp.Symbol:
    """The symbol a (non-structural) parameter stands for inside equations."""
    return sp.Symbol(name, real=True)


# A constant that meets a SymPy expression (k_B * self.T) becomes a symbol with its unit.
converter[Constant] = lambda const: ConstantSymbol(const.name, float(const), const.unit)


class with_derivative(sp.Function):     # noqa: N801 (used in equations like sp.sin)
    """``with_derivative(x, xdot, t)``: the value ``x``, whose time derivative is ``xdot``
    wherever an equation is differentiated (index reduction), instead of d/dt of ``x``.

    For prescribed motions given as value, derivative and second derivative (the MSL's Move,
    whose derivative annotations say the same): ``flange.w = with_derivative(w_ref, a_ref, t)``
    drives an inertia at the acceleration a_ref, whether or not a_ref is the derivative of
    w_ref, and without differentiating w_ref's source. Its value is ``x`` everywhere else
    (residuals, Jacobians, linearization); SymPy's partial derivatives by ``x`` and ``xdot``
    are 0, by ``t`` they are ``xdot``.
    """

    nargs = 3

    def fdiff(self, argindex=1):
        return self.args[1] if argindex == 3 else sp.S.Zero
