"""Noise sources of a model: its dissipative elements, their densities, and a copy of the model
with a zero-valued through source in parallel with each (the inputs of every noise analysis).

An element is a noise source when it declares a ``dissipation()`` pair and connects two ports
of one physical domain; its small-signal conductance G = ∂through/∂across comes from its own
class's equations at the operating point (derived once per class), its density is 4kT·G
(thermal), 4kT²·G (heat conduction) or 2q·|I| (shot), plus KF·|I|^AF/f (flicker).

A component may instead have sources inside it, at nodes no port reaches (a diode's junction
behind its series resistance): its class declares ``noise_parts(params)`` (``{part: kind}``, or
None at parameter values where it is one element as above), ``internal_noise(part, values,
params)`` (the part's white density and 1/f coefficient) and ``noise_variant()`` (a copy whose
noise currents are parameters, named by ``noise_input(part)``). Each part is then a source
``"<path>.<part>"``, and the model copy the analyses linearize holds the variant.
"""
from __future__ import annotations

import warnings

import casadi as cs
import numpy as np

from ...components.electrical.interfaces import constant_set
from ...constants import k_B, q
from ...core.component import Input
from ...core.errors import PhyslibError
from ..common.fast_call import FastFunction
from ..common.initialization import solve_algebraic
from ..linear.analysis_points import copy_model, inject_through, injector_class, with_analysis_points
from ..linear.operating_point import OperatingPoint

BOLTZMANN, ELEMENTARY_CHARGE = k_B, q     # J/K, C: SI 2019's (exact), the default constants


class NoiseWarning(UserWarning):
    """A noise analysis that returns zero or leaves elements out says so with this warning."""


# --- noise elements ---------------------------------------------------------------------------------

class NoiseElement:
    """A dissipative element that is a noise source: ``path``, ``component``, its two ``ports``
    of one domain (names), its ``heat_port`` (name or None: where its temperature comes from)
    and ``kind`` ("thermal" or "shot"); :meth:`density` and :meth:`flicker` give its source's
    PSD at an operating point, :meth:`conductance` its small-signal conductance there and
    :meth:`local_values` its variables there by local name."""

    def __init__(self, path, component, group, row, ports, heat_port, kind, part=None):
        self.path, self.component, self.group, self.row = path, component, group, row
        self.ports, self.heat_port, self.kind, self.part = ports, heat_port, kind, part
        # A part inside the component: the path is "<component path>.<part>".
        self.owner = path if part is None else path[:-len(part) - 1]

    def params(self, op) -> dict:
        """The element's parameters and mode codes at the operating point ``op``, by name (a
        switching element's noise depends on its state)."""
        template = self.group.template
        names = list(template.param_names) + list(template.mode_names)
        return dict(zip(names, op.p[self.group.param_ids[self.row]].tolist()))

    def _current(self, model, op) -> float:
        """The current shot and flicker noise follow: the component's ``noise_current``
        variable if it names one (a diode's junction current, without its charge current),
        else the through variable of its first port."""
        local = self.local_values(model, op)
        name = getattr(self.component, "noise_current", None)
        if name is None:
            domain = self.component.ports()[self.ports[0]].domain
            name = f"{self.ports[0]}.{domain.through}"
        return local[name]

    def local_values(self, model, op):
        system = model.system
        ids = self.group.var_ids[self.row]
        values = op.values[system.var_col[ids]] * system.var_sign[ids]
        return dict(zip(self.group.template.local_names, values.tolist()))

    def flicker(self, model, op) -> float:
        """The 1/f coefficient [through unit²]: KF·|I|^AF for elements with flicker parameters
        (a diode's KF, AF), 0 otherwise."""
        params = self.params(op)
        if self.part is not None:
            return self.component.internal_noise(self.part, self.local_values(model, op), params)[1]
        if params.get("KF", 0.0) == 0.0:
            return 0.0
        return params["KF"] * abs(self._current(model, op)) ** params.get("AF", 1.0)

    def conductance(self, model, op) -> float:
        """∂through/∂across at the operating point ``op`` [through/across unit: S, N·s/m, ...]."""
        return _conductance(model, self, op)

    def density(self, model, op, T):
        if self.part is not None:
            return self.component.internal_noise(self.part, self.local_values(model, op), self.params(op))[0]
        domain = self.component.ports()[self.ports[0]].domain
        local = self.local_values(model, op)
        k, q = constant_set(self.component)      # SI's, or those the component names
        if self.kind == "shot":
            return 2 * q * abs(self._current(model, op))
        G = self.conductance(model, op)
        if domain.name == "thermal":
            temperature = 0.5 * (local[f"{self.ports[0]}.T"] + local[f"{self.ports[1]}.T"])
            return 4 * k * temperature**2 * G
        temperature = local[f"{self.heat_port}.T"] if self.heat_port else T
        return 4 * k * temperature * G


