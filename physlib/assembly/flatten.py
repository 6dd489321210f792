"""Flattening: a hierarchical :class:`Model` becomes one flat, vectorized equation system.

Components are grouped by class template; each group holds an index table from its
instances' local variables to global variable ids, so equations are later instantiated with
one mapped CasADi call per group rather than one call per component. Connections become
across equalities and through sums (:mod:`physlib.assembly.connection_sets`).

The per-instance work is a walk over the netlist, each component's ``validate()`` and class
template lookup, and building the name lists; numbering, ports and connection sets are NumPy
arrays, so flattening grows linearly with the model.
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from ..core.component import Component, Mode, Output, Parameter
from ..core.symbols import derivative_base
from .connection_sets import PortLayout, PortTable, connection_sets
from .netlist import ExposedPort, Netlist
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


class _Instances:
    """What a walk over a model collects: instances (grouped by class template as they are
    found, their parameter values read on the way), and the connections as port ends.

    A large model's components are scattered over memory, so each one is visited once."""

    def __init__(self):
        self.paths: list[str] = []
        self.groups: list[InstanceGroup] = []
        self.group_of: list[int] = []            # per instance: its group
        self.row_of: list[int] = []              # ... and its row in the group
        self.values: list[list] = []             # per group: parameter values per instance
        self.inline: list[tuple[int, str, object]] = []   # (instance, input, value by keyword)
        self.end_instance: list[int] = []        # per connected port: its instance
        self.end_port: list[str] = []            # ... and its port name
        self.sizes: list[int] = []               # ports per connection
        self._index: dict[int, int] = {}         # id(template) -> group
        self._classes: dict[type, list] = {}     # class -> facts (see _class_facts)
        self._getters: list = []                 # per group: reads its parameter values

    def add(self, path: str, comp: Component) -> int:
        cls = type(comp)
        facts = self._classes.get(cls) or self._classes.setdefault(cls, _class_facts(cls))
        if facts[0]:
            # Checks across several parameters run again here: a parameter assigned after
            # construction (r.R = 5e3) was checked on its own when it was set.
            comp.validate()
        tpl = facts[1] or template_for(comp)
        if facts[2]:
            facts[1] = tpl
        gi = self._index.get(id(tpl))
        if gi is None:
            gi = self._index[id(tpl)] = len(self.groups)
            self.groups.append(InstanceGroup(tpl))
            self.values.append([])
            self._getters.append(itemgetter(*tpl.param_names) if tpl.param_names else None)
        group, i = self.groups[gi], len(self.paths)
        self.paths.append(path)
        self.group_of.append(gi)
        self.row_of.append(len(group.paths))
        group.paths.append(path)
        group.components.append(comp)
        get = self._getters[gi]
        if get is not None:
            self.values[gi].append(get(comp._values))
        if comp._input_values:
            self.inline.extend((i, port, value) for port, value in comp._input_values.items())
        return i


def flatten(model: Netlist) -> FlatSystem:
    """The flat system of ``model``; raises for bad parameters, unconnected ports, signal
    sets without exactly one output and networks without a reference."""
    # A large model makes many small containers here (name lists, parameter records, sets),
    # and the cyclic garbage collector, triggered by their number, would meanwhile traverse the
    # whole heap several times (most of the time flattening took). None of them form cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _flatten(model)
    finally:
        if enabled:
            gc.enable()


def _flatten(model: Netlist) -> FlatSystem:
    found = _Instances()
    _walk(model, "", found, {})
    n_members = len(found.paths)
    inline = _add_inline_sources(found)
    groups = found.groups
    var_names, param_names, param_values, param_checks = _number(groups, found.values)
    group_of, row_of = np.array(found.group_of, dtype=np.int64), np.array(found.row_of, dtype=np.int64)
    var_base = np.array([g.var_ids[0, 0] if g.var_ids.size else 0 for g in groups], dtype=np.int64)
    width = np.array([g.var_ids.shape[1] for g in groups], dtype=np.int64)
    table = PortTable(found.paths, [PortLayout.of(g.components[0], g.template.local_names) for g in groups],
                      group_of, var_base[group_of] + row_of * width[group_of])
    ends = table.ids(found.end_instance, found.end_port)
    # An inline source drives its input directly.
    source_ids = table.ids(range(n_members, n_members + len(inline)), [out for _, _, out in inline])
    input_ids = table.ids([i for i, _, _ in inline], [port for _, port, _ in inline])
    sets = connection_sets(table, ends, np.array(found.sizes, dtype=np.int64), input_ids)
    pairs = np.concatenate([np.column_stack([table.across[source_ids], table.across[input_ids]]),
                            sets.equalities]).reshape(-1, 2)
    equalities = np.column_stack([pairs, np.ones(len(pairs))]).astype(float)
    inline_nodes = [[found.paths[i], f"{found.paths[i]}.{port}"] for i, port, _ in inline]
    return FlatSystem(model.name, groups, var_names, param_names, param_values, param_checks,
                      equalities, sets.through_sums, inline_nodes + sets.nodes)


