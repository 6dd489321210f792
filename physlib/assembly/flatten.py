"""Flattening: a hierarchical :class:`Model` becomes one flat, vectorized equation system.

Components are grouped by class template; each group holds an index table from its
instances' local variables to global variable ids, so equations are later instantiated with
one mapped CasADi call per group rather than one call per component. Connections become
across equalities and through sums (:mod:`physlib.assembly.connection_sets`).

The per-instance work in Python is the walk over the netlist and reading parameter values,
plus ``validate()`` and the template lookup for the classes that need them per instance;
grouping, numbering, ports and connection sets are NumPy arrays, and names are made only when
asked for (:mod:`physlib.assembly.names`), so flattening grows linearly with the model.
"""
from __future__ import annotations

from dataclasses import field
from itertools import chain, compress
from operator import attrgetter, itemgetter

import numpy as np

from ..core.arrays import index_dtype, positions_of, sorted_unique, union
from ..core.bulk import bulk_build
from ..core.component import Component, Mode, Output, Parameter
from ..core.errors import ModelError
from ..core.model_parameters import ModelParameter, ParameterExpression
from ..core.records import record
from ..core.symbols import derivative_base
from .connection_sets import NodePaths, PortLayout, PortTable, Runs, connection_sets
from .names import InstancePaths, NameTable, ParameterChecks
from .netlist import ExposedPort, Netlist
from .positions import Synthetic, plan_positions
from .templates import ClassTemplate, template_for


class _ConstantInput(Component):
    """A signal input given as a number: its value is a parameter named like the input."""

    y = Output()
    value = Parameter(0.0, description="input value")

    def equations(self):
        return [self.y - self.value]


@record
class InstanceGroup:
    """All components that share one class template."""

    template: ClassTemplate
    paths: list[str] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    var_ids: np.ndarray | None = None    # (instances, locals) -> global variable id
    param_ids: np.ndarray | None = None  # (instances, params) -> global parameter id


@record
class FlatSystem:
    """A model flattened: its components grouped by class, every variable's and parameter's name
    and place, the parameters' values and the connections' equalities and sums."""

    name: str
    groups: list[InstanceGroup]
    var_names: NameTable     # name of each raw variable
    param_names: NameTable   # name of each parameter entry (parameters, then modes, per instance)
    param_values: np.ndarray
    param_checks: ParameterChecks  # declaration and component path, per entry
    equalities: np.ndarray   # (k, 2): a, b -> x_a = x_b
    through_sums: Runs       # each: ids whose sum is zero
    nodes: NodePaths         # component paths joined at each connection (and input-to-waveform link)
    unread_positions: frozenset = frozenset()   # position variables nothing reads: not computed
    model_parameters: dict = field(default_factory=dict)   # name -> ModelParameter
    # Parameter entries given as model-parameter expressions: their entries, and the expressions
    derived_slots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    derived_expressions: list = field(default_factory=list)


@record
class _Found:
    """What a walk over a model collects: its components and their paths (depth first; the
    inline sources of :func:`_add_inline_sources` after them), and the connections as port ends.
    A large model's components are scattered over memory, so each one is visited once."""

    paths: list[str] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    parameters: list[ModelParameter] = field(default_factory=list)   # declared on the models
    end_instance: list[int] = field(default_factory=list)   # per connected port: its instance
    end_port: list[str] = field(default_factory=list)       # ... and its port name
    sizes: list[int] = field(default_factory=list)          # ports per connection


def flatten(model: Netlist) -> FlatSystem:
    """The flat system of ``model``; raises for bad parameters, unconnected ports, signal
    sets without exactly one output and networks without a reference."""
    with bulk_build(collect=False):     # many small containers (path lists, arrays, sets), no cycles
        return _flatten(model)


