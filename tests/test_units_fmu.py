"""Exported FMUs carry their units: every unit a variable or parameter names is defined with its
SI base units (FMI 2.0 <BaseUnit>: exponents of kg, m, s, A, K, mol, cd, rad, factor and
offset), derivatives' units are composed in the grammar (rad/s2, never rad/s/s), display units
chosen at export are <DisplayUnit>s with the right factor, and FMPy's validate_fmu stays clean.

One source FMU (no compiler: the XML is what is checked) of examples/dc_motor.py's motor; the
modelDescription is read back with FMPy's parser. The expected base units are the SI
definitions (BIPM SI brochure, 9th ed., table 4: V = kg·m²·s⁻³·A⁻¹, H = kg·m²·s⁻²·A⁻², ...),
written out here rather than computed with physlib.units."""
import math
from xml.etree import ElementTree as ET

import pytest

fmpy = pytest.importorskip("fmpy")
from fmpy.validation import validate_fmu  # noqa: E402

from physlib.units import parse  # noqa: E402
from physlib import ExportError  # noqa: E402
from physlib.analysis.export.fmu import FmuVariable  # noqa: E402
from physlib.analysis.export.fmu_units import unit_definitions  # noqa: E402
from fmu_runs import example  # noqa: E402

# unit: (exponents {base: power}, factor, offset) from the SI definitions
SI = {
    "1": ({}, 1.0, 0.0), "A": ({"A": 1}, 1.0, 0.0), "A/s": ({"A": 1, "s": -1}, 1.0, 0.0),
    "V": ({"kg": 1, "m": 2, "s": -3, "A": -1}, 1.0, 0.0), "Ohm": ({"kg": 1, "m": 2, "s": -3, "A": -2}, 1.0, 0.0),
    "H": ({"kg": 1, "m": 2, "s": -2, "A": -2}, 1.0, 0.0), "N.m": ({"kg": 1, "m": 2, "s": -2}, 1.0, 0.0),
    "N.m/A": ({"kg": 1, "m": 2, "s": -2, "A": -1}, 1.0, 0.0),
    "N.m.s/rad": ({"kg": 1, "m": 2, "s": -1, "rad": -1}, 1.0, 0.0), "kg.m2": ({"kg": 1, "m": 2}, 1.0, 0.0),
    "rad": ({"rad": 1}, 1.0, 0.0), "rad/s": ({"rad": 1, "s": -1}, 1.0, 0.0), "rad/s2": ({"rad": 1, "s": -2}, 1.0, 0.0),
    "s": ({"s": 1}, 1.0, 0.0),
}
BASES = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")


@pytest.fixture(scope="module")
def motor_fmu(tmp_path_factory):
    sim = example("dc_motor").build(supply=12.0).compile()
    path = sim.export_fmu(tmp_path_factory.mktemp("units") / "motor", inputs=["src.V"], outputs=["rotor.w"],
                          binary=False, display_units={"rotor.w": "rpm", "rotor.J": "g.cm2"})
    return sim, path, fmpy.read_model_description(str(path))


def test_validate_fmu_is_clean(motor_fmu):
    _, path, _ = motor_fmu
    assert validate_fmu(str(path)) == []


def test_every_unit_is_defined_with_its_si_base_units(motor_fmu):
    _, _, md = motor_fmu
    defined = {u.name: u.baseUnit for u in md.unitDefinitions}
    used = {v.unit for v in md.modelVariables if v.unit}
    assert used <= set(defined) and used >= {"V", "Ohm", "rad/s", "kg.m2", "N.m.s/rad"}
    for unit in used:
        exponents, factor, offset = SI[unit]
        base = defined[unit]
        assert {b: getattr(base, b) for b in BASES} == {b: exponents.get(b, 0) for b in BASES}, unit
        assert (base.factor, base.offset) == (factor, offset), unit


def test_parameters_and_inputs_carry_units(motor_fmu):
    _, _, md = motor_fmu
    units = {v.name: v.unit for v in md.modelVariables}
    assert units["R1.R"] == "Ohm" and units["emf.k"] == "N.m/A" and units["src.V"] == "V"


def test_derivatives_have_composed_units(motor_fmu):
    """der(rotor.w) in rad/s2: the export appended /s to rad/s, giving rad/s/s, outside the grammar."""
    sim, _, md = motor_fmu
    units = {v.name: v.unit for v in md.modelVariables}
    assert units["der(rotor.w)"] == "rad/s2" and units["der(L1.i)"] == "A/s"
    for state in sim.states:
        parse(units[f"der({state})"])        # each one in the grammar


def test_display_units_convert_as_the_si_says(motor_fmu):
    _, _, md = motor_fmu
    variables = {v.name: v for v in md.modelVariables}
    assert variables["rotor.w"].displayUnit == "rpm" and variables["rotor.J"].displayUnit == "g.cm2"
    shown = {d.name: (d.factor, d.offset) for u in md.unitDefinitions for d in u.displayUnits}
    assert shown["rpm"][0] == pytest.approx(60 / (2 * math.pi), rel=1e-15) and shown["rpm"][1] == 0.0
    assert shown["g.cm2"][0] == pytest.approx(1e3 * 1e4, rel=1e-15)      # 1 kg·m² = 1e3 g · 1e4 cm²


def test_a_wrong_display_unit_is_an_export_error(motor_fmu, tmp_path):
    sim, _, _ = motor_fmu
    with pytest.raises(ExportError, match=r"rotor\.w is in rad/s .* Hz .*cycles and radians"):
        sim.export_fmu(tmp_path / "bad", binary=False, display_units={"rotor.w": "Hz"})
    with pytest.raises(ExportError, match="'rotor.ww' is no variable"):
        sim.export_fmu(tmp_path / "bad", binary=False, display_units={"rotor.ww": "rpm"})


def test_units_with_factor_offset_or_no_base_unit():
    """kOhm is factor 1000 of Ω, degC offset 273.15 of K (shown in degF: ×9/5, +32 from degC);
    V(1/2), a non-integer exponent, and a string outside the grammar have no FMI base unit."""
    table = [FmuVariable("R", "parameter", 0, unit="kOhm"), FmuVariable("T", "parameter", 1, unit="degC"),
             FmuVariable("g", "parameter", 2, unit="V(1/2)"), FmuVariable("a", "value", 3, unit="m/s/s")]
    root = ET.Element("fmiModelDescription")
    unit_definitions(root, table, {"T": ("degF", 1.8, 32.0)})
    units = {u.get("name"): u for u in root.find("UnitDefinitions")}
    assert units["kOhm"].find("BaseUnit").attrib == {"kg": "1", "m": "2", "s": "-3", "A": "-2", "factor": "1000.0"}
    assert units["degC"].find("BaseUnit").attrib == {"K": "1", "offset": "273.15"}
    assert units["degC"].find("DisplayUnit").attrib == {"name": "degF", "factor": "1.8", "offset": "32.0"}
    assert units["V(1/2)"].find("BaseUnit") is None and units["m/s/s"].find("BaseUnit") is None
