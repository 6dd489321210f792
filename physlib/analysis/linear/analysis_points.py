"""Analysis points: a zero-valued source inserted at a port of a model before compilation.

:func:`inject_through` and :func:`inject_across` name a perturbation at a
port of an unmodified model: a through source in parallel (a torque, a current, a force, a heat
flow injected into the port's node) or an across source in series (a speed, voltage, ...
inserted between the port and what it is connected to). They need the model before
compilation: ``physlib.linearize(model, inputs=[physlib.inject_through("J1.flange_b")],
outputs=["J1.w"])`` builds a copy of the model with a zero-valued source there
(:func:`with_analysis_points`), compiles it and linearizes from the source's value. As an
output, a through point reads the port's across variable and an across point its through
variable.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...assembly.netlist import Netlist
from ...core.errors import PhyslibError, UnknownNameError
from ...core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when the equations are derived


@dataclass(frozen=True)
class AnalysisPoint:
    """A perturbation at a port: ``kind`` is ``"through"`` (source in parallel) or ``"across"``
    (source in series); ``port`` is the port's path (``"J1.flange_b"``, ``"sub.R1.p"``)."""

    kind: str
    port: str

    @property
    def name(self) -> str:
        return f"inject_{self.kind}({self.port})"

    def __str__(self):
        return self.name


def inject_through(port: str) -> AnalysisPoint:
    """A through variable (current, torque, force, flow, heat flow) injected into the node of
    ``port``, positive into the node: a through source in parallel, zero at the operating point."""
    return AnalysisPoint("through", _check_path(port))


def inject_across(port: str) -> AnalysisPoint:
    """An across variable (voltage, speed, pressure, temperature) inserted in series at
    ``port``: the port's across variable becomes its node's plus the input, zero at the
    operating point."""
    return AnalysisPoint("across", _check_path(port))


def _check_path(port):
    if not isinstance(port, str) or "." not in port:
        raise PhyslibError(f"an analysis point names a port by its path, e.g. 'J1.flange_b'; got {port!r}")
    return port


_INJECTORS: dict = {}


def injector_class(kind, domain):
    """A component class with one input u, made once per kind and domain: "through" injects
    u into the node of its port p; "parallel" drives u through itself from port b to port a
    (into a's node, out of b's: a noise source in parallel with an element); "across" inserts
    u between ports a and b (v_a − v_b = u, in series). u is in the domain's through or across
    unit, so a linear model from it has the units of a transfer function (V/A)."""
    from ...core.component import Component, Input, Port

    key = (kind, domain.name)
    if key in _INJECTORS:
        return _INJECTORS[key]
    if kind == "through":
        def equations(self):
            return [sp.Eq(getattr(self.p, domain.through), -self.u)]
        namespace = {"p": Port(domain, "port the value is injected into"),
                     "u": Input(domain.through_unit, f"injected {domain.through}"), "equations": equations}
    elif kind == "parallel":
        def equations(self):
            return [sp.Eq(getattr(self.a, domain.through), -self.u),
                    sp.Eq(getattr(self.b, domain.through), self.u)]
        namespace = {"a": Port(domain, "port the value is injected into"),
                     "b": Port(domain, "port the value is drawn from"),
                     "u": Input(domain.through_unit, f"injected {domain.through}"), "equations": equations}
    else:
        def equations(self):
            return [sp.Eq(getattr(self.a, domain.across) - getattr(self.b, domain.across), self.u),
                    sp.Eq(getattr(self.a, domain.through) + getattr(self.b, domain.through), 0)]
        namespace = {"a": Port(domain, "side of the perturbed port"),
                     "b": Port(domain, "side of the rest of the node"),
                     "u": Input(domain.across_unit, f"inserted {domain.across}"), "equations": equations}
    namespace["__doc__"] = f"Analysis point: {kind} injection ({domain.name})."
    namespace["__made_by__"] = injector_class   # the template cache keys it by this module's text
    cls = type(f"{kind.capitalize()}Injection_{domain.name}", (Component,), namespace)
    _INJECTORS[key] = cls
    return cls


