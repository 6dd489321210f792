"""Results with units: the declared unit of every path of a result, pint quantities, plots in
display units, a units row in CSV, units in pandas' attributes, and the units of linear models
and noise spectra.

Conversions are checked against pint (an independent implementation of the same SI
definitions): rad/s to rpm is ×60/2π, so the plotted values must equal pint's to the last bits
(rel 1e-15: one multiplication's rounding apart)."""
import csv
import io
import sys
from fractions import Fraction

import numpy as np
import pint
import pytest

import physlib
from physlib import Model
from physlib.components.electrical import Capacitor, CurrentSource, Ground, Resistor
from physlib.analysis.common.display_units import pint_quantity
from physlib.units import parse
from fmu_runs import example

ureg = pint.UnitRegistry()


@pytest.fixture(scope="module")
def motor():
    """examples/dc_motor.py's motor on a 12 V step, 0.3 s (rotor.w reaches 30 rad/s)."""
    model = example("dc_motor").build()
    rload = model.parameter("rload", 1.0, unit="Ohm")
    model.components["R1"].R = rload
    return model.compile().simulate(0.3)


def test_every_kind_of_path_has_its_declared_unit(motor):
    assert motor.unit("rotor.w") == "rad/s" and motor.unit("L1.i") == "A"
    assert motor.unit("der(rotor.w)") == "rad/s2"            # composed, not rad/s/s
    assert motor.unit("emf.k") == "N.m/A" and motor.unit("rotor.J") == "kg.m2"    # parameters
    assert motor.unit("rload") == "Ohm"                      # a model parameter
    assert motor.model.unit("der(L1.i)") == "A/s"           # the compiled model's accessor
    with pytest.raises(physlib.UnknownNameError, match="rotor.w"):
        motor.unit("rotor.ww")


def test_quantity_is_in_the_declared_unit(motor):
    w = motor.quantity("rotor.w")
    assert w.check("[]/[time]") and np.array_equal(w.magnitude, motor["rotor.w"])
    np.testing.assert_allclose(w.to("rpm").magnitude, motor["rotor.w"] * 60 / (2 * np.pi), rtol=1e-15)
    i = motor.quantity("L1.i", registry=ureg)
    assert i.units == ureg.ampere and i._REGISTRY is ureg
    assert (i * ureg.Quantity(1.0, "ohm")).to("V").magnitude[-1] == pytest.approx(motor["L1.i"][-1], rel=1e-15)


@pytest.mark.parametrize("unit, pint_unit", [
    ("V", "V"), ("kOhm", "kohm"), ("kg.m2", "kg*m**2"), ("N.m.s/rad", "N*m*s/rad"), ("m3/(s.Pa)", "m**3/(s*Pa)"),
    ("A/V2", "A/V**2"), ("V/Hz(1/2)", "V/Hz**0.5"), ("degC", "degC"), ("rpm", "rpm"), ("mbar", "mbar"),
    ("1", "dimensionless"), ("Bq", "1/s"), ("dB", "dimensionless"), ("eV", "eV"), ("uF", "uF"),
])
def test_modelica_units_become_the_same_pint_units(unit, pint_unit):
    """Each value of 2.5 in the Modelica unit is pint's 2.5 in pint's spelling of it (Bq, which
    pint counts in 'counts', and the logarithmic dB in coherent SI)."""
    got = pint_quantity(np.array([2.5]), unit, ureg)
    expected = ureg.Quantity(np.array([2.5]), pint_unit)
    if unit == "degC":
        assert got.to("K").magnitude[0] == pytest.approx(275.65, rel=1e-15)
    assert got.to_base_units().magnitude[0] == pytest.approx(expected.to_base_units().magnitude[0], rel=1e-14)


def test_quantity_without_pint_says_how_to_install_it(motor, monkeypatch):
    monkeypatch.setitem(sys.modules, "pint", None)           # makes "import pint" fail
    with pytest.raises(physlib.PhyslibError, match="pip install pint"):
        motor.quantity("rotor.w")


def test_plot_in_display_units_scales_and_labels(motor):
    fig = motor.plot("rotor.w", "L1.i", units={"rotor.w": "rpm", "L1.i": "mA"})
    speed, current = fig.axes
    assert speed.get_ylabel() == "rotor.w [rpm]" and current.get_ylabel() == "L1.i [mA]"
    expected = ureg.Quantity(motor["rotor.w"], "rad/s").to("rpm").magnitude
    np.testing.assert_allclose(speed.lines[0].get_ydata(), expected, rtol=1e-15)
    np.testing.assert_allclose(current.lines[0].get_ydata(), motor["L1.i"] * 1e3, rtol=1e-15)
    plain = motor.plot("rotor.w")
    assert plain.axes[0].get_ylabel() == "rotor.w [rad/s]"
    assert np.array_equal(plain.axes[0].lines[0].get_ydata(), motor["rotor.w"])


@pytest.mark.parametrize("units, words", [
    ({"rotor.w": "Hz"}, ["rotor.w", "rad/s", "Hz", "cycles and radians"]),   # never a silent 2π
    ({"L1.i": "V"}, ["L1.i", " A ", " V "]),
    ({"L1.v": "V"}, ["L1.v", "not plotted"]),                               # a typo is no silent no-op
])
def test_plot_in_a_unit_of_another_dimension_is_a_parameter_error(motor, units, words):
    with pytest.raises(physlib.ParameterError) as err:
        motor.plot("rotor.w", "L1.i", units=units)
    for word in words:
        assert word in str(err.value) + " ", str(err.value)