def noise_elements(model, p=None, *, parts: bool = True) -> list[NoiseElement]:
    """The model's noise sources' elements: dissipative components with two ports of one physical
    domain (plus, optionally, a heat port giving their temperature). With ``parts``, a component
    with sources inside it (``noise_parts``, see the module docstring) gives one element per
    source, decided with the parameter vector ``p`` (default: the compiled values)."""
    out, skipped, noiseless = [], [], []
    if p is None:
        p = model.parameter_vector(None)
    for group in model.component_groups:
        template = group.template
        if template.dissipation is None:
            continue
        for row, (path, comp) in enumerate(zip(group.paths, group.components)):
            ports = comp.ports()
            physical = [n for n, p in ports.items() if not p.domain.is_signal]
            by_domain: dict[str, list[str]] = {}
            for name in physical:
                by_domain.setdefault(ports[name].domain.name, []).append(name)
            pairs = [names for names in by_domain.values() if len(names) == 2]
            heat = [n for n in physical if ports[n].domain.name == "thermal" and len(by_domain["thermal"]) == 1]
            inside = None
            if parts and hasattr(comp, "noise_parts"):
                inside = comp.noise_parts(dict(zip(template.param_names, p[group.param_ids[row]].tolist())))
            if inside:       # sources inside: any number of ports (a transistor's three or four)
                out += [NoiseElement(f"{path}.{part}", comp, group, row, tuple(physical[:2]), None, kind_, part)
                        for part, kind_ in inside.items()]
                continue
            kind = getattr(comp, "noise_kind", "thermal")
            if kind is None:            # dissipates, but makes no thermal noise (dry friction)
                noiseless.append(path)
                continue
            if len(pairs) != 1:
                skipped.append(path)
                continue
            out.append(NoiseElement(path, comp, group, row, tuple(pairs[0]), heat[0] if heat else None, kind))
    if skipped:
        warnings.warn(f"noise: {', '.join(skipped[:8])} dissipate power but do not connect two ports "
                      "of one domain, so they are left out as noise sources", NoiseWarning, stacklevel=4)
    if noiseless:
        warnings.warn(f"noise: dry friction ({', '.join(noiseless[:8])}) is left out as a noise source: "
                      "its force does not depend on the slip speed while sliding, and stuck it "
                      "dissipates nothing", NoiseWarning, stacklevel=4)
    return out


_CONDUCTANCE: dict = {}


def _conductance(model, element, op) -> float:
    """∂through/∂across of the element at its operating point: its local equations solved for
    everything but its ports' across variables and its states (derived once per class)."""
    template = element.group.template
    key = (template.class_name, id(template), element.ports)
    fun = _CONDUCTANCE.get(key)
    if fun is None:
        fun = _CONDUCTANCE[key] = _conductance_function(element)
    local = element.local_values(model, op)
    values = np.array([local[n] for n in template.local_names])
    params = op.p[element.group.param_ids[element.row]]
    J_u, J_a = fun(values, params, op.t)
    J_u, J_a = J_u.reshape(fun.shape_u, order="F"), J_a.reshape(-1, 1)
    try:
        du = np.linalg.solve(J_u, -J_a).ravel()
    except np.linalg.LinAlgError:
        raise PhyslibError(f"noise: the equations of {element.path} do not determine its current from "
                           "its port potentials at the operating point, so its conductance is unknown") from None
    return float(du[fun.through_index])


def _conductance_function(element):
    template = element.group.template
    comp = element.component
    names = template.local_names
    given = {f"{name}.{port.domain.across}" for name, port in comp.ports().items() if not port.domain.is_signal}
    # Signal inputs (a switch's control) hold their operating-point values: the conductance is
    # the one at fixed control, as the small-signal model has it.
    given |= {name for name, port in comp.ports().items() if isinstance(port, Input)}
    states = {names[i] for i in template.der_of.values()} | template.followers    # known here
    unknown = [n for n in names if n not in given and n not in states]
    domain = comp.ports()[element.ports[0]].domain
    across = f"{element.ports[0]}.{domain.across}"
    through = f"{element.ports[0]}.{domain.through}"
    v, p, time = cs.SX.sym("v", len(names)), cs.SX.sym("p", template.n_inputs), cs.SX.sym("t")
    residuals = [template.residual_function(v, p, time)]
    index = {n: i for i, n in enumerate(names)}
    aliases = [v[a] - sign * v[b] for a, b, sign in template.aliases]
    res = cs.vertcat(*residuals, *aliases)
    if res.size1() != len(unknown):
        raise PhyslibError(f"noise: {element.path} ({template.class_name}) has {res.size1()} local "
                           f"equations for {len(unknown)} unknowns with its port potentials given; "
                           "its conductance cannot be derived")
    u = cs.vertcat(*[v[index[n]] for n in unknown])
    J_u = cs.jacobian(res, u)
    J_a = cs.jacobian(res, v[index[across]])
    fun = cs.Function(f"conductance_{template.class_name}", [v, p, time],
                      [cs.densify(J_u), cs.densify(J_a)])
    return _Conductance(fun, unknown.index(through))