def _flatten(model: Netlist) -> FlatSystem:
    found = _Found()
    _walk(model, "", found, {})
    n_members = len(found.paths)
    positions = plan_positions(found.components, found.paths, found.end_instance, found.end_port,
                               found.sizes)
    inline = _add_inline_sources(found)
    first_synthetic = len(found.paths)
    found.paths.extend(synthetic.path for synthetic in positions.synthetic)
    found.components.extend(synthetic.component for synthetic in positions.synthetic)
    groups, group_of, row_of = _group(found.paths, found.components, positions.variants())
    var_names, param_names, param_values, param_checks = _number(groups)
    tie_pairs = _link_synthetic(positions.synthetic, first_synthetic, groups, group_of, row_of, param_values)
    var_base = np.array([g.var_ids[0, 0] if g.var_ids.size else 0 for g in groups], dtype=np.int64)
    width = np.array([g.var_ids.shape[1] for g in groups], dtype=np.int64)
    table = PortTable(found.paths, [PortLayout.of(g.components[0], g.template.local_names) for g in groups],
                      group_of, var_base[group_of] + row_of * width[group_of])
    ends = table.ids(found.end_instance, found.end_port)
    # An inline source drives its input directly.
    driven, sources = [i for i, _, _ in inline], np.arange(n_members, n_members + len(inline))
    source_ids = table.ids(sources, [out for _, _, out in inline])
    input_ids = table.ids(driven, [port for _, port, _ in inline])
    sets = connection_sets(table, ends, np.array(found.sizes, dtype=np.int64), input_ids)
    pairs = np.concatenate([np.column_stack([table.across[source_ids], table.across[input_ids]]),
                            sets.equalities, tie_pairs]).reshape(-1, 2)
    equalities = pairs.astype(index_dtype(len(var_names)))
    # An input and its inline source are joined too (the source's path extends the input's).
    inline_links = Runs(np.column_stack([driven, sources]).ravel(), np.full(len(inline), 2))
    unread = frozenset(f"{found.paths[i]}.{state.state}" for i, state in positions.unread)
    slots, expressions = _derived(found.components, groups, group_of, row_of)
    return FlatSystem(model.name, groups, var_names, param_names, param_values, param_checks,
                      equalities, sets.through_sums, NodePaths(found.paths, inline_links + sets.members),
                      unread, _model_parameters(model.name, found.parameters, expressions),
                      slots, expressions)


def _walk(model: Netlist, prefix: str, found: _Found, scope: dict) -> dict:
    """Collect the components of ``model`` (depth first), then its connections; returns
    ``scope``: member name -> instance number, or the scope of a nested model."""
    paths, components = found.paths, found.components
    found.parameters.extend(model.model_parameters.values())
    members = model._members
    if not model._subsystems:         # components alone (a large flat circuit): in bulk
        names, first = list(members), len(paths)
        if prefix or model._end_exposed:      # (a parent's exposed ports look into a nested one)
            scope.update(zip(names, range(first, first + len(names))))
        paths.extend([prefix + name for name in names] if prefix else names)
        components.extend(members.values())
        found.end_instance.extend((positions_of(names, model._end_member) + first).tolist())
    else:
        for name, member in members.items():
            if isinstance(member, Netlist):
                scope[name] = _walk(member, f"{prefix}{name}.", found, {})
            else:
                scope[name] = len(paths)
                paths.append(prefix + name)
                components.append(member)
        found.end_instance.extend(map(scope.__getitem__, model._end_member))
    found.sizes.extend(model._sizes)
    base = len(found.end_port)
    found.end_port.extend(model._end_port)
    for k, port in model._end_exposed.items():   # exposed ports of nested models
        inner = scope
        while isinstance(port, ExposedPort):
            inner, port = inner[port.owner.name], port.target
        found.end_instance[base + k] = inner[port.owner.name]
        found.end_port[base + k] = port.port.name
    return scope


def _add_inline_sources(found: _Found) -> list[tuple[int, str, str]]:
    """Signal inputs given a value by keyword become small source instances of their own,
    named after the input (``src.V``). Returns (driven instance, input port, source output)."""
    components = found.components
    driven = list(compress(range(len(components)), map(attrgetter("_input_values"), components)))
    inline = []
    for i in driven:
        for port, value in components[i]._input_values.items():
            source = value if isinstance(value, Component) else _ConstantInput(value=value)
            found.paths.append(f"{found.paths[i]}.{port}")
            components.append(source)
            inline.append((i, port, next(n for n, p in source.ports().items() if p.causality == "output")))
    return inline


