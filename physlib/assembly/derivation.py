"""Deriving a component class's equations: its declarations, in SymPy, become a
:class:`~physlib.assembly.class_template.ClassTemplate` of CasADi expressions.

This is the only part of building and compiling a model that needs SymPy; it runs once per
class and structure, and :mod:`physlib.assembly.templates` caches its result in memory and on
disk.
"""
from __future__ import annotations

import casadi as cs
import sympy as sp

from ..core.component import Component
from ..core.errors import DeclarationError, PhyslibError
from ..core.symbolic import ModeSymbol, VariableSymbol, t
from ..core.symbols import derivative_base
from ..core.units import rate_unit
from . import unit_check
from .class_template import EXPRESSION_GROUPS, ClassTemplate, EquationError, function_label
from .positions import without_integration
from .sympy_to_casadi import to_casadi


def derive(comp: Component, followers: frozenset[str] = frozenset(),
           unread: frozenset[str] = frozenset()) -> ClassTemplate:
    """The template of ``comp``'s class and structure, derived from its declarations."""
    cls = type(comp)
    label = f"{cls.__name__} {comp.name!r}" if comp.name else cls.__name__
    declared = _declarations(comp, label)
    checked = declared[0]                # with the constants of physlib.constants, and their units
    raw, initial, energy, dissipation, guards, constraints = _with_constant_values(*declared)
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
    unit_issues = _unit_issues(comp, checked, names, units)
    symbols = {n: VariableSymbol(n, real=True) for n in names}
    index = {n: i for i, n in enumerate(names)}
    for sym in used:
        if sym == t or sym in known_params or (isinstance(sym, VariableSymbol) and sym.name in index):
            continue
        raise EquationError(
            f"equations of {label} use {sym}, which is not a declared parameter, variable or port "
            f"(declared: {', '.join(params + names)})")

    residuals, aliases, incidence, explicit, risky, coefficients = _classify(raw, index, nonzero_params)
    init = {}
    for sym, value in initial.items():
        if not isinstance(sym, VariableSymbol) or sym.name not in index:
            raise EquationError(f"{label}.initial(): {sym} is not a variable of the class")
        init[index[sym.name]] = _expression(value, label, "initial")
        read = sorted(s.name for s in init[index[sym.name]].free_symbols if isinstance(s, VariableSymbol))
        if read:    # starts are numbers of the parameters, set before any variable is solved
            raise EquationError(
                f"{label}.initial(): the start of {sym.name} reads {', '.join(read)}, a variable; a start "
                f"value may use parameters only (it is set before any variable is solved, so a variable "
                f"would read as 0): give the class a parameter for it")
    der_of = {index[d.name]: index[derivative_base(d.name)] for d in ders}
    residual_linear = [_affine(expr) for expr in residuals]
    energy = None if energy is None else sp.sympify(energy)
    dissipation = None if dissipation is None else tuple(sp.sympify(x) for x in dissipation)
    modes = [mode.symbol() for mode in cls._modes.values()]
    expressions, solutions, partials = _expressions(
        cls.__name__, names, symbols, params, modes, residuals, explicit, coefficients, guards,
        constraints, [init.get(i, sp.Float(s)) for i, s in enumerate(start)], energy, dissipation)
    return ClassTemplate(
        cls.__name__, names, params, list(cls._modes), [m.start for m in cls._modes.values()], start, units,
        der_of, [str(r) for r in residuals], aliases, incidence, explicit, risky,
        {i: frozenset(s.name for s in e.free_symbols) & frozenset(params) for i, e in init.items()},
        not cls._modes and all(residual_linear), residual_linear, [t in r.free_symbols for r in residuals],
        [str(g) for g in guards], [str(c) for c in constraints], cls.dissipates_power,
        None if energy is None else str(energy), None if dissipation is None else tuple(map(str, dissipation)),
        expressions, solutions, partials, followers, all(_affine_in_variables(expr) for expr in residuals),
        unit_issues)


