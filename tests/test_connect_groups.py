"""Model.connect_groups makes the connections a loop of Model.connect would make, and refuses
what connect refuses with connect's error (the groups before it connected, as by the loop)."""
import pytest
from hypothesis import given, settings, strategies as st

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor
from physlib.components.rotational import IdealGear, Inertia
from physlib.core.errors import DomainMismatchError, MissingPortError, PortConnectionError, UnknownAttributeError


def members(model, count):
    parts = []
    for k in range(count):
        cls = (Resistor, Capacitor)[k % 2]
        parts.append(model.add(cls(f"e{k}", **({"R": 1.0} if cls is Resistor else {"C": 1.0}))))
    return parts


def flat(groups):
    owners = [owner for group in groups for owner, _ in group]
    ports = [port for group in groups for _, port in group]
    return owners, ports, [len(group) for group in groups]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_groups_give_the_connections_a_loop_of_connect_gives(data):
    count = data.draw(st.integers(2, 8), label="components")
    pins = [(k, port) for k in range(count) for port in ("p", "n")]
    # groups of distinct pins (a pin may come in several groups: connect merges them)
    groups = data.draw(st.lists(st.lists(st.sampled_from(pins), min_size=2, max_size=5, unique=True),
                                min_size=1, max_size=6), label="groups")
    looped, grouped = Model("m"), Model("m")
    parts_looped, parts_grouped = members(looped, count), members(grouped, count)
    for group in groups:
        looped.connect(*(getattr(parts_looped[k], port) for k, port in group))
    grouped.connect_groups(*flat([[(parts_grouped[k], port) for k, port in group] for group in groups]))
    assert grouped.connections == looped.connections


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_groups_with_a_pin_twice_are_refused_as_a_loop_of_connect_refuses_them(data):
    # groups small (compared pin by pin) and large (more than PAIRWISE_UP_TO pins, sorted),
    # a pin drawn twice in some: the same connections before the first such group, and
    # connect's error for it
    count = data.draw(st.integers(2, 8), label="components")
    pins = [(k, port) for k in range(count) for port in ("p", "n")]
    groups = data.draw(st.lists(st.lists(st.sampled_from(pins), min_size=2, max_size=14),
                                min_size=1, max_size=5), label="groups")
    looped, grouped = Model("m"), Model("m")
    parts_looped, parts_grouped = members(looped, count), members(grouped, count)
    refused = None
    for group in groups:
        try:
            looped.connect(*(getattr(parts_looped[k], port) for k, port in group))
        except PortConnectionError as err:
            refused = str(err)
            break
    try:
        grouped.connect_groups(*flat([[(parts_grouped[k], port) for k, port in group] for group in groups]))
    except PortConnectionError as err:
        assert str(err) == refused
    else:
        assert refused is None
    assert grouped.connections == looped.connections


def test_a_group_connect_refuses_is_refused_with_its_error_after_the_groups_before_it():
    other = Model("other")
    stranger = other.add(Resistor("stranger", R=1.0))
    gear = IdealGear("gear", ratio=2.0)
    for bad, error, match in [
            ([("a", "p")], PortConnectionError, "at least two"),                 # one port
            ([("a", "p"), ("a", "p")], PortConnectionError, "connected to itself"),
            ([("a", "p"), ("b", "n"), ("a", "p")], PortConnectionError, "connected to itself"),
            ([("a", "p"), (stranger, "p")], PortConnectionError, "not a member"),
            ([("a", "p"), ("j", "flange_a")], DomainMismatchError, "electrical"),
            ([("gear", "flange_a"), ("gear", "support")], MissingPortError, "use_support")]:
        model = Model("m")
        a, b = model.add(Resistor("a", R=1.0)), model.add(Resistor("b", R=1.0))
        parts = {"a": a, "b": b, "j": model.add(Inertia("j", J=1.0)), "gear": model.add(gear) if
                 "gear" not in model.components else gear}
        gear = IdealGear("gear", ratio=2.0)      # a fresh one for the next model
        first = [(a, "n"), (b, "p")]
        group = [(parts.get(owner, owner), port) for owner, port in bad]
        with pytest.raises(error, match=match):
            model.connect_groups(*flat([first, group, [(a, "p"), (b, "n")]]))
        assert model.connections == [(("a", "n"), ("b", "p"))], bad


def test_a_port_its_class_lacks_is_refused_among_ports_of_one_domain():
    # every port of one domain: only the pins of the classes lacking a port are looked at
    model = Model("m")
    a, b, g = model.add(Resistor("a", R=1.0)), model.add(Resistor("b", R=1.0)), model.add(Ground("g"))
    with pytest.raises(UnknownAttributeError, match="'n'"):
        model.connect_groups([a, b, g, a, g, b], ["n", "p", "p", "p", "n", "n"], [2, 2, 2])
    assert model.connections == [(("a", "n"), ("b", "p")), (("g", "p"), ("a", "p"))]
    rotational = Model("r")
    j, gear = rotational.add(Inertia("j", J=1.0)), rotational.add(IdealGear("gear", ratio=2.0))
    with pytest.raises(MissingPortError, match="use_support"):
        rotational.connect_groups([j, gear, gear, j], ["flange_a", "flange_b", "support", "flange_b"], [2, 2])
    assert rotational.connections == [(("j", "flange_a"), ("gear", "flange_b"))]


def test_ports_of_subsystems_and_members_shared_with_a_copy_are_connected():
    inner = Model("inner")
    r = inner.add(Resistor("r", R=1.0))
    inner.expose(r.p, "a")
    top = Model("top")
    top.add(inner)
    g = top.add(Ground("g"))
    top.connect_groups([inner, g], ["a", "p"], [2])
    assert top.connections == [(("inner", "a"), ("g", "p"))]
    # a copy holding the original's members (as physlib's analysis copies do)
    copy = Model("copy")
    copy.share_members_of(top)
    copy.add(g)
    c = copy.add(Capacitor("c", C=1.0))
    copy.connect_groups([g, c], ["p", "n"], [2])
    assert copy.connections == [(("g", "p"), ("c", "n"))]


def test_lists_that_do_not_fit_together_are_refused():
    model = Model("m")
    a, b = members(model, 2)
    with pytest.raises(PortConnectionError, match="2 owners and 2 port names for sizes adding up to 3"):
        model.connect_groups([a, b], ["p", "p"], [3])
    with pytest.raises(PortConnectionError, match="2 owners and 1 port names"):
        model.connect_groups([a, b], ["p"], [2])
    with pytest.raises(PortConnectionError, match="'e0' is not a component or model"):
        model.connect_groups(["e0", b], ["p", "n"], [2])
    with pytest.raises(UnknownAttributeError, match="q"):
        model.connect_groups([a, b], ["q", "n"], [2])       # no such port: connect's own error


def test_connecting_sets_no_attribute_of_the_model(monkeypatch):
    # A netlist's __setattr__ is Python code (it guards renames): `self._end_member += names`
    # went through it twice per connect, 0.7 s of a million-element ladder's build. The ends
    # are recorded in place.
    from physlib.assembly.netlist import Netlist
    model = Model("m")
    a, b = members(model, 2)
    calls = []
    original = Netlist.__setattr__
    monkeypatch.setattr(Netlist, "__setattr__", lambda self, k, v: calls.append(k) or original(self, k, v))
    model.connect(a.n, b.p)
    model.connect_groups([a, b], ["p", "n"], [2])
    assert calls == [] and len(model.connections) == 2
