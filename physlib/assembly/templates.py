"""Per-class equation templates: each component class's equations, derived once.

A :class:`ClassTemplate` holds a class's equations as CasADi functions of its *local*
variables (port variables, internal variables, derivatives), its parameters and time, plus
the structural facts the assembly needs: which variables each equation contains, which
equations are plain aliases (``x = ±y``), and, for each equation and each variable it is
linear in with a coefficient that cannot vanish, the explicit solution for that variable.
Flattening then instantiates all components of a class with one mapped call.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import casadi as cs
import sympy as sp

from ..core.component import Component
from ..core.errors import DeclarationError, PhyslibError
from ..core.symbols import ModeSymbol, VariableSymbol, derivative_base, t
from .positions import without_integration
from .sympy_to_casadi import to_casadi


class EquationError(DeclarationError):
    """A component class declares equations physlib cannot use."""


@dataclass
class ClassTemplate:
    class_name: str
    local_names: list[str]            # port variables, then internal variables, then der(...)
    param_names: list[str]            # non-structural parameters, in declaration order
    mode_names: list[str]             # discrete modes; the functions' p input is params + modes
    mode_starts: list[int]
    local_start: list[float]          # initial guess of every local variable
    local_units: list[str]
    der_of: dict[int, int]            # local index of der(x) -> local index of x
    residuals: list[sp.Expr]          # equations in residual form (= 0), non-alias ones
    aliases: list[tuple[int, int, float]]  # (a, b, sign): local a = sign * local b
    incidence: list[list[int]]        # per residual: local indices it contains
    explicit: list[set[int]]          # per residual: locals it can be solved for explicitly
    risky: list[set[int]]             # per residual: locals it is linear in, with a coefficient
                                      # that may vanish (Rs·i with Rs >= 0): matched only if needed
    initial: dict[int, sp.Expr]       # state local index -> initial value expression in params
    linear: bool                      # every equation affine in the variables, no modes
    residual_linear: list[bool]       # per residual: affine in the variables, no modes
    guards: list[sp.Expr]
    constraints: list[tuple]          # (mode condition, expression, restitution) per mode constraint
    dissipates_power: bool            # effort × flow of the dissipation pair is a power [W]
    energy: sp.Expr | None
    dissipation: tuple[sp.Expr, sp.Expr] | None
    symbols: dict = field(repr=False, default_factory=dict)  # name -> sympy symbol
    mode_symbols: list = field(repr=False, default_factory=list)  # per mode: its sympy symbol
    followers: frozenset = frozenset()  # position states determined outside (not integrated here)

    @cached_property
    def _sx(self):
        v = cs.SX.sym("v", len(self.local_names))
        p = cs.SX.sym("p", self.n_inputs)
        time = cs.SX.sym("t")
        table = {self.symbols[n]: v[i] for i, n in enumerate(self.local_names)}
        table.update({sp.Symbol(n, real=True): p[i] for i, n in enumerate(self.param_names)})
        table.update({symbol: p[len(self.param_names) + i] for i, symbol in enumerate(self.mode_symbols)})
        table[t] = time
        return v, p, time, table

    def _function(self, name, exprs):
        v, p, time, table = self._sx
        out = [to_casadi(e, table) for e in exprs]
        label = re.sub(r"_+", "_", f"{self.class_name.strip('_')}_{name}")
        return cs.Function(label, [v, p, time], [cs.vertcat(*out)] if out else [cs.SX(0, 1)])

    @property
    def n_inputs(self) -> int:
        """Length of the p input of the class functions: parameters, then modes."""
        return len(self.param_names) + len(self.mode_names)

    @cached_property
    def guard_function(self) -> cs.Function | None:
        """(locals, params + modes, t) -> zero-crossing functions."""
        return self._function("guards", self.guards) if self.guards else None

    @cached_property
    def constraint_function(self) -> cs.Function | None:
        """(locals, params + modes, t) -> (mode constraint expressions, 1 where active,
        restitution coefficients)."""
        if not self.constraints:
            return None
        exprs = [e for _, e, _ in self.constraints] + \
            [sp.Piecewise((1, cond), (0, True)) for cond, _, _ in self.constraints] + \
            [r for _, _, r in self.constraints]
        return self._function("constraints", exprs)

    @cached_property
    def residual_function(self) -> cs.Function:
        """(locals, params, t) -> residuals."""
        return self._function("res", self.residuals)

    def solution_function(self, equation: int, local: int) -> cs.Function:
        """(locals, params, t) -> the value of ``local`` that satisfies ``equation``."""
        key = (equation, local)
        cache = self.__dict__.setdefault("_solutions", {})
        if key not in cache:
            sym = self.symbols[self.local_names[local]]
            expr = self.residuals[equation]
            coeff = sp.diff(expr, sym)
            cache[key] = self._function(f"sol{equation}_{local}", [-expr.subs(sym, 0) / coeff])
        return cache[key]

    def _derivative(self, equation: int):
        """(vdot symbols, SX time derivative of residual ``equation`` in locals and vdot)."""
        cache = self.__dict__.setdefault("_derivatives", {})
        if equation not in cache:
            v, p, time, table = self._sx
            vdot = cs.SX.sym("vdot", len(self.local_names))
            expr = self.residuals[equation]
            total = to_casadi(sp.diff(expr, t), table)
            for i, name in enumerate(self.local_names):
                partial = sp.diff(expr, self.symbols[name])
                if partial != 0:
                    total = total + to_casadi(partial, table) * vdot[i]
            cache[equation] = (vdot, total)
        return cache[equation]

    def derivative_function(self, equation: int) -> cs.Function:
        """(locals, d/dt of locals, params, t) -> time derivative of residual ``equation``
        (for index reduction)."""
        v, p, time, _ = self._sx
        vdot, total = self._derivative(equation)
        return cs.Function(f"{self.class_name.strip('_')}_dres{equation}", [v, vdot, p, time], [total])

    def derivative_solution_function(self, equation: int, local: int) -> cs.Function:
        """(locals, d/dt of locals, params, t) -> d/dt of ``local`` from the derivative of
        ``equation``; valid where the equation is explicit in ``local`` (a constant, nonzero
        coefficient, which its derivative shares)."""
        v, p, time, _ = self._sx
        vdot, total = self._derivative(equation)
        rest = cs.substitute(total, vdot[local], 0)
        coeff = cs.jacobian(total, vdot[local])
        return cs.Function(f"{self.class_name.strip('_')}_dsol{equation}_{local}",
                           [v, vdot, p, time], [-rest / coeff])

    @cached_property
    def start_function(self) -> cs.Function:
        """params -> initial guesses of all locals (states at their initial values)."""
        exprs = [self.initial.get(i, sp.Float(s)) for i, s in enumerate(self.local_start)]
        return self._function("start", exprs)

    def start_rows_function(self, rows: tuple[int, ...]) -> cs.Function:
        """params -> initial guesses of the locals ``rows`` only (see :attr:`start_function`)."""
        if len(rows) == len(self.local_names) and rows == tuple(range(len(rows))):
            return self.start_function
        cache = self.__dict__.setdefault("_start_rows", {})
        if rows not in cache:
            exprs = [self.initial.get(i, sp.Float(self.local_start[i])) for i in rows]
            cache[rows] = self._function("start_" + "_".join(map(str, rows)), exprs)
        return cache[rows]

    @cached_property
    def energy_function(self) -> cs.Function | None:
        return None if self.energy is None else self._function("energy", [self.energy])

    @property
    def power_dissipation_function(self) -> cs.Function | None:
        """The dissipation pair of components whose effort × flow is a power (not heat conduction)."""
        return self.dissipation_function if self.dissipates_power else None

    @cached_property
    def dissipation_function(self) -> cs.Function | None:
        """(locals, params, t) -> (effort, flow); their product is the dissipated power."""
        return None if self.dissipation is None else self._function("dissipation", list(self.dissipation))


_cache: dict[tuple, ClassTemplate] = {}


def template_for(component: Component, followers: frozenset[str] = frozenset(),
                 unread: frozenset[str] = frozenset()) -> ClassTemplate:
    """The template of ``component``'s class (and structure), derived on first use.

    Position states the instance does not integrate (:mod:`physlib.assembly.positions`) lose
    their ``der(x) = ...`` equation and start value: ``followers`` are determined from outside,
    ``unread`` ones are not variables at all."""
    key = (type(component), component.structure_key(), followers, unread)
    if key not in _cache:
        _cache[key] = _derive(component, followers, unread)
    return _cache[key]


def _derive(comp: Component, followers: frozenset[str] = frozenset(),
            unread: frozenset[str] = frozenset()) -> ClassTemplate:
    cls = type(comp)
    label = f"{cls.__name__} {comp.name!r}" if comp.name else cls.__name__
    raw, initial, energy, dissipation, guards, constraints = _declarations(comp, label)
    if followers or unread:
        raw, initial = without_integration(raw, initial, followers | unread, label)
    names, start, units = _port_and_internal_locals(comp, unread)
    params = [n for n, p in cls._parameters.items() if not p.structural]
    known_params = {sp.Symbol(n, real=True) for n in params} | \
        {mode.symbol() for mode in cls._modes.values()}
    nonzero_params = {sp.Symbol(n, real=True) for n, p in cls._parameters.items()
                      if not p.structural and (p.positive or p.nonzero)}

    used = set().union(*(e.free_symbols for e in raw + guards + [c[1] for c in constraints]))
    ders = _derivative_locals(used, names, start, units, label)
    symbols = {n: VariableSymbol(n, real=True) for n in names}
    index = {n: i for i, n in enumerate(names)}
    for sym in used:
        if sym == t or sym in known_params or (isinstance(sym, VariableSymbol) and sym.name in index):
            continue
        raise EquationError(
            f"equations of {label} use {sym}, which is not a declared parameter, variable or port "
            f"(declared: {', '.join(params + names)})")

    residuals, aliases, incidence, explicit, risky = _classify(raw, index, nonzero_params)
    init = {}
    for sym, value in initial.items():
        if not isinstance(sym, VariableSymbol) or sym.name not in index:
            raise EquationError(f"{label}.initial(): {sym} is not a variable of the class")
        init[index[sym.name]] = _expression(value, label, "initial")
    der_of = {index[d.name]: index[derivative_base(d.name)] for d in ders}
    residual_linear = [_affine(expr) for expr in residuals]
    linear = not cls._modes and all(residual_linear)
    return ClassTemplate(cls.__name__, names, params, list(cls._modes),
                         [m.start for m in cls._modes.values()], start, units, der_of, residuals, aliases,
                         incidence, explicit, risky, init, linear, residual_linear, guards, constraints,
                         cls.dissipates_power,
                         None if energy is None else sp.sympify(energy),
                         None if dissipation is None else tuple(sp.sympify(x) for x in dissipation),
                         symbols, [mode.symbol() for mode in cls._modes.values()], followers)


def _declarations(comp: Component, label: str):
    """What the class declares: residuals, initial values, energy, dissipation, guards and mode
    constraints, with the user's mistakes turned into EquationErrors."""
    comp._deriving = True
    try:
        raw = [_residual(e, label) for e in _listed(comp.equations(), label, "equations")]
        initial = comp.initial()
        if not isinstance(initial, dict):
            raise EquationError(f"{label}.initial() must return a dict {{self.x: start}}, got "
                                f"{type(initial).__name__}")
        energy = comp.energy()
        dissipation = comp.dissipation()
        if dissipation is not None and (not isinstance(dissipation, (list, tuple)) or len(dissipation) != 2):
            raise EquationError(f"{label}.dissipation() must return a pair (effort, flow) or None, "
                                f"got {dissipation!r}")
        guards = [_expression(g, label, "guards") for g in _listed(comp.guards(), label, "guards")]
        constraints = [_constraint(c, label) for c in _listed(comp.constraints(), label, "constraints")]
    except DeclarationError as err:
        if label in str(err):
            raise
        raise EquationError(f"{label}: {err}") from err     # e.g. der(self.k) of a parameter
    except PhyslibError:
        raise
    except (TypeError, ValueError, ArithmeticError, AttributeError, KeyError, IndexError) as err:
        # User-written declarations: math.sin(self.x), np.exp(self.v), float(self.R), ...
        raise EquationError(
            f"{label}: building its equations raised {type(err).__name__}: {err}. Inside "
            "equations() parameters and variables are SymPy symbols: use SymPy functions "
            "(sp.sin, sp.exp, sp.Piecewise), not math/NumPy functions, float() or if-tests on them"
        ) from err
    finally:
        comp._deriving = False
    return raw, initial, energy, dissipation, guards, constraints


