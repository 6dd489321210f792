"""The Modelica unit grammar: a table of unit strings with the exponents, factor and offset
they must give (each exponent, factor and offset is the SI definition of the unit, written
here from the SI brochure and Modelica.Units.NonSI, not from physlib's output); strings
outside the grammar are refused; every unit string the catalog and the examples declare
parses; derivative units are composed in the grammar."""
import importlib
import inspect
import math
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

import physlib
from physlib.core.component import Component, Input, Output
from physlib.units import UnitError, divided, parse

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("electrical", "rotational", "translational", "hydraulic", "thermal", "signals")
ORDER = ("m", "kg", "s", "A", "K", "mol", "cd", "rad")
PI = math.pi

# unit string: ({base: exponent}, factor to SI, offset to SI)
TABLE = {
    "1": ({}, 1, 0), "m": ({"m": 1}, 1, 0), "kg": ({"kg": 1}, 1, 0), "g": ({"kg": 1}, 1e-3, 0),
    "s": ({"s": 1}, 1, 0), "A": ({"A": 1}, 1, 0), "K": ({"K": 1}, 1, 0), "mol": ({"mol": 1}, 1, 0),
    "cd": ({"cd": 1}, 1, 0), "rad": ({"rad": 1}, 1, 0),
    "N": ({"kg": 1, "m": 1, "s": -2}, 1, 0), "Pa": ({"kg": 1, "m": -1, "s": -2}, 1, 0),
    "J": ({"kg": 1, "m": 2, "s": -2}, 1, 0), "W": ({"kg": 1, "m": 2, "s": -3}, 1, 0),
    "V": ({"kg": 1, "m": 2, "s": -3, "A": -1}, 1, 0), "Ohm": ({"kg": 1, "m": 2, "s": -3, "A": -2}, 1, 0),
    "kOhm": ({"kg": 1, "m": 2, "s": -3, "A": -2}, 1e3, 0), "S": ({"kg": -1, "m": -2, "s": 3, "A": 2}, 1, 0),
    "F": ({"kg": -1, "m": -2, "s": 4, "A": 2}, 1, 0), "uF": ({"kg": -1, "m": -2, "s": 4, "A": 2}, 1e-6, 0),
    "H": ({"kg": 1, "m": 2, "s": -2, "A": -2}, 1, 0), "mH": ({"kg": 1, "m": 2, "s": -2, "A": -2}, 1e-3, 0),
    "Wb": ({"kg": 1, "m": 2, "s": -2, "A": -1}, 1, 0), "T": ({"kg": 1, "s": -2, "A": -1}, 1, 0),
    "C": ({"A": 1, "s": 1}, 1, 0), "A.s": ({"A": 1, "s": 1}, 1, 0), "Hz": ({"s": -1}, 1, 0),
    "kHz": ({"s": -1}, 1e3, 0), "1/s": ({"s": -1}, 1, 0), "s-1": ({"s": -1}, 1, 0),
    "m/s": ({"m": 1, "s": -1}, 1, 0), "m/s2": ({"m": 1, "s": -2}, 1, 0), "mm": ({"m": 1}, 1e-3, 0),
    "km/h": ({"m": 1, "s": -1}, 1000 / 3600, 0), "rad/s": ({"rad": 1, "s": -1}, 1, 0),
    "rad/s2": ({"rad": 1, "s": -2}, 1, 0), "rev/min": ({"rad": 1, "s": -1}, 2 * PI / 60, 0),
    "rpm": ({"rad": 1, "s": -1}, 2 * PI / 60, 0), "deg": ({"rad": 1}, PI / 180, 0),
    "rev": ({"rad": 1}, 2 * PI, 0), "N.m": ({"kg": 1, "m": 2, "s": -2}, 1, 0),
    "N.m/rad": ({"kg": 1, "m": 2, "s": -2, "rad": -1}, 1, 0),
    "N.m.s/rad": ({"kg": 1, "m": 2, "s": -1, "rad": -1}, 1, 0), "N.s/m": ({"kg": 1, "s": -1}, 1, 0),
    "kg.m2": ({"kg": 1, "m": 2}, 1, 0), "kg/m3": ({"kg": 1, "m": -3}, 1, 0), "m3/s": ({"m": 3, "s": -1}, 1, 0),
    "m3/(s.Pa)": ({"m": 4, "kg": -1, "s": 1}, 1, 0), "Pa.s/m3": ({"kg": 1, "m": -4, "s": -1}, 1, 0),
    "m3/rad": ({"m": 3, "rad": -1}, 1, 0), "W/K": ({"kg": 1, "m": 2, "s": -3, "K": -1}, 1, 0),
    "W/(m2.K4)": ({"kg": 1, "s": -3, "K": -4}, 1, 0), "J/(mol.K)": ({"kg": 1, "m": 2, "s": -2, "mol": -1, "K": -1}, 1, 0),
    "1/K": ({"K": -1}, 1, 0), "A/V2": ({"A": 3, "kg": -2, "m": -4, "s": 6}, 1, 0),
    "V(1/2)": ({"kg": F(1, 2), "m": 1, "s": F(-3, 2), "A": F(-1, 2)}, 1, 0),
    "m-(1/2)": ({"m": F(-1, 2)}, 1, 0), "degC": ({"K": 1}, 1, 273.15), "degF": ({"K": 1}, 5 / 9, 273.15 - 32 * 5 / 9),
    "bar": ({"kg": 1, "m": -1, "s": -2}, 1e5, 0), "l/min": ({"m": 3, "s": -1}, 1e-3 / 60, 0),
    "eV": ({"kg": 1, "m": 2, "s": -2}, 1.602176634e-19, 0), "h": ({"s": 1}, 3600, 0), "min": ({"s": 1}, 60, 0),
    "MPa": ({"kg": 1, "m": -1, "s": -2}, 1e6, 0), "(m/s)/s": ({"m": 1, "s": -2}, 1, 0),
}


