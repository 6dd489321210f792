"""Ports and connection sets of a flattened model, as arrays.

Every port of every instance gets a number (instance by instance, each in the order of its
``ports()``); a connection is a run of port numbers. The ports joined by connections form the
connection sets (nodes): across variables equal, through variables summing to zero, or, in
the signal domain, every input equal to the set's one output. Connected components, ordering
and the checks (unconnected ports, signal sets, floating networks) run on NumPy arrays,
so the cost grows linearly with the model; Python loops run only over the few class layouts.
The sets come out as :class:`Runs` of one array each, not as one small array or list per set.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.arrays import connected_components
from ..core.errors import MissingReferenceError, PortConnectionError, UnconnectedPortError
from ..core.records import record

_CAUSALITY = {None: 0, "input": 1, "output": 2}
_INPUT, _OUTPUT = 1, 2


@record(frozen=True)
class PortLayout:
    """The ports of one class template (one group of instances)."""

    class_name: str
    names: tuple[str, ...]
    domains: tuple
    causality: np.ndarray     # per port: 0 physical, 1 input, 2 output
    across: np.ndarray        # per port: local index of its across (or signal) variable
    through: np.ndarray       # per port: local index of its through variable, -1 for signals
    joined: np.ndarray        # (k, 2) ports joined inside the component, domains with a reference
    is_reference: bool

    @classmethod
    def of(cls, component, local_names) -> "PortLayout":
        """From one instance; the ports, like the equations, are the same for all instances of
        a class template (conditional ports depend on structural parameters only)."""
        index = {n: i for i, n in enumerate(local_names)}
        ports = component.ports()
        names = tuple(ports)
        local = [[index[v] for v in p.variable_names()] + [-1] for p in ports.values()]
        position = {n: i for i, n in enumerate(names)}
        joined = []
        for group in component.port_groups():
            members = [position[p] for p in group if p in ports and ports[p].domain.needs_reference]
            joined.extend((members[0], m) for m in members[1:])
        return cls(type(component).__name__, names, tuple(p.domain for p in ports.values()),
                   np.array([_CAUSALITY[p.causality] for p in ports.values()], dtype=np.int64),
                   np.array([ids[0] for ids in local], dtype=np.int64),
                   np.array([ids[1] for ids in local], dtype=np.int64),
                   np.array(joined, dtype=np.int64).reshape(-1, 2), bool(component.is_reference))


class PortTable:
    """Every port of the flat system: per-port arrays over instances and their layouts."""

    def __init__(self, paths: list[str], layouts: list[PortLayout], layout_of: np.ndarray,
                 var_base: np.ndarray):
        self.paths, self.layouts, self.layout_of = paths, layouts, layout_of
        self.domains = list(dict.fromkeys(d for lay in layouts for d in lay.domains))
        self.names = list(dict.fromkeys(n for lay in layouts for n in lay.names))
        code = {n: i for i, n in enumerate(self.names)}
        dcode = {d: i for i, d in enumerate(self.domains)}
        width = max((len(lay.names) for lay in layouts), default=0)
        rows = max(len(layouts), 1)
        tables = np.full((5, rows, max(width, 1)), -1, dtype=np.int64)
        self._position = np.full((rows, max(len(code), 1)), -1, dtype=np.int64)
        for li, lay in enumerate(layouts):
            k, codes = len(lay.names), [code[n] for n in lay.names]
            tables[:, li, :k] = (lay.across, lay.through, lay.causality,
                                 [dcode[d] for d in lay.domains], codes)
            self._position[li, codes] = np.arange(k)
        self.code = code
        counts = np.array([len(lay.names) for lay in layouts], dtype=np.int64)[layout_of]
        self.start = np.concatenate([[0], np.cumsum(counts)])[:-1].astype(np.int64)
        self.inst = np.repeat(np.arange(len(paths), dtype=np.int64), counts)
        pos = np.arange(len(self.inst), dtype=np.int64) - self.start[self.inst]
        lay_of_port = layout_of[self.inst]
        across, through, self.causality, self.domain, self.name = \
            (tables[j][lay_of_port, pos] for j in range(5))
        self.across = var_base[self.inst] + across
        self.through = np.where(through >= 0, var_base[self.inst] + through, -1)
        flags = np.array([(d.is_signal, d.free_end, d.needs_reference) for d in self.domains],
                         dtype=bool).reshape(-1, 3)
        self.is_signal, self.free_end, self.needs_reference = (flags[self.domain, j] for j in range(3))

    def __len__(self):
        return len(self.inst)

    def ids(self, inst, names) -> np.ndarray:
        """Port numbers of ``names[k]`` of instance ``inst[k]``."""
        inst = np.asarray(inst, dtype=np.int64)
        codes = np.fromiter(map(self.code.__getitem__, names), dtype=np.int64, count=len(names))
        return self.start[inst] + self._position[self.layout_of[inst], codes]

    def key(self, p: int) -> str:
        """The path of port ``p``: ``"R1.p"``."""
        return f"{self.paths[self.inst[p]]}.{self.names[self.name[p]]}"

    def class_name(self, p: int) -> str:
        return self.layouts[self.layout_of[self.inst[p]]].class_name

    def rank_of_paths(self) -> np.ndarray:
        """Per instance: the rank of its path in sorted order. ASCII paths (names are ASCII
        identifiers; a class's own port names, in an inline source's path, need not be) are
        sorted as bytes by NumPy, in the strings' order: a million in 0.14 s against 0.24 s for
        Python's sort of the strings, which sorts the others."""
        try:
            order = np.argsort(np.array(self.paths, dtype=bytes), kind="stable")
        except UnicodeEncodeError:
            order = sorted(range(len(self.paths)), key=self.paths.__getitem__)
        rank = np.empty(len(self.paths), dtype=np.int64)
        rank[order] = np.arange(len(self.paths))
        return rank

    def rank_of_names(self) -> np.ndarray:
        """Per port-name code: the rank of the name in sorted order."""
        rank = np.empty(len(self.names), dtype=np.int64)
        rank[sorted(range(len(self.names)), key=self.names.__getitem__)] = np.arange(len(self.names))
        return rank