def _walk(model: Netlist, prefix: str, found: _Instances, scope: dict) -> dict:
    """Collect the components of ``model`` (depth first), then its connections; returns
    ``scope``: member name -> instance number, or the scope of a nested model."""
    for name, member in model._members.items():
        if isinstance(member, Netlist):
            scope[name] = _walk(member, f"{prefix}{name}.", found, {})
        else:
            scope[name] = found.add(prefix + name, member)
    found.sizes.extend(model._sizes)
    base = len(found.end_port)
    found.end_instance.extend(map(scope.__getitem__, model._end_member))
    found.end_port.extend(model._end_port)
    for k, port in model._end_exposed.items():   # exposed ports of nested models
        inner = scope
        while isinstance(port, ExposedPort):
            inner, port = inner[port.owner.name], port.target
        found.end_instance[base + k] = inner[port.owner.name]
        found.end_port[base + k] = port.port.name
    return scope


def _add_inline_sources(found: _Instances) -> list[tuple[int, str, str]]:
    """Signal inputs given a value by keyword become small source instances of their own,
    named after the input (``src.V``). Returns (driven instance, input port, source output)."""
    inline = []
    for i, port, value in list(found.inline):
        source = value if isinstance(value, Component) else _ConstantInput(value=value)
        found.add(f"{found.paths[i]}.{port}", source)
        out = next(n for n, p in source.ports().items() if p.causality == "output")
        inline.append((i, port, out))
    return inline


def _class_facts(cls) -> list:
    """[whether the class overrides validate(), its template once known, whether one template
    serves every instance]. Templates are keyed by class and ``structure_key()``; a class that
    keeps the default key and has no structural parameters has one template."""
    single = cls.structure_key is Component.structure_key and \
        not any(p.structural for p in cls._parameters.values())
    return [cls.validate is not Component.validate, None, single]


def _number(groups: list[InstanceGroup], values: list[list]):
    """Global variable and parameter numbers, group by group, instance by instance."""
    var_names: list[str] = []
    param_names: list[str] = []
    param_values: list[np.ndarray] = []
    param_checks: list[tuple[Parameter | Mode, str]] = []
    for group, group_values in zip(groups, values):
        tpl, paths = group.template, group.paths
        n, nl, nparam = len(paths), len(tpl.local_names), tpl.n_inputs
        group.var_ids = len(var_names) + np.arange(n * nl).reshape(n, nl)
        pieces = [_name_pieces(local) for local in tpl.local_names]
        var_names.extend([f"{head}{path}{tail}" for path in paths for head, tail in pieces])
        group.param_ids = len(param_names) + np.arange(n * nparam).reshape(n, nparam)
        cls = type(group.components[0])
        # A number given to an input is named like the input: params={"src.V": 2.0}.
        suffixes = ([""] if cls is _ConstantInput else [f".{name}" for name in tpl.param_names]) + \
            [f".{name}" for name in tpl.mode_names]
        param_names.extend([path + suffix for path in paths for suffix in suffixes])
        # Modes ride along in the parameter vector: changing them never recompiles.
        table = np.empty((n, nparam))
        table[:, :len(tpl.param_names)] = np.array(group_values, dtype=float).reshape(n, -1)
        table[:, len(tpl.param_names):] = np.array(tpl.mode_starts, dtype=float)
        param_values.append(table.ravel())
        declarations = [cls._parameters[name] for name in tpl.param_names] + \
            [cls._modes[name] for name in tpl.mode_names]
        param_checks.extend([(decl, path) for path in paths for decl in declarations])
    values = np.concatenate(param_values) if param_values else np.zeros(0)
    return var_names, param_names, values, param_checks


def _name_pieces(local: str) -> tuple[str, str]:
    """A local variable's global name is ``head + path + tail``: ``R1.p.v``, ``der(C1.v)``."""
    base = derivative_base(local)
    return ("der(", f".{base})") if base else ("", f".{local}")
