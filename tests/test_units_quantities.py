"""Quantities of pint, astropy and unyt wherever a number is taken: converted to the declared
unit (exactly: a factor of 1000 multiplies a float exactly), refused with a ParameterError that
names the parameter and both units when the dimensions differ, cycles never becoming radians,
absolute temperatures converted with their offset; and physlib never imports pint itself."""
import subprocess
import sys

import numpy as np
import pint
import pytest

import physlib
from physlib.components.electrical import Capacitor, Resistor, VoltageSource
from physlib.components.signals import Sine
from test_electrical_transients import rc_model

ureg = pint.UnitRegistry()
Q_ = ureg.Quantity


def test_a_quantity_gives_results_bit_identical_to_the_number():
    assert Resistor("R1", R=Q_(10, "kohm")).R == 1e4
    plain = rc_model(R=1e4).compile().simulate(5e-3)
    quantity = rc_model(R=Q_(10, "kohm")).compile().simulate(5e-3)
    assert np.array_equal(plain.t, quantity.t) and np.array_equal(plain["C1.v"], quantity["C1.v"])


@pytest.mark.parametrize("component, given, declared", [
    (lambda q: Resistor("R1", R=q), Q_(1, "mH"), "Ohm"),                 # an inductance on a resistance
    (lambda q: Sine("s", f=q), Q_(3000, "rpm"), "Hz"),                   # cycles are not radians
    (lambda q: Sine("s", t0=q), Q_(1, "m"), "s"),                        # a length on a time
])
def test_a_wrong_dimension_names_the_parameter_and_both_units(component, given, declared):
    with pytest.raises(physlib.ParameterError) as err:
        component(given)
    message = str(err.value)
    assert f"is in {declared} " in message and f"{given.units:~}" in message
    assert "parameter " in message


def test_a_quantity_on_an_inline_waveform_names_its_class_and_says_to_give_a_number():
    """A waveform given inline (``PressureSource(P=Step(...))``) has no name yet, and its values
    carry no unit, as the Modelica blocks': the error names the class, not None, and says
    the number goes in the unit of the input it drives."""
    from physlib.components.signals import Step
    with pytest.raises(physlib.ParameterError) as err:
        Step(height=Q_(2, "bar"))
    message = str(err.value)
    assert message.startswith("parameter height of Step is in 1") and "give a plain number" in message
    assert "None" not in message


def test_rpm_converts_to_rad_per_second_and_hz_does_not():
    from physlib.components.rotational import Speed
    from physlib.core.units import quantity_value
    assert quantity_value(Q_(3000, "rpm"), "rad/s", "w") == pytest.approx(3000 * 2 * np.pi / 60, rel=1e-15)
    with pytest.raises(physlib.ParameterError, match="cycles and radians"):
        quantity_value(Q_(50, "Hz"), "rad/s", "w")
    assert Speed("w", w_ref=Q_(60, "rpm")).input_values["w_ref"] == pytest.approx(2 * np.pi, rel=1e-15) \
        if "w_ref" in Speed._input_names else True


def test_an_absolute_temperature_converts_with_its_offset():
    from physlib.components.thermal import FixedTemperature
    fixed = FixedTemperature("amb", T=Q_(25, "degC"))
    assert fixed.T == pytest.approx(298.15, rel=1e-15)
    assert Resistor("R1", R=1.0, T_ref=Q_(25, "degC")).T_ref == pytest.approx(298.15, rel=1e-15) \
        if "T_ref" in Resistor._parameters else True


def test_inputs_model_parameters_params_and_x0_take_quantities():
    source = VoltageSource("src", V=Q_(5, "mV"))
    assert source.input_values["V"] == pytest.approx(5e-3, rel=1e-15)
    m = rc_model(V=1.0)
    sim = m.compile()
    res = sim.simulate(1e-3, params={"R1.R": Q_(2, "kohm")}, x0={"C1.v": Q_(500, "mV")})
    assert res["C1.v"][0] == pytest.approx(0.5, rel=1e-12)
    # v(t) = 1 − 0.5·exp(−t/RC) with R = 2 kΩ; the solver's rtol 1e-6 bounds the error
    assert res["C1.v"][-1] == pytest.approx(1 - 0.5 * np.exp(-1e-3 / (2e3 * 1e-6)), rel=1e-5)
    with pytest.raises(physlib.ParameterError, match="x0: the initial value of C1.v is in V"):
        sim.simulate(1e-3, x0={"C1.v": Q_(1, "A")})
    model = physlib.Model("p")
    rload = model.parameter("rload", Q_(1, "kohm"), unit="Ohm")
    assert rload.default == 1000.0
    with pytest.raises(physlib.ParameterError, match="model parameter rbad is in Ohm"):
        model.parameter("rbad", Q_(1, "s"), unit="Ohm")


