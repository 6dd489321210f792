"""The Modelica Standard Library's translational examples of issue [catalog]'s group B
(Modelica.Mechanics.Translational.Examples and ModelicaTest.Translational), rebuilt from
physlib's components with the MSL's instance names; ``tests/msl_corpus.py`` collects
``EXAMPLES`` and ``tests/test_msl_corpus.py`` runs them in MAP-LIB's 2e-3 tube.

Two of them share their name with a rotational example (Rotational.Examples.EddyCurrentBrake,
ModelicaTest.Rotational.TestBraking): here, and in their folders in tests/data/msl/, they are
TranslationalEddyCurrentBrake and TranslationalTestBraking."""
import numpy as np

from physlib import Model
from physlib.components import translational as tr
from physlib.components.signals import Ramp, Sine, Step
from physlib.components.thermal import Convection, FixedTemperature, HeatCapacitor

from msl_corpus import MODE_FLAGS, Example


def brake() -> Model:
    """Translational.Examples.Brake: two masses (1 kg, 1 m/s at s = 0) braked from 0.1 s on by a
    Brake (fn_max = 1 N, mu_pos = [0, 0.5], pressed with a step of height 2: fn = 2 N, so 1 N of
    friction), brake's housing fixed inside it, brake1's through its support flange on a Fixed.
    Each mass stops at 1.1 s, 0.6 m on, and stays stuck."""
    m = Model("Brake")
    for brake_name, mass_name, supported in (("brake", "mass1", False), ("brake1", "mass2", True)):
        brake = m.add(tr.Brake(brake_name, fn_max=1.0, use_support=supported,
                               f_normalized=Step(height=2.0, t0=0.1)))
        mass = m.add(tr.Mass(mass_name, m=1.0, v0=1.0))
        m.connect(mass.flange_b, brake.flange_a)
        if supported:
            m.connect(brake.support, m.add(tr.Fixed("fixed")).flange)
    return m


def accelerate() -> Model:
    """Translational.Examples.Accelerate: an Accelerate source driven by a constant 1 m/s²
    moves a mass (1 kg) from rest: s = t²/2, v = t."""
    m = Model("Accelerate")
    source = m.add(tr.Accelerate("accelerate", a_ref=1.0))
    mass = m.add(tr.Mass("mass", m=1.0))
    m.connect(source.flange, mass.flange_a)
    return m


def elasto_gap() -> Model:
    """Translational.Examples.ElastoGap: mass1 (1 kg) between two spring-dampers (c = 10 N/m,
    d = 1.5 N·s/m, s_rel0 = 1 m), mass2 (1 kg) between two ElastoGaps (the same c, d,
    s_rel0 = 1.5 m), the outer ends on rods of length 2 m either side of the fixed flange at 0,
    i.e. at −2 m and +2 m. Both masses (length 0) start at rest at s = 2 m, so
    springDamper1.s_rel = 4 m, springDamper2.s_rel = 0 m, elastoGap1.s_rel = 4 m (apart) and
    elastoGap2.s_rel = 0 m (compressed by 1.5 m). The rods are rigid and massless: the ends
    joined to the fixed flange by them are fixed flanges themselves."""
    m = Model("ElastoGap")
    fixed = m.add(tr.Fixed("fixed"))
    mass1 = m.add(tr.Mass("mass1", m=1.0, s0=2.0))
    mass2 = m.add(tr.Mass("mass2", m=1.0, s0=2.0))
    sd1 = m.add(tr.SpringDamper("springDamper1", c=10.0, d=1.5, s_rel0=1.0, s_rel_start=4.0))
    sd2 = m.add(tr.SpringDamper("springDamper2", c=10.0, d=1.5, s_rel0=1.0, s_rel_start=0.0))
    gap1 = m.add(tr.ElastoGap("elastoGap1", c=10.0, d=1.5, s_rel0=1.5, s_rel_start=4.0))
    gap2 = m.add(tr.ElastoGap("elastoGap2", c=10.0, d=1.5, s_rel0=1.5, s_rel_start=0.0))
    m.connect(fixed.flange, sd1.flange_a, sd2.flange_b, gap1.flange_a, gap2.flange_b)
    m.connect(sd1.flange_b, mass1.flange_a)
    m.connect(mass1.flange_b, sd2.flange_a)
    m.connect(gap1.flange_b, mass2.flange_a)
    m.connect(mass2.flange_b, gap2.flange_a)
    return m


