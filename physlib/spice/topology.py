"""The nets of a physlib model: which ports of which components are joined, seen through
subsystems (flattened) or with subsystems kept as blocks (their exposed ports as terminals).

Used by :mod:`physlib.spice.writer` (a net is a SPICE node) and :mod:`physlib.spice.checks`
(DC paths to ground). Linear in the size of the model: one walk, a union-find over ports.
"""
from __future__ import annotations

from itertools import accumulate, chain

from ..assembly.model import ExposedPort, Model

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
    (:mod:`physlib.spice.checks` joins the pins that conduct at DC).
    """

    def __init__(self, model: Model, expand: bool = True, joins=None):
        self.components: dict = {}
        self.blocks: dict = {}
        # terminals are numbered owner by owner (a component or a block), its ports in order:
        # owner path -> (its first terminal's number, {port: offset}); no string per terminal
        self._owners: dict[str, tuple[int, dict[str, int]]] = {}
        self._offsets: dict[tuple, dict[str, int]] = {}    # shared by owners of the same ports
        self._class_ports: dict[type, dict] = {}    # offsets of classes without conditional ports
        self._parent: list[int] = []
        # the pairs of terminals to join, gathered by the walk and joined in one loop after it
        heads: list[int] = []
        others: list[int] = []
        self._walk(model, "", expand, joins, heads, others)
        self._join(heads, others)
        self._members: dict[int, list[str]] | None = None
        self.grounded = {self.net(f"{path}.p") for path, c in self.components.items()
                         if c.is_reference}

    # --- queries ---------------------------------------------------------------------------

    def net(self, terminal: str) -> int:
        return self._find(self._number(terminal))

    def members(self, net: int) -> list[str]:
        return self._grouped()[net]

    def nets(self) -> list[int]:
        return list(self._grouped())

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
        parent = self._parent
        while parent[k] != k:
            parent[k] = parent[parent[k]]                # path halving
            k = parent[k]
        return k

    def _join(self, heads: list[int], others: list[int]):
        """Join the sets of ``heads[k]`` and ``others[k]`` for every k; the root of a set stays
        its first terminal (the smallest number). One loop with the finds written out: a
        large deck joins hundreds of thousands of pairs, and a call per find was most of it."""
        parent = self._parent
        for a, b in zip(heads, others):
            while parent[a] != a:
                parent[a] = parent[parent[a]]            # path halving
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b

    def _add(self, owner: str, offsets: dict[str, int]) -> int:
        """Number the terminals of ``owner``, whose ports have ``offsets``; returns the first
        number."""
        first = len(self._parent)
        self._owners[owner] = (first, offsets)
        self._parent.extend(range(first, first + len(offsets)))
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

    def _add_components(self, names: list, members: dict, prefix: str, joins, heads: list,
                        others: list):
        """Number the terminals of the components ``names`` (of ``members``, below ``prefix``)
        and add the pairs ``joins`` joins; most of a large model's components go through here,
        so it works on them all at once."""
        components = [members[name] for name in names]
        paths = [prefix + name for name in names] if prefix else names
        class_offsets = self._class_ports
        all_offsets = [class_offsets.get(type(c)) or self._port_offsets(c) for c in components]
        parent = self._parent
        firsts = list(accumulate(map(len, all_offsets), initial=len(parent)))
        parent.extend(range(firsts[0], firsts[-1]))
        self.components.update(zip(paths, components))
        self._owners.update(zip(paths, zip(firsts, all_offsets)))
        if joins:
            for component, first, offsets in zip(components, firsts, all_offsets):
                for group in joins(component):
                    head = first + offsets[group[0]]
                    for port in group[1:]:
                        heads.append(head)
                        others.append(first + offsets[port])

    def _walk(self, model, prefix: str, expand: bool, joins, heads: list, others: list):
        """Number the terminals of ``model`` (below ``prefix``) and add the pairs its
        connections and ``joins`` join to ``heads``/``others``."""
        members = model.components
        run: list[str] = []        # consecutive components, numbered together
        for name, member in members.items():
            if not isinstance(member, Model):
                run.append(name)
                continue
            self._add_components(run, members, prefix, joins, heads, others)
            run = []
            path = prefix + name
            if expand:
                self._walk(member, path + ".", expand, joins, heads, others)
            else:
                self.blocks[path] = member
                self._add(path, self._offsets_of(member.exposed_ports))
        self._add_components(run, members, prefix, joins, heads, others)
        owners = self._owners
        number, terminal = self._number, self._terminal
        blocks = {name for name, member in members.items() if isinstance(member, Model)}
        connections = model.connections
        # every connection end's terminal in one comprehension (a component's port is its own
        # terminal), then each connection's first end joined to the others
        owner_of = owners if not prefix else {name: owners.get(prefix + name) for name in members}
        ends = [number(terminal(members, prefix, name, port, expand)) if name in blocks
                else owner_of[name][0] + owner_of[name][1][port]
                for name, port in chain.from_iterable(connections)]
        start = 0
        for connection in connections:
            end = start + len(connection)
            heads.extend([ends[start]] * (end - start - 1))
            others.extend(ends[start + 1:end])
            start = end

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