def _derived(components: list[Component], groups, group_of, row_of) -> tuple[np.ndarray, list]:
    """The parameter entries given as model-parameter expressions, and their expressions."""
    slots, expressions = [], []
    for i in compress(range(len(components)), map(attrgetter("_expressions"), components)):
        group = groups[group_of[i]]
        names = group.template.param_names
        for name, expression in components[i].parameter_expressions.items():
            slots.append(int(group.param_ids[row_of[i], names.index(name)]))
            expressions.append(expression)
    return np.array(slots, dtype=np.int64), expressions


def _model_parameters(model: str, declared: list[ModelParameter],
                      expressions: list[ParameterExpression]) -> dict[str, ModelParameter]:
    """The model parameters of a model, by name: those declared on it or its subsystems and
    those its expressions read (directly or through other model parameters' defaults); two
    different ones of one name are a :class:`ModelError`."""
    found: dict[str, ModelParameter] = {}
    pending = list(declared) + [p for e in expressions for p in e.parameters()]
    for parameter in pending:             # grows while it is walked: defaults' parameters
        other = found.get(parameter.name)
        if other is None:
            found[parameter.name] = parameter
            if isinstance(parameter.default, ParameterExpression):
                pending.extend(parameter.default.parameters())
            continue
        if other is parameter:
            continue
        raise ModelError(
            f"model {model!r} has two model parameters named {parameter.name!r} (declared on "
            f"models {other.model!r} and {parameter.model!r}); model parameters have one "
            "namespace per compiled model: give them different names, or declare one and use it "
            "in both places")
    return found


def _link_synthetic(synthetic: tuple[Synthetic, ...], first: int, groups, group_of, row_of,
                    param_values) -> np.ndarray:
    """Pairs (variable of a synthetic component, the variable it stands for); and each synthetic
    component's start parameters made the same entries as their owners' (so that a start value
    given with ``params=`` reaches it too). Tables of numbers, one NumPy pass at the end."""
    numbers: dict = {}

    def number(names: list[str], name: str) -> int:
        table = numbers.get(id(names))
        if table is None:
            table = numbers[id(names)] = {n: j for j, n in enumerate(names)}
        return table[name]
    var_rows, param_rows = [], []       # (own instance, own local, other instance, other local)
    for k, item in enumerate(synthetic):
        own = first + k
        tpl = groups[group_of[own]].template
        for local, owner, variable in item.variables:
            other = first + owner[1] if isinstance(owner, tuple) else owner   # ("new", k)
            var_rows.append((own, number(tpl.local_names, local), other,
                             number(groups[group_of[other]].template.local_names, variable)))
        for local, owner, parameter in item.parameters:
            param_rows.append((own, number(tpl.param_names, local), owner,
                               number(groups[group_of[owner]].template.param_names, parameter)))

    def ids(table: str, instances, columns):
        first_id = np.array([getattr(g, table)[0, 0] if getattr(g, table).size else 0 for g in groups])
        width = np.array([getattr(g, table).shape[1] for g in groups])
        gi = group_of[instances]
        return first_id[gi] + row_of[instances] * width[gi] + columns

    v = np.array(var_rows, dtype=np.int64).reshape(-1, 4)
    pairs = np.column_stack([ids("var_ids", v[:, 0], v[:, 1]), ids("var_ids", v[:, 2], v[:, 3])])
    p = np.array(param_rows, dtype=np.int64).reshape(-1, 4)
    if len(p):
        entries = ids("param_ids", p[:, 2], p[:, 3])        # owners' entries (never remapped)
        param_values[ids("param_ids", p[:, 0], p[:, 1])] = param_values[entries]   # unused copies
        for gi in sorted_unique(group_of[p[:, 0]]).tolist():
            mine = group_of[p[:, 0]] == gi
            groups[gi].param_ids[row_of[p[mine, 0]], p[mine, 1]] = entries[mine]
    return pairs