ALPHA20_COPPER = 3.920e-3
"""[1/K] Modelica.Electrical.Machines.Thermal.Constants.alpha20Copper."""


def eddy_current_brake() -> Model:
    """Translational.Examples.EddyCurrentBrake: a mass (1 kg, 20 m/s) braked by an
    EddyCurrentForce (f_nominal = 100 N, v_nominal = 10 m/s, TRef = 293.15 K, alpha20 of copper)
    whose excitation ramps 0 → 1 from 0.1 s to 0.2 s; its loss heats a capacitor (C = 1 J/K,
    from 293.15 K) through the heat port."""
    m = Model("EddyCurrentBrake")
    brake = m.add(tr.EddyCurrentForce("eddyCurrentForce", f_nominal=100.0, v_nominal=10.0,
                                      TRef=293.15, alpha20=ALPHA20_COPPER, use_heat_port=True,
                                      excitation=Ramp(height=1.0, duration=0.1, t0=0.1)))
    mass = m.add(tr.Mass("mass", m=1.0, v0=20.0))
    capacitor = m.add(HeatCapacitor("heatCapacitor", C=1.0, T0=293.15))
    m.connect(brake.flange, mass.flange_a)
    m.connect(brake.heat_port, capacitor.port)
    return m


def heat_losses() -> Model:
    """Translational.Examples.HeatLosses: a chain of masses (1 kg, length 0.1 m each) whose
    dissipative parts all give their loss through heat ports to a convection (Gc = 20 W/K) to
    25 °C. A force 20·sin(2π·t) N drives mass1, held by a damper (d = 10) to a fixed flange
    and an ElastoGap (c = 100, d = 20, s_rel0 = −0.02 m) to another; a SpringDamper (c = 100,
    d = 10) joins mass2, which rubs in a SupportFriction (f_pos = [0, 1]), a spring (c = 100)
    mass3, braked by a Brake (fn_max = 10 N, f_normalized = 10·sin(4π·t): free on the negative
    half-waves), and a SpringDamper (c = 1e4, d = 1000) the MassWithStopAndFriction (F_prop =
    0.5, F_Coulomb = 1, F_Stribeck = 2, fexp = 2, stops 0 and 0.4 m). All at rest, springs
    relaxed, mass1 at s = 0: mass1's flanges at ∓0.05 m, so mass2.s = 0.1 m, mass3.s = 0.2 m,
    massWithStopAndFriction.s = 0.3 m; the damper spans 0.05 m, the ElastoGap −0.05 m
    (compressed 0.03 m past its s_rel0)."""
    m = Model("HeatLosses")
    fixed1, fixed2 = m.add(tr.Fixed("fixed1")), m.add(tr.Fixed("fixed2"))
    force = m.add(tr.Force("force", f=Sine(amplitude=20.0, f=1.0)))
    mass1 = m.add(tr.Mass("mass1", m=1.0))
    mass2 = m.add(tr.Mass("mass2", m=1.0, s0=0.1))
    mass3 = m.add(tr.Mass("mass3", m=1.0, s0=0.2))
    hot = dict(use_heat_port=True)
    damper = m.add(tr.Damper("damper", d=10.0, s_rel_start=0.05, **hot))
    gap = m.add(tr.ElastoGap("elastoGap", c=100.0, d=20.0, s_rel0=-0.02, s_rel_start=-0.05, **hot))
    spring_damper = m.add(tr.SpringDamper("springDamper", c=100.0, d=10.0, **hot))
    friction = m.add(tr.SupportFriction("supportFriction", **hot))
    spring = m.add(tr.Spring("spring", c=100.0))
    brake = m.add(tr.Brake("brake", fn_max=10.0, f_normalized=Sine(amplitude=10.0, f=2.0), **hot))
    spring_damper1 = m.add(tr.SpringDamper("springDamper1", c=1e4, d=1000.0, **hot))
    stop_mass = m.add(tr.MassWithStopAndFriction(
        "massWithStopAndFriction", m=1.0, L=0.1, F_prop=0.5, F_Coulomb=1.0, F_Stribeck=2.0,
        fexp=2.0, smin=0.0, smax=0.4, s0=0.3, **hot))
    convection = m.add(Convection("convection", Gc=20.0))
    ambient = m.add(FixedTemperature("TAmbient", T=298.15))
    m.connect(force.flange, mass1.flange_a, damper.flange_a, gap.flange_b)
    m.connect(damper.flange_b, fixed1.flange)
    m.connect(gap.flange_a, fixed2.flange)
    m.connect(mass1.flange_b, spring_damper.flange_a)
    m.connect(spring_damper.flange_b, mass2.flange_a)
    m.connect(mass2.flange_b, friction.flange_a)
    m.connect(friction.flange_b, spring.flange_a)
    m.connect(spring.flange_b, mass3.flange_a)
    m.connect(mass3.flange_b, brake.flange_a)
    m.connect(brake.flange_b, spring_damper1.flange_a)
    m.connect(spring_damper1.flange_b, stop_mass.flange_a)
    m.connect(convection.port_a, *(c.heat_port for c in (damper, gap, spring_damper, friction, brake,
                                                         spring_damper1, stop_mass)))
    m.connect(convection.port_b, ambient.port)
    return m


