"""The netlist under :class:`~physlib.assembly.model.Model`: members, connections, exposed ports.

:class:`Netlist` holds what a model is made of and checks each ``add``/``connect``/``expose``
as it happens; :class:`~physlib.assembly.model.Model` adds compiling on top. Flattening reads
netlists through this module only, so it does not depend on the compiler's entry point.

Building is linear in the size of the model: ``add`` and ``connect`` do a constant amount of
work per member or port (dictionary lookups, no scans of what is already there).
"""
from __future__ import annotations

import weakref
from collections import Counter, deque
from itertools import repeat
from operator import attrgetter, is_

from ..core.bulk import PROMOTE_EVERY, PROMOTE_FROM, promote_young
from ..core.component import Component, PortRef, check_name, check_rename
from ..core.errors import (DomainMismatchError, DuplicateNameError, ModelError, PortConnectionError,
                           UnknownAttributeError, UnknownNameError)
from ..core.model_parameters import ModelParameter
from .netlist_inspection import NetlistInspection
from .port_groups import member_port_names, plain_groups


class ExposedPort:
    """A port a :class:`Model` shows to its parent: ``sub.expose(R1.p, "a")`` gives ``sub.a``."""

    __slots__ = ("owner", "name", "target")

    def __init__(self, owner: "Netlist", name: str, target):
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


