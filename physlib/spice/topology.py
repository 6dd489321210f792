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
    ``blocks``: path → subsystem kept whole (only with ``expand=False``); ``net(port)``: the net
    number of a terminal ``"path.port"``; ``members(k)``: the terminals of net ``k`` in the order
    they were first connected; ``grounded``: the net numbers joined to a Ground's pin.
    With ``expand=True`` every subsystem is walked into and its exposed ports stand for the
    ports they expose; otherwise only ``model``'s own level is read.
    """

    def __init__(self, model: Model, expand: bool = True):
        self.components: dict = {}
        self.blocks: dict = {}
        self._parent: dict[str, str] = {}
        self._walk(model, "", expand)
        roots: dict[str, int] = {}
        self._net: dict[str, int] = {}
        self._members: list[list[str]] = []
        for terminal in self._parent:
            root = self._find(terminal)
            k = roots.setdefault(root, len(roots))
            if k == len(self._members):
                self._members.append([])
            self._members[k].append(terminal)
            self._net[terminal] = k
        self.grounded = {self._net[f"{path}.p"] for path, c in self.components.items()
                         if c.is_reference and f"{path}.p" in self._net}

    # --- queries ---------------------------------------------------------------------------

    def net(self, terminal: str) -> int:
        return self._net[terminal]

    def members(self, k: int) -> list[str]:
        return self._members[k]

    def leaf(self, terminal: str) -> str:
        """The component port (``"path.port"``) a terminal stands for: itself, or for a port of
        a block, the port inside it that the block exposes."""
        owner, _, port = terminal.rpartition(".")
        if owner not in self.blocks:
            return terminal
        return self._terminal({owner: self.blocks[owner]}, "", owner, port, True)

    def __len__(self):
        return len(self._members)

    # --- building --------------------------------------------------------------------------

    def _find(self, terminal: str) -> str:
        parent = self._parent
        root = terminal
        while parent[root] != root:
            root = parent[root]
        while parent[terminal] != root:                  # path compression
            parent[terminal], terminal = root, parent[terminal]
        return root

    def _union(self, a: str, b: str):
        parent = self._parent
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            parent[rb] = ra

    def _walk(self, model, prefix: str, expand: bool):
        members = model._members
        for name, member in members.items():
            path = prefix + name
            if isinstance(member, Model):
                if expand:
                    self._walk(member, path + ".", expand)
                else:
                    self.blocks[path] = member
                    for port in member._exposed:
                        self._parent.setdefault(f"{path}.{port}", f"{path}.{port}")
            else:
                self.components[path] = member
                for port in member.ports():
                    self._parent.setdefault(f"{path}.{port}", f"{path}.{port}")
        start = 0
        ends = [self._terminal(members, prefix, name, port, expand)
                for name, port in zip(model._end_member, model._end_port)]
        for size in model._sizes:
            first = ends[start]
            for other in ends[start + 1:start + size]:
                self._union(first, other)
            start += size

    def _terminal(self, members, prefix, name, port, expand) -> str:
        """``"path.port"`` of one connection end: through exposed ports down to the component
        port they stand for when expanding."""
        member = members[name]
        if not expand or not isinstance(member, Model):
            return f"{prefix}{name}.{port}"
        ref, path = member._exposed[port], prefix + name
        while isinstance(ref, ExposedPort):
            ref = ref.target
            if isinstance(ref, ExposedPort):
                path += "." + ref.owner.name
        return f"{path}.{ref.owner.name}.{ref.port.name}"