def with_analysis_points(model, points) -> tuple:
    """A copy of ``model`` (a :class:`physlib.Model`) with a zero-valued source at each analysis
    point; the original is not changed. Returns ``(model_copy, {point: parameter path of the
    injected value})``. Components are shared with the original, connections are copied."""
    points = list(points)
    copy = copy_model(model)
    paths = {}
    for k, point in enumerate(points):
        if not isinstance(point, AnalysisPoint):
            raise PhyslibError(f"{point!r} is not an analysis point (physlib.inject_through / inject_across)")
        paths[point] = _insert(copy, point, point.port, k)
    return copy, paths


def copy_model(model, replace=None):
    """A copy of ``model`` (a :class:`physlib.Model`): the same component objects, the
    connections and exposed ports copied, submodels copied likewise; the original is not changed. ``replace``
    maps ``id(component)`` to a component with the same name and ports that takes its place in
    the copy (a noise analysis's variant of a diode)."""
    replace = replace or {}
    copy = type(model)(model.name)        # the user's Model class: it compiles to theirs
    copy.share_members_of(model)
    for member in model.components.values():
        copy.add(copy_model(member, replace) if isinstance(member, Netlist) else replace.get(id(member), member))
    ports = _port_lookup(copy)
    for a, b in model.graph.edges:
        copy.connect(ports(a), ports(b))
    _expose_as(model, copy)
    return copy


def _expose_as(model, copy, skip=None):
    """Expose in ``copy`` (a copy of ``model`` with the same member names) the ports ``model``
    exposes, under the same names, so that the parent's connections to them resolve; but not
    those showing the port path ``skip``."""
    ports = _port_lookup(copy)
    for name, exposed in model.exposed_ports.items():
        if exposed.target.path != skip:
            copy.expose(ports(exposed.target.path), name)


def _port_lookup(model):
    def find(path):
        head, _, port = path.partition(".")
        member = model.components.get(head)
        if member is None or not port or "." in port:
            raise PhyslibError(f"model {model.name!r} has no port {path!r}")
        try:
            return getattr(member, port)
        except AttributeError:
            raise PhyslibError(f"model {model.name!r} has no port {path!r}") from None
    return find


def _insert(model, point, path, k):
    """Insert the source for ``point`` at ``path`` (relative to ``model``); returns the path of
    its value parameter, relative to ``model``."""
    head, _, rest = path.partition(".")
    member = model.components.get(head)
    if member is None:
        raise UnknownNameError(f"analysis point {point}: model {model.name!r} has no member {head!r}; "
                               f"members: {', '.join(model.components)}")
    if isinstance(member, Netlist) and "." in rest:
        inner = _insert(member, point, rest, k)
        return f"{head}.{inner}"
    port = _port_lookup(model)(path)
    if port.domain.is_signal:
        raise PhyslibError(f"analysis point {point}: {path} is a signal port; inject at physical "
                           "ports, or give the signal's source value as an input")
    name = f"ap{k}_{head}_{rest}_{point.kind}"
    source = model.add(injector_class(point.kind, port.domain)(name, u=0.0))
    if point.kind == "through":
        model.connect(port, source.p)
    else:
        neighbours = list(model.graph.neighbors(path))
        # Ports of the model showing ``path`` to its parent: the parent's side of the node,
        # past the source.
        outward = [shown for shown, exposed in model.exposed_ports.items() if exposed.target.path == path]
        if not neighbours and not outward:
            raise PhyslibError(f"analysis point {point}: {path} is not connected to anything")
        rebuilt = _rebuild_without(model, path)
        ports = _port_lookup(rebuilt)
        rebuilt.connect(ports(path), source.a)
        if neighbours:
            rebuilt.connect(source.b, *[ports(n) for n in neighbours])
        for shown in outward:
            rebuilt.expose(source.b, shown)
        model.take_over(rebuilt)
    return f"{name}.u"


def _rebuild_without(model, path):
    """A copy of ``model`` (members shared) without the connections touching port ``path`` and
    without the exposed ports showing it."""
    copy = type(model)(model.name)        # the user's Model class: it compiles to theirs
    copy.share_members_of(model)
    for member in model.components.values():
        copy.add(member)
    ports = _port_lookup(copy)
    graph = model.graph
    for a, b in graph.edges:
        if path not in (a, b):
            copy.connect(ports(a), ports(b))
    # Ports that were joined only through ``path`` stay joined to each other.
    neighbours = list(graph.neighbors(path))
    if len(neighbours) > 1:
        copy.connect(*[ports(n) for n in neighbours])
    _expose_as(model, copy, skip=path)
    return copy
