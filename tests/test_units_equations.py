"""The dimension check of component equations: every concrete catalog class (and each
structural flag flipped) is consistent; 20 seeded mistakes in user classes are each reported
with the class, the equation and both units; compile(units=...) warns, raises or stays quiet."""
import warnings

import pytest
import sympy as sp

import physlib
from physlib import Component, Model, Parameter, Port, Variable, der
from physlib.assembly.derivation import unit_issues
from physlib.components.electrical import Ground, Resistor
from physlib.constants import k_B, q, sigma
from physlib.domains import electrical, rotational, thermal, translational
from test_units_parse import catalog_classes

# values for required parameters that the defaults of 1.0 do not satisfy
REQUIRED = {"points": [(0.0, 1.0), (1.0, 2.0)], "table": [[0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 2.0]],
            "rcData": [(1.0, 1.0)], "u_off": 0.0, "M": 0.5, "expr": 2 * sp.Symbol("t", real=True)}
KEYWORDS = {"StateSpace": {"A": [[-1.0]], "B": [[1.0]], "C": [[1.0]], "D": [[0.0]]},
            "TransferFunction": {"num": [1.0], "den": [1.0, 1.0]}}
# Structure chosen by parameter values rather than flags: the semiconductors' optional parts
# (a diode's recombination current and charges at once: a unit slip in VJ's limit hid there).
STRUCTURES = {"Diode": [{"ISR": 1e-10, "CJO": 4e-12, "TT": 5e-9, "IKF": 0.1, "BV": 10.0, "RS": 0.5}],
              "BJT": [{"CJE": 1e-12, "CJC": 1e-12, "CJS": 1e-12, "TF": 1e-9, "TR": 1e-8, "XCJC": 0.5,
                       "IKF": 0.1, "ISE": 1e-14, "RB": 10.0, "IRB": 1e-3, "RE": 1.0, "RC": 1.0,
                       "PTF": 30.0}],
              "JFET": [{"CGS": 1e-12, "CGD": 1e-12, "RD": 1.0, "RS": 1.0}],
              "MOSFET": [{"TOX": 1e-7, "CJ": 1e-4, "AD": 1e-10, "AS": 1e-10, "RD": 1.0, "RS": 1.0},
                         {"level": 3, "KAPPA": 0.2, "NSUB": 1e22, "VMAX": 1e5, "NFS": 1e15, "THETA": 0.1}],
              # a structural number with a unit is a bare float in the equations (the core loss
              # once added W to S·V²)
              # a structural table's numbers too (the slope between two rows had no unit)
              "BearingFriction": [{"tau_pos": [(0.0, 0.2), (100.0, 0.6)]}],
              "LossyGear": [{"lossTable": [(0.0, 0.9, 0.8, 0.1, 0.05), (50.0, 0.85, 0.75, 0.2, 0.1)]}],
              "SupportFriction": [{"f_pos": [(0.0, 1.0), (1.0, 2.0)]}],
              "Brake": [{"mu_pos": [(0.0, 0.5), (1.0, 0.3)], "fn_max": 10.0}],
              **{machine: [{"core_PRef": 300.0}]
                 for machine in ("DC_PermanentMagnet", "DC_ElectricalExcited", "DC_SeriesExcited")}}


def instances(cls):
    """The component with its required parameters given, and one more per boolean structural
    flag, flipped (each changes ports or equations)."""
    name = cls.__name__
    base = dict(KEYWORDS.get(name, {}))
    for key, parameter in cls._parameters.items():
        if parameter.required and name not in KEYWORDS:
            base[key] = REQUIRED.get(key, 1.0)
    yield base
    for values in STRUCTURES.get(name, []):
        yield {**base, **values}
    for key, parameter in cls._parameters.items():
        if parameter.structural and isinstance(parameter.default, bool):
            yield {**base, key: not parameter.default}


def build(cls, values):
    """The instance ``x`` of ``cls`` with ``values`` (an Expression takes its expression first)."""
    return cls(2 * physlib.t, "x") if cls.__name__ == "Expression" else cls("x", **values)


def concrete_classes():
    """The catalog's classes but the interfaces and the partial bases other classes extend
    (StickSlip, Waveform), by module path."""
    classes = catalog_classes()
    return [cls for _, cls in sorted(classes.items())
            if not cls.__module__.endswith(".interfaces")
            and not any(other is not cls and issubclass(other, cls) for other in classes.values())]


def check_class(cls):
    problems, checked = [], 0
    for values in instances(cls):
        try:
            comp = build(cls, values)
        except physlib.ParameterError:
            continue            # a flag that needs other parameters: the default variant covers it
        try:
            problems += unit_issues(comp)
        except NotImplementedError:      # an abstract base (a waveform without its shape)
            return None
        checked += 1
    assert checked, f"{cls.__name__}: no variant could be built"
    return problems


