"""The nets of a physlib model: which ports of which components are joined, seen through
subsystems (flattened) or with subsystems kept as blocks (their exposed ports as terminals).

Used by :mod:`physlib.spice.writer` (a net is a SPICE node) and :mod:`physlib.spice.checks`
(DC paths to ground). Linear in the size of the model: one walk, a union-find over ports.
"""
from __future__ import annotations

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
        self._id: dict[str, int] = {}          # terminal -> its number
        self._parent: list[int] = []
        self._walk(model, "", expand, joins)
        self._members: dict[int, list[str]] | None = None
        self.grounded = {self.net(f"{path}.p") for path, c in self.components.items()
                         if c.is_reference}

    # --- queries ---------------------------------------------------------------------------

    def net(self, terminal: str) -> int:
        return self._find(self._id[terminal])

    def members(self, net: int) -> list[str]:
        return self._grouped()[net]

    def nets(self) -> list[int]:
        return list(self._grouped())

    def _grouped(self) -> dict[int, list[str]]:
        if self._members is None:
            self._members = {}
            for terminal, k in self._id.items():
                self._members.setdefault(self._find(k), []).append(terminal)
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

    def _union(self, a: int, b: int):
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)      # the first terminal stays the root

    def _add(self, terminal: str) -> int:
        k = self._id.setdefault(terminal, len(self._parent))
        if k == len(self._parent):
            self._parent.append(k)
        return k

    def _walk(self, model, prefix: str, expand: bool, joins):
        members = model.components
        for name, member in members.items():
            path = prefix + name
            if isinstance(member, Model):
                if expand:
                    self._walk(member, path + ".", expand, joins)
                else:
                    self.blocks[path] = member
                    for port in member.exposed_ports:
                        self._add(f"{path}.{port}")
                continue
            self.components[path] = member
            ids = {port: self._add(f"{path}.{port}") for port in member.ports()}
            for group in (joins(member) if joins else ()):
                for port in group[1:]:
                    self._union(ids[group[0]], ids[port])
        terminal, number = self._terminal, self._id
        blocks = {name for name, member in members.items() if isinstance(member, Model)}
        for connection in model.connections:
            # a component's port is its own terminal: no walk through exposed ports
            ends = [number[terminal(members, prefix, name, port, expand) if name in blocks
                           else f"{prefix}{name}.{port}"] for name, port in connection]
            first = ends[0]
            for other in ends[1:]:
                self._union(first, other)

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
