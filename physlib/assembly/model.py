"""The user-facing :class:`Model`: components, connections, exposed ports, subsystems."""
from __future__ import annotations

import networkx as nx

from ..core.component import Component, PortRef, check_name
from ..core.errors import (DomainMismatchError, DuplicateNameError, ModelError, ParameterError,
                           PortConnectionError, UnknownAttributeError, UnknownNameError)


class ExposedPort:
    """A port a :class:`Model` shows to its parent: ``sub.expose(R1.p, "a")`` gives ``sub.a``."""

    __slots__ = ("owner", "name", "target")

    def __init__(self, owner: "Model", name: str, target):
        self.owner = owner
        self.name = name
        self.target = target  # a PortRef, or an ExposedPort of a nested model

    @property
    def domain(self):
        return self.target.domain

    @property
    def path(self) -> str:
        return f"{self.owner.name}.{self.name}"

    def __repr__(self):
        return f"<exposed port {self.path} ({self.domain.name})>"


class Model:
    """A system of connected components, compiled with :meth:`compile`.

    >>> m = Model("rc")
    >>> r = m.add(Resistor("R1", R=1e3))            # doctest: +SKIP
    >>> m.connect(src.p, r.p)                        # doctest: +SKIP

    A model can be added to another one as a subsystem; its exposed ports are then connected
    like component ports, and its variables are addressed as ``"sub.R1.v"``.
    Compiling never changes the model, so it can be compiled again or edited further.
    """

    def __init__(self, name: str):
        self.name = check_name(name, "Model")
        self._members: dict[str, Component | Model] = {}
        self._connections: list[tuple] = []
        self._exposed: dict[str, ExposedPort] = {}

    # --- building ----------------------------------------------------------------------

    def add(self, member):
        """Add a component or a subsystem (another Model); returns it."""
        if not isinstance(member, (Component, Model)):
            raise ModelError(f"Model.add takes a Component or a Model, got {member!r}")
        if member.name is None:
            raise PortConnectionError(
                f"{type(member).__name__} needs a name to be added to model {self.name!r}: "
                f"{type(member).__name__}('name', ...)")
        if member.name in self._members:
            raise DuplicateNameError(
                f"model {self.name!r} already has a member named {member.name!r} "
                f"({self._members[member.name]!r}); give each component a unique name")
        if member is self or (isinstance(member, Model) and member._contains(self)):
            raise PortConnectionError(f"model {member.name!r} cannot contain itself")
        self._members[member.name] = member
        return member

    def connect(self, *ports) -> None:
        """Connect two or more ports into one node: across variables equal, through variables sum to zero."""
        if len(ports) < 2:
            raise PortConnectionError("connect needs at least two ports")
        for port in ports:
            self._check_member_port(port)
        first = ports[0]
        for port in ports[1:]:
            if port.domain != first.domain:
                raise DomainMismatchError(
                    f"cannot connect {_describe(first)} to {_describe(port)}: "
                    f"a {first.domain.name} port only connects to {first.domain.name} ports")
            if port == first:
                raise PortConnectionError(f"port {port.path} is connected to itself")
        self._connections.append(tuple(ports))

    def expose(self, port, name: str) -> ExposedPort:
        """Make an inner port available to a parent model as ``self.<name>``."""
        check_name(name, "exposed port")
        self._check_member_port(port)
        if name in self._exposed or name in self._members:
            raise DuplicateNameError(f"model {self.name!r} already has a member or port named {name!r}")
        exposed = ExposedPort(self, name, port)
        self._exposed[name] = exposed
        return exposed

    def __getattr__(self, name):
        exposed = self.__dict__.get("_exposed", {})
        if name in exposed:
            return exposed[name]
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        if name.startswith("_"):
            raise AttributeError(name)
        raise UnknownAttributeError(
            f"model {self.__dict__.get('name')!r} has no exposed port or member {name!r}; it has: "
            f"{', '.join(list(exposed) + list(members)) or '(nothing yet)'}")

    def __getitem__(self, name: str):
        """A member by name or dotted path: ``m["sub.R1"]``."""
        if not isinstance(name, str):
            raise UnknownNameError(f"model {self.name!r}: members are looked up by name or dotted "
                                   f"path (m['sub.R1']), got {name!r}")
        head, _, rest = name.partition(".")
        try:
            member = self._members[head]
        except KeyError:
            raise UnknownNameError(f"model {self.name!r} has no member {head!r}; members: "
                                   f"{', '.join(self._members)}") from None
        return member[rest] if rest else member

    # --- inspection ---------------------------------------------------------------------

    @property
    def components(self) -> dict:
        """Direct members (components and subsystems) by name."""
        return dict(self._members)

    @property
    def graph(self) -> nx.Graph:
        """The connection graph of this level: nodes are port paths, edges are connections."""
        g = nx.Graph()
        for member in self._members.values():
            ports = member._exposed.values() if isinstance(member, Model) else \
                [getattr(member, n) for n in member.ports()]
            for port in ports:
                g.add_node(port.path, domain=port.domain.name)
        for ports in self._connections:
            for port in ports[1:]:
                g.add_edge(ports[0].path, port.path)
        return g

    def compile(self, **options):
        """Flatten, analyze and reduce the equations; returns a reusable CompiledModel.

        There are no compile options yet; passing one is an error rather than being ignored."""
        if options:
            raise ParameterError(f"Model.compile takes no options yet, got {', '.join(options)}")
        if not self._members:
            raise ModelError(f"model {self.name!r} has no components: add them with "
                             f"{self.name}.add(...) before compiling")
        from .compile import compile_model
        compiled = compile_model(self)
        # Analyses that add components (noise sources, analysis points) start from the model.
        compiled.source_model = self
        return compiled

    # --- helpers ------------------------------------------------------------------------

    def _check_member_port(self, port):
        if isinstance(port, ExposedPort):
            owner = port.owner
        elif isinstance(port, PortRef):
            owner = port.owner
        else:
            raise PortConnectionError(f"{port!r} is not a port; use e.g. R1.p or sub.a")
        if self._members.get(owner.name) is not owner:
            raise PortConnectionError(
                f"{_describe(port)} belongs to {owner.name!r}, which is not a member of model "
                f"{self.name!r}; add it with {self.name}.add(...) first")

    def _contains(self, model) -> bool:
        return any(m is model or (isinstance(m, Model) and m._contains(model))
                   for m in self._members.values())

    def __repr__(self):
        return f"Model({self.name!r}, {len(self._members)} members)"


def _describe(port) -> str:
    return f"{port.path} ({port.domain.name})"
