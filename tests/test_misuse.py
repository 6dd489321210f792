"""Misuses that used to pass silently: each raises a PhyslibError subclass naming the component
or port involved and saying what to do."""
import pickle

import pytest

from physlib import DuplicateNameError, Model, ModelError, PhyslibError, PortConnectionError
from physlib.components.electrical import Capacitor, Ground, Resistor


def test_renaming_a_component_after_adding_it_is_refused():
    m = Model("m")
    c = m.add(Resistor("R1", R=1.0))
    with pytest.raises(ModelError, match=r"cannot rename Resistor 'R1' to 'R2': it is already a "
                                         r"member of model 'm'.*Resistor\('R2', \.\.\.\), then m.add"):
        c.name = "R2"
    assert c.name == "R1" and m["R1"] is c
    c.name = "R1"                                   # the same name: nothing changes
    free = Resistor("R3", R=1.0)
    free.name = "R4"                                # not in a model yet: allowed
    assert m.add(free).name == "R4"


def test_renaming_a_subsystem_after_adding_it_is_refused():
    top, sub = Model("top"), Model("sub")
    sub.add(Resistor("R1", R=1.0))
    top.add(sub)
    with pytest.raises(ModelError, match=r"cannot rename model 'sub' to 'inner'.*model 'top'"):
        sub.name = "inner"


def test_one_component_in_two_models_is_refused():
    r = Resistor("R1", R=1.0)
    first = Model("first")
    first.add(r)
    with pytest.raises(ModelError, match=r"Resistor 'R1' already belongs to model 'first'.*"
                                         r"create another one for model 'second'"):
        Model("second").add(r)
    with pytest.raises(DuplicateNameError, match=r"Resistor\('R1'\) is already a member of model "
                                                 r"'first': add each component once"):
        first.add(r)
    assert issubclass(ModelError, PhyslibError)


def test_a_model_pickles_and_keeps_its_members():
    m = Model("m")
    m.add(Resistor("R1", R=1.0))
    copy = pickle.loads(pickle.dumps(m))
    with pytest.raises(ModelError, match="cannot rename Resistor 'R1'"):
        copy["R1"].name = "R2"


@pytest.mark.parametrize("repeat", ["pair", "first_again", "last_again"])
def test_a_port_repeated_in_one_connect_is_refused(repeat):
    m = Model("m")
    a, b = m.add(Resistor("a", R=1.0)), m.add(Resistor("b", R=1.0))
    ports, named = {"pair": ([a.p, a.p], "a.p"), "first_again": ([a.p, b.n, a.p], "a.p"),
                    "last_again": ([a.p, b.n, b.n], "b.n")}[repeat]
    with pytest.raises(PortConnectionError, match=rf"port {named} is connected to itself: it appears "
                                                  r"more than once in connect\(.*\); list each port once"):
        m.connect(*ports)