class Netlist(NetlistInspection):
    """Named members (components and nested netlists), their connections and exposed ports.

    ``_members`` maps a member's name to it, ``_exposed`` the names of exposed ports to them.
    Connections are kept flat, one entry per connected port in the order they were given:
    ``_end_member`` (the member's name), ``_end_port`` (the port's name), ``_end_exposed``
    (entry number -> the port, for exposed ports of nested models) and ``_sizes`` (ports per
    connection). Only names are kept: the port objects a connection is given are made anew
    by each ``R1.p``, and holding on to them would leave the garbage collector hundreds of
    thousands of objects to traverse in a large model.
    """

    _member_of = None   # a weak reference to the netlist this one was added to (see add)
    _copy_of = None     # a weak reference to the netlist this one copies (see share_members_of)

    def __init__(self, name: str):
        self.name = check_name(name, "Model")
        # Given to every member as it is added: one weak reference per model, not per member,
        # and none back from member to model that would keep a discarded model alive.
        self._ref = weakref.ref(self)
        self._members: dict[str, Component | Netlist] = {}
        self._subsystems = 0            # members that are netlists themselves
        self._exposed: dict[str, ExposedPort] = {}
        self._end_member: list[str] = []
        self._end_port: list[str] = []
        self._end_exposed: dict[int, ExposedPort] = {}
        self._sizes: list[int] = []
        self._parameters: dict[str, ModelParameter] = {}

    # --- building ----------------------------------------------------------------------

    def add(self, member):
        """Add a component or a subsystem (another Model); returns it."""
        if not isinstance(member, (Component, Netlist)):
            raise ModelError(f"Model.add takes a Component or a Model, got {member!r}")
        name = member.name
        if name is None:
            raise PortConnectionError(
                f"{type(member).__name__} needs a name to be added to model {self.name!r}: "
                f"{type(member).__name__}('name', ...)")
        members = self._members
        if name in members:
            if members[name] is member:
                raise DuplicateNameError(
                    f"{member!r} is already a member of model {self.name!r}: add each component "
                    f"once and connect its ports as often as needed")
            raise DuplicateNameError(
                f"model {self.name!r} already has a member named {name!r} "
                f"({members[name]!r}); give each component a unique name")
        nested = isinstance(member, Netlist)
        if nested and (member is self or member._contains(self)):
            raise PortConnectionError(f"model {name!r} cannot contain itself")
        owner = member._member_of
        if owner is None or not self._shared_copy(member, owner()):
            object.__setattr__(member, "_member_of", self._ref)
        members[name] = member
        if nested:
            self._subsystems += 1
        if not len(members) % PROMOTE_EVERY and len(members) >= PROMOTE_FROM:
            promote_young()             # a large model built in Python: see promote_young
        return member

    def add_components(self, components: list) -> None:
        """Add new components at once, as :meth:`add` would one after another (the resistors
        and capacitors of a large deck): each a :class:`Component` in no model yet. One that is
        not, or a name repeated or taken, is refused before any is added."""
        if not isinstance(components, (list, tuple)):
            raise ModelError(f"Model.add_components on model {self.name!r} takes a list of components, got "
                             f"{type(components).__name__}; add one component with Model.add")
        fresh = all(issubclass(cls, Component) for cls in set(map(type, components))) and \
            all(map(is_, map(attrgetter("_member_of"), components), repeat(None)))
        names = list(map(attrgetter("name"), components)) if fresh else [None]
        if None in names:
            raise ModelError(f"Model.add_components on model {self.name!r} takes new, named components; "
                             "add other members with Model.add")
        members, before = self._members, len(self._members)
        # one pass over the model's dictionary (a taken name keeps its member), counted after
        if members:
            deque(map(members.setdefault, names, components), maxlen=0)
        else:                               # (no second dictionary of a million members)
            self._members = members = dict(zip(names, components))
        if len(members) != before + len(components):
            for name, component in zip(names, components):      # undone: none is added
                if members.get(name) is component:
                    del members[name]
            taken = next(name for name, count in Counter(names).items() if count > 1 or name in members)
            raise DuplicateNameError(f"model {self.name!r} already has a member named {taken!r} "
                                     "(or it is given twice); give each component a unique name")
        deque(map(object.__setattr__, components, repeat("_member_of"), repeat(self._ref)), maxlen=0)
        if len(members) >= PROMOTE_FROM and len(members) // PROMOTE_EVERY > before // PROMOTE_EVERY:
            promote_young()

    def parameter(self, name: str, value, *, unit: str = "1", description: str = "") -> ModelParameter:
        """Declare a model parameter: ``rload = m.parameter("rload", 1e3, unit="Ohm")``.

        ``value`` is a number [unit] or an expression of other model parameters. Component
        parameters and source values given as expressions of it (``Resistor("R2",
        R=2*rload)``) are recomputed by a compiled model when a run sets it
        (``params={"rload": 2e3}``, sweeps, Monte Carlo), without recompiling. Names are one
        namespace per compiled model (no dots; a subsystem's parameter is ``"rload"`` too,
        and two different parameters of one name are a :class:`ModelError` at compile). Its
        value is fixed here; a run changes it with ``params=``."""
        if name in self._parameters:
            raise DuplicateNameError(f"model {self.name!r} already has a model parameter named "
                                     f"{name!r}; use that one or give this one another name")
        parameter = ModelParameter(name, value, unit, description, self.name)
        self._parameters[name] = parameter
        return parameter

    @property
    def model_parameters(self) -> dict[str, ModelParameter]:
        """The model parameters declared on this model (:meth:`parameter`), by name."""
        return dict(self._parameters)

    def holds(self, member) -> bool:
        """Whether ``member`` (a component or subsystem) is a member of this netlist, under
        its name."""
        return self._members.get(member.name) is member

    def share_members_of(self, original: "Netlist") -> None:
        """Make this netlist a copy that may take members of ``original`` without taking them
        over (physlib's own copies of a model, with analysis points or noise sources inserted):
        ``original`` stays their owner."""
        self._copy_of = original._ref

    def take_over(self, rebuilt: "Netlist") -> None:
        """Take the members, connections and exposed ports of ``rebuilt``, a copy of this
        netlist sharing its members, keeping this netlist's own identity: its ownership of its
        members, and the exposed port objects its parent's connections hold (given the targets
        of ``rebuilt``'s ports of the same names)."""
        identity = ("_ref", "_copy_of")
        kept = self._exposed
        self.__dict__.update({k: v for k, v in rebuilt.__dict__.items() if k not in identity})
        self._exposed = {name: kept.get(name) or ExposedPort(self, name, port.target)
                         for name, port in rebuilt._exposed.items()}
        for name, port in self._exposed.items():
            port.target = rebuilt._exposed[name].target

    def _copies(self, other) -> bool:
        """Whether this netlist is a copy of ``other`` (directly or through other copies)."""
        seen, origin = set(), self._copy_of
        while origin is not None and id(origin) not in seen:
            seen.add(id(origin))
            netlist = origin()
            if netlist is None:
                return False
            if netlist is other:
                return True
            origin = netlist._copy_of
        return False

    def _shared_copy(self, member, other) -> bool:
        """Whether this netlist is a copy of ``other``, the netlist ``member`` was added to
        before (None once freed), sharing the member with it; raises :class:`ModelError` if
        ``other`` is another model that still holds ``member``: one object in two models would
        let renaming it or changing a parameter in one silently change the other.

        Copies of a model that physlib makes (:meth:`share_members_of`: analysis points, noise
        analyses) share its components on purpose; ``other`` stays their owner."""
        if other is None or other is self or not other.holds(member):
            return False
        if self._copies(other):
            return True
        kind = type(member).__name__
        if isinstance(member, Component):
            raise ModelError(
                f"{kind} {member.name!r} already belongs to model {other.name!r}; a component can be "
                f"a member of one model only: create another one for model {self.name!r}, e.g. "
                f"{kind}({member.name!r}, ...)")
        raise ModelError(
            f"model {member.name!r} is already a subsystem of model {other.name!r}; a model can be "
            f"added to one parent only: build another one for model {self.name!r}")

    def connect(self, *ports) -> None:
        """Connect two or more ports into one node: across variables equal, through variables sum to zero."""
        if len(ports) < 2:
            raise PortConnectionError("connect needs at least two ports")
        names = member_port_names(self._members, ports)
        if names is not None:       # (extend, not +=: that would call __setattr__ each time)
            self._sizes.append(len(ports))
            self._end_member.extend(names[0])
            self._end_port.extend(names[1])
            return
        members = self._members
        for port in ports:
            # Fast path: a port of a member (its owner is registered under its own name).
            if type(port) is not PortRef or members.get(port.owner.name) is not port.owner:
                self._check_member_port(port)
        first = ports[0]
        domain = first.domain
        for port in ports[1:]:
            other = port.domain
            if other is not domain and other != domain:
                raise DomainMismatchError(
                    f"cannot connect {_describe(first)} to {_describe(port)}: "
                    f"a {domain.name} port only connects to {domain.name} ports")
        seen = set()
        for port in ports:
            key = (id(port.owner), port.name)
            if key in seen:
                raise PortConnectionError(
                    f"port {port.path} is connected to itself: it appears more than once in "
                    f"connect({', '.join(p.path for p in ports)}); list each port once")
            seen.add(key)
        self._sizes.append(len(ports))
        end_member, end_port = self._end_member, self._end_port
        for port in ports:
            if type(port) is PortRef:
                end_port.append(port.port.name)
            else:
                self._end_exposed[len(end_port)] = port
                end_port.append(port.name)
            end_member.append(port.owner.name)

    def connect_groups(self, owners: list, ports: list[str], sizes: list[int]) -> None:
        """Make many connections at once, as :meth:`connect` would one after another: ``owners``
        (members of this netlist) and ``ports`` (port names) give each connected port, group
        after group, and ``sizes`` each group's number of ports. No port object is made for
        a port of a component (a circuit read from a million-element deck connects two
        million ports); a group that is not plain ports of member components, of one domain,
        each listed once, goes through :meth:`connect`, which accepts it or says what is
        wrong (groups before it are connected, as by a loop of :meth:`connect`)."""
        if len(owners) != len(ports) or sum(sizes) != len(owners):
            raise PortConnectionError(
                f"connect_groups on model {self.name!r}: {len(owners)} owners and {len(ports)} "
                f"port names for sizes adding up to {sum(sizes)}; give one owner and one port "
                "name per connected port, and each group's number of ports")
        if min(sizes, default=0) < 0:      # (too few ports, 0 or 1, are connect's error, in turn)
            raise PortConnectionError(f"connect_groups on model {self.name!r}: a group of {min(sizes)!r} ports; "
                                      "give each group's number of ports, at least two")
        classes = set(map(type, owners))
        if any(not issubclass(cls, (Component, Netlist)) for cls in classes):
            stranger = next(o for o in owners if not isinstance(o, (Component, Netlist)))
            raise PortConnectionError(f"connect_groups on model {self.name!r}: {stranger!r} is not a "
                                      "component or model; give the members whose ports to connect")
        names, plain = plain_groups(owners, ports, sizes, classes, self._members, self._ref)
        if plain is None:       # every group plain: recorded at once
            self._sizes.extend(sizes)
            self._end_member.extend(names)
            self._end_port.extend(ports)
            return
        start = 0
        for size, simple in zip(sizes, plain):
            stop = start + size
            if simple:
                self._sizes.append(size)
                self._end_member.extend(names[start:stop])
                self._end_port.extend(ports[start:stop])
            else:
                stray = next((port for port in ports[start:stop] if not isinstance(port, str)), None)
                if stray is not None:
                    raise PortConnectionError(f"connect_groups on model {self.name!r}: port names are strings "
                                              f"such as 'p', got {stray!r}")
                self.connect(*map(getattr, owners[start:stop], ports[start:stop]))
            start = stop

    def expose(self, port, name: str) -> ExposedPort:
        """Make an inner port available to a parent model as ``self.<name>``."""
        check_name(name, "exposed port")
        self._check_member_port(port)
        if name in self._exposed or name in self._members:
            raise DuplicateNameError(f"model {self.name!r} already has a member or port named {name!r}")
        exposed = ExposedPort(self, name, port)
        self._exposed[name] = exposed
        return exposed

    def __setattr__(self, name, value):
        if name == "name" and "name" in self.__dict__:
            check_rename(self, value)
        object.__setattr__(self, name, value)

    def __getstate__(self):
        state = dict(self.__dict__)     # weak references do not pickle: rebuilt when loaded
        state.pop("_ref", None)
        state.pop("_member_of", None)
        state.pop("_copy_of", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._ref = weakref.ref(self)
        # counted again: a model pickled before netlists counted their subsystems has no count
        self._subsystems = sum(isinstance(m, Netlist) for m in self._members.values())
        for member in self._members.values():
            object.__setattr__(member, "_member_of", self._ref)

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

    # --- helpers ------------------------------------------------------------------------

    def _check_member_port(self, port):
        if isinstance(port, (ExposedPort, PortRef)):
            owner = port.owner
        else:
            raise PortConnectionError(f"{port!r} is not a port; use e.g. R1.p or sub.a")
        if self._members.get(owner.name) is not owner:
            raise PortConnectionError(
                f"{_describe(port)} belongs to {owner.name!r}, which is not a member of model "
                f"{self.name!r}; add it with {self.name}.add(...) first")

    def _contains(self, model) -> bool:
        return any(m is model or (isinstance(m, Netlist) and m._contains(model))
                   for m in self._members.values())

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {len(self._members)} members)"


def _describe(port) -> str:
    return f"{port.path} ({port.domain.name})"
