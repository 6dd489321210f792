"""Branching and rounding that work on plain numbers and on CasADi symbols alike.

A hybrid component's behaviour at events -- :meth:`~physlib.core.component.Component.transition`
(new mode codes), :meth:`~physlib.core.component.Component.update` (new discrete values at a
sample instant) and :meth:`~physlib.core.component.Component.next_time_event` -- is written once,
in Python, and runs in two ways:

- the simulator calls it with floats and bools, at every event, and wants plain Python results
  as fast as a hand-written ``if`` gives them;
- an export (an FMU, standalone C) calls it once with CasADi ``SX`` symbols and compiles the
  expression it returns to C, where no Python runs.

Arithmetic (``+ - * /``, ``**``) and comparisons (``<``, ``==``, ...) already work on both: on
symbols a comparison is a symbolic 0/1. What does not is Python's control flow on a value:
``if``, ``and``, ``or``, ``not``, a conditional expression, ``min``, ``max`` and ``int()`` ask a
symbol for its truth value, which CasADi refuses ("Cannot compute the truth value of a CasADi
SXElem symbolic expression"), and ``float()`` of a symbol quietly gives NaN. The helpers here
replace them: on plain numbers each is the Python operation it names (so the simulator's result
and speed are those of the code it replaces), on symbols the CasADi operation
(``casadi.if_else``, ``logic_and``, ``fmin``, ...), so that one definition serves both::

    # instead of:  if fired[0]: return {"closed": 1 - v["pre(closed)"]}
    #              return {"closed": int(v["control"] > 0.5)}
    return {"closed": where(fired[0], 1 - v["pre(closed)"], where(v["control"] > 0.5, 1, 0))}

Every argument is evaluated, whichever branch is taken, so each must be computable in every
case (no division by a quantity a branch guards against being zero). Branching on structural
parameters and class constants (plain Python values fixed when the model is built) may stay
ordinary Python.

CasADi is never imported here: a value can only be a CasADi symbol once something else has
imported CasADi, so building and simulating models costs nothing extra.
"""
from __future__ import annotations

import math
import sys
from functools import reduce
from typing import Any

_PLAIN = (bool, int, float)


def _casadi_of(value) -> Any:
    """The ``casadi`` module if ``value`` is a CasADi matrix or symbol, else None (a plain
    number is recognized by its type first: the simulator's case, kept cheap)."""
    if type(value) in _PLAIN:
        return None
    casadi = sys.modules.get("casadi")
    if casadi is not None and isinstance(value, (casadi.SX, casadi.MX, casadi.DM)):
        return casadi
    return None


def _casadi_in(values) -> Any:
    """The ``casadi`` module if one of ``values`` is a CasADi matrix or symbol, else None."""
    for value in values:
        casadi = _casadi_of(value)
        if casadi is not None:
            return casadi
    return None


def is_symbolic(value: Any) -> bool:
    """Whether ``value`` is a CasADi matrix or symbol (``SX``, ``MX``, ``DM``) rather than a
    plain number."""
    return _casadi_of(value) is not None


def where(condition: Any, if_true: Any, if_false: Any) -> Any:
    """``if_true if condition else if_false``; ``casadi.if_else`` when the condition is symbolic.

    A plain condition picks a branch even when the branches are symbols."""
    if type(condition) is bool:         # the simulator's case, without a further call
        return if_true if condition else if_false
    casadi = _casadi_of(condition)
    if casadi is None:
        return if_true if condition else if_false
    return casadi.if_else(condition, if_true, if_false)


def all_of(*conditions: Any) -> Any:
    """Whether every condition holds (Python's ``a and b and ...``, as a bool for plain values;
    ``casadi.logic_and`` of the symbolic ones, the plain ones decided at once)."""
    symbolic = []
    for condition in conditions:
        if type(condition) is not bool and _casadi_of(condition) is not None:
            symbolic.append(condition)
        elif not condition:
            return False
    return reduce(_casadi_in(symbolic).logic_and, symbolic) if symbolic else True


def any_of(*conditions: Any) -> Any:
    """Whether some condition holds (Python's ``a or b or ...``, as a bool for plain values;
    ``casadi.logic_or`` of the symbolic ones, the plain ones decided at once)."""
    symbolic = []
    for condition in conditions:
        if type(condition) is not bool and _casadi_of(condition) is not None:
            symbolic.append(condition)
        elif condition:
            return True
    return reduce(_casadi_in(symbolic).logic_or, symbolic) if symbolic else False


def negate(condition: Any) -> Any:
    """``not condition`` (``casadi.logic_not`` when symbolic)."""
    casadi = _casadi_of(condition)
    return (not condition) if casadi is None else casadi.logic_not(condition)


def minimum(*values: Any) -> Any:
    """The smallest value (Python's ``min``; ``casadi.fmin`` when one is symbolic)."""
    casadi = _casadi_in(values)
    return min(values) if casadi is None else reduce(casadi.fmin, values)


def maximum(*values: Any) -> Any:
    """The largest value (Python's ``max``; ``casadi.fmax`` when one is symbolic)."""
    casadi = _casadi_in(values)
    return max(values) if casadi is None else reduce(casadi.fmax, values)


def absolute(value: Any) -> Any:
    """|value| (Python's ``abs``; ``casadi.fabs`` when symbolic)."""
    casadi = _casadi_of(value)
    return abs(value) if casadi is None else casadi.fabs(value)


def floor(value: Any) -> Any:
    """The largest integer <= value (``math.floor``, an int, for a plain number;
    ``casadi.floor`` when symbolic)."""
    casadi = _casadi_of(value)
    return math.floor(value) if casadi is None else casadi.floor(value)


def next_instant(t: Any, first: Any, period: Any, tolerance: Any) -> Any:
    """The first of the instants ``first + k·period`` [s] (k = 0, 1, 2, ...) later than
    ``t + tolerance`` [s]: the next instant of a periodic schedule not yet reached at t.

    ``tolerance`` (>= 0, a few hundred rounding errors of t) makes a t that equals an instant
    up to rounding (an instant computed another way, ``t0 + 3·Ts`` against ``0.3``) count as
    that instant, so the answer is the one after it, never the same instant again. The index
    from the quotient is checked against the instants themselves, so rounding in the division
    neither skips an instant nor returns one already reached."""
    reached = t + tolerance
    k = maximum(floor((reached - first) / period) + 1, 0)
    overshot = all_of(k >= 1, first + (k - 1) * period > reached)
    k = where(overshot, k - 1, where(first + k * period <= reached, k + 1, k))
    return first + k * period


def switched_once(fired: Any, mode: Any, pre: Any, g: Any, otherwise: Any) -> Any:
    """The mode of a two-mode component (0 and 1) whose guard ``g`` is positive on mode 1's
    side and negative on mode 0's, at an event: where the guard fired, the mode switches once,
    away from ``pre`` (the mode before the event), if g now stands at zero or on the other
    side, and stays switched in the event iteration's later rounds (solved again in the new
    mode, g may come out a rounding error back on the old side, and following it would be
    chattering within one instant). A guard that fired by leaving zero on its own mode's side
    (a diode turned on with no current, whose current then grows from zero) switches nothing.
    Where it did not fire: ``otherwise``."""
    crossed = where(pre != 0, g <= 0, g >= 0)
    first_round = mode == pre
    return where(fired, where(first_round, where(crossed, 1 - pre, pre), mode), otherwise)