def test_every_concrete_catalog_class_is_consistent():
    problems, checked = [], 0
    for cls in concrete_classes():
        found = check_class(cls)
        if found is not None:
            checked += 1
            problems += found
    assert checked > 150
    assert not problems, "\n".join(problems)


class TwoPin(Component):
    p = Port(electrical)
    n = Port(electrical)
    v = Variable("V")
    i = Variable("A")

    def equations(self):
        return [sp.Eq(self.v, self.p.v - self.n.v), sp.Eq(self.p.i + self.n.i, 0), sp.Eq(self.i, self.p.i)]


def seeded(name, law, **declarations):
    """A two-pin class whose own equations are ``law(self)`` (a list)."""
    body = {"equations": lambda self: TwoPin.equations(self) + law(self), **declarations}
    return type(name, (TwoPin,), body)


P = Parameter
# name: (class, the two units the report must name)
MISTAKES = {
    "ResistorSwapped": (seeded("ResistorSwapped", lambda s: [sp.Eq(s.v, s.R * s.i)], R=P(1.0, "S")), ("V", "S.A")),
    "CapacitorNoDer": (seeded("CapacitorNoDer", lambda s: [sp.Eq(s.i, s.C * s.v)], C=P(1.0, "F")), ("A", "C")),
    "InductorExtraSecond": (seeded("InductorExtraSecond", lambda s: [sp.Eq(s.v * s.Ls, s.L * der(s.i))],
                                   L=P(1.0, "H"), Ls=P(1.0, "s")), ("Wb", "V")),
    "DropOneOverS": (seeded("DropOneOverS", lambda s: [sp.Eq(der(s.x), s.v)], x=Variable("V")), ("V/s", "V")),
    "ConstantNoUnit": (seeded("ConstantNoUnit", lambda s: [sp.Eq(s.i, 1e-14 * sp.exp(s.v / (1.380649e-23 * s.T / 1.602176634e-19)))],
                              T=P(300.0, "K")), ("V/K", "1")),
    "SigmaBare": (seeded("SigmaBare", lambda s: [sp.Eq(s.v * s.i, 5.670374419e-8 * s.A * s.T**4)], A=P(1.0, "m2"),
                         T=P(300.0, "K")), ("W", "m2.K4")),
    "ExpOfVolts": (seeded("ExpOfVolts", lambda s: [sp.Eq(s.i, s.Is * sp.exp(s.v))], Is=P(1e-14, "A")), ("V", "1")),
    "LogOfAmps": (seeded("LogOfAmps", lambda s: [sp.Eq(s.v, s.Vt * sp.log(s.i))], Vt=P(0.025, "V")), ("A", "1")),
    "SinOfSeconds": (seeded("SinOfSeconds", lambda s: [sp.Eq(s.v, s.V0 * sp.sin(physlib.t))], V0=P(1.0, "V")), ("s", "1")),
    "CompareVoltCurrent": (seeded("CompareVoltCurrent", lambda s: [sp.Eq(s.v, sp.Piecewise((s.R * s.i, s.v > s.i), (0, True)))],
                                  R=P(1.0, "Ohm")), ("V", "A")),
    "PiecewiseMixed": (seeded("PiecewiseMixed", lambda s: [sp.Eq(s.v, sp.Piecewise((s.R * s.i, s.v > 0), (s.i, True)))],
                              R=P(1.0, "Ohm")), ("V", "A")),
    "MinMixed": (seeded("MinMixed", lambda s: [sp.Eq(s.v, sp.Min(s.Vmax, s.i))], Vmax=P(1.0, "V")), ("V", "A")),
    "PowerOfUnit": (seeded("PowerOfUnit", lambda s: [sp.Eq(s.i, s.k * s.v**s.e)], k=P(1.0, "A/V"), e=P(2.0, "1")),
                    ("V", "1")),
    "SqrtWrongParam": (seeded("SqrtWrongParam", lambda s: [sp.Eq(s.i, s.k * sp.sqrt(s.v))], k=P(1.0, "A/V")),
                       ("A", "s(3/2).A(3/2)/(m.kg(1/2))")),
    "ThermalVoltageLabel": (seeded("ThermalVoltageLabel", lambda s: [sp.Eq(s.i, s.Is * sp.exp(s.v / s.Vt))],
                                   Is=P(1e-14, "A"), Vt=P(0.025, "K")), ("V/K", "1")),
    "KOverQLabelled": (seeded("KOverQLabelled", lambda s: [sp.Eq(s.i, s.Is * sp.exp(s.v * q / (k_B * s.T)))],
                              Is=P(1e-14, "A"), T=P(300.0, "s")), ("K/s", "1")),
    "SigmaWrongArea": (seeded("SigmaWrongArea", lambda s: [sp.Eq(s.v * s.i, sigma * s.A * s.T**4)], A=P(1.0, "m"),
                              T=P(300.0, "K")), ("W", "W/m")),
    "DerivativeLabel": (seeded("DerivativeLabel", lambda s: [sp.Eq(der(s.w), s.i / s.C)],
                               w=Variable("V/s"), C=P(1.0, "F")), ("V/s", "m2.kg/(s5.A)")),
    "TimeConstant": (seeded("TimeConstant", lambda s: [sp.Eq(s.tau * der(s.x), s.v - s.x)], x=Variable("V"),
                            tau=P(1.0, "1")), ("V/s", "V")),
    "AddsTemperature": (seeded("AddsTemperature", lambda s: [sp.Eq(s.v, s.R * s.i * (1 + s.alpha * (s.T - s.T0)))],
                               R=P(1.0, "Ohm"), alpha=P(4e-3, "1"), T=P(300.0, "K"), T0=P(300.0, "s")), ("K", "s")),
}


