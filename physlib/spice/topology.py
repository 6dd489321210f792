"""The nets of a physlib model: which ports of which components are joined, seen through
subsystems (flattened) or with subsystems kept as blocks (their exposed ports as terminals).

Used by :mod:`physlib.spice.writer` (a net is a SPICE node) and :mod:`physlib.spice.checks`
(DC paths to ground). Linear in the size of the model: one walk that numbers the ports and
lists the pairs of them joined, as arrays, then the connected components of those pairs.
"""
from __future__ import annotations

from functools import cached_property
from itertools import compress, count, repeat
from operator import itemgetter

import numpy as np

from ..assembly.model import ExposedPort, Model
from ..core.arrays import connected_components

__all__ = ["Nets"]


class Nets:
    """The nets of ``model``.

    ``components``: leaf path → component (in the order the model holds them, depth first);
    ``blocks``: path → subsystem kept whole (only with ``expand=False``); ``net(terminal)``: the
    net (a number) of a terminal ``"path.port"``; ``nets()``: every net, in the order of their
    first terminals; ``members(net)``: its terminals; ``grounded``: the nets joined to a
    Ground's pin. With ``expand=True`` every subsystem is walked into and its exposed ports
    stand for the ports they expose; otherwise only ``model``'s own level is read.
    ``joins(component)``, if given, names groups of a component's ports to treat as joined too
    (:mod:`physlib.spice.checks` joins the pins that conduct at DC); for a class without
    conditional ports it must depend on the class alone (it is asked once per class).
    """

    def __init__(self, model: Model, expand: bool = True, joins=None):
        self._runs: list[tuple[list, list]] = []    # (paths, components): see components
        self.blocks: dict = {}
        # terminals are numbered owner by owner (a component or a block), its ports in order:
        # owner path -> (its first terminal's number, {port: offset}); no string per terminal
        self._owners: dict[str, tuple[int, dict[str, int]]] = {}
        self._offsets: dict[tuple, dict[str, int]] = {}    # shared by owners of the same ports
        self._class_ports: dict[type, dict] = {}    # offsets of classes without conditional ports
        self._size = 0                  # terminals numbered so far
        references: list[str] = []      # paths of the Ground-like components
        pairs: list[tuple[np.ndarray, np.ndarray]] = []    # terminals to join, gathered by the walk
        self._walk(model, "", expand, joins, pairs, references)
        self._root = _first_terminals(self._size, pairs)
        self._members: dict[int, list[str]] | None = None
        self.grounded = {self.net(f"{path}.p") for path in references}

    @cached_property
    def components(self) -> dict:
        """Leaf path → component, in the order the model holds them (made on first use: the
        DC-path check of a large deck never asks)."""
        out: dict = {}
        for paths, components in self._runs:
            out.update(zip(paths, components))
        return out

    # --- queries ---------------------------------------------------------------------------

    def net(self, terminal: str) -> int:
        return self._find(self._number(terminal))

    def members(self, net: int) -> list[str]:
        return self._grouped()[net]

    def nets(self) -> list[int]:
        return list(self._grouped())

    def nets_of(self, terminals: list[str]) -> np.ndarray:
        """The net of each of ``terminals`` (``"path.port"`` of a component or block), at once."""
        if not terminals:
            return np.zeros(0, dtype=np.int64)
        owners, _, ports = zip(*(t.rpartition(".") for t in terminals))
        try:
            numbers = _numbers(list(map(self._owners.__getitem__, owners)), ports)
        except KeyError:
            return np.array([self.net(t) for t in terminals], dtype=np.int64)   # names the terminal
        return self._root[numbers]

    def _number(self, terminal: str) -> int:
        owner, _, port = terminal.rpartition(".")
        if owner not in self._owners or port not in self._owners[owner][1]:
            raise KeyError(terminal)
        first, offsets = self._owners[owner]
        return first + offsets[port]

    def _grouped(self) -> dict[int, list[str]]:
        if self._members is None:
            self._members = {}
            for owner, (first, offsets) in self._owners.items():
                for port, offset in offsets.items():
                    self._members.setdefault(self._find(first + offset), []).append(f"{owner}.{port}")
        return self._members

    def leaf(self, terminal: str) -> str:
        """The component port (``"path.port"``) a terminal stands for: itself, or for a port of
        a block, the port inside it that the block exposes."""
        owner, _, port = terminal.rpartition(".")
        if owner not in self.blocks:
            return terminal
        return self._terminal({owner: self.blocks[owner]}, "", owner, port, True)

    # --- building --------------------------------------------------------------------------

    def _find(self, k: int) -> int:
        return int(self._root[k])

    def _add(self, owner: str, offsets: dict[str, int]) -> int:
        """Number the terminals of ``owner``, whose ports have ``offsets``; returns the first
        number."""
        first = self._size
        self._owners[owner] = (first, offsets)
        self._size += len(offsets)
        return first

    def _offsets_of(self, ports) -> dict[str, int]:
        """{port: its offset from the first terminal} for ``ports`` in order, one dict shared
        by every owner of the same ports."""
        names = tuple(ports)
        offsets = self._offsets.get(names)
        if offsets is None:
            offsets = self._offsets[names] = {port: k for k, port in enumerate(names)}
        return offsets

    def _port_offsets(self, component) -> dict[str, int]:
        """The port offsets of ``component``: those of its class, unless some are
        conditional."""
        cls = type(component)
        offsets = self._class_ports.get(cls)
        if offsets is None:
            if any(port.condition is not None for port in cls._ports.values()):
                return self._offsets_of(component.ports())
            offsets = self._class_ports[cls] = self._offsets_of(cls._ports)
        return offsets

    def _add_components(self, names: list, components: list, prefix: str, joins, pairs: list,
                        references: list):
        """Number the terminals of the ``components`` named ``names`` (below ``prefix``), add
        the pairs ``joins`` joins and the paths of reference components (grounds) to
        ``references``; most of a large model's components go through here, so it works on them
        all at once, class by class."""
        paths = [prefix + name for name in names] if prefix else names
        class_offsets = self._class_ports
        types = list(map(type, components))
        for cls in dict.fromkeys(types):     # a class's offsets, once (unless its ports vary)
            if cls not in class_offsets:
                self._port_offsets(components[types.index(cls)])
        all_offsets = list(map(class_offsets.__getitem__, types)) if class_offsets.keys() >= set(types) \
            else [class_offsets.get(cls) or self._port_offsets(c) for cls, c in zip(types, components)]
        sizes = np.fromiter(map(len, all_offsets), dtype=np.int64, count=len(all_offsets))
        firsts = self._size + np.cumsum(sizes) - sizes
        self._size += int(sizes.sum())
        self._runs.append((paths, components))
        self._owners.update(zip(paths, zip(firsts.tolist(), all_offsets)))
        if not components:
            return
        code_of = {cls: k for k, cls in enumerate(dict.fromkeys(types))}
        codes = np.fromiter(map(code_of.__getitem__, types), dtype=np.int64, count=len(types))
        for cls, k in code_of.items():
            at = np.flatnonzero(codes == k)
            if cls.is_reference:
                references.extend(paths[i] for i in at.tolist())
            if not joins:
                continue
            # a class without conditional ports: one answer for all its components; one with
            # them: its components one by one, each with its own ports
            shared = cls in class_offsets
            for i in (at[:1] if shared else at).tolist():
                starts = firsts[at] if shared else firsts[i:i + 1]
                offsets = all_offsets[i]
                for group in joins(components[i]):
                    for port in group[1:]:
                        pairs.append((starts + offsets[group[0]], starts + offsets[port]))

    def _walk(self, model, prefix: str, expand: bool, joins, pairs: list, references: list):
        """Number the terminals of ``model`` (below ``prefix``) and add the pairs its
        connections and ``joins`` join to ``pairs``, the paths of its grounds to ``references``."""
        members = model.components
        names, values = list(members), list(members.values())
        at_blocks = list(compress(count(), map(isinstance, members.values(), repeat(Model))))
        blocks = {names[k] for k in at_blocks}
        start = 0                  # runs of consecutive components are numbered together
        for k in at_blocks:
            name = names[k]
            self._add_components(names[start:k], values[start:k], prefix, joins, pairs, references)
            start = k + 1
            path = prefix + name
            if expand:
                self._walk(members[name], path + ".", expand, joins, pairs, references)
            else:
                self.blocks[path] = members[name]
                self._add(path, self._offsets_of(members[name].exposed_ports))
        self._add_components(names[start:], values[start:], prefix, joins, pairs, references)
        end_names, end_ports, sizes = model.connection_ends()
        if not sizes:
            return
        owners = self._owners
        owner_of = owners if not prefix else {name: owners.get(prefix + name) for name in members}
        if blocks:          # an end on a block: through its exposed ports (or the block's own)
            number, terminal = self._number, self._terminal
            ends = np.array([number(terminal(members, prefix, name, port, expand)) if name in blocks
                             else owner_of[name][0] + owner_of[name][1][port]
                             for name, port in zip(end_names, end_ports)], dtype=np.int64)
        else:               # a component's port is its own terminal
            ends = _numbers(list(map(owner_of.__getitem__, end_names)), end_ports)
        # each connection's first end joined to its others
        sizes = np.asarray(sizes, dtype=np.int64)
        starts = np.cumsum(sizes) - sizes
        others = np.ones(len(ends), dtype=bool)
        others[starts] = False
        pairs.append((np.repeat(ends[starts], sizes - 1), ends[others]))

    def _terminal(self, members, prefix, name, port, expand) -> str:
        """``"path.port"`` of one connection end: through exposed ports down to the component
        port they stand for when expanding."""
        member = members[name]
        if not expand or not isinstance(member, Model):
            return f"{prefix}{name}.{port}"
        ref, path = member.exposed_ports[port], prefix + name
        while isinstance(ref, ExposedPort):
            ref = ref.target
            if isinstance(ref, ExposedPort):
                path += "." + ref.owner.name
        return f"{path}.{ref.owner.name}.{ref.port.name}"


def _numbers(owners: list[tuple[int, dict]], ports) -> np.ndarray:
    """The terminal numbers of ``ports``, each of the owner (its first terminal, its ports'
    offsets) at the same place in ``owners``."""
    return np.fromiter(map(int.__add__, map(itemgetter(0), owners),
                           map(dict.__getitem__, map(itemgetter(1), owners), ports)),
                       dtype=np.int64, count=len(owners))


def _first_terminals(size: int, pairs: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Per terminal, the first (smallest-numbered) terminal of its net: the connected
    components of the ``pairs`` joined, numbered in the order of their smallest terminals."""
    heads = np.concatenate([a for a, _ in pairs]) if pairs else np.zeros(0, dtype=np.int64)
    others = np.concatenate([b for _, b in pairs]) if pairs else np.zeros(0, dtype=np.int64)
    _, label = connected_components(size, heads, others)
    # a terminal is its net's first where its label exceeds every label before it
    first = np.ones(size, dtype=bool)
    if size:
        first[1:] = label[1:] > np.maximum.accumulate(label)[:-1]
    return np.flatnonzero(first)[label]
