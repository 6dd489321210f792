"""When every value of a compiled model is finite, known from its parameters alone.

A run's start and an operating point check that every variable is finite (a division by zero
in an explicitly solved equation is reported with the equation, never as inf). Evaluating
every variable takes a CasADi function of all of them: for a million-element circuit, 0.8 s to
build and 460 MB at its peak, more than any other step of the run needs at that moment.

Most explicit solutions cannot produce a non-finite value from finite inputs except by
dividing by a parameter: a resistor's ``i = v/R``, a capacitor's ``der(v) = i/C``, a ramp's
``(t - t0)/duration``. :func:`finite_conditions` reads a class's solution once and finds what
makes it finite: the operations it applies to the unknowns are sums, products and bounded
functions, and every division divides by an expression of parameters and time alone, whose
reciprocal must then be finite (``1/R``: R is not zero). Any other operation on the unknowns
(a diode's ``exp(v/Vt)``, ``log``, ``sqrt``, a division by an unknown) makes the class one whose
values only the full evaluation can vouch for.

:class:`FiniteGuard` records, as the compiler solves the equations explicitly, each class
solution it uses and the parameters of the instances it is used for. At a point (x, z, p, t)
every value is finite if x, z, p and t are and every recorded condition is: by induction
over the order of solution, each value is then a sum, product or bounded function of finite
numbers, or such a number divided by one whose reciprocal is finite. (A product of finite
numbers beyond 1.8e308 overflows to inf all the same; parameters and states of physical
models are nowhere near.) Where a condition fails, or the model solves a linear loop
symbolically, the full evaluation decides and names the variables and equations.
"""
from __future__ import annotations

import casadi as cs
import numpy as np

from ..core.arrays import index_dtype

__all__ = ["finite_conditions", "FiniteGuard"]

# operations whose value is finite wherever their arguments are (overflow aside)
_BOUNDED = frozenset({
    cs.OP_ADD, cs.OP_SUB, cs.OP_MUL, cs.OP_NEG, cs.OP_TWICE, cs.OP_SQ, cs.OP_FABS, cs.OP_SIGN,
    cs.OP_COPYSIGN, cs.OP_FMIN, cs.OP_FMAX, cs.OP_FLOOR, cs.OP_CEIL, cs.OP_SIN, cs.OP_COS,
    cs.OP_ATAN, cs.OP_ATAN2, cs.OP_TANH, cs.OP_ERF, cs.OP_LT, cs.OP_LE, cs.OP_EQ, cs.OP_NE,
    cs.OP_NOT, cs.OP_AND, cs.OP_OR, cs.OP_IF_ELSE_ZERO})


class _Unbounded(Exception):
    """The solution applies an operation to the unknowns that may give inf or NaN."""


def finite_conditions(expr: cs.SX, unknowns: list[cs.SX], params: cs.SX, time: cs.SX) -> cs.Function | None:
    """(params, time) -> the values that must be finite for ``expr`` (a scalar in the symbols
    ``unknowns``, ``params`` and ``time``) to be finite wherever its unknowns, parameters and
    time are: the reciprocal of each divisor, and each other operation of parameters and time
    alone that may overflow or fail (``sqrt(L*C)``). None where no such conditions suffice:
    an operation outside the bounded ones (sums, products, ``fmin``, ``sin``, …) applied to
    the unknowns, other than a division by parameters and time."""
    local = {u.element_hash() for block in unknowns for u in cs.vertsplit(block)}
    reads: dict[int, bool] = {}     # node -> whether it reads an unknown

    def reads_unknowns(e) -> bool:
        key = e.element_hash()
        if key not in reads:
            if e.is_symbolic():
                reads[key] = key in local
            else:
                reads[key] = any(reads_unknowns(e.dep(i)) for i in range(e.n_dep()))
        return reads[key]

    conditions: dict[int, cs.SX] = {}
    visited: set[int] = set()

    def finite(e):                   # e reads parameters and time only
        if e.is_constant():
            if not np.isfinite(float(e)):
                raise _Unbounded
        elif not e.is_symbolic():   # a parameter or time itself is checked as it is given
            conditions.setdefault(e.element_hash(), e)

    def operand(e):
        visit(e) if reads_unknowns(e) else finite(e)

    def visit(e):                    # e reads an unknown
        key = e.element_hash()
        if key in visited or e.is_symbolic():
            return
        visited.add(key)
        op = e.op()
        if op in (cs.OP_DIV, cs.OP_INV):
            divisor = e.dep(e.n_dep() - 1)
            if reads_unknowns(divisor):
                raise _Unbounded
            if op == cs.OP_DIV:
                operand(e.dep(0))
            finite(1 / divisor)
        elif op in _BOUNDED:
            for i in range(e.n_dep()):
                operand(e.dep(i))
        else:
            raise _Unbounded

    try:
        operand(expr)
    except (_Unbounded, RecursionError):    # (an expression thousands of operations deep)
        return None
    rows = list(conditions.values())
    return cs.Function("finite_conditions", [params, time], [cs.vertcat(*rows) if rows else cs.SX(0, 1)])