def test_csv_has_a_units_row_that_pandas_reads_back(motor, tmp_path):
    pandas = pytest.importorskip("pandas")
    names = ["rotor.w", "L1.i", "der(rotor.w)"]
    path = tmp_path / "motor.csv"
    motor.to_csv(path, names=names)
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["time", *names] and rows[1] == ["s", "rad/s", "A", "rad/s2"]
    both = pandas.read_csv(path, header=[0, 1])
    assert list(both.columns) == [("time", "s"), ("rotor.w", "rad/s"), ("L1.i", "A"), ("der(rotor.w)", "rad/s2")]
    np.testing.assert_array_equal(both[("rotor.w", "rad/s")].to_numpy(), motor["rotor.w"])
    values = pandas.read_csv(path, skiprows=[1])
    np.testing.assert_array_equal(values["time"].to_numpy(), motor.t)
    buffer = io.StringIO()
    motor.to_csv(buffer, names=["L1.i"], units=False)
    assert buffer.getvalue().splitlines()[:2] == ["time,L1.i", "0.0,0.0"]


def test_pandas_frame_carries_the_units(motor):
    pytest.importorskip("pandas")
    frame = motor.to_pandas(["rotor.w", "src.V", "emf.w"])
    assert frame.attrs["units"] == {"time": "s", "rotor.w": "rad/s", "src.V": "V", "emf.w": "rad/s"}


@pytest.fixture(scope="module")
def parallel_rc():
    """A current source into R ∥ C: the transimpedance from the source to the voltage is R at
    DC; the voltage's thermal noise has variance kT/C."""
    m = Model("rc")
    src, r = m.add(CurrentSource("I1", I=0.0)), m.add(Resistor("R1", R=1e3))
    c, gnd = m.add(Capacitor("C1", C=1e-9)), m.add(Ground("gnd"))
    m.connect(src.n, r.p, c.p)
    m.connect(src.p, r.n, c.n, gnd.p)
    return m, m.compile()


def test_linear_model_units_and_transfer_function_unit(parallel_rc):
    model, sim = parallel_rc
    lin = sim.linearize(inputs=["I1.I", "R1.R"], outputs=["C1.v", "R1.i"])
    assert lin.unit("C1.v") == "V" and lin.unit("I1.I") == "A" and lin.unit("R1.R") == "Ohm"
    assert [lin.unit(s) for s in lin.states] == ["V"]
    # the units' mapping: each state and output once, in that order; nothing else in it
    assert lin.states == ["C1.v"] and list(lin.units) == ["C1.v", "R1.i"] and len(lin.units) == 2
    assert dict(lin.units) == {"C1.v": "V", "R1.i": "A"} and "R1.v" not in lin.units
    assert lin.response_unit("C1.v", "I1.I") == "V/A"       # a transimpedance
    assert lin.response_unit("R1.i", "I1.I") == "1"         # a current ratio
    assert lin.dcgain()[0, 0] == pytest.approx(1e3, rel=1e-12)     # R, in the V/A it is said to be
    kept = lin.minimal()
    assert kept.unit("C1.v") == "V" and kept.response_unit("C1.v", "I1.I") == "V/A"
    descriptor = sim.linearize(inputs=["I1.I"], outputs=["C1.v"], descriptor=True)
    assert descriptor.unit("C1.v") == "V" and descriptor.response_unit("C1.v", "I1.I") == "V/A"
    with pytest.raises(physlib.PhyslibError, match="no state, input or output 'C2.v'"):
        lin.unit("C2.v")


def test_an_analysis_point_is_an_input_in_its_through_unit(parallel_rc):
    """inject_through at C1.p as input and output: a current in, the node's voltage out, V/A."""
    model, _ = parallel_rc
    point = physlib.inject_through("C1.p")
    lin = physlib.linearize(model, inputs=[point], outputs=[point, "C1.v"])
    assert lin.response_unit(str(point), str(point)) == "V/A" and lin.response_unit("C1.v", str(point)) == "V/A"
    assert abs(lin.dcgain()[1, 0]) == pytest.approx(1e3, rel=1e-12)


def test_noise_spectra_units(parallel_rc):
    _, sim = parallel_rc
    nz = sim.noise("C1.v", f=[1.0, 1e6])
    assert nz.unit == "V" and nz.psd_unit == "V2/Hz" and nz.asd_unit == "V/Hz(1/2)"
    assert parse(nz.asd_unit).exponents == (parse("V") / parse("Hz") ** Fraction(1, 2)).exponents
    # kT/C: the variance in V², what psd_unit integrates to over Hz
    psd = pint_quantity(nz.psd, nz.psd_unit, ureg)
    assert (psd * ureg.Quantity(1.0, "Hz")).to("V**2").magnitude[0] == pytest.approx(nz.psd[0], rel=1e-15)
    assert nz.variance == pytest.approx(1.380649e-23 * 300.15 / 1e-9, rel=1e-9)
    fig = nz.plot()
    assert fig.axes[0].get_ylabel() == "PSD of C1.v [V2/Hz]"
