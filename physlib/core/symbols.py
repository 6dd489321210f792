"""Symbols used in component equations: time ``t``, variables, ``der`` and ``with_derivative``.

The SymPy objects live in :mod:`physlib.core.symbolic` and are handed out on first use (PEP 562),
so that declaring and building components does not import SymPy: it is needed only when a
class's equations are derived, and a class whose derivation is cached never needs it.
"""

_SYMBOLIC = frozenset({"t", "VariableSymbol", "ModeSymbol", "ConstantSymbol", "derivative_symbol",
                       "parameter_symbol", "with_derivative"})


def der(expr):
    """Time derivative of a variable, or of an expression of variables, parameters and ``t``.

    ``der(v)`` makes ``v`` a state of the component. Parameters are constant in time, so
    ``der(C*v) == C*der(v)``.
    """
    from .symbolic import der as derivative
    return derivative(expr)


def derivative_base(name: str) -> str | None:
    """``"der(v)" -> "v"``; ``None`` for a name that is not a derivative."""
    if name.startswith("der(") and name.endswith(")"):
        return name[4:-1]
    return None


def __getattr__(name):
    if name in _SYMBOLIC:
        from . import symbolic
        return getattr(symbolic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