def unit_issues(comp: Component) -> tuple[str, ...]:
    """Where the units of ``comp``'s class's equations disagree (see
    :mod:`physlib.assembly.unit_check`), without deriving the rest of its template: what
    :func:`derive` stores in the template's ``unit_issues``."""
    label = f"{type(comp).__name__} {comp.name!r}" if comp.name else type(comp).__name__
    raw = _declarations(comp, label)[0]
    names, _, units = _port_and_internal_locals(comp)
    used = set().union(*(e.free_symbols for e in raw))
    for d in sorted((s for s in used if isinstance(s, VariableSymbol) and derivative_base(s.name)),
                    key=lambda s: s.name):
        base = derivative_base(d.name)
        if base in names:
            names.append(d.name)
            units.append(rate_unit(units[names.index(base)]))
    return _unit_issues(comp, raw, names, units)


def _unit_issues(comp, residuals, names, units) -> tuple[str, ...]:
    cls = type(comp)
    if not cls.units_checked:
        return ()
    return unit_check.check(cls.__name__, residuals, unit_check.declared_units(cls, names, units,
                                                                                _generic_names(comp)))


def _with_constant_values(raw, initial, energy, dissipation, guards, constraints):
    """The declarations with each constant of :mod:`physlib.constants` replaced by its value
    (the unit check has read their units)."""
    value = unit_check.substituted
    return ([value(e) for e in raw], {k: value(v) for k, v in initial.items()} if isinstance(initial, dict)
            else initial, value(energy), None if dissipation is None else tuple(value(x) for x in dissipation),
            [value(g) for g in guards], [(c, value(e), value(r)) for c, e, r in constraints])


def _expressions(class_name, names, symbols, params, modes, residuals, explicit, coefficients, guards,
                 constraints, starts, energy, dissipation):
    """The CasADi function (v, p, t) -> the template's expressions (see ClassTemplate), the row
    of each explicit solution and the rows of each residual's partial derivatives."""
    v, p, time = cs.SX.sym("v", len(names)), cs.SX.sym("p", len(params) + len(modes)), cs.SX.sym("t")
    table = {symbols[n]: v[i] for i, n in enumerate(names)}
    table.update({sp.Symbol(n, real=True): p[i] for i, n in enumerate(params)})
    table.update({symbol: p[len(params) + i] for i, symbol in enumerate(modes)})
    table[t] = time
    groups = {name: [] for name in EXPRESSION_GROUPS}
    groups["res"], groups["guards"], groups["start"] = residuals, guards, starts
    groups["constraints"] = [e for _, e, _ in constraints] + \
        [sp.Piecewise((1, cond), (0, True)) for cond, _, _ in constraints] + [r for _, _, r in constraints]
    groups["energy"] = [] if energy is None else [energy]
    groups["dissipation"] = [] if dissipation is None else list(dissipation)
    solutions, partials = {}, []
    for j, expr in enumerate(residuals):
        for local in sorted(explicit[j]):
            solutions[(j, local)] = len(groups["sol"])
            sym = symbols[names[local]]
            groups["sol"].append(-expr.subs(sym, 0) / coefficients[j][local])
        pieces = [(None, _time_derivative(expr))] + [(i, c) for i, c in sorted(coefficients[j].items()) if c != 0]
        try:        # d/dt, for index reduction: None where CasADi has no form (DiracDelta of sign(x))
            converted = [(i, to_casadi(e, table)) for i, e in pieces]
        except PhyslibError:
            converted, own = [(None, cs.SX(float("nan")))], None
        else:
            own = [(i, len(groups["partial"]) + k) for k, (i, _) in enumerate(converted[1:])]
        groups["dt"].append(converted[0][1])
        groups["partial"] += [e for _, e in converted[1:]]
        partials.append(own)
    outputs = [cs.vertcat(*[e if isinstance(e, cs.SX) else to_casadi(e, table) for e in groups[name]])
               if groups[name] else cs.SX(0, 1) for name in EXPRESSION_GROUPS]
    function = cs.Function(function_label(class_name, "expressions"), [v, p, time], outputs, ["v", "p", "t"],
                           list(EXPRESSION_GROUPS))
    return function, solutions, partials