class Runs(Sequence):
    """Consecutive runs of one array, as a sequence of arrays: run ``k`` is
    ``values[offsets[k]:offsets[k + 1]]``. A large model has hundreds of thousands of short
    runs (one per connection set), far cheaper kept this way than as an array each."""

    def __init__(self, values: np.ndarray, lengths: np.ndarray):
        self.values = np.asarray(values, dtype=np.int64)
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        k = range(len(self))[k]     # an IndexError out of range; negative counts from the end
        return self.values[self.offsets[k]:self.offsets[k + 1]]

    def __iter__(self):
        return iter(np.split(self.values, self.offsets[1:-1]))

    def __add__(self, more: Runs) -> Runs:
        return Runs(np.concatenate([self.values, more.values]), np.concatenate([self.lengths, more.lengths]))


class NodePaths(Sequence):
    """Per connection set, the paths of the instances it joins (``runs`` of instance numbers)."""

    def __init__(self, paths: list[str], runs: Runs):
        self.paths, self.runs = paths, runs

    def __len__(self) -> int:
        return len(self.runs)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        return [self.paths[i] for i in self.runs[k].tolist()]

    def __iter__(self):
        names = [self.paths[i] for i in self.runs.values.tolist()]
        bounds = self.runs.offsets.tolist()
        return (names[start:end] for start, end in zip(bounds, bounds[1:]))


@record(frozen=True)
class ConnectionSets:
    """What connections give the flat system (see :class:`~physlib.assembly.flatten.FlatSystem`)."""

    equalities: np.ndarray   # (k, 2): across variables x_a = x_b
    through_sums: Runs       # per physical set, then per free end: through ids summing to zero
    members: Runs            # per set: the instances it joins, sorted by path