def test_twenty_seeded_mistakes():
    assert len(MISTAKES) == 20


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_seeded_mistake_is_reported_with_class_equation_and_both_units(name):
    cls, (first, second) = MISTAKES[name]
    problems = unit_issues(cls("x"))
    assert len(problems) == 1, problems
    message = problems[0]
    assert message.startswith(f"{name}: equation ")
    assert " = 0 " in message                                    # the equation, as residual
    assert f"[{first}]" in message and f"[{second}]" in message, message


def circuit(cls):
    m = Model("m")
    part, r, g = m.add(cls("x")), m.add(Resistor("R1", R=1.0)), m.add(Ground("gnd"))
    m.connect(part.p, r.p)
    m.connect(part.n, r.n, g.p)
    return m


def test_compile_warns_raises_or_stays_quiet():
    model = circuit(MISTAKES["CapacitorNoDer"][0])
    with pytest.warns(physlib.UnitWarning, match=r"CapacitorNoDer: equation .*\[A\].*\[C\]|\[C\].*\[A\]"):
        model.compile()
    with pytest.raises(physlib.UnitCheckError, match="CapacitorNoDer"):
        model.compile(units="strict")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.compile(units="off")
    with pytest.raises(physlib.ParameterError, match="'warn', 'strict', 'off'"):
        model.compile(units="loose")


def test_a_consistent_user_class_compiles_without_a_warning():
    ok = seeded("OkResistor", lambda s: [sp.Eq(s.v, s.R * s.i)], R=P(1.0, "Ohm"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        circuit(ok).compile(units="strict")


def test_constants_carry_units_and_stay_floats():
    assert isinstance(k_B, float) and k_B == 1.380649e-23 and k_B.unit == "J/K"
    thermal_voltage = k_B * 300.0 / q
    assert thermal_voltage == 1.380649e-23 * 300.0 / 1.602176634e-19     # the same float arithmetic
    assert physlib.units.parse(thermal_voltage.unit).same_dimension(physlib.units.parse("V/K"))
    assert sigma.unit == "W/(m2.K4)"


# the mechanical and thermal domains are exercised by the catalog test; these imports keep the
# seeded classes' domains honest (a port of each would use them)
assert rotational.across_unit == "rad/s" and translational.through_unit == "N" and thermal.across_unit == "K"


def test_an_expression_of_time_in_bare_numbers_compiles_strict_without_a_warning():
    """Expression's own docstring example, sin(2π·100·t²): its numbers cannot carry units, so
    the literal rule would read 2π·100·t² as s² and call sin of it a mistake."""
    from physlib.components.electrical import VoltageSource
    from physlib.components.signals import Expression
    m = Model("chirp")
    src = m.add(VoltageSource("src", V=Expression(sp.sin(2 * sp.pi * 100 * physlib.t ** 2))))
    r, g = m.add(Resistor("R1", R=1.0)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, src.n, g.p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.compile(units="strict")


def test_the_noise_variants_add_noise_in_the_unit_of_what_it_joins():
    """A noise analysis copies each component with internal noise into a class whose noise
    sources are parameters; a leakage's noise is a flow [m3/s], a friction's a torque [N.m] or
    force [N], not a current [A] (the copies warned at every hydraulic noise analysis)."""
    from physlib.components.hydraulic.pipes import segmented_pipe
    from physlib.components.noise_variants import noisy_class
    checked = []
    for cls in [*concrete_classes(), segmented_pipe(3)]:
        if not getattr(cls, "NOISE_PARTS", None):
            continue
        values = next(instances(cls))
        if cls.__name__.startswith("Pipe"):
            values = {**values, "N": 3}
        try:
            component = noisy_class(cls)("x", **values)
        except physlib.ParameterError:
            continue
        assert unit_issues(component) == (), cls.__name__
        checked.append(cls.__name__)
    assert {"SpoolValve", "DoubleActingCylinder", "HydraulicMotor", "Pipe3", "Diode"} <= set(checked)