class FiniteGuard:
    """The class solutions a compiled model's explicit values use, each with the parameters of
    the instances it gives values to (rows of the parameter vector's indices, instance by
    instance, as the template's p input orders them). :meth:`holds` says whether every value
    of the model is finite at a point without evaluating them (see the module's text);
    ``usable`` is False where the model's values include solutions it cannot vouch for (a
    linear loop solved symbolically, a connection sum with a non-finite weight)."""

    def __init__(self):
        self.usable = True
        self.parts: list[tuple] = []     # (template, kind, equation, local, index rows)
        self._adding: dict[tuple, list] = {}

    def add(self, template, kind: str, equation: int, local: int, param_rows: np.ndarray) -> None:
        """The solution of ``local`` from ``equation`` of ``template`` (``kind`` "sol", or
        "der" for the derivative of the equation) given to instances whose parameters are at
        ``param_rows`` (instances × the template's inputs)."""
        rows = param_rows.astype(index_dtype(int(param_rows.max(initial=0)) + 1))
        self._adding.setdefault((id(template), kind, equation, local), [template, []])[1].append(rows)

    def refuse(self) -> None:
        """The model's values include a solution the guard cannot vouch for."""
        self.usable = False

    def finished(self) -> FiniteGuard | None:
        """This guard with each solution's rows joined; None if it is not usable."""
        if not self.usable:
            return None
        self.parts = [(template, kind, equation, local, np.concatenate(rows) if len(rows) > 1 else rows[0])
                      for (_, kind, equation, local), (template, rows) in self._adding.items()]
        self._adding = {}
        return self

    def holds(self, x, z, p, t) -> bool:
        """Whether every value of the model is finite at (x, z, p, t), decided from the
        conditions (False: they do not say; the values themselves must be evaluated)."""
        p = np.asarray(p, dtype=float).ravel()
        if not (np.isfinite(t) and all(np.isfinite(np.asarray(v, dtype=float)).all() for v in (x, z, p))):
            return False
        for template, kind, equation, local, rows in self.parts:
            conditions = template.finite_conditions(kind, equation, local)
            if conditions is None:
                return False
            if conditions.numel_out(0) and not _finite_everywhere(conditions, p[rows].T, float(t)):
                return False
        return True


_CHUNK = 2**14    # instances per call: a map over all of a million took 60 B an instance

# NumPy's form of the operations conditions hold (a condition with another is evaluated by CasADi)
_NUMPY = {
    cs.OP_ADD: np.add, cs.OP_SUB: np.subtract, cs.OP_MUL: np.multiply, cs.OP_DIV: np.divide,
    cs.OP_NEG: np.negative, cs.OP_INV: np.reciprocal, cs.OP_SQ: np.square, cs.OP_TWICE: lambda a: a + a,
    cs.OP_SQRT: np.sqrt, cs.OP_EXP: np.exp, cs.OP_LOG: np.log, cs.OP_POW: np.power, cs.OP_CONSTPOW: np.power,
    cs.OP_FABS: np.abs, cs.OP_SIN: np.sin, cs.OP_COS: np.cos, cs.OP_TAN: np.tan, cs.OP_TANH: np.tanh,
    cs.OP_SINH: np.sinh, cs.OP_COSH: np.cosh, cs.OP_ATAN: np.arctan, cs.OP_ASIN: np.arcsin,
    cs.OP_ACOS: np.arccos, cs.OP_ATAN2: np.arctan2, cs.OP_FMIN: np.fmin, cs.OP_FMAX: np.fmax,
    cs.OP_FLOOR: np.floor, cs.OP_CEIL: np.ceil, cs.OP_SIGN: np.sign, cs.OP_COPYSIGN: np.copysign,
    cs.OP_LT: lambda a, b: (a < b) * 1.0, cs.OP_LE: lambda a, b: (a <= b) * 1.0,
    cs.OP_EQ: lambda a, b: (a == b) * 1.0, cs.OP_NE: lambda a, b: (a != b) * 1.0,
    cs.OP_NOT: lambda a: (a == 0) * 1.0, cs.OP_AND: lambda a, b: ((a != 0) & (b != 0)) * 1.0,
    cs.OP_OR: lambda a, b: ((a != 0) | (b != 0)) * 1.0,
    cs.OP_IF_ELSE_ZERO: lambda c, a: np.where(c != 0, a, 0.0), cs.OP_ASSIGN: lambda a: a}


def _finite_everywhere(conditions: cs.Function, params: np.ndarray, t: float) -> bool:
    """Whether ``conditions`` is finite for every column of ``params`` (inputs × instances)."""
    with np.errstate(all="ignore"):
        values = _by_numpy(conditions, params, t)
    if values is not None:
        return bool(np.isfinite(values).all())
    n = params.shape[1]
    whole = conditions.map(min(n, _CHUNK))
    for start in range(0, n, _CHUNK):
        block = params[:, start:start + _CHUNK]
        call = whole if block.shape[1] == _CHUNK or n < _CHUNK else conditions.map(block.shape[1])
        if not np.isfinite(np.asarray(call(block, t))).all():
            return False
    return True


def _by_numpy(function: cs.Function, params: np.ndarray, t: float) -> np.ndarray | None:
    """The outputs of ``function`` (params, t) for every column of ``params``, its algorithm
    run on NumPy rows (a few vector operations where CasADi's map took 150 ns an instance);
    None where it has an operation without a NumPy form here."""
    work: list = [None] * function.sz_w()
    out = np.empty((function.numel_out(0), params.shape[1]))
    for k in range(function.n_instructions()):
        op, read, written = function.instruction_id(k), function.instruction_input(k), function.instruction_output(k)
        if op == cs.OP_INPUT:
            work[written[0]] = params[read[1]] if read[0] == 0 else t
        elif op == cs.OP_OUTPUT:
            out[written[1]] = work[read[0]]
        elif op == cs.OP_CONST:
            work[written[0]] = function.instruction_constant(k)
        elif op in _NUMPY:
            work[written[0]] = _NUMPY[op](*(work[i] for i in read))
        else:
            return None
    return out
