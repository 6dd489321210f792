"""Bad input raises a PhyslibError subclass that names the culprit."""
import math

import pytest

from physlib import (Component, DomainMismatchError, DuplicateNameError, MissingReferenceError,
                     Model, ParameterError, PhyslibError, Port, StructuralError,
                     UnconnectedPortError)
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor, VoltageSource
from physlib.domains import rotational


def test_unknown_parameter_keyword_lists_valid_names():
    with pytest.raises(ParameterError, match=r"no parameter 'r'.*valid names: R") as err:
        Resistor("R1", r=10.0)
    assert "R1" in str(err.value)


@pytest.mark.parametrize("cls, name, value", [
    (Resistor, "R", 0.0), (Resistor, "R", -1.0), (Capacitor, "C", 0.0), (Capacitor, "C", -1e-6),
    (Inductor, "L", 0.0), (Inductor, "L", -1e-3), (Resistor, "R", math.nan), (Capacitor, "C", math.inf),
])
def test_non_physical_values_are_rejected(cls, name, value):
    with pytest.raises(ParameterError, match=f"parameter {name} of X1"):
        cls("X1", **{name: value})


def test_missing_required_parameter():
    with pytest.raises(ParameterError, match="needs parameter R"):
        Resistor("R1")


def test_duplicate_component_name():
    m = Model("m")
    m.add(Resistor("R1", R=1.0))
    with pytest.raises(DuplicateNameError, match="R1"):
        m.add(Resistor("R1", R=2.0))


def test_add_components_adds_as_add_does_and_refuses_before_adding_any():
    one_by_one, at_once = Model("m"), Model("m")
    parts = lambda: [Resistor("R1", R=1.0), Capacitor("C1", C=1e-6), Inductor("L1", L=1e-3)]   # noqa: E731
    for part in parts():
        one_by_one.add(part)
    at_once.add(Resistor("R0", R=2.0))
    at_once.add_components(parts())
    assert list(at_once.components)[1:] == list(one_by_one.components)
    assert at_once.holds(at_once["C1"]) and at_once.component_count == 4
    with pytest.raises(DuplicateNameError, match="'C1'"):          # taken
        at_once.add_components([Resistor("R9", R=1.0), Capacitor("C1", C=1.0)])
    with pytest.raises(DuplicateNameError, match="'R8'"):          # given twice
        at_once.add_components([Resistor("R8", R=1.0), Resistor("R8", R=1.0)])
    empty = Model("empty")
    with pytest.raises(DuplicateNameError, match="'R8'"):          # given twice, to an empty model
        empty.add_components([Resistor("R8", R=1.0), Capacitor("C8", C=1.0), Resistor("R8", R=1.0)])
    assert empty.component_count == 0 and not empty.components
    other = Model("other")
    owned = other.add(Resistor("R7", R=1.0))
    for refused in ([Resistor("R6", R=1.0), owned], [Resistor("R5", R=1.0), Model("sub")],
                    [Resistor(None, R=1.0)]):
        with pytest.raises(PhyslibError, match="new, named components"):
            at_once.add_components(refused)
    assert at_once.component_count == 4 and "R9" not in at_once.components and "R6" not in at_once.components


def test_unconnected_port_is_named():
    m = Model("m")
    src, r, g = m.add(VoltageSource("src", V=1.0)), m.add(Resistor("R1", R=1.0)), m.add(Ground("g"))
    m.connect(src.p, r.p)
    m.connect(src.n, g.p)
    with pytest.raises(UnconnectedPortError, match=r"R1\.n"):
        m.compile()


def test_unvalued_input_is_named():
    m = Model("m")
    src, g = m.add(VoltageSource("src")), m.add(Ground("g"))
    r = m.add(Resistor("R1", R=1.0))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n, g.p)
    with pytest.raises(UnconnectedPortError, match=r"src\.V.*V=\.\.\."):
        m.compile()


class _Shaft(Component):
    flange = Port(rotational, "flange")


def test_electrical_pin_cannot_meet_a_rotational_flange():
    m = Model("m")
    r, shaft = m.add(Resistor("R1", R=1.0)), m.add(_Shaft("shaft"))
    with pytest.raises(DomainMismatchError, match=r"R1\.p \(electrical\).*shaft\.flange \(rotational\)"):
        m.connect(r.p, shaft.flange)


def test_circuit_without_ground():
    m = Model("m")
    src, r = m.add(VoltageSource("src", V=1.0)), m.add(Resistor("R1", R=1.0))
    m.connect(src.p, r.p)
    m.connect(src.n, r.n)
    with pytest.raises(MissingReferenceError, match="Ground") as err:
        m.compile()
    assert "R1" in str(err.value) and "src" in str(err.value)


def test_parallel_ideal_voltage_sources_name_both():
    m = Model("m")
    v1, v2 = m.add(VoltageSource("V1", V=1.0)), m.add(VoltageSource("V2", V=2.0))
    r, g = m.add(Resistor("R1", R=1.0)), m.add(Ground("g"))
    m.connect(v1.p, v2.p, r.p)
    m.connect(v1.n, v2.n, r.n, g.p)
    with pytest.raises(StructuralError, match="over-determined") as err:
        m.compile()
    assert "V1" in str(err.value) and "V2" in str(err.value)


def test_connecting_a_component_not_in_the_model():
    m = Model("m")
    r = m.add(Resistor("R1", R=1.0))
    stray = Resistor("R2", R=1.0)
    with pytest.raises(PhyslibError, match="R2.*not a member"):
        m.connect(r.n, stray.p)


def test_equation_with_undeclared_symbol_is_reported():
    import sympy as sp

    class Broken(Component):
        p = Port(rotational)

        def equations(self):
            return [self.p.tau - sp.Symbol("k")]

    m = Model("m")
    a, b = m.add(Broken("a")), m.add(Broken("b"))
    m.connect(a.p, b.p)
    with pytest.raises(PhyslibError, match="Broken.*use k, which is not a declared"):
        m.compile()


def test_unknown_compile_option_is_an_error():
    m = Model("m")
    with pytest.raises(ParameterError, match="no option optimize; its only option is units"):
        m.compile(optimize=True)


def test_misspelled_attribute_lists_what_the_component_has():
    with pytest.raises(AttributeError, match=r"Resistor 'R1' has no port, parameter or variable 'q'.*R, constants, i, n, p, v"):
        Resistor("R1", R=1.0).q


def test_unknown_result_name_is_a_physlib_error_and_a_key_error():
    from physlib import UnknownNameError
    from test_electrical_transients import rc_model
    res = rc_model().compile().simulate(1e-3)
    with pytest.raises(UnknownNameError, match="did you mean C1.v"):
        res["C1.vv"]
    with pytest.raises(KeyError):
        res["C1.vv"]
    with pytest.raises(PhyslibError, match="outside the simulated interval"):
        res.at(1.0)


def test_adding_something_that_is_not_a_component():
    from physlib import ModelError
    with pytest.raises(ModelError, match="Component or a Model"):
        Model("m").add("R1")
