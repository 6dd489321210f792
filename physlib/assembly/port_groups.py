"""Checks of ports to connect, read without the port objects' attribute hooks: the fast paths
of ``Netlist.connect`` (one group of port objects) and ``Netlist.connect_groups`` (many groups
given as owners and port names, as a circuit read from a large deck connects its nodes).

Each attribute read on a port, component or model passes through its class's ``__getattr__``
hook, several times slower than an ordinary one (CPython cannot specialize it), and a large
circuit connects millions of ports.
"""
from __future__ import annotations

from itertools import repeat
from operator import attrgetter, is_

import numpy as np

from ..core.component import Component, PortRef

__all__ = ["member_port_names", "plain_groups"]


def member_port_names(members: dict, ports) -> tuple[list[str], list[str]] | None:
    """(the owners' names, the ports' names) of ``ports``, two or more port objects of member
    components (``members``: a netlist's members by name), of one domain, each listed once;
    None for anything else (the general path of ``Netlist.connect`` then accepts it or says
    what is wrong). Most connections are such: one loop reads each port once here."""
    if len(ports) == 2:                 # most connections: two ports, read without a loop
        a, b = ports
        if type(a) is not PortRef or type(b) is not PortRef:
            return None
        owner_a, owner_b, port_a, port_b = a.owner, b.owner, a.port, b.port
        name_a, name_b = owner_a.name, owner_b.name
        if members.get(name_a) is not owner_a or members.get(name_b) is not owner_b \
                or port_a.domain is not port_b.domain or (name_a == name_b and port_a.name == port_b.name):
            return None
        return [name_a, name_b], [port_a.name, port_b.name]
    first = ports[0]
    if type(first) is not PortRef:
        return None
    domain = first.port.domain
    owner_names, port_names = [], []
    for ref in ports:
        if type(ref) is not PortRef:
            return None
        owner, port = ref.owner, ref.port
        name = owner.name
        if members.get(name) is not owner or port.domain is not domain:
            return None
        owner_names.append(name)
        port_names.append(port.name)
    # a member's name stands for it: the same (name, port) twice is the same port twice (only
    # possible where a member comes twice: a node's pins are mostly of different members)
    if (len(ports) > 2 or owner_names[0] == owner_names[1]) and len(set(owner_names)) < len(ports) \
            and len(set(zip(owner_names, port_names))) < len(ports):
        return None
    return owner_names, port_names


def plain_groups(owners: list, ports: list[str], sizes: list[int], classes: set, members: dict,
                 model_ref):
    """(each port's owner name, None if every group of ``Netlist.connect_groups`` is plain,
    else a flag per group saying whether it is): ports of member components (``classes``: the
    owners' classes; ``members``: the netlist's members by name; ``model_ref``: the weak
    reference to it that its members hold), unconditional, of one domain, no port twice in a
    group."""
    # Each pass a loop in C (map): a Python loop over two million ports took a second.
    count = len(owners)
    classes = {cls: k for k, cls in enumerate(classes)}
    port_names = {port: k for k, port in enumerate(set(ports))}
    domain_numbers: dict = {}
    table = np.array([[_domain_number(cls, port, domain_numbers) for port in port_names]
                      for cls in classes], dtype=np.int64).reshape(len(classes), len(port_names))
    names = list(map(attrgetter("name"), owners))
    # A member's weak reference to its model says it was added here (a netlist never drops a
    # member, nor lets one be renamed): a look-up of each name in a dictionary of a million
    # members would miss the processor's caches every time. Members this netlist shares with
    # the model it copies are looked up.
    bad = ~np.fromiter(map(is_, map(attrgetter("_member_of"), owners), repeat(model_ref)),
                       bool, count)
    for k in np.flatnonzero(bad).tolist():
        bad[k] = members.get(names[k]) is not owners[k]
    counts = np.asarray(sizes, dtype=np.int64)
    group = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    if table.min(initial=0) < 0 or len(domain_numbers) > 1:
        kinds = np.fromiter(map(classes.__getitem__, map(type, owners)), np.int64, count)
        # one domain: only the pins of classes lacking one of the ports can be wrong (most
        # circuits' ground lacks an n: a pass over the port names of two million pins, spared)
        at = np.flatnonzero((table < 0).any(axis=1)[kinds]) if len(domain_numbers) < 2 else np.arange(count)
        domains = table[kinds[at], np.fromiter(map(port_names.__getitem__, map(ports.__getitem__, at.tolist())),
                                               np.int64, len(at))]
        bad[at] |= domains < 0
        if len(domain_numbers) > 1:
            bad |= domains != domains[starts[group]]
    # the same port twice in a group: the same owner twice, then the same port name
    owner_ids = np.fromiter(map(id, owners), np.int64, count)
    order = np.argsort(owner_ids, kind="stable")
    ids, groups = owner_ids[order], group[order]
    same = np.flatnonzero((ids[1:] == ids[:-1]) & (groups[1:] == groups[:-1]))
    twice = [g for g in sorted(set(groups[same].tolist()))
             if len(set(zip(map(id, owners[starts[g]:starts[g] + counts[g]]),
                            ports[starts[g]:starts[g] + counts[g]]))) < counts[g]]
    if not bad.any() and not len(twice) and (counts >= 2).all():
        return names, None
    plain = np.ones(len(counts), dtype=bool)
    plain[group[bad]] = False
    plain[twice] = False
    plain[counts < 2] = False
    return names, plain.tolist()


def _domain_number(cls, port: str, numbers: dict) -> int:
    """The number of the domain of the port ``port`` of a class, numbered in ``numbers`` as
    the domains come; -1 if it is no port that every member of the class has."""
    declared = cls._ports.get(port) if isinstance(cls, type) and issubclass(cls, Component) \
        else None
    if declared is None or declared.condition is not None or declared.name != port:
        return -1
    return numbers.setdefault(declared.domain, len(numbers))