@pytest.mark.parametrize("library", ["astropy", "unyt"])
def test_astropy_and_unyt_quantities_work_the_same(library):
    if library == "astropy":
        units = pytest.importorskip("astropy.units")
        kohm, millihenry, celsius = 10 * units.kOhm, 1 * units.mH, 25 * units.deg_C
    else:
        unyt = pytest.importorskip("unyt")
        kohm, millihenry, celsius = (unyt.unyt_quantity(10, "kOhm"), unyt.unyt_quantity(1, "mH"),
                                     unyt.unyt_quantity(25, "degC"))
    from physlib.components.thermal import FixedTemperature
    assert Resistor("R1", R=kohm).R == 1e4
    with pytest.raises(physlib.ParameterError, match="parameter R of R2 is in Ohm"):
        Resistor("R2", R=millihenry)
    assert FixedTemperature("amb", T=celsius).T == pytest.approx(298.15, rel=1e-15)
    # a quantity is an ndarray subclass in both libraries: never read as its bare number
    with pytest.raises(physlib.ParameterError, match="parameter C of C1 is in F"):
        Capacitor("C1", C=millihenry / millihenry * 1e-6)


def test_a_level_in_db_is_a_number_only_where_db_is_declared():
    """3 dB is no factor and offset of 1: pint's root value of 3 dB is the power ratio 10**0.3,
    of 0 dB 1, and reading 3 dB as 3·1 + 1 made a filter's 0.5 dB ripple 1.5 dB and a gain of
    20 dB 21. A Chebyshev filter's A_ripple is declared in dB and takes the level as it is;
    elsewhere a level (or a neper, dBm, an astropy dex) is refused: amplitude or power?"""
    from physlib.components.signals import Filter, Gain
    assert Filter("f", f_cut=1.0, A_ripple=Q_(0.5, "dB")).A_ripple == 0.5
    for level in (Q_(20, "dB"), Q_(1, "neper"), Q_(3, "dBm")):
        with pytest.raises(physlib.ParameterError, match="parameter k of g .*(level|logarithmic)") as err:
            Gain("g", k=level)
        assert "10**(L/20)" in str(err.value)
    units = pytest.importorskip("astropy.units")
    assert Filter("f", f_cut=1.0, A_ripple=units.Decibel(0.5)).A_ripple == 0.5
    with pytest.raises(physlib.ParameterError, match="dex is a logarithmic unit"):
        Gain("g", k=units.Dex(1.0))


def test_structural_parameters_with_units_take_quantities():
    """A structural parameter's value chooses the equations, but a quantity is still converted
    to its unit: Filter(f_cut=1 kHz) crashed with a TypeError, a DC machine kept the pint
    object as its core_PRef."""
    from physlib.components.electrical import DC_PermanentMagnet
    from physlib.components.signals import Filter
    assert Filter("f", f_cut=Q_(1, "kHz")).f_cut == 1000.0
    assert DC_PermanentMagnet("m", core_PRef=Q_(1, "kW")).core_PRef == 1000.0
    with pytest.raises(physlib.ParameterError, match="parameter f_cut of f is in Hz"):
        Filter("f", f_cut=Q_(1, "m"))


def test_importing_physlib_imports_no_quantity_library():
    trace = subprocess.run([sys.executable, "-X", "importtime", "-c", "import physlib"], capture_output=True,
                           text=True, check=True).stderr
    imported = {line.split("|")[-1].strip().split(".")[0] for line in trace.splitlines() if "|" in line}
    assert imported and not imported & {"pint", "astropy", "unyt"}
