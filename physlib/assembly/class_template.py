"""Per-class equation templates: what deriving a component class's equations produces.

A :class:`ClassTemplate` holds a class's equations as CasADi expressions of its *local*
variables (port variables, internal variables, derivatives), its parameters and time, plus
the structural facts the assembly needs: which variables each equation contains, which
equations are plain aliases (``x = ±y``), and, for each equation and each variable it is
linear in with a coefficient that cannot vanish, the explicit solution for that variable.
Flattening then instantiates all components of a class with one mapped call.

Deriving it takes SymPy (:mod:`physlib.assembly.derivation`); the template itself holds no
SymPy object, only CasADi expressions, text and plain Python data, so that it can be cached on
disk (:mod:`physlib.assembly.template_cache`) and used in a process that never imports SymPy.
"""
from __future__ import annotations

import re
from dataclasses import field
from functools import cached_property

import casadi as cs

from ..core.errors import DeclarationError, PhyslibError
from ..core.records import record
from .finiteness import finite_conditions

# The outputs of ClassTemplate.expressions, each a column of scalar expressions in (v, p, t).
EXPRESSION_GROUPS = ("res", "guards", "constraints", "start", "energy", "dissipation", "sol", "dt", "partial")


class EquationError(DeclarationError):
    """A component class declares equations physlib cannot use."""


def function_label(class_name: str, suffix: str) -> str:
    """The name of a CasADi function of the class ``class_name``: ``Resistor_expressions``.
    CasADi takes ASCII letters, digits and single underscores, starting with a letter; Python
    takes any identifier for a class (``class Débit``), so the other characters become
    underscores."""
    label = re.sub(r"[^A-Za-z0-9]+", "_", f"{class_name}_{suffix}").strip("_")
    return label if label[:1].isalpha() else f"C_{label}"