def test_the_table_is_large():
    assert len(TABLE) >= 40


@pytest.mark.parametrize("text", sorted(TABLE))
def test_a_unit_string_gives_its_exponents_factor_and_offset(text):
    exponents, factor, offset = TABLE[text]
    unit = parse(text)
    assert unit.exponents == tuple(F(exponents.get(d, 0)) for d in ORDER)
    # factors are products of a few decimal prefixes and exact definitions: a few ulps
    assert unit.factor == pytest.approx(factor, rel=1e-14)
    assert unit.offset == pytest.approx(offset, rel=1e-14, abs=0)


@pytest.mark.parametrize("text", ["m^2", "N*m", "m/s/s", "A/V^2", "V^0.5", "", "kx", "m2/", "(m", "m/s.Pa",
                                  "m2.", "V(1/0)", "m-"])
def test_strings_outside_the_grammar_are_unit_errors_that_say_so(text):
    with pytest.raises(UnitError, match=re.escape(repr(text)) if text else "grammar"):
        parse(text)
    assert issubclass(UnitError, physlib.PhyslibError)


def test_derivative_units_are_composed_in_the_grammar():
    assert divided("m/s", "s") == "m/s2"
    assert divided("1", "s") == "1/s"
    assert divided("rad/s", "s") == "rad/s2"
    assert divided("m3/(s.Pa)", "s") == "m3/(s2.Pa)"
    assert divided("s", "s") == "1"
    assert divided("V(1/2)", "s") == "V(1/2)/s"
    for text in ("m/s", "V", "m3/(s.Pa)", "V(1/2)"):       # and they parse to unit/s
        assert parse(divided(text, "s")).exponents == (parse(text) / parse("s")).exponents


def catalog_classes():
    found = {}
    for domain in DOMAINS:
        package = importlib.import_module(f"physlib.components.{domain}")
        for name in package.__all__:
            cls = getattr(package, name)
            if inspect.isclass(cls) and issubclass(cls, Component):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def declared_units(cls):
    """(what, unit) of every unit a class declares: parameters, variables, inputs, outputs and
    its ports' domains."""
    units = [(f"parameter {n}", p.unit) for n, p in cls._parameters.items() if not p.structural]
    units += [(f"variable {n}", v.unit) for n, v in cls._variables.items()]
    units += [(f"mode {n}", getattr(m, "unit", "1")) for n, m in cls._modes.items()]
    for name, port in cls._ports.items():
        if isinstance(port, (Input, Output)):
            units.append((f"signal {name}", port.unit))
        elif not port.domain.is_signal:
            units += [(f"port {name}", port.domain.across_unit), (f"port {name}", port.domain.through_unit)]
    return units


def test_every_unit_string_of_the_catalog_parses_with_its_derivative():
    wrong = []
    classes = catalog_classes()
    assert len(classes) > 150
    for path, cls in classes.items():
        for what, unit in declared_units(cls):
            try:
                parse(unit)
                parse(divided(unit, "s"))      # a state's derivative unit
            except UnitError as err:
                wrong.append(f"{path} {what}: {err}")
    assert not wrong, "\n".join(wrong)


def test_every_unit_string_of_the_examples_parses():
    declared = re.compile(r"""unit\s*=\s*["']([^"']*)["']""")
    found = [(path.name, text) for path in sorted((ROOT / "examples").glob("*.py"))
             for text in declared.findall(path.read_text())]
    assert found
    for name, text in found:
        parse(text)


def test_units_and_constants_are_attributes_of_a_bare_import():
    # README: physlib.units.parse("rev/min") after `import physlib` alone (a fresh process:
    # here other tests have imported the submodules already)
    import subprocess
    import sys
    code = "import physlib; print(physlib.units.parse('rev/min').factor, float(physlib.constants.k_B))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert float(out[0]) == pytest.approx(2 * 3.141592653589793 / 60, rel=1e-15)
    assert float(out[1]) == 1.380649e-23