def _constraint(c, label):
    if not isinstance(c, (list, tuple)) or len(c) not in (2, 3):
        raise EquationError(f"{label}.constraints(): each entry is (mode condition, expression"
                            f"[, restitution]), got {c!r}")
    return (c[0], _expression(c[1], label, "constraints"),
            _expression(c[2] if len(c) > 2 else 0, label, "constraints"))


def _port_and_internal_locals(comp: Component, left_out: frozenset[str] = frozenset()):
    """Names, start values and units of the port variables, then the declared variables but
    those ``left_out``."""
    names, start, units = [], [], []
    for port in comp.ports().values():
        d = port.domain
        if d.is_signal:
            names.append(port.name), start.append(0.0), units.append(port.unit)
        else:
            names += port.variable_names()
            start += [d.across_start, 0.0]
            units += [d.across_unit, d.through_unit]
    for name, var in comp.variables().items():
        if name in left_out:
            continue
        names.append(name)
        start.append(var.start)
        units.append(var.unit)
    return names, start, units


def _derivative_locals(used, names, start, units, label):
    """The der(x) symbols the equations use, appended to the locals (in name order)."""
    ders = sorted((s for s in used if isinstance(s, VariableSymbol) and derivative_base(s.name)),
                  key=lambda s: s.name)
    for d in ders:
        base = derivative_base(d.name)
        if base not in names:
            raise EquationError(f"{label}: der({base}) of something that is not a variable of the class")
        names.append(d.name)
        start.append(0.0)
        units.append(f"{units[names.index(base)]}/s")
    return ders