def connection_sets(table: PortTable, ends: np.ndarray, sizes: np.ndarray,
                    given: np.ndarray) -> ConnectionSets:
    """Join the ports of ``table``: connection ``c`` is ``ends[sum(sizes[:c]):][:sizes[c]]``.

    Sets come in the order their first port appears in ``ends``, their members sorted by port
    path; the first member of a physical set carries the set's across variable. ``given``
    lists the signal inputs that have a value of their own (a keyword argument).
    Raises for signal sets without exactly one output or with an input given a value as
    well, for ports left unconnected and for networks without a reference.
    """
    edges = _edges(ends, sizes)
    connected = np.zeros(len(table), dtype=bool)
    connected[ends] = True
    given_mask = np.zeros(len(table), dtype=bool)
    given_mask[given] = True
    members, node, first, nets = _sets(table, ends, edges, connected)
    signal = table.is_signal[members[first]]
    _check_signal_sets(table, members, node, first, signal, given_mask)
    equalities = _equalities(table, members, node, first, signal)
    physical = ~signal[node]
    sizes = np.diff(np.append(first, len(members)))
    free = np.flatnonzero(~connected & table.free_end)
    sums = Runs(np.concatenate([table.through[members[physical]], table.through[free]]),
                np.concatenate([sizes[~signal], np.ones(len(free), dtype=np.int64)]))
    _check_unconnected(table, connected, given_mask)
    _check_references(table, *nets)
    return ConnectionSets(equalities, sums, _instances_joined(table, members, first))


