"""Model parameters declared in a unit other than the component parameter's own: their values
are in their declared unit (kOhm, degC, rpm, bar, L/min) and reach components converted to it,
at compile, in params=, in sweeps and in defaults that are expressions; an expression of
another dimension is a ParameterError naming the component parameter and both dimensions.

References are hand values (1 kOhm = 1000 Ohm, 25 degC = 298.15 K, 60 rpm = 2π rad/s); an
operating point of a resistor divider is exact to rounding (rtol 1e-12)."""
import math

import pytest

import physlib
from physlib import Model
from physlib.components.electrical import CurrentSource, Ground, Resistor
from physlib.components.hydraulic import FixedPressure, FlowSource, LaminarResistance
from physlib.components.rotational import Inertia, Speed
from physlib.components.thermal import FixedTemperature


def loaded_source(R) -> Model:
    """1 A into a resistor R: the operating point's voltage is R·1 A."""
    m = Model("load")
    src, gnd, r = m.add(CurrentSource("I1", I=1.0)), m.add(Ground("gnd")), m.add(Resistor("R1", R=R))
    m.connect(src.n, r.p)
    m.connect(r.n, src.p, gnd.p)
    return m


def voltage(sim, **params) -> float:
    return sim.operating_point(params=params or None, t=0.0)["R1.v"]


def test_a_model_parameter_in_kohm_gives_ohms_everywhere():
    m = Model("top")
    rload = m.parameter("rload", 2, unit="kOhm")
    model = loaded_source(rload)
    model.parameter("unused", 1.0)
    assert model["R1"].R == 2000.0
    sim = model.compile(units="strict")
    assert sim.model_parameters["rload"] == 2.0            # the value stays in its own unit
    assert sim.unit("rload") == "kOhm"
    assert voltage(sim) == pytest.approx(2000.0, rel=1e-12)
    assert voltage(sim, rload=3) == pytest.approx(3000.0, rel=1e-12)
    table = physlib.sweep(sim, {"rload": [1.0, 4.0]}, analysis="operating_point", t=0.0,
                          summary=lambda op: {"v": op["R1.v"]})
    assert list(table["rload"]) == [1.0, 4.0]
    assert list(table["v"]) == pytest.approx([1000.0, 4000.0], rel=1e-12)


def test_expressions_mix_units_by_their_si_values():
    m = Model("mix")
    a = m.parameter("a", 1, unit="kOhm")
    b = m.parameter("b", 500, unit="Ohm")
    total = m.parameter("total", a + b, unit="kOhm")        # a default that is an expression
    assert total.value == pytest.approx(1.5, rel=1e-15)
    assert Resistor("R1", R=a + b).R == pytest.approx(1500.0, rel=1e-15)
    assert Resistor("R2", R=2 * total).R == pytest.approx(3000.0, rel=1e-15)
    volts, amps = m.parameter("volts", 6, unit="V"), m.parameter("amps", 2, unit="mA")
    assert Resistor("R3", R=volts / amps).R == pytest.approx(3000.0, rel=1e-15)
    sim = loaded_source(2 * total).compile()
    assert voltage(sim, a=2) == pytest.approx(2 * 2500.0, rel=1e-12)
    table = physlib.sweep(sim, [{"a": 2.0}, {"b": 1000.0}], analysis="operating_point", t=0.0,
                          summary=lambda op: op["R1.v"])
    assert table["value"].tolist() == pytest.approx([5000.0, 4000.0], rel=1e-12)


def test_offsets_angles_and_inputs_convert():
    m = Model("conv")
    tamb = m.parameter("tamb", 25, unit="degC")
    assert FixedTemperature("F", T=tamb).T == pytest.approx(298.15, rel=1e-15)
    assert FixedTemperature("F", T=tamb + 10).T == pytest.approx(308.15, rel=1e-15)   # 10 K more
    pressure = m.parameter("pressure", 2, unit="bar")
    assert FixedPressure("P", p=pressure).p == pytest.approx(2e5, rel=1e-15)
    # inputs: the speed source's w [rad/s] from rpm, the flow source's Q [m3/s] from L/min
    speed, flow = m.parameter("speed", 60, unit="rpm"), m.parameter("flow", 6, unit="L/min")
    shaft = m.add(Speed("S", w=speed))
    m.add(Inertia("J", J=1.0))
    m.connect(shaft.flange, m["J"].flange_a)
    pump, tank = m.add(FlowSource("Q", Q=flow)), m.add(FixedPressure("T0"))
    m.connect(pump.port_a, tank.port_a)
    m.connect(pump.port_b, m.add(LaminarResistance("L", R=1e5)).port_a)
    m.connect(m["L"].port_b, tank.port_a)
    sim = m.compile(units="strict")
    op = sim.operating_point(t=0.0)
    assert op["J.w"] == pytest.approx(2 * math.pi, rel=1e-12)
    assert op["L.q"] == pytest.approx(1e-4, rel=1e-12)
    assert sim.operating_point(t=0.0, params={"speed": 30})["J.w"] == pytest.approx(math.pi, rel=1e-12)


@pytest.mark.parametrize("given, message", [
    (lambda m: m.parameter("r", 2, unit="V"), "model parameter r is declared in V"),
    (lambda m: m.parameter("t", 1, unit="s") * m.parameter("v", 1, unit="V"), "the expression t * v is"),
])
def test_an_expression_of_another_dimension_names_the_parameter(given, message):
    with pytest.raises(physlib.ParameterError) as err:
        Resistor("R1", R=given(Model("bad")))
    text = str(err.value)
    assert "parameter R of R1 is in Ohm" in text and message in text


def test_sums_of_different_dimensions_and_bad_units_are_refused():
    m = Model("bad")
    r, v = m.parameter("r", 1, unit="Ohm"), m.parameter("v", 1, unit="V")
    with pytest.raises(physlib.ParameterError, match="adds quantities of different dimensions"):
        Resistor("R1", R=r + v)
    with pytest.raises(physlib.ParameterError, match="model parameter top is in Ohm"):
        m.parameter("top", 2 * v, unit="Ohm")
    with pytest.raises(physlib.ParameterError, match="model parameter x: unknown unit 'Ohms'"):
        m.parameter("x", 1, unit="Ohms")
    with pytest.raises(physlib.ParameterError, match="cycles and radians"):
        from physlib.components.signals import Sine
        Sine("s", f=m.parameter("w", 10, unit="rad/s"))


def test_a_pure_number_takes_the_unit_it_is_given_to():
    m = Model("plain")
    k, r = m.parameter("k", 3.0), m.parameter("r", 1.0, unit="kOhm")
    assert Resistor("R1", R=k).R == 3.0
    assert Resistor("R2", R=k * r).R == 3000.0
    assert Resistor("R3", R=r / k * r / r).R == pytest.approx(1000.0 / 3, rel=1e-15)