def test_braking() -> Model:
    """ModelicaTest.Translational.TestBraking: six masses (1 kg, from s = 0), each braked by one
    source on its flange_b: mass1 by LinearSpeedDependentForce (f_nominal = −100 N,
    v_nominal = 100 m/s), mass2 by QuadraticSpeedDependentForce (the same), mass3 by
    ConstantForce (−100 N), mass4 by SignForce (−100 N, v0 = 1 m/s, exponential
    regularization), mass6 by InverseSpeedDependentForce (−100 N, 100 m/s, v0 = 1 m/s), all
    from 100 m/s; mass5 (20 m/s) by the EddyCurrentForce of EddyCurrentBrake at full excitation,
    heating a capacitor (1 J/K from 293.15 K)."""
    m = Model("TestBraking")
    loads = {"mass1": tr.LinearSpeedDependentForce("linearSpeedDependentForce", f_nominal=-100.0,
                                                   v_nominal=100.0),
             "mass2": tr.QuadraticSpeedDependentForce("quadraticSpeedDependentForce",
                                                      f_nominal=-100.0, v_nominal=100.0),
             "mass3": tr.ConstantForce("constantForce", f_constant=-100.0),
             "mass4": tr.SignForce("signForce", f_nominal=-100.0, v0=1.0),
             "mass5": tr.EddyCurrentForce("eddyCurrentForce", f_nominal=100.0, v_nominal=10.0,
                                          TRef=293.15, alpha20=ALPHA20_COPPER, use_heat_port=True,
                                          excitation=1.0),
             "mass6": tr.InverseSpeedDependentForce("inverseSpeedDependentForce", f_nominal=-100.0,
                                                    v_nominal=100.0, v0=1.0)}
    for mass_name, load in loads.items():
        mass = m.add(tr.Mass(mass_name, m=1.0, v0=20.0 if mass_name == "mass5" else 100.0))
        m.connect(mass.flange_b, m.add(load).flange)
    m.connect(loads["mass5"].heat_port, m.add(HeatCapacitor("heatCapacitor", C=1.0, T0=293.15)).port)
    return m


VEHICLE = dict(m=1200.0, J=2.3, R=0.31, Cd=0.31, v0=27.777777777778)
VEHICLES = {  # name: (parameters, input given as a constant or a sine)
    "vehicleDrag": (dict(A=2.2, vWindConstant=-2.0, CrConstant=0.0), None),
    "vehicleDragInConst": (dict(A=2.2, CrConstant=0.0, useWindInput=True, vWind_start=-2.0),
                           ("vWind", -2.0)),
    "vehicleDragInVar": (dict(A=2.2, CrConstant=0.0, useWindInput=True, vWind_start=-2.0),
                         ("vWind", dict(amplitude=1.0, f=1.0, offset=-2.0))),
    "vehicleRoll": (dict(A=0.0, CrConstant=0.013), None),
    "vehicleRollInConst": (dict(A=0.0, useCrInput=True), ("cr", 0.013)),
    "vehicleRollInVar": (dict(A=0.0, useCrInput=True),
                         ("cr", dict(amplitude=0.013, f=0.5, offset=0.013))),
    "vehicleInclination": (dict(A=0.0, CrConstant=0.0, inclinationConstant=0.05), None),
    "vehicleInclinationInConst": (dict(A=0.0, CrConstant=0.0, useInclinationInput=True),
                                  ("inclination", 0.05)),
    "vehicleInclinationInVar": (dict(A=0.0, CrConstant=0.0, useInclinationInput=True),
                                ("inclination", dict(amplitude=-0.05, f=1.0, offset=0.05))),
}