def _group(paths: list[str], components: list[Component],
           variants: dict[int, tuple[frozenset[str], frozenset[str]]]):
    """The instances grouped by class template, groups in the order their first instance comes,
    instances in a group in walk order. Returns the groups and, per instance, its group and row.
    ``variants``: per instance, the position states it does not integrate (following, unread).

    Components are validated and templates derived in walk order, so the first bad component
    is the one reported; that is the only work done per component, and only for classes that
    need it (one that overrides ``validate()`` or whose template depends on the instance)."""
    types = list(map(type, components))
    classes = {cls: c for c, cls in enumerate(dict.fromkeys(types))}
    code = np.fromiter(map(classes.__getitem__, types), dtype=np.int64, count=len(types))
    validates = [cls.validate is not Component.validate for cls in classes]
    varied = {classes[types[i]] for i in variants}
    single = [_one_template(cls) and c not in varied for cls, c in classes.items()]
    first = np.full(len(classes), len(types), dtype=np.int64)
    np.minimum.at(first, code, np.arange(len(types)))
    # A class whose template follows its structural parameters alone: one template per
    # distinct set of their values, found from the first instance that has it (a million
    # resistors, with the same `constants`, derive nothing and look up one template).
    keyed = [not s and not v and c not in varied and cls.structure_key is Component.structure_key
             for (cls, c), v, s in zip(classes.items(), validates, single)]
    per_instance = np.array([(v or not s) and not k for v, s, k in zip(validates, single, keyed)], dtype=bool)
    keyed_first, same_as = _first_of_each_structure(components, code, keyed, list(classes))
    work = union(union(first, np.flatnonzero(per_instance[code])), keyed_first)
    templates: list[ClassTemplate] = []   # in order of appearance
    number: dict[int, int] = {}            # id(template) -> its place in templates
    template_of = np.full(len(types), -1, dtype=np.int64)
    for i in work.tolist():
        c = code[i]
        if validates[c]:
            # Checks across several parameters run again here: a parameter assigned after
            # construction (r.R = 5e3) was checked on its own when it was set.
            components[i].validate()
        if not single[c] or i == first[c]:
            tpl = template_for(components[i], *variants.get(i, ()))
            template_of[i] = number.setdefault(id(tpl), len(templates))
            if template_of[i] == len(templates):
                templates.append(tpl)
    for members, firsts in same_as:
        template_of[members] = template_of[firsts]
    template_of = np.where(template_of >= 0, template_of, template_of[first][code])
    return _split(templates, template_of, paths, components)


def _first_of_each_structure(components: list[Component], code: np.ndarray, keyed: list[bool],
                             classes: list[type]):
    """For the classes marked ``keyed``: the first instance of each distinct set of values of
    the structural parameters (sorted), and per class (its instances, the first instance of
    theirs)."""
    firsts, same_as = [], []
    for c in np.flatnonzero(keyed).tolist():
        members = np.flatnonzero(code == c)
        values = map(attrgetter("_values"), map(components.__getitem__, members.tolist()))
        keys = list(map(itemgetter(*classes[c]._structural), values))
        # one structure for all (a million resistors): their first, without a lookup each
        seen: dict = {keys[0]: int(members[0])} if len(set(keys)) == 1 else {}
        first_of = np.full(len(members), members[0], dtype=np.int64) if seen else np.fromiter(
            (seen.setdefault(key, i) for i, key in zip(members.tolist(), keys)), dtype=np.int64, count=len(members))
        firsts.append(np.fromiter(seen.values(), dtype=np.int64, count=len(seen)))
        same_as.append((members, first_of))
    return (np.sort(np.concatenate(firsts)) if firsts else np.zeros(0, np.int64)), same_as