class _Conductance(FastFunction):
    """The local Jacobians of a class's equations, and where its through variable sits among
    the unknowns."""

    def __init__(self, function, through_index):
        super().__init__(function)
        self.through_index = through_index
        self.shape_u = (function.size1_out(0), function.size2_out(0))


# --- the model with noise sources ---------------------------------------------------------------------

def noise_source_model(model, elements, external=()):
    """(compiled copy of ``model`` with a zero-valued source in parallel with each of the
    ``elements`` (:func:`noise_elements`) and a through source into each ``external`` port's
    node, {element path or "external(port)": path of its source's value}); built once per
    compiled model (and set of external ports) and kept in its cache."""
    key = ("noise_model", tuple(e.path for e in elements), tuple(external))
    cached = model.system.cache.get(key)
    if cached is not None:
        return cached
    if model.source_model is None:
        raise PhyslibError(f"noise needs the physlib.Model that {model.name} was compiled from "
                           "(compile it with Model.compile())")
    variants = {}
    for element in elements:
        if element.part is not None and id(element.component) not in variants:
            variants[id(element.component)] = element.component.noise_variant()
    copy = copy_model(model.source_model, replace=variants)
    inputs = {}
    for k, element in enumerate(elements):
        if element.part is not None:
            inputs[element.path] = f"{element.owner}.{element.component.noise_input(element.part)}"
        else:
            inputs[element.path] = _add_source(copy, element, k)
    if external:
        points = [inject_through(port) for port in external]
        copy, paths = with_analysis_points(copy, points)
        inputs.update({f"external({point.port})": paths[point] for point in points})
    noisy = copy.compile()
    model.system.cache[key] = (noisy, inputs)
    return noisy, inputs


def _add_source(model, element, k):
    """Add the source of ``element`` in the (sub)model holding it; returns its value's path."""
    *parents, leaf = element.path.split(".")
    level = model
    for name in parents:
        level = level.components[name]
    domain = element.component.ports()[element.ports[0]].domain
    name = f"noise{k}_{leaf}"
    source = level.add(injector_class("parallel", domain)(name, u=0.0))
    level.connect(getattr(element.component, element.ports[0]), source.a)
    level.connect(getattr(element.component, element.ports[1]), source.b)
    return ".".join([*parents, name, "u"])


def terminal_feedthrough(noisy, elements, n_sources: int, names) -> np.ndarray:
    """(outputs × sources): how each element's own source adds to an output that is one of the
    element's through variables, to give it at the element's terminals. The source drives u from
    the element's second port to its first (into the first's node): the flow into the element
    at its first port is the branch's minus u, at its second the branch's plus u. An output is
    such a variable when it shares the port variable's position (an alias, ``R1.i = R1.p.i``),
    with the sign between them; one port of the element decides (the other says the same)."""
    feedthrough = np.zeros((len(names), n_sources))
    # (a source inside the component is in its equations)
    beside = [k for k, element in enumerate(elements) if element.part is None]
    if not beside:
        return feedthrough
    paths = [[], []]                      # each element's first and second port's through variable
    for k in beside:
        element = elements[k]
        through = element.component.ports()[element.ports[0]].domain.through
        for end, port in zip(paths, element.ports):
            end.append(f"{element.path}.{port}.{through}")
    (first, first_sign), (second, second_sign) = (noisy.variable_positions(end) for end in paths)
    beside = np.array(beside)
    for i, (position, sign) in enumerate(noisy.variable(name) for name in names):
        at_first = first == position
        at_second = second == position          # (where both are, they say the same)
        feedthrough[i, beside[at_first]] = -sign * first_sign[at_first]
        feedthrough[i, beside[at_second]] = sign * second_sign[at_second]
    return feedthrough


def transfer_operating_point(model, noisy, op):
    """The operating point ``op`` of ``model`` in the model with noise sources (all at zero)."""
    missing = [n for n in noisy.states if not model.has_variable(n)]
    if missing:
        raise PhyslibError(f"noise: the states {', '.join(missing)} of the model with noise sources "
                           f"are not variables of {model.name}")
    x = np.array([op[n] for n in noisy.states])
    p = noisy.parameter_vector({n: float(op.p[model.parameter_slot(n)]) for n in model.parameters})
    for name in model.modes:
        p[noisy.mode_slot(name)] = op.p[model.mode_slot(name)]
    guess = np.array([op[n] if model.has_variable(n) else 0.0 for n in noisy.algebraic])
    z = solve_algebraic(noisy.system, x, guess, p, op.t, lambda i: noisy.algebraic[i])
    return OperatingPoint(noisy, op.t, x, z, p)