@record
class ClassTemplate:
    """A component class's equations derived once (by :mod:`physlib.assembly.derivation`) and
    shared by every instance: its locals, parameters and modes, the structure of its residuals
    and their CasADi forms."""

    class_name: str
    local_names: list[str]            # port variables, then internal variables, then der(...)
    param_names: list[str]            # non-structural parameters, in declaration order
    mode_names: list[str]             # discrete modes; the functions' p input is params + modes
    mode_starts: list[int]
    local_start: list[float]          # initial guess of every local variable
    local_units: list[str]
    der_of: dict[int, int]            # local index of der(x) -> local index of x
    residuals: list[str]              # equations in residual form (= 0), non-alias ones, as text
    aliases: list[tuple[int, int, float]]  # (a, b, sign): local a = sign * local b
    incidence: list[list[int]]        # per residual: local indices it contains
    explicit: list[set[int]]          # per residual: locals it can be solved for explicitly
    risky: list[set[int]]             # per residual: locals it is linear in, with a coefficient
                                      # that may vanish (Rs·i with Rs >= 0): matched only if needed
    initial_uses: dict[int, frozenset[str]]  # state local index -> parameters its initial value reads
    linear: bool                      # every equation affine in the variables, no modes
    residual_linear: list[bool]       # per residual: affine in the variables, no modes
    timed: list[bool]                 # per residual: contains time t explicitly
    guards: list[str]                 # zero-crossing functions, as text
    constraints: list[str]            # mode constraints (condition, expression, restitution), as text
    dissipates_power: bool            # effort × flow of the dissipation pair is a power [W]
    energy: str | None                # stored energy, as text
    dissipation: tuple[str, str] | None   # (effort, flow), as text
    # (v, p, t) -> one column per EXPRESSION_GROUPS entry: residuals; guards; constraint
    # expressions, 1 where active, restitutions; start values of all locals; energy;
    # dissipation pair; explicit solutions; d/dt of each residual at fixed locals; partial
    # derivatives of each residual by its locals.
    expressions: cs.Function = field(repr=False)
    solutions: dict[tuple[int, int], int] = field(repr=False)   # (residual, local) -> row of "sol"
    partials: list = field(repr=False)   # per residual: [(local, row of "partial")], None if no CasADi form
    followers: frozenset = frozenset()  # position states determined outside (not integrated here)
    affine: bool = False              # every residual affine in the variables for fixed modes
    unit_issues: tuple = ()           # where the equations' units disagree (physlib.assembly.unit_check)

    @cached_property
    def _sx(self):
        v = cs.SX.sym("v", len(self.local_names))
        p = cs.SX.sym("p", self.n_inputs)
        time = cs.SX.sym("t")
        out = self.expressions.call({"v": v, "p": p, "t": time})
        rows = {name: [out[name][i] for i in range(out[name].numel())] for name in EXPRESSION_GROUPS}
        return v, p, time, rows

    def _function(self, name, exprs):
        v, p, time, _ = self._sx
        return cs.Function(function_label(self.class_name, name), [v, p, time],
                           [cs.vertcat(*exprs)] if exprs else [cs.SX(0, 1)])

    def _rows(self, group: str) -> list:
        return self._sx[3][group]

    @property
    def n_inputs(self) -> int:
        """Length of the p input of the class functions: parameters, then modes."""
        return len(self.param_names) + len(self.mode_names)

    @cached_property
    def guard_function(self) -> cs.Function | None:
        """(locals, params + modes, t) -> zero-crossing functions."""
        return self._function("guards", self._rows("guards")) if self.guards else None

    @cached_property
    def constraint_function(self) -> cs.Function | None:
        """(locals, params + modes, t) -> (mode constraint expressions, 1 where active,
        restitution coefficients)."""
        return self._function("constraints", self._rows("constraints")) if self.constraints else None

    @cached_property
    def residual_function(self) -> cs.Function:
        """(locals, params, t) -> residuals."""
        return self._function("res", self._rows("res"))

    def solution_function(self, equation: int, local: int) -> cs.Function:
        """(locals, params, t) -> the value of ``local`` that satisfies ``equation`` (one of
        the locals it is explicit in)."""
        key = (equation, local)
        cache = self.__dict__.setdefault("_solutions", {})
        if key not in cache:
            cache[key] = self._function(f"sol{equation}_{local}", [self._rows("sol")[self.solutions[key]]])
        return cache[key]

    def narrow_solution(self, equation: int, local: int) -> tuple[cs.Function, list[int]]:
        """:meth:`solution_function` taking only the locals it reads: (function of (those
        locals, params, t), their indices). A million resistors' ``i = v/R`` then gathers one
        local per instance instead of all six."""
        key = (equation, local)
        cache = self.__dict__.setdefault("_narrow_solutions", {})
        if key not in cache:
            v, p, time, rows = self._sx
            expr = rows["sol"][self.solutions[key]]
            read = {symbol.name() for symbol in cs.symvar(expr)}
            used = [k for k in range(v.numel()) if v[k].name() in read]
            label = function_label(self.class_name, f"sol{equation}_{local}_narrow")
            cache[key] = (cs.Function(label, [v[used] if used else cs.SX(0, 1), p, time], [expr]), used)
        return cache[key]

    def _derivative(self, equation: int):
        """(vdot symbols, SX time derivative of residual ``equation`` in locals and vdot)."""
        cache = self.__dict__.setdefault("_derivatives", {})
        if equation not in cache:
            if self.partials[equation] is None:
                raise PhyslibError(f"index reduction must differentiate the equation {self.residuals[equation]} "
                                   f"= 0 of {self.class_name}, and its derivative has no CasADi form")
            vdot = cs.SX.sym("vdot", len(self.local_names))
            total = self._rows("dt")[equation]
            partial = self._rows("partial")
            for i, row in self.partials[equation]:
                total = total + partial[row] * vdot[i]
            cache[equation] = (vdot, total)
        return cache[equation]

    def derivative_function(self, equation: int) -> cs.Function:
        """(locals, d/dt of locals, params, t) -> time derivative of residual ``equation``
        (for index reduction)."""
        v, p, time, _ = self._sx
        vdot, total = self._derivative(equation)
        return cs.Function(function_label(self.class_name, f"dres{equation}"), [v, vdot, p, time], [total])

    def derivative_solution_function(self, equation: int, local: int) -> cs.Function:
        """(locals, d/dt of locals, params, t) -> d/dt of ``local`` from the derivative of
        ``equation``; valid where the equation is explicit in ``local`` (a constant, nonzero
        coefficient, which its derivative shares)."""
        v, p, time, _ = self._sx
        vdot, solution = self._derivative_solution(equation, local)
        return cs.Function(function_label(self.class_name, f"dsol{equation}_{local}"),
                           [v, vdot, p, time], [solution])

    def _derivative_solution(self, equation: int, local: int):
        vdot, total = self._derivative(equation)
        rest = cs.substitute(total, vdot[local], 0)
        return vdot, -rest / cs.jacobian(total, vdot[local])

    def finite_conditions(self, kind: str, equation: int, local: int) -> cs.Function | None:
        """(params, t) -> what must be finite for the solution of ``local`` from ``equation``
        (``kind`` "sol") or from its derivative ("der") to be finite wherever its inputs are;
        None where that cannot be told without evaluating it
        (:func:`physlib.assembly.finiteness.finite_conditions`)."""
        key = (kind, equation, local)
        cache = self.__dict__.setdefault("_finite_conditions", {})
        if key not in cache:
            v, p, time, rows = self._sx
            if kind == "sol":
                unknowns, solution = [v], rows["sol"][self.solutions[(equation, local)]]
            else:
                vdot, solution = self._derivative_solution(equation, local)
                unknowns = [v, vdot]
            cache[key] = finite_conditions(cs.SX(solution), unknowns, p, time)
        return cache[key]

    @cached_property
    def start_function(self) -> cs.Function:
        """params -> initial guesses of all locals (states at their initial values)."""
        return self._function("start", self._rows("start"))

    def start_rows_function(self, rows: tuple[int, ...]) -> cs.Function:
        """params -> initial guesses of the locals ``rows`` only (see :attr:`start_function`)."""
        if len(rows) == len(self.local_names) and rows == tuple(range(len(rows))):
            return self.start_function
        cache = self.__dict__.setdefault("_start_rows", {})
        if rows not in cache:
            start = self._rows("start")
            cache[rows] = self._function("start_" + "_".join(map(str, rows)), [start[i] for i in rows])
        return cache[rows]

    def start_parameters(self, rows: tuple[int, ...]) -> tuple[int, ...] | None:
        """Where every one of the locals ``rows`` starts at a parameter as given (a
        capacitor's v0), the parameters' places in the p input; else None. Such starts are
        read from the instances' parameters instead of evaluated for each instance."""
        cache = self.__dict__.setdefault("_start_parameters", {})
        if rows not in cache:
            _, p, _, groups = self._sx
            place = {p[j].element_hash(): j for j in range(p.numel())}
            starts = [cs.SX(groups["start"][i]) for i in rows]
            found = [place.get(e.element_hash()) if e.is_symbolic() else None for e in starts]
            cache[rows] = None if None in found else tuple(found)
        return cache[rows]

    @cached_property
    def energy_function(self) -> cs.Function | None:
        return None if self.energy is None else self._function("energy", self._rows("energy"))

    @property
    def power_dissipation_function(self) -> cs.Function | None:
        """The dissipation pair of components whose effort × flow is a power (not heat conduction)."""
        return self.dissipation_function if self.dissipates_power else None

    @cached_property
    def dissipation_function(self) -> cs.Function | None:
        """(locals, params, t) -> (effort, flow); their product is the dissipated power."""
        return None if self.dissipation is None else self._function("dissipation", self._rows("dissipation"))