def _edges(ends: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(first port of a connection, other port) for every other port of every connection."""
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    head = np.repeat(ends[offsets], sizes) if len(sizes) else ends
    other = np.ones(len(ends), dtype=bool)
    other[offsets[:len(sizes)]] = False
    return np.column_stack([head[other], ends[other]]).astype(np.int64)


def _sets(table: PortTable, ends: np.ndarray, edges: np.ndarray, connected: np.ndarray):
    """Connected ports sorted by (set, port path): member ports, set of each, first of each
    set; and (the number of sets, each port's set), an unconnected port a set of its own."""
    n_labels, label = connected_components(len(table), edges[:, 0], edges[:, 1])
    seen, first_seen = np.unique(label[ends], return_index=True)
    order_of = np.full(n_labels, -1, dtype=np.int64)
    order_of[seen[np.argsort(first_seen)]] = np.arange(len(seen))
    ports = np.flatnonzero(connected)
    node = order_of[label[ports]]
    # Port paths are "<instance path>.<port name>" and names are identifiers: sorting by the
    # instance path, then by the port name, is sorting by the path string.
    order = np.lexsort((table.rank_of_names()[table.name[ports]],
                        table.rank_of_paths()[table.inst[ports]], node))
    members, node = ports[order], node[order]
    first = np.flatnonzero(np.concatenate([[True], node[1:] != node[:-1]])) if len(node) else node
    return members, node, first, (n_labels, label)


def _span(members, first, k) -> np.ndarray:
    return members[first[k]:first[k + 1] if k + 1 < len(first) else len(members)]


def _check_signal_sets(table, members, node, first, signal, given):
    is_output = table.causality[members] == _OUTPUT
    outputs = np.bincount(node, weights=is_output, minlength=len(first)).astype(np.int64)
    bad_count = signal & (outputs != 1)
    conflict = signal[node] & (table.causality[members] == _INPUT) & given[members]
    bad_given = np.zeros(len(first), dtype=bool)
    bad_given[node[conflict]] = True
    bad = np.flatnonzero(bad_count | bad_given)
    if not len(bad):
        return
    k = int(bad[0])
    span = _span(members, first, k)
    if bad_count[k]:
        names = ", ".join(table.key(p) for p in span)
        raise PortConnectionError(
            f"signal connection {{{names}}} has {outputs[k]} outputs; connect exactly one "
            "output (a sensor, waveform or block output) to inputs")
    source = next(p for p in span if table.causality[p] == _OUTPUT)
    m = next(p for p in span if table.causality[p] == _INPUT and given[p])
    raise PortConnectionError(
        f"input {table.key(m)} is both given a value and connected to "
        f"{table.key(source)}; do one or the other")


def _equalities(table, members, node, first, signal) -> np.ndarray:
    """Physical sets: the first member's across variable equals every other member's.
    Signal sets: every member other than the output equals the output."""
    sig = signal[node]
    out = sig & (table.causality[members] == _OUTPUT)
    is_first = np.zeros(len(members), dtype=bool)
    is_first[first] = True
    source = np.zeros(len(first), dtype=np.int64)
    source[node[out]] = members[out]
    across = table.across[members]
    a = np.where(sig, across, table.across[members[first]][node])
    b = np.where(sig, table.across[source[node]], across)
    keep = np.where(sig, ~out, ~is_first)
    return np.column_stack([a[keep], b[keep]])


def _instances_joined(table, members, first) -> Runs:
    """Per set, the distinct instances of its members (sorted by path: members are)."""
    inst = table.inst[members]
    keep = np.ones(len(members), dtype=bool)
    keep[1:] = inst[1:] != inst[:-1]
    keep[first] = True
    starts = np.cumsum(keep)[first] - 1
    return Runs(inst[keep], np.diff(np.append(starts, int(keep.sum()))))


def _check_unconnected(table, connected, given):
    bad = np.flatnonzero(~connected & ~given & (table.causality != _OUTPUT) & ~table.free_end)
    if not len(bad):
        return
    p = int(bad[0])
    key, comp, path = table.key(p), table.class_name(p), table.paths[table.inst[p]]
    name = table.names[table.name[p]]
    if table.causality[p] == _INPUT:
        raise UnconnectedPortError(
            f"input {key} of {comp} {path!r} has no value: give it as {name}=... "
            f"(a number or a waveform) or connect a signal output to it")
    raise UnconnectedPortError(
        f"port {key} of {comp} {path!r} is not connected; connect it "
        f"(a {table.domains[table.domain[p]].name} port needs at least one partner)")


def _check_references(table, n_sets: int, set_of: np.ndarray):
    """Each network of a domain that needs a reference (electrical) must contain one. The
    networks are the connection sets (``set_of`` each port's, from the connections' edges)
    joined through the components (their ports ``joined``): components of the graph of sets,
    a quarter of the ports' in a two-pin circuit."""
    ref = table.needs_reference
    if not ref.any():
        return
    pairs = [np.zeros((0, 2), dtype=np.int64)]
    for li, lay in enumerate(table.layouts):
        if len(lay.joined):
            starts = table.start[np.flatnonzero(table.layout_of == li)]
            pairs.append((starts[:, None, None] + lay.joined[None]).reshape(-1, 2))
    pairs = set_of[np.concatenate(pairs)]
    n_labels, label = connected_components(n_sets, pairs[:, 0], pairs[:, 1])
    label = label[set_of]
    keys = np.flatnonzero(ref)
    is_reference = np.array([lay.is_reference for lay in table.layouts])[table.layout_of[table.inst[keys]]]
    grounded = np.zeros(n_labels, dtype=bool)
    grounded[label[keys[is_reference]]] = True
    floating = keys[~grounded[label[keys]]]
    if not len(floating):
        return
    network = keys[label[keys] == label[floating[0]]]
    comps = sorted({table.paths[i] for i in table.inst[network].tolist()})
    domain = table.domains[table.domain[network[0]]].name
    names = ", ".join(comps[:8]) + (", ..." if len(comps) > 8 else "")
    raise MissingReferenceError(
        f"the {domain} network of {names} has no reference: add a Ground and connect "
        "it to one of its nodes (potentials are only defined relative to ground)")