def _classify(raw, index, nonzero_params):
    """Residuals that are not aliases, aliases, and per residual its locals, the locals it
    can be solved for explicitly and those with a coefficient that may vanish."""
    residuals, aliases, incidence, explicit, risky = [], [], [], [], []
    for expr in raw:
        alias = _as_alias(expr, index)
        if alias is not None:
            aliases.append(alias)
            continue
        syms = [s for s in expr.free_symbols if isinstance(s, VariableSymbol)]
        residuals.append(expr)
        incidence.append(sorted(index[s.name] for s in syms))
        kinds = {index[s.name]: _solvability(expr, s, nonzero_params) for s in syms}
        explicit.append({i for i, k in kinds.items() if k == "explicit"})
        risky.append({i for i, k in kinds.items() if k == "risky"})
    return residuals, aliases, incidence, explicit, risky


def _affine(expr) -> bool:
    """Whether ``expr`` is affine in its variables and free of modes."""
    return (not any(isinstance(s, (VariableSymbol, ModeSymbol)) for v in expr.free_symbols
                    if isinstance(v, VariableSymbol) for s in sp.diff(expr, v).free_symbols)
            and not any(isinstance(s, ModeSymbol) for s in expr.free_symbols))


def _listed(items, label, method) -> list:
    """What a declaration method returned, as a list: a single ``Eq`` (or expression) instead
    of a list is an error that says so rather than a SymPy TypeError."""
    if isinstance(items, (list, tuple)):
        return list(items)
    if isinstance(items, (sp.Basic, bool, int, float, str)):
        raise EquationError(f"{label}.{method}() returned a single {type(items).__name__} ({items}); "
                            f"return a list: [{items}]")
    raise EquationError(f"{label}.{method}() must return a list, got {type(items).__name__}")