def vehicles() -> Model:
    """ModelicaTest.Translational.Vehicles: nine vehicles (1200 kg, J = 2.3 kg·m², R = 0.31 m,
    Cd = 0.31) coasting from 100 km/h, flanges open: against drag only (A = 2.2 m², wind
    −2 m/s as a parameter, a constant input, or −2 + sin(2π·t) m/s), rolling resistance only
    (Cr = 0.013, as a parameter, a constant input or 0.013 + 0.013·sin(π·t)) and inclination
    only (0.05, as a parameter, a constant input or 0.05 − 0.05·sin(2π·t)). The MSL's inputs
    come from Constant and Sine blocks; the inputs here are given the same numbers and
    waveforms. The MSL starts the filtered wind at the input's value, −2 m/s: vWind_start."""
    m = Model("Vehicles")
    for name, (parameters, given) in VEHICLES.items():
        inputs = {} if given is None else \
            {given[0]: Sine(**given[1]) if isinstance(given[1], dict) else given[1]}
        m.add(tr.Vehicle(name, **VEHICLE, **parameters, **inputs))
    return m


def wind_displacement(name: str):
    """The MSL's ``<name>.windSpeed.s``, the wind source's integrated position (from 0): the
    integral of the wind velocity over the result's time points (trapezoids; the output
    interval, 0.4 ms, makes its error some 1e-8 m, far inside the tube)."""
    def integral(res):
        v = res[f"{name}.v_wind"]
        return np.concatenate([[0.0], np.cumsum(np.diff(res.t) * (v[1:] + v[:-1]) / 2)])
    return integral


def vehicle_signals() -> dict:
    """The MSL's vehicle-internal signals: inertia.phi/.w are the wheels', windSpeed.v the wind
    velocity, windSpeed.s its integral."""
    signals = {}
    for name in VEHICLES:
        signals.update({f"{name}.inertia.phi": f"{name}.phi", f"{name}.inertia.w": f"{name}.w",
                        f"{name}.windSpeed.v": f"{name}.v_wind",
                        f"{name}.windSpeed.s": wind_displacement(name)})
    return signals


def loss_power(name: str):
    """The MSL's ``<name>.lossPower``: the dissipated power f·v."""
    return lambda res: res[f"{name}.f"] * res[f"{name}.v"]


def mode_flags(*names: str) -> dict:
    return {f"{c}.{flag}": MODE_FLAGS for c in names for flag in ("startBackward", "startForward")}


EXAMPLES = [
    Example("Brake", "Modelica.Mechanics.Translational.Examples.Brake", brake, 2.0, 1e-6,
            not_compared=mode_flags("brake", "brake1")),
    Example("Accelerate", "Modelica.Mechanics.Translational.Examples.Accelerate", accelerate,
            1.0, 1e-6),
    Example("ElastoGap", "Modelica.Mechanics.Translational.Examples.ElastoGap", elasto_gap,
            5.0, 1e-6),
    Example("TranslationalEddyCurrentBrake", "Modelica.Mechanics.Translational.Examples.EddyCurrentBrake",
            eddy_current_brake, 1.0, 1e-6,
            signals={"eddyCurrentForce.lossPower": loss_power("eddyCurrentForce")}),
    Example("TranslationalTestBraking", "ModelicaTest.Translational.TestBraking", test_braking, 2.0, 1e-6),
    Example("Vehicles", "ModelicaTest.Translational.Vehicles", vehicles, 2.0, 1e-6,
            signals=vehicle_signals()),
]