def _time_derivative(expr):
    """∂expr/∂t with ``floor`` and ``ceiling`` of time held constant: they are piecewise
    constant, their jumps are time events the solver stops at, and SymPy would leave their
    derivative unevaluated (a sawtooth's or triangle's slope would have no CasADi form)."""
    steps = {f: sp.Dummy(real=True) for f in expr.atoms(sp.floor, sp.ceiling) if t in f.free_symbols}
    if not steps:
        return sp.diff(expr, t)
    return sp.diff(expr.xreplace(steps), t).xreplace({d: f for f, d in steps.items()})


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
        units.append(rate_unit(units[names.index(base)]))
    return ders


def _generic_names(comp: Component) -> set[str]:
    """The signal ports of ``comp``, and all its variables if it is a block with signal ports
    only: dimensionless-declared, they carry whatever unit the model connects."""
    ports = comp.ports()
    generic = {n for n, p in ports.items() if p.domain.is_signal}
    if len(generic) == len(ports):
        generic |= set(comp.variables()) | set(type(comp)._modes)
    return generic


def _classify(raw, index, nonzero_params):
    """Residuals that are not aliases, aliases, and per residual its locals, the locals it
    can be solved for explicitly, those with a coefficient that may vanish, and its partial
    derivative by each of its locals."""
    residuals, aliases, incidence, explicit, risky, coefficients = [], [], [], [], [], []
    for expr in raw:
        alias = _as_alias(expr, index)
        if alias is not None:
            aliases.append(alias)
            continue
        syms = [s for s in expr.free_symbols if isinstance(s, VariableSymbol)]
        residuals.append(expr)
        incidence.append(sorted(index[s.name] for s in syms))
        coefficients.append({index[s.name]: sp.diff(expr, s) for s in syms})
        kinds = {index[s.name]: _solvability(coefficients[-1][index[s.name]], s, nonzero_params) for s in syms}
        explicit.append({i for i, k in kinds.items() if k == "explicit"})
        risky.append({i for i, k in kinds.items() if k == "risky"})
    return residuals, aliases, incidence, explicit, risky, coefficients


def _affine(expr) -> bool:
    """Whether ``expr`` is affine in its variables and free of modes."""
    return (not any(isinstance(s, (VariableSymbol, ModeSymbol)) for v in expr.free_symbols
                    if isinstance(v, VariableSymbol) for s in sp.diff(expr, v).free_symbols)
            and not any(isinstance(s, ModeSymbol) for s in expr.free_symbols))


def _affine_in_variables(expr) -> bool:
    """Whether ``expr`` is affine in its variables with coefficients constant in time, its
    modes held fixed (an ideal switch's equations in each of its modes): no comparison reads a
    variable (the derivative of Piecewise((v, v > 0), (v + 1, True)) is 1, though it jumps),
    and no derivative by a variable has a variable or time in it (SymPy's derivatives of sign,
    Abs, Heaviside, floor, Min and Max keep theirs: DiracDelta(v), an unevaluated Derivative,
    ...; a resistance that changes with time makes a coefficient that does). The stepped
    solvers evaluate such a model's Jacobian once per parameter vector."""
    if any(isinstance(s, VariableSymbol) for rel in expr.atoms(sp.core.relational.Relational)
           for s in rel.free_symbols):
        return False
    return not any(isinstance(s, VariableSymbol) or s == t for v in expr.free_symbols
                   if isinstance(v, VariableSymbol) for s in sp.diff(expr, v).free_symbols)


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


def _solvability(coeff, sym, nonzero_params) -> str:
    """How an equation whose partial derivative by ``sym`` is ``coeff`` determines ``sym``:
    "explicit" (one division, never by zero), "nonlinear" (needs Newton) or "risky" (linear,
    but the coefficient may vanish)."""
    if sym in coeff.free_symbols:
        return "nonlinear"
    safe = all(f.is_Number and f != 0 or f in nonzero_params
               or (f.is_Pow and f.base in nonzero_params) for f in coeff.as_ordered_factors())
    return "explicit" if safe else "risky"