def _split(templates: list[ClassTemplate], template_of: np.ndarray, paths: list[str],
           components: list[Component]):
    """One group per template, its instances in walk order; per instance its group and row."""
    order = np.argsort(template_of, kind="stable")
    counts = np.bincount(template_of, minlength=len(templates))
    starts = np.cumsum(counts) - counts
    row_of = np.empty(len(order), dtype=np.int64)
    row_of[order] = np.arange(len(order)) - np.repeat(starts, counts)
    groups = []
    for tpl, start, count in zip(templates, starts.tolist(), counts.tolist()):
        members = order[start:start + count].tolist()
        groups.append(InstanceGroup(tpl, [paths[i] for i in members], [components[i] for i in members]))
    return groups, template_of, row_of


def _one_template(cls) -> bool:
    """Whether one template serves every instance of ``cls``. Templates are keyed by class and
    ``structure_key()``; a class that keeps the default key and has no structural parameters
    has one template."""
    return cls.structure_key is Component.structure_key and \
        not any(p.structural for p in cls._parameters.values())


def _number(groups: list[InstanceGroup]):
    """Global variable and parameter numbers, group by group, instance by instance; the tables
    of their names, the parameter values and the parameter declarations."""
    n_vars = n_params = 0
    values = []
    # int32 where every number fits: the flat system keeps them with the compiled model (a
    # million-element model has 6.5 million variables)
    total = sum(len(g.paths) * max(len(g.template.local_names), g.template.n_inputs) for g in groups)
    index = index_dtype(total)
    for group in groups:
        tpl, n = group.template, len(group.paths)
        n_locals, n_inputs = len(tpl.local_names), tpl.n_inputs
        group.var_ids = np.arange(n_vars, n_vars + n * n_locals, dtype=index).reshape(n, n_locals)
        group.param_ids = np.arange(n_params, n_params + n * n_inputs, dtype=index).reshape(n, n_inputs)
        n_vars, n_params = n_vars + n * n_locals, n_params + n * n_inputs
        values.append(_parameter_values(group).ravel())
    instances = InstancePaths([g.paths for g in groups])
    var_names = NameTable(instances, [list(map(_name_pieces, g.template.local_names)) for g in groups])
    param_names = NameTable(instances, [[("", suffix) for suffix in _parameter_suffixes(g)] for g in groups])
    checks = ParameterChecks(instances, [_declarations(g) for g in groups])
    return var_names, param_names, np.concatenate(values) if values else np.zeros(0), checks


def _parameter_values(group: InstanceGroup) -> np.ndarray:
    """(instances, parameters and modes): the values given to the instances, then the modes'
    start values. Modes ride along in the parameter vector: changing them never recompiles."""
    tpl, n = group.template, len(group.paths)
    n_params = len(tpl.param_names)
    table = np.empty((n, tpl.n_inputs))
    if n_params:
        given = map(itemgetter(*tpl.param_names), map(attrgetter("_values"), group.components))
        numbers = given if n_params == 1 else chain.from_iterable(given)    # one value, or a tuple
        table[:, :n_params] = np.fromiter(numbers, dtype=float, count=n * n_params).reshape(n, n_params)
    table[:, n_params:] = np.array(tpl.mode_starts, dtype=float)
    return table


def _parameter_suffixes(group: InstanceGroup) -> list[str]:
    """What follows the instance path in the name of each parameter and mode."""
    tpl = group.template
    # A number given to an input is named like the input: params={"src.V": 2.0}.
    own = [""] if type(group.components[0]) is _ConstantInput else [f".{name}" for name in tpl.param_names]
    return own + [f".{name}" for name in tpl.mode_names]


def _declarations(group: InstanceGroup) -> list[Parameter | Mode]:
    """The declaration of each parameter and mode of the group's class."""
    cls, tpl = type(group.components[0]), group.template
    return [cls._parameters[name] for name in tpl.param_names] + [cls._modes[name] for name in tpl.mode_names]
def _name_pieces(local: str) -> tuple[str, str]:
    """A local variable's global name is ``head + path + tail``: ``R1.p.v``, ``der(C1.v)``."""
    base = derivative_base(local)
    return ("der(", f".{base})") if base else ("", f".{local}")