def _expression(value, label, method) -> sp.Expr:
    try:
        expr = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        raise EquationError(f"{label}.{method}(): {value!r} is not a SymPy expression") from None
    if not isinstance(expr, sp.Expr):
        raise EquationError(f"{label}.{method}(): {value!r} is not an expression")
    return expr


def _residual(eq, label) -> sp.Expr:
    if isinstance(eq, sp.Equality):
        return eq.lhs - eq.rhs
    if isinstance(eq, (bool, sp.logic.boolalg.BooleanAtom)):
        why = "both sides are identical" if eq else \
            "its two sides can never be equal (different constants, or a NaN/infinite one)"
        raise EquationError(f"{label}: an equation evaluated to {eq}: {why}; write each equation "
                            "with the component's variables, e.g. sp.Eq(self.v, self.R * self.i)")
    if isinstance(eq, str):
        raise EquationError(f"{label}: equation {eq!r} is a string; write it with SymPy, "
                            "e.g. sp.Eq(self.v, self.R * self.i)")
    try:
        expr = sp.sympify(eq, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        raise EquationError(f"{label}: equation {eq!r} is neither an Eq nor an expression") from None
    if not isinstance(expr, sp.Expr):
        raise EquationError(f"{label}: equation {eq!r} is neither an Eq nor an expression")
    return expr


def _as_alias(expr, index):
    """``(a, b, sign)`` when ``expr = 0`` says local a = sign * local b, else None."""
    terms = expr.as_coefficients_dict()
    if len(terms) != 2 or not all(isinstance(s, VariableSymbol) for s in terms):
        return None
    (x, cx), (y, cy) = terms.items()
    if not (cx.is_Number and cy.is_Number) or abs(cx) != abs(cy) or x == y:
        return None
    return index[x.name], index[y.name], float(-cy / cx)


def _solvability(expr, sym, nonzero_params) -> str:
    """How ``expr = 0`` determines ``sym``: "explicit" (one division, never by zero),
    "nonlinear" (needs Newton) or "risky" (linear, but the coefficient may vanish)."""
    coeff = sp.diff(expr, sym)
    if sym in coeff.free_symbols:
        return "nonlinear"
    safe = all(f.is_Number and f != 0 or f in nonzero_params
               or (f.is_Pow and f.base in nonzero_params) for f in coeff.as_ordered_factors())
    return "explicit" if safe else "risky"
