"""Flattening: a hierarchical :class:`Model` becomes one flat, vectorized equation system.

Components are grouped by class template; each group holds an index table from its
instances' local variables to global variable ids, so equations are later instantiated with
one mapped CasADi call per group rather than one call per component. Connections become
across equalities and through sums.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import scipy.sparse as sps
from scipy.sparse.csgraph import connected_components

from ..core.component import Component, Mode, Output, Parameter
from ..core.errors import (MissingReferenceError, PortConnectionError, UnconnectedPortError)
from ..core.symbols import derivative_base
from .model import ExposedPort, Model
from .templates import ClassTemplate, template_for


class _ConstantInput(Component):
    """A signal input given as a number: its value is a parameter named like the input."""

    y = Output()
    value = Parameter(0.0, description="input value")

    def equations(self):
        return [self.y - self.value]


@dataclass
class InstanceGroup:
    """All components that share one class template."""

    template: ClassTemplate
    paths: list[str] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    var_ids: np.ndarray | None = None    # (instances, locals) -> global variable id
    param_ids: np.ndarray | None = None  # (instances, params) -> global parameter id


@dataclass
class FlatSystem:
    name: str
    groups: list[InstanceGroup]
    var_names: list[str]
    param_names: list[str]
    param_values: np.ndarray
    param_checks: list[tuple[Parameter | Mode, str]]  # declaration and component path, per entry
    equalities: np.ndarray   # (k, 3): a, b, sign  -> x_a = sign * x_b
    through_sums: list[np.ndarray]  # each: ids whose sum is zero
    nodes: list[list[str]]   # component paths joined at each connection (and input-to-waveform link)


@dataclass
class _PortInfo:
    component: Component
    path: str                     # component path
    port: str                     # port name
    domain: object
    causality: str | None
    ids: tuple[int, ...]          # (across, through) or (value,)


def flatten(model: Model) -> FlatSystem:
    leaves: list[tuple[str, Component]] = []
    edges: list[tuple[str, str]] = []
    _walk(model, "", leaves, edges)

    # Signal inputs given a value by keyword become small source instances of their own.
    inline: list[tuple[str, Component, str]] = []   # (path, source component, input port path)
    for path, comp in list(leaves):
        for port_name, value in comp._input_values.items():
            source = value if isinstance(value, Component) else _ConstantInput(value=value)
            inline.append((f"{path}.{port_name}", source, f"{path}.{port_name}"))

    groups: dict[int, InstanceGroup] = {}
    order: list[tuple[InstanceGroup, int, str, Component]] = []
    for path, comp in leaves + [(p, source) for p, source, _ in inline]:
        # Checks across several parameters run again here: a parameter assigned after
        # construction (r.R = 5e3) was checked on its own when it was set.
        comp.validate()
        tpl = template_for(comp)
        group = groups.setdefault(id(tpl), InstanceGroup(tpl))
        order.append((group, len(group.paths), path, comp))
        group.paths.append(path)
        group.components.append(comp)

    var_names: list[str] = []
    param_names: list[str] = []
    param_values: list[float] = []
    param_checks: list[tuple[Parameter, str]] = []
    for group in groups.values():
        tpl = group.template
        n, nl, nparam = len(group.paths), len(tpl.local_names), tpl.n_inputs
        group.var_ids = len(var_names) + np.arange(n * nl).reshape(n, nl)
        var_names.extend(_local_path(p, name) for p in group.paths for name in tpl.local_names)
        group.param_ids = len(param_names) + np.arange(n * nparam).reshape(n, nparam)
        for path, comp in zip(group.paths, group.components):
            if isinstance(comp, _ConstantInput):
                param_names.append(path)   # params={"src.V": 2.0}
            else:
                param_names.extend(f"{path}.{name}" for name in tpl.param_names)
            param_values.extend(float(comp._values[name]) for name in tpl.param_names)
            param_checks.extend((type(comp)._parameters[name], path) for name in tpl.param_names)
            # Modes ride along in the parameter vector: changing them never recompiles.
            param_names.extend(f"{path}.{name}" for name in tpl.mode_names)
            param_values.extend(float(start) for start in tpl.mode_starts)
            param_checks.extend((type(comp)._modes[name], path) for name in tpl.mode_names)

    ports = _port_table(order)
    equalities: list[tuple[int, int, float]] = []
    # An inline source drives its input directly.
    for path, source, input_path in inline:
        out = next(n for n, p in source.ports().items() if p.causality == "output")
        equalities.append((ports[f"{path}.{out}"].ids[0], ports[input_path].ids[0], 1.0))
    inline_inputs = {input_path for _, _, input_path in inline}

    graph = nx.Graph()
    graph.add_edges_from(edges)
    through_sums = []
    connected: set[str] = set()
    nodes = [[path.rsplit(".", 1)[0], path] for path, _, _ in inline]
    for node_set in nx.connected_components(graph):
        members = [ports[p] for p in sorted(node_set)]
        connected.update(node_set)
        nodes.append(sorted({m.path for m in members}))
        if members[0].domain.is_signal:
            _signal_set(members, inline_inputs, equalities)
            continue
        first = members[0]
        equalities.extend((first.ids[0], m.ids[0], 1.0) for m in members[1:])
        through_sums.append(np.array([m.ids[1] for m in members]))

    through_sums += _free_ends(ports, connected)
    _check_unconnected(ports, connected, inline_inputs)
    _check_references(leaves, edges, ports)
    return FlatSystem(model.name, list(groups.values()), var_names, param_names,
                      np.array(param_values, dtype=float), param_checks,
                      np.array(equalities, dtype=float).reshape(-1, 3), through_sums,
                      nodes)


def _local_path(path: str, local: str) -> str:
    base = derivative_base(local)
    return f"der({path}.{base})" if base else f"{path}.{local}"


def _walk(model: Model, prefix: str, leaves, edges):
    for name, member in model._members.items():
        if isinstance(member, Model):
            _walk(member, f"{prefix}{name}.", leaves, edges)
        else:
            leaves.append((prefix + name, member))
    for ports in model._connections:
        paths = [_leaf_path(p, prefix) for p in ports]
        edges.extend((paths[0], other) for other in paths[1:])


def _leaf_path(port, prefix: str) -> str:
    """Flat path of the component port behind ``port``, descending through exposed ports."""
    while isinstance(port, ExposedPort):
        prefix = f"{prefix}{port.owner.name}."
        port = port.target
    return f"{prefix}{port.owner.name}.{port.port.name}"


def _port_table(order) -> dict[str, _PortInfo]:
    table = {}
    for group, row, path, comp in order:
        tpl = group.template
        index = {n: i for i, n in enumerate(tpl.local_names)}
        for name, port in comp.ports().items():
            ids = tuple(int(group.var_ids[row, index[v]]) for v in port.variable_names())
            table[f"{path}.{name}"] = _PortInfo(comp, path, name, port.domain, port.causality, ids)
    return table


def _signal_set(members, inline_inputs, equalities):
    names = ", ".join(f"{m.path}.{m.port}" for m in members)
    outputs = [m for m in members if m.causality == "output"]
    if len(outputs) != 1:
        raise PortConnectionError(
            f"signal connection {{{names}}} has {len(outputs)} outputs; connect exactly one "
            "output (a sensor, waveform or block output) to inputs")
    for m in members:
        if m.causality == "input" and f"{m.path}.{m.port}" in inline_inputs:
            raise PortConnectionError(
                f"input {m.path}.{m.port} is both given a value and connected to "
                f"{outputs[0].path}.{outputs[0].port}; do one or the other")
    source = outputs[0]
    equalities.extend((m.ids[0], source.ids[0], 1.0) for m in members if m is not source)


def _free_ends(ports, connected):
    """Unconnected mechanical flanges are free ends: their through variable is zero."""
    return [np.array([info.ids[1]]) for key, info in ports.items()
            if key not in connected and info.domain.free_end]


def _check_unconnected(ports, connected, inline_inputs):
    for key, info in ports.items():
        if key in connected or key in inline_inputs or info.causality == "output" or info.domain.free_end:
            continue
        comp = type(info.component).__name__
        if info.causality == "input":
            raise UnconnectedPortError(
                f"input {key} of {comp} {info.path!r} has no value: give it as {info.port}=... "
                f"(a number or a waveform) or connect a signal output to it")
        raise UnconnectedPortError(
            f"port {key} of {comp} {info.path!r} is not connected; connect it "
            f"(a {info.domain.name} port needs at least one partner)")


def _check_references(leaves, edges, ports):
    """Each network of a domain that needs a reference (electrical) must contain one."""
    keys = [k for k, info in ports.items() if info.domain.needs_reference]
    if not keys:
        return
    index = {k: i for i, k in enumerate(keys)}
    pairs = [(index[a], index[b]) for a, b in edges if a in index]
    for path, comp in leaves:
        for group in comp.port_groups():
            members = [index[f"{path}.{p}"] for p in group if f"{path}.{p}" in index]
            pairs.extend((members[0], m) for m in members[1:])
    rows, cols = (np.array(x, dtype=np.int64) for x in zip(*pairs)) if pairs else (np.zeros(0, int),) * 2
    graph = sps.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(keys), len(keys)))
    n_networks, label = connected_components(graph, directed=False)
    grounded = np.zeros(n_networks, bool)
    np.logical_or.at(grounded, label, [ports[k].component.is_reference for k in keys])
    if grounded.all():
        return
    floating = np.flatnonzero(~grounded)[0]
    comps = sorted({ports[keys[i]].path for i in np.flatnonzero(label == floating)})
    domain = ports[keys[int(np.flatnonzero(label == floating)[0])]].domain.name
    names = ", ".join(comps[:8]) + (", ..." if len(comps) > 8 else "")
    raise MissingReferenceError(
        f"the {domain} network of {names} has no reference: add a Ground and connect "
        "it to one of its nodes (potentials are only defined relative to ground)")
