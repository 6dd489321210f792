"""What a netlist is made of, read back: members, exposed ports, connections and their graph
(:class:`~physlib.assembly.netlist.Netlist` builds them, checking each addition)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["NetlistInspection"]


class NetlistInspection:
    """The read-only views of a :class:`~physlib.assembly.netlist.Netlist`: its ``_members``
    (name -> member), ``_exposed`` (name -> exposed port) and connections, kept flat
    (``_end_member``, ``_end_port``, ``_sizes``)."""

    @property
    def components(self) -> dict:
        """Direct members (components and subsystems) by name."""
        return dict(self._members)

    @property
    def component_count(self) -> int:
        """The number of components in this model and its subsystems, at every level."""
        count = len(self._members) - self._subsystems
        if self._subsystems:
            count += sum(m.component_count for m in self._members.values() if isinstance(m, NetlistInspection))
        return count

    @property
    def exposed_ports(self) -> dict:
        """The ports this model shows to its parent, by name (``expose``)."""
        return dict(self._exposed)

    @property
    def connections(self) -> list[tuple[tuple[str, str], ...]]:
        """The connections of this level, in the order ``connect`` was called: each one a
        tuple of its ports as (member name, port name) pairs, in the order given (a port of a
        subsystem is named by its exposed port's name)."""
        ends = list(zip(self._end_member, self._end_port))
        out, first = [], 0
        for size in self._sizes:
            out.append(tuple(ends[first:first + size]))
            first += size
        return out

    def connection_ends(self) -> tuple[list[str], list[str], list[int]]:
        """The connections of :attr:`connections` as flat lists: every end's member name and
        port name, connection after connection, and each connection's number of ends (no
        tuple per connection: a large circuit has hundreds of thousands)."""
        return list(self._end_member), list(self._end_port), list(self._sizes)

    @property
    def graph(self) -> nx.Graph:
        """The connection graph of this level: nodes are port paths, edges are connections."""
        import networkx as nx
        g = nx.Graph()
        for member in self._members.values():
            ports = member._exposed.values() if isinstance(member, NetlistInspection) else \
                [getattr(member, n) for n in member.ports()]
            for port in ports:
                g.add_node(port.path, domain=port.domain.name)
        paths = [f"{member}.{port}" for member, port in zip(self._end_member, self._end_port)]
        first = 0
        for size in self._sizes:
            g.add_edges_from((paths[first], other) for other in paths[first + 1:first + size])
            first += size
        return g
