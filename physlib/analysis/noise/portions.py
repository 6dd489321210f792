"""Thermal noise of each linear portion of a model, as a multiport at the nodes it shares.

``model.partitions`` splits a model into maximal linear and nonlinear portions joined at shared
nodes (a diode between two RC networks: one linear portion holding both networks and the
source, one nonlinear portion holding the diode). A linear passive portion is a multiport whose
ports are those shared nodes; its noise does not depend on the operating point of the rest, so
its correlation matrices (:class:`~physlib.analysis.noise.multiport.MultiportNoise`: C_Z, C_Y, C_S,
their Cholesky factors and the equivalent correlated sources) are computed once, before any
sweep or simulation, and stand in for all of the portion's resistors, dampers and hydraulic
resistances at once.

The portion is taken out of the model as a model of its own: its components (sharing their
declarations and the compiled model's parameter values), its internal connections, and, at each
shared node, nothing but a zero through source (the port is open). Port k is that node's across
value against the reference — the portion's own ground when the node's electrical network
contains one, else the network's first shared node, which then becomes the reference of the
network's other ports (a floating port pair ``"R2.n − R3.p"``). Shared nodes of the thermal
domain are left open and are not ports (temperature × heat flow is not a power).
"""
from __future__ import annotations


from ...core.errors import PhyslibError
from ..linear.analysis_points import injector_class
from .multiport import MultiportNoise, multiport_noise
from .passivity import ActiveNetworkError


def portion_noise(model, f, *, T: float = 300.15, z0=50.0, params: dict | None = None) -> list[MultiportNoise]:
    """One :class:`MultiportNoise` per linear portion of ``model`` (a compiled model) that
    shares nodes with the rest, in the order of ``model.partitions``; its ``partition``
    attribute is the :class:`~physlib.assembly.partition.Partition`, its ``ports`` the port
    labels in ``model``'s names. f [Hz], T [K] and z0 [Ω electrical] as in
    :func:`~physlib.analysis.noise.multiport.multiport_noise`; params: parameter values replacing the
    compiled ones, ``{"R1.R": 2e3}``. A portion that can deliver power (a controlled source, an
    op-amp) raises :class:`~physlib.analysis.noise.passivity.ActiveNetworkError` naming those
    components: its noise is not thermal noise at its ports (``sim.noise`` gives the model's)."""
    values = model.parameter_vector(params)
    results = []
    for part in model.partitions:
        if not part.linear or not part.ports:
            continue
        sub, names, ports = _portion_model(model, part)
        if not ports:
            continue
        compiled = sub.compile()
        try:
            result = multiport_noise(compiled, [p for p, _ in ports], f, T=T, z0=z0,
                                     at=compiled.operating_point(params=_parameters(model, values, compiled, names)))
        except ActiveNetworkError as err:
            raise _active(err, model, names, ports) from None
        result.ports = [label for _, label in ports]
        result.partition = part
        results.append(result)
    return results


def _active(err, model, names, ports):
    """The error of an active portion in ``model``'s names."""
    components = [names.get(path, path) for path in err.components]
    which = f"{', '.join(components)} can deliver power (a controlled source, an amplifier)" if components \
        else "it can deliver power at its ports"
    where = "" if err.f is None else f" at f = {err.f:g} Hz"
    return ActiveNetworkError(
        f"portion_noise: the linear portion of {model.name} at {', '.join(label for _, label in ports)} is not "
        f"passive{where}: {which}, so its noise is not the thermal noise 2kT·(Z + Zᴴ) of its ports; "
        "use sim.noise(output, f) for the noise of an output of the whole model, which sums every element's "
        "own source", components=components, f=err.f)


def _parameters(model, values, compiled, names):
    """The parameter vector ``values`` of ``model`` (its compiled values with ``params=``, not
    the components' own, which may have changed since), by name in the portion's model."""
    out = {}
    for name in compiled.parameters:
        head, _, rest = name.partition(".")
        if head in names:
            out[name] = float(values[model.parameter_slot(f"{names[head]}.{rest}")])
    return out


def _portion_model(model, part):
    """(a Model of the portion, {its component names: paths in ``model``}, [(port in it, label
    in ``model``)])."""
    components = {path: comp for group in model.component_groups
                  for path, comp in zip(group.paths, group.components)}
    # Inline waveforms (a source's V=Step(...), path "V.V") come back with their owner.
    paths = [p for p in part.components if p.rpartition(".")[0] not in components]
    names = {path.replace(".", "__"): path for path in paths}
    sub = type(model.source_model)(f"{model.source_model.name}_portion")
    clones = {}
    for name, path in names.items():
        clone = clones[path] = _renamed(components[path], name)
        sub.add(clone)

    def port(path):
        owner, _, name = path.rpartition(".")
        return getattr(clones[owner], name)

    for node in part.connections:
        if len(node) > 1:
            sub.connect(*[port(p) for p in node])
    for k, path in enumerate(part.ports):
        domain = port(path).domain
        sub.add(injector_class("through", domain)(f"open{k}", u=0.0))
        sub.connect(port(path), getattr(sub.components[f"open{k}"], "p"))
    return sub, names, _ports(part, clones, port, sub)


def _ports(part, clones, port, sub):
    """The portion's ports: each shared node against its network's reference (adding one at
    the network's first shared node where the portion holds none)."""
    import networkx as nx
    networks = nx.Graph()
    for node in part.connections:
        networks.add_nodes_from(node)
        networks.add_edges_from(zip(node, node[1:]))
    for owner, clone in clones.items():
        for group in clone.port_groups():
            members = [f"{owner}.{p}" for p in group]
            networks.add_edges_from(zip(members, members[1:]))
    node_of = {p: node for node in part.connections for p in node}
    ports = []
    for network in nx.connected_components(networks):
        terminals = [p for p in part.ports if p in network]
        if not terminals:
            continue
        domain = port(terminals[0]).domain
        if domain.name == "thermal":
            continue
        grounded = [p for p in network if clones[p.rsplit(".", 1)[0]].is_reference]
        if grounded:
            reference = node_of.get(grounded[0], ())
            ports += [(port_path, port_path) for port_path in terminals if port_path not in reference]
        elif domain.needs_reference:
            ground = sub.add(_reference_class(domain)(f"ref{len(sub.components)}"))
            sub.connect(port(terminals[0]), ground.p)
            ports += [((p, terminals[0]), f"{p} − {terminals[0]}") for p in terminals[1:]]
        else:
            ports += [(p, p) for p in terminals]
    return [(_clone_path(p, clones), label) for p, label in ports]


def _clone_path(port, clones):
    """A port (path or pair of paths in ``model``) named in the portion's model."""
    if isinstance(port, tuple):
        return tuple(_clone_path(p, clones) for p in port)
    owner, _, name = port.rpartition(".")
    return f"{clones[owner].name}.{name}"


def _renamed(component, name):
    """``component`` under another name: the same class, parameter values and inline inputs."""
    clone = object.__new__(type(component))
    # Own copies of the value tables: nothing done to the clone reaches the user's component.
    clone.__dict__.update({key: value.copy() if isinstance(value, (dict, set)) else value
                           for key, value in component.__dict__.items()})
    clone.name = name
    return clone


def _reference_class(domain):
    if domain.name == "electrical":
        from ...components.electrical import Ground
        return Ground
    raise PhyslibError(f"portion noise: the {domain.name} domain has no reference component")
