"""The Modelica Standard Library examples that ``tests/test_msl_corpus.py`` compares with the
Modelica Association's reference results (tests/data/msl/<Example>/, sources and licence in
tests/data/README.md), one builder per example.

Each builder rebuilds its MSL example (tag v4.1.0) from physlib's components, with the MSL's
instance names, so that most comparison signals have the same path in both. Start values that
the MSL gives as geometry (a mass's length, a fixed flange's position) or as initial equations
are worked out by hand in the builder's docstring. Where physlib's name for a signal differs
(a component of another class standing in for the MSL's, a state kept in other units), the
example's ``signals`` maps the MSL name to physlib's; a comparison signal physlib has no
counterpart for is listed in ``not_compared`` with the reason.
"""
from __future__ import annotations

import importlib
import importlib.util
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from physlib import Model
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.electrical import (BehaviouralSource, Capacitor, CurrentSensor,
                                           CurrentSource, EMF, Ground, IdealDiode, IdealOpAmp,
                                           Inductor, OpAmp, Resistor, VoltageSensor, VoltageSource)
from physlib.components.signals import (PID, Add, Constant, Gain, Integrator, Limiter, Product,
                                        Ramp, Sine, Step, TransferFunction, Trapezoid)
from physlib.components.thermal import HeatCapacitor, ThermalConductor

Signal = str | Callable[[object], np.ndarray]


@dataclass(frozen=True)
class Example:
    """One MSL example: how to build it, how MAP-LIB ran it, and how its signals map.

    ``tolerance`` is the experiment's Tolerance (MAP-LIB's creation.txt), which physlib runs
    at as its relative tolerance. ``signals`` maps an MSL comparison signal to a physlib
    variable path or to a function of the result; any other compared signal has the same path
    in both. ``premises`` are conditions on physlib's result under which a stand-in component
    equals the MSL's (a load turning forward), each with what it says."""

    name: str
    msl_class: str
    build: Callable[[], Model]
    stop_time: float
    tolerance: float
    signals: dict[str, Signal] = field(default_factory=dict)
    not_compared: dict[str, str] = field(default_factory=dict)
    premises: tuple[tuple[str, Callable[[object], bool]], ...] = ()

    def physlib_signal(self, result, msl_name: str) -> np.ndarray:
        source = self.signals.get(msl_name, msl_name)
        return source(result) if callable(source) else result[source]


# --- Mechanics.Rotational ---------------------------------------------------------------------

def first(grounded: bool = False) -> Model:
    """Rotational.Examples.First (``grounded``: FirstGrounded, the same train with the torque
    source's and the gear's housings fixed inside them instead of connected to ``fixed``).

    Torque 10·sin(2π·5·t) on inertia1 (0.1 kg·m²), ideal gear ratio 10, inertia2 (2 kg·m²),
    spring c = 1e4 N·m/rad to inertia3 (2 kg·m²), damper d = 10 from inertia2 to the housing;
    everything at rest, the spring relaxed. inertia3's flange_b is free (left open)."""
    m = Model("FirstGrounded" if grounded else "First")
    fixed = m.add(rot.Fixed("fixed"))
    torque = m.add(rot.Torque("torque", tau=Sine(amplitude=10.0, f=5.0), use_support=not grounded))
    inertia1 = m.add(rot.Inertia("inertia1", J=0.1))
    gear = m.add(rot.IdealGear("idealGear", ratio=10.0, use_support=not grounded))
    inertia2 = m.add(rot.Inertia("inertia2", J=2.0))
    spring = m.add(rot.Spring("spring", c=1e4))
    inertia3 = m.add(rot.Inertia("inertia3", J=2.0))
    damper = m.add(rot.Damper("damper", d=10.0))
    m.connect(torque.flange, inertia1.flange_a)
    m.connect(inertia1.flange_b, gear.flange_a)
    m.connect(gear.flange_b, inertia2.flange_a)
    m.connect(inertia2.flange_b, spring.flange_a, damper.flange_a)
    m.connect(spring.flange_b, inertia3.flange_a)
    housing = [] if grounded else [torque.support, gear.support]
    m.connect(damper.flange_b, fixed.flange, *housing)
    return m


def coupled_clutches() -> Model:
    """Rotational.Examples.CoupledClutches: physlib's example ``examples/coupled_clutches.py``
    builds it (the same instance names)."""
    path = Path(__file__).resolve().parents[1] / "examples" / "coupled_clutches.py"
    spec = importlib.util.spec_from_file_location("coupled_clutches", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build()


def elastic_bearing() -> Model:
    """Rotational.Examples.ElasticBearing: a ramped torque (0 → 100 N·m over 5 s) drives the
    shaft (1 kg·m²) into an ideal gear (ratio 3) whose housing (5 kg·m²) sits on an elastic
    bearing, a spring-damper (c = 1e5 N·m/rad, d = 5 N·m·s/rad) to the ground; a spring
    (c = 1e3) carries the gear's output to the load (50 kg·m²). All at rest, springs relaxed.

    The MSL measures the bearing torque with a MultiSensor (torque, speed, power), rigid and
    drawing nothing; a TorqueSensor stands in for it (none of its outputs is compared)."""
    m = Model("ElasticBearing")
    fixed = m.add(rot.Fixed("fixed"))
    torque = m.add(rot.Torque("torque", tau=Ramp(height=100.0, duration=5.0), use_support=True))
    shaft = m.add(rot.Inertia("shaft", J=1.0))
    gear = m.add(rot.IdealGear("idealGear", ratio=3.0, use_support=True))
    spring = m.add(rot.Spring("spring", c=1e3))
    load = m.add(rot.Inertia("load", J=50.0))
    housing = m.add(rot.Inertia("housing", J=5.0))
    sensor = m.add(rot.TorqueSensor("multiSensor"))
    bearing = m.add(rot.SpringDamper("springDamper", c=1e5, d=5.0))
    m.connect(torque.flange, shaft.flange_a)
    m.connect(shaft.flange_b, gear.flange_a)
    m.connect(gear.flange_b, spring.flange_a)
    m.connect(spring.flange_b, load.flange_a)
    m.connect(gear.support, housing.flange_b)
    m.connect(housing.flange_a, sensor.flange_b)
    m.connect(sensor.flange_a, bearing.flange_b)
    m.connect(bearing.flange_a, fixed.flange, torque.support)
    return m


def simple_gear_shift() -> Model:
    """Rotational.Examples.SimpleGearShift: an engine (1 kg·m²) driven by a 20 N·m torque step
    at 0.5 s turns the sun of a planetary gear (ring/sun = 75/50) whose carrier drives the load
    (10 kg·m²) against a quadratic drag. A brake holds the ring (pressed with 1 − ramp) until a
    clutch (pressed with ramp, rising 0 → 1 from 2 s to 2.1 s) locks ring and sun together.
    Clutch and brake: mu = 0.5, peak 1, cgeo = 2, fn_max = 100 N. All at rest at the start.

    QuadraticSpeedDependentTorque (tau_nominal = −20 N·m at w_nominal = 10.471975511966
    rad/s, TorqueDirection = true: tau = tau_nominal·(w/w_nominal)², the same sign in both
    directions) is built from a speed sensor, a product w·w and a gain driving a torque source.
    The clutch's relative angle is a difference of the sun's and the ring's angles; the ring
    has no inertia, so an angle sensor on it (drawing no torque) gives it an angle."""
    m = Model("SimpleGearShift")
    step = m.add(rot.Torque("torqueStep", tau=Step(height=20.0, t0=0.5)))
    engine = m.add(rot.Inertia("engine", J=1.0))
    planetary = m.add(rot.IdealPlanetary("idealPlanetary", ratio=75 / 50))
    load = m.add(rot.Inertia("load", J=10.0))
    clutch = m.add(rot.Clutch("clutch", mu=0.5, peak=1.0, cgeo=2.0, fn_max=100.0))
    brake = m.add(rot.Brake("brake", mu=0.5, peak=1.0, cgeo=2.0, fn_max=100.0))
    ramp = m.add(Ramp("ramp", height=1.0, duration=0.1, t0=2.0))
    feedback = m.add(Add("feedback", k1=1.0, k2=-1.0, u1=1.0))
    ring_angle = m.add(rot.AngleSensor("ringAngle"))
    drag = quadratic_speed_dependent_torque(m, "quadraticSpeedDependentTorque",
                                            tau_nominal=-20.0, w_nominal=10.471975511966)
    m.connect(step.flange, engine.flange_a)
    m.connect(engine.flange_b, planetary.sun, clutch.flange_a)
    m.connect(planetary.ring, clutch.flange_b, brake.flange_a, ring_angle.flange)
    m.connect(planetary.carrier, load.flange_a)
    m.connect(load.flange_b, drag)
    m.connect(ramp.y, clutch.f_normalized, feedback.u2)
    m.connect(feedback.y, brake.f_normalized)
    return m


def quadratic_speed_dependent_torque(m: Model, name: str, tau_nominal: float, w_nominal: float):
    """MSL's QuadraticSpeedDependentTorque with TorqueDirection = true, tau =
    tau_nominal·(w/w_nominal)² accelerating the flange, as a speed sensor, a product w·w, a
    gain and a torque source added to ``m`` (named ``name``_…); returns the flange to connect."""
    sensor = m.add(rot.SpeedSensor(f"{name}_speed"))
    square = m.add(Product(f"{name}_square"))
    gain = m.add(Gain(f"{name}_gain", k=tau_nominal / w_nominal**2))
    torque = m.add(rot.Torque(name))
    m.connect(sensor.w, square.u1, square.u2)
    m.connect(square.y, gain.u)
    m.connect(gain.y, torque.tau)
    m.connect(torque.flange, sensor.flange)
    return torque.flange


# --- Mechanics.Translational ------------------------------------------------------------------
# The MSL's Mass has a length L and a position s at its centre, its flanges at s ∓ L/2; a Fixed
# flange has a position s0. physlib's flanges carry velocities only: a mass's s starts at the
# MSL's s (its centre), and a compliant element's s_rel starts at flange_b.s − flange_a.s worked
# out from the MSL's lengths and positions.

def damper() -> Model:
    """Translational.Examples.Damper: three masses (1 kg, L = 1 m) start at s = 3 m with
    v = 10 m/s towards a wall at 4.5 m: mass1 through damper1 (d = 25 N·s/m), mass2 through
    damper2 with spring2 (c = 1 N/m, s_rel0 = 1 m) in parallel, mass3 through springDamper3
    (d = 25, c = 1, s_rel0 = 1). Each coupling starts at s_rel = 4.5 − (3 + 0.5) = 1 m."""
    m = Model("Damper")
    for k in (1, 2, 3):
        mass = m.add(tr.Mass(f"mass{k}", m=1.0, s0=3.0, v0=10.0))
        fixed = m.add(tr.Fixed(f"fixed{k}"))
        if k == 1:
            couplings = [m.add(tr.Damper("damper1", d=25.0, s_rel_start=1.0))]
        elif k == 2:
            couplings = [m.add(tr.Damper("damper2", d=25.0, s_rel_start=1.0)),
                         m.add(tr.Spring("spring2", c=1.0, s_rel0=1.0, s_rel_start=1.0))]
        else:
            couplings = [m.add(tr.SpringDamper("springDamper3", c=1.0, d=25.0, s_rel0=1.0,
                                               s_rel_start=1.0))]
        m.connect(mass.flange_b, *(c.flange_a for c in couplings))
        m.connect(fixed.flange, *(c.flange_b for c in couplings))
    return m


def oscillator() -> Model:
    """Translational.Examples.Oscillator: two masses (1 kg, L = 1 m, centre at −0.5 m, at rest)
    driven by sin(2π·15.9155·t) N, each tied by a spring (c = 1e4 N/m, s_rel0 = 1 m) to a wall
    at 1 m, so each spring starts relaxed (1 − (−0.5 + 0.5) = 1 m); damper1 (d = 10 N·s/m)
    in parallel with spring2."""
    m = Model("Oscillator")
    for k in (1, 2):
        force = m.add(tr.Force(f"force{k}", f=Sine(amplitude=1.0, f=15.9155)))
        mass = m.add(tr.Mass(f"mass{k}", m=1.0, s0=-0.5))
        spring = m.add(tr.Spring(f"spring{k}", c=1e4, s_rel0=1.0, s_rel_start=1.0))
        fixed = m.add(tr.Fixed(f"fixed{k}"))
        ends = [spring.flange_a], [spring.flange_b, fixed.flange]
        if k == 2:
            damper1 = m.add(tr.Damper("damper1", d=10.0, s_rel_start=1.0))
            ends[0].append(damper1.flange_a)
            ends[1].append(damper1.flange_b)
        m.connect(force.flange, mass.flange_a)
        m.connect(mass.flange_b, *ends[0])
        m.connect(*ends[1])
    return m


def initial_conditions() -> Model:
    """Translational.Examples.InitialConditions: two chains of masses and springs.

    Chain 1: wall at 1 m — s2 (c = 1e3 N/m, s_rel0 = 2 m) — m3 (L = 3 m, s = 4.5 m) — sd2
    (c = 111 N/m, d = 1 N·s/m, s_rel0 = 4 m) — m4 (L = 5 m, s = 12.5 m), all at rest: s2 starts
    at 4.5 − 1.5 − 1 = 2 m and sd2 at (12.5 − 2.5) − (4.5 + 1.5) = 4 m, both relaxed.
    Chain 2: wall at −1 m — s1 (c = 1e3, s_rel0 = 1, starting at 0.5 m) — m1 (L = 1 m, at rest)
    — sd1 (c = 111, d = 1, s_rel0 = 1, starting at 1 m, v_rel = 0) — m2 (L = 2 m). So m1
    starts at s = −1 + 0.5 + 0.5 = 0 m and m2 at 0.5 + 1 + 1 = 2.5 m, both at rest."""
    m = Model("InitialConditions")
    fixed2, fixed1 = m.add(tr.Fixed("fixed2")), m.add(tr.Fixed("fixed1"))
    s2 = m.add(tr.Spring("s2", c=1e3, s_rel0=2.0, s_rel_start=2.0))
    m3 = m.add(tr.Mass("m3", m=1.0, s0=4.5))
    sd2 = m.add(tr.SpringDamper("sd2", c=111.0, d=1.0, s_rel0=4.0, s_rel_start=4.0))
    m4 = m.add(tr.Mass("m4", m=1.0, s0=12.5))
    s1 = m.add(tr.Spring("s1", c=1e3, s_rel0=1.0, s_rel_start=0.5))
    m1 = m.add(tr.Mass("m1", m=1.0, s0=0.0))
    sd1 = m.add(tr.SpringDamper("sd1", c=111.0, d=1.0, s_rel0=1.0, s_rel_start=1.0))
    m2 = m.add(tr.Mass("m2", m=1.0, s0=2.5))
    for chain in ((fixed2, s2, m3, sd2, m4), (fixed1, s1, m1, sd1, m2)):
        m.connect(chain[0].flange, chain[1].flange_a)
        for left, right in zip(chain[1:], chain[2:]):
            m.connect(left.flange_b, right.flange_a)
    return m


def sign_convention() -> Model:
    """Translational.Examples.SignConvention: three 1 kg masses at rest, each pushed by a
    1 N force source: on mass1's flange_a, on mass2's flange_b, and on mass3's flange_b
    with the source's housing on a fixed flange. All three move forward alike."""
    m = Model("SignConvention")
    fixed = m.add(tr.Fixed("fixed"))
    for k, flange in ((1, "flange_a"), (2, "flange_b"), (3, "flange_b")):
        mass = m.add(tr.Mass(f"mass{k}", m=1.0))
        force = m.add(tr.Force(f"force{k}", f=Constant(k=1.0), use_support=k == 3))
        m.connect(force.flange, getattr(mass, flange))
        if k == 3:
            m.connect(force.support, fixed.flange)
    return m


def why_arrows() -> Model:
    """Translational.Examples.WhyArrows: two identical set-ups, each a mass (1 kg, L = 2 m,
    centre at 0, at rest) whose flange_b hangs on a spring (c = 11 N/m, s_rel0 = 2 m) from a
    wall at −1.9 m: the spring starts at (0 + 1) − (−1.9) = 2.9 m, stretched by 0.9 m.

    The MSL example also holds three rods (massless, rigid) from a fixed flange to position
    sensors, showing how a rod's direction sets the sign of a position; they touch neither
    mass and none of their signals is compared, so they are left out (physlib has no Rod)."""
    m = Model("WhyArrows")
    for wall, spring_name, mass_name in (("fixed1", "spring1", "mass1"),
                                         ("fixed2", "spring2", "inertia2")):
        fixed = m.add(tr.Fixed(wall))
        spring = m.add(tr.Spring(spring_name, c=11.0, s_rel0=2.0, s_rel_start=2.9))
        mass = m.add(tr.Mass(mass_name, m=1.0))
        m.connect(fixed.flange, spring.flange_a)
        m.connect(spring.flange_b, mass.flange_b)
    return m


def sensors() -> Model:
    """Translational.Examples.Sensors: a force 10·sin(2π·4·t) N through a force sensor and a
    MultiSensor (a second ForceSensor here: rigid, its outputs not compared) on a 1 kg mass
    (L = 1 m) at rest at 0, with position and speed sensors on its flanges. The MSL's
    acceleration sensor (no physlib counterpart; draws no force) is left out."""
    m = Model("Sensors")
    force = m.add(tr.Force("force", f=Sine(amplitude=10.0, f=4.0)))
    force_sensor = m.add(tr.ForceSensor("forceSensor"))
    multi_sensor = m.add(tr.ForceSensor("multiSensor"))
    mass = m.add(tr.Mass("mass", m=1.0))
    position1 = m.add(tr.PositionSensor("positionSensor1", s0=-0.5))
    speed1 = m.add(tr.SpeedSensor("speedSensor1"))
    position2 = m.add(tr.PositionSensor("positionSensor2", s0=0.5))
    m.connect(force.flange, force_sensor.flange_a)
    m.connect(force_sensor.flange_b, multi_sensor.flange_a)
    m.connect(multi_sensor.flange_b, mass.flange_a, position1.flange, speed1.flange)
    m.connect(mass.flange_b, position2.flange)
    return m


# --- Thermal.HeatTransfer ---------------------------------------------------------------------

def two_masses() -> Model:
    """Thermal.HeatTransfer.Examples.TwoMasses: two heat capacitors (15 J/K each) at
    373.15 K and 273.15 K joined by a thermal conductor of 10 W/K."""
    m = Model("TwoMasses")
    mass1 = m.add(HeatCapacitor("mass1", C=15.0, T0=373.15))
    mass2 = m.add(HeatCapacitor("mass2", C=15.0, T0=273.15))
    conduction = m.add(ThermalConductor("conduction", G=10.0))
    m.connect(mass1.port, conduction.port_a)
    m.connect(conduction.port_b, mass2.port)
    return m


# --- Electrical.Analog ------------------------------------------------------------------------

def variable_frequency_source(m: Model, name: str, kind: str, wave: str, frequency) -> object:
    """The MSL's Sine/Cosine Voltage/Current VariableFrequencyAndAmplitude with a constant
    amplitude of 1: phase phi = ∫ 2π·f dt from 0 (an integrator named ``name``_phi) and the
    value ``wave``(phi) (a behavioural source ``name``, kind "V" or "I"); ``frequency`` is the
    signal output giving f. Returns the source."""
    phase = m.add(Integrator(f"{name}_phi", k=2 * math.pi))
    source = m.add(BehaviouralSource(name, kind=kind, expr=f"{wave}(c1)"))
    m.connect(frequency, phase.u)
    m.connect(phase.y, source.c1)
    return source


def series_resonance() -> Model:
    """Electrical.Analog.Examples.SeriesResonance: two series circuits, source → inductor
    (0.1/(2π) H) → capacitor (0.001/(2π) F) → resistor (0.5 Ω) → current sensor → ground, the
    sources sin(phi) and cos(phi) V with the frequency ramping 0 → 200 Hz over 1 s (resonance
    at 100 Hz); currents and voltages start at 0. The current sensors (shorts in series whose
    outputs nothing reads) are left out."""
    m = Model("SeriesResonance")
    ramp = m.add(Ramp("ramp", height=200.0, duration=1.0))
    for k, (name, wave) in enumerate((("sineVoltage", "sin"), ("cosineVoltage", "cos")), 1):
        source = variable_frequency_source(m, name, "V", wave, ramp.y)
        ground = m.add(Ground(f"ground{k}"))
        inductor = m.add(Inductor(f"inductor{k}", L=0.1 / (2 * math.pi)))
        capacitor = m.add(Capacitor(f"capacitor{k}", C=0.001 / (2 * math.pi)))
        resistor = m.add(Resistor(f"resistor{k}", R=0.5))
        m.connect(source.p, inductor.p)
        m.connect(inductor.n, capacitor.p)
        m.connect(capacitor.n, resistor.p)
        m.connect(resistor.n, source.n, ground.p)
    return m


def parallel_resonance() -> Model:
    """Electrical.Analog.Examples.ParallelResonance: two current sources sin(phi) and cos(phi)
    A (frequency ramping 0 → 200 Hz over 1 s) from ground into a node that holds a capacitor
    (0.001/(2π) F) and a resistor (0.5 Ω) in series with an inductor (0.1/(2π) H) to ground;
    all at rest. The voltage sensors draw nothing and nothing reads them: left out."""
    m = Model("ParallelResonance")
    ramp = m.add(Ramp("ramp", height=200.0, duration=1.0))
    for k, (name, wave) in enumerate((("sineCurrent", "sin"), ("cosineCurrent", "cos")), 1):
        source = variable_frequency_source(m, name, "I", wave, ramp.y)
        ground = m.add(Ground(f"ground{k}"))
        resistor = m.add(Resistor(f"resistor{k}", R=0.5))
        inductor = m.add(Inductor(f"inductor{k}", L=0.1 / (2 * math.pi)))
        capacitor = m.add(Capacitor(f"capacitor{k}", C=0.001 / (2 * math.pi)))
        m.connect(source.n, resistor.p, capacitor.p)
        m.connect(resistor.n, inductor.p)
        m.connect(source.p, inductor.n, capacitor.n, ground.p)
    return m


def resonance_circuits() -> Model:
    """Electrical.Analog.Examples.ResonanceCircuits at its defaults (C = 0.01 F, L = 0.01 H,
    source at the resonance frequency 1/(2π·√(L·C)) = 15.915 Hz): a sine current (1 A) into
    inductor1 ∥ conductor1 (1 S) ∥ capacitor1, and a sine voltage (1 V) across inductor2,
    resistor2 (1 Ω) and capacitor2 in series; all at rest.

    The MSL joins the elements through pairs of signal adaptors (General{Voltage,Current}To
    {Current,Voltage}Adaptor, to cut the circuits into FMUs): each pair passes one element's
    voltage to the other side and the current back, an ideal connection, so here the
    elements are connected directly."""
    L, C = 0.01, 0.01
    f = 1 / (2 * math.pi * math.sqrt(L * C))
    m = Model("ResonanceCircuits")
    current1 = m.add(CurrentSource("current1", I=Sine(amplitude=1.0, f=f)))
    ground1 = m.add(Ground("ground1"))
    inductor1 = m.add(Inductor("inductor1", L=L))
    conductor1 = m.add(Resistor("conductor1", R=1.0))
    capacitor1 = m.add(Capacitor("capacitor1", C=C))
    m.connect(current1.n, inductor1.p, conductor1.p, capacitor1.p)
    m.connect(current1.p, inductor1.n, conductor1.n, capacitor1.n, ground1.p)
    voltage2 = m.add(VoltageSource("voltage2", V=Sine(amplitude=1.0, f=f)))
    ground2 = m.add(Ground("ground2"))
    inductor2 = m.add(Inductor("inductor2", L=L))
    resistor2 = m.add(Resistor("resistor2", R=1.0))
    capacitor2 = m.add(Capacitor("capacitor2", C=C))
    m.connect(voltage2.p, inductor2.p)
    m.connect(inductor2.n, resistor2.p)
    m.connect(resistor2.n, capacitor2.p)
    m.connect(capacitor2.n, voltage2.n, ground2.p)
    return m


def characteristic_ideal_diodes() -> Model:
    """Electrical.Analog.Examples.CharacteristicIdealDiodes: three ideal diodes, each from a
    sine source (10 V, 1 Hz) through a 1 mΩ resistor to ground: "Ideal" (Ron = Goff = 0,
    Vknee = 0, source offset 0), "With_Ron_Goff" (Ron = 0.1 Ω, Goff = 0.1 S, offset −9 V) and
    "With_Ron_Goff_Vknee" (Ron = 0.2 Ω, Goff = 0.2 S, Vknee = 5 V, offset 0)."""
    m = Model("CharacteristicIdealDiodes")
    ground = m.add(Ground("Ground1"))
    for k, (name, Ron, Goff, Vknee, offset) in enumerate((
            ("Ideal", 0.0, 0.0, 0.0, 0.0), ("With_Ron_Goff", 0.1, 0.1, 0.0, -9.0),
            ("With_Ron_Goff_Vknee", 0.2, 0.2, 5.0, 0.0)), 1):
        source = m.add(VoltageSource(f"SineVoltage{k}",
                                     V=Sine(amplitude=10.0, f=1.0, offset=offset)))
        diode = m.add(IdealDiode(name, Ron=Ron, Goff=Goff, Vknee=Vknee))
        resistor = m.add(Resistor(f"R{k}", R=1e-3))
        m.connect(source.p, diode.p)
        m.connect(diode.n, resistor.p)
        m.connect(resistor.n, source.n, ground.p)
    return m


def trapezoid_input(V: float, offset: float, f: float = 10.0) -> Trapezoid:
    """The OpAmps examples' input vIn: a trapezoid of height V from ``offset``, rising and
    falling in 0.2/f, flat for 0.3/f, period 1/f, started at −(rising + width/2) so that t = 0
    is the middle of its top."""
    rising, width = 0.2 / f, 0.3 / f
    return Trapezoid(amplitude=V, offset=offset, rising=rising, width=width, falling=0.2 / f,
                     period=1 / f, t0=-(rising + width / 2))


def inverting_amp() -> Model:
    """Electrical.Analog.Examples.InvertingAmp: a trapezoid ±5 V at 10 Hz through r1 = 1 kΩ
    into an op-amp's inverting input, r2 = 2 kΩ back from its output, non-inverting input
    grounded. The MSL's IdealOpAmpLimited is ideal between its ±15 V supplies, and the output
    (±10 V) never reaches them: physlib's IdealOpAmp. Only the input signal is compared."""
    m = Model("InvertingAmp")
    ground = m.add(Ground("ground"))
    vin = m.add(VoltageSource("vIn", V=trapezoid_input(10.0, -5.0)))
    r1, r2 = m.add(Resistor("r1", R=1e3)), m.add(Resistor("r2", R=2e3))
    op_amp = m.add(IdealOpAmp("opAmp"))
    v_out = m.add(VoltageSensor("vOut"))
    m.connect(vin.p, r1.p)
    m.connect(r1.n, r2.n, op_amp.in_n)
    m.connect(r2.p, op_amp.out, v_out.p)
    m.connect(ground.p, op_amp.in_p, vin.n, v_out.n)
    return m



# --- Electrical.Analog.Examples.OpAmps --------------------------------------------------------
# These examples use the MSL's IdealizedOpAmpLimited: an output to ground of V0·(in_p.v −
# in_n.v) (no-load gain V0 = 15000 by default), clipped to its supply voltages: physlib's
# OpAmp. (With an ideal op-amp the closed-loop gain would be off by up to (1 + R2/R1)/V0, 1 %
# in DifferentialAmplifier.)

def idealized_op_amp(m: Model, V0: float = 15000.0, **supply) -> OpAmp:
    """Adds the op-amp "opAmp" (gain V0, ±15 V supplies or ``supply`` options) to ``m``."""
    return m.add(OpAmp("opAmp", V0=V0, **supply))


def op_amp_circuit(name: str, wiring: Callable[[Model, OpAmp], dict]) -> Model:
    """One of the MSL's OpAmpCircuits (a four-pin p1, n1 → p2, n2 around an op-amp):
    ``wiring(model, op_amp)`` adds its resistors and capacitors and returns the pins to expose
    by name."""
    circuit = Model(name)
    op_amp = idealized_op_amp(circuit)
    for pin_name, pin in wiring(circuit, op_amp).items():
        circuit.expose(pin, pin_name)
    return circuit


def inverting_gain(name: str, k: float, R1: float = 1e3) -> Model:
    """OpAmpCircuits.Gain: r1 from p1 to the inverting input, r2 = k·r1 back from the output;
    n1 = n2 = the non-inverting input, p2 = the output (gain −k)."""
    def wiring(c, op_amp):
        r1, r2 = c.add(Resistor("r1", R=R1)), c.add(Resistor("r2", R=k * R1))
        c.connect(r1.n, r2.n, op_amp.in_n)
        c.connect(op_amp.out, r2.p)
        return {"p1": r1.p, "n1": op_amp.in_p, "p2": op_amp.out, "n2": op_amp.in_p}
    return op_amp_circuit(name, wiring)


def buffer(name: str, k: float, R1: float = 1e3) -> Model:
    """OpAmpCircuits.Buffer: p1 on the non-inverting input, the output divided by r2 =
    (k − 1)·R1 over r1 = R1 back to the inverting input (gain k); n1 = n2 = r1's foot."""
    def wiring(c, op_amp):
        r1, r2 = c.add(Resistor("r1", R=R1)), c.add(Resistor("r2", R=(k - 1) * R1))
        c.connect(op_amp.out, r2.p)
        c.connect(r2.n, r1.p, op_amp.in_n)
        return {"p1": op_amp.in_p, "n1": r1.n, "p2": op_amp.out, "n2": r1.n}
    return op_amp_circuit(name, wiring)


def integrating(name: str, k: float, f: float, R: float = 1e3) -> Model:
    """OpAmpCircuits.Integrator: r from p1 to the inverting input, capacitor c = 1/(k·2π·f·R)
    from the output back to it (gain k at f), starting uncharged."""
    def wiring(c, op_amp):
        r = c.add(Resistor("r", R=R))
        cap = c.add(Capacitor("c", C=1 / k / (2 * math.pi * f * R)))
        c.connect(r.n, op_amp.in_n, cap.n)
        c.connect(op_amp.out, cap.p)
        return {"p1": r.p, "n1": op_amp.in_p, "p2": op_amp.out, "n2": op_amp.in_p}
    return op_amp_circuit(name, wiring)


def first_order(name: str, T: float, k: float = 1.0, R1: float = 1e3) -> Model:
    """OpAmpCircuits.FirstOrder: r1 from p1 to the inverting input, r2 = k·R1 in parallel
    with c = T/r2 from the output back to it (gain −k, time constant T), starting uncharged."""
    def wiring(c, op_amp):
        r1, r2 = c.add(Resistor("r1", R=R1)), c.add(Resistor("r2", R=k * R1))
        cap = c.add(Capacitor("c", C=T / (k * R1)))
        c.connect(r1.n, op_amp.in_n, r2.n, cap.n)
        c.connect(op_amp.out, r2.p, cap.p)
        return {"p1": r1.p, "n1": op_amp.in_p, "p2": op_amp.out, "n2": op_amp.in_p}
    return op_amp_circuit(name, wiring)


def adding(name: str, R: float = 1e3) -> Model:
    """OpAmpCircuits.Add (weights 1, 1): p1 and p1_2 through r1 = r2 = R into the inverting
    input, r = R back from the output: p2 = −(v1 + v1_2)."""
    def wiring(c, op_amp):
        r1, r2, r = (c.add(Resistor(n, R=R)) for n in ("r1", "r2", "r"))
        c.connect(op_amp.in_n, r1.n, r2.n, r.n)
        c.connect(op_amp.out, r.p)
        return {"p1": r1.p, "p1_2": r2.p, "n1": op_amp.in_p, "p2": op_amp.out, "n2": op_amp.in_p}
    return op_amp_circuit(name, wiring)


def subtracting(name: str, R1: float = 1e3) -> Model:
    """OpAmpCircuits.Feedback (k = 1): p1 through r1 into the inverting input with r3 back
    from the output, p1_2 through r2 into the non-inverting input with r4 to n1; all R1:
    p2 = v1_2 − v1."""
    def wiring(c, op_amp):
        r1, r2, r3, r4 = (c.add(Resistor(n, R=R1)) for n in ("r1", "r2", "r3", "r4"))
        c.connect(r1.n, op_amp.in_n, r3.n)
        c.connect(op_amp.out, r3.p)
        c.connect(r2.n, op_amp.in_p, r4.p)
        return {"p1": r1.p, "p1_2": r2.p, "n1": r4.n, "p2": op_amp.out, "n2": r4.n}
    return op_amp_circuit(name, wiring)


def four_pin_example(name: str, circuit: Model, inputs: dict) -> Model:
    """An OpAmps example around one OpAmpCircuit: ``inputs`` maps its input pins (p1, p1_2)
    to source voltages (numbers or waveforms) from ground; n1 is grounded and a voltage sensor
    vOut reads n2 − p2, as the MSL's examples have it."""
    m = Model(name)
    ground = m.add(Ground("ground"))
    m.add(circuit)
    v_out = m.add(VoltageSensor("vOut"))
    for k, (pin, value) in enumerate(inputs.items(), 1):
        source = m.add(VoltageSource("vIn" if len(inputs) == 1 else f"vIn{k}", V=value))
        m.connect(source.p, getattr(circuit, pin))
        m.connect(source.n, ground.p)
    m.connect(circuit.n1, ground.p)
    m.connect(v_out.p, circuit.n2)
    m.connect(v_out.n, circuit.p2)
    return m


def voltage_follower() -> Model:
    """OpAmps.VoltageFollower: the trapezoid ±5 V (10 Hz) through ri = 1 Ω into an op-amp
    wired as a follower (output on the inverting input), loaded with rl = 1 Ω."""
    m = Model("VoltageFollower")
    ground = m.add(Ground("ground"))
    vin = m.add(VoltageSource("vIn", V=trapezoid_input(10.0, -5.0)))
    op_amp = idealized_op_amp(m)
    ri, rl = m.add(Resistor("ri", R=1.0)), m.add(Resistor("rl", R=1.0))
    v_out = m.add(VoltageSensor("vOut"))
    m.connect(vin.p, ri.p)
    m.connect(ri.n, op_amp.in_p)
    m.connect(op_amp.out, op_amp.in_n, rl.p, v_out.p)
    m.connect(ground.p, vin.n, rl.n, v_out.n)
    return m


def differential_amplifier() -> Model:
    """OpAmps.DifferentialAmplifier with its data record's defaults: two sources of
    √(2/3)·400 V at 50 Hz, phases ±60°, from the source's ground (a 10 Ω load between them),
    measured by a difference amplifier of attenuation k = 100 (R1 = R2 = 100 kΩ, R3 = R4 =
    1 kΩ, op-amp gain V0 = 1e4) whose own ground (supplies, R4's foot, a 100 kΩ instrument
    load and the output sensor) is tied to the source's ground by RGround = 100 kΩ only.

    The op-amp's supply pins (useSupply) take ±15 V from the amplifier's ground; its output
    is referred to the true ground (its v_out = out.v), as the MSL's. The gain block (−1/k of
    the source voltage) and the RMS meter on the output feed nothing compared."""
    VSource, f, V0 = 400.0, 50.0, 10e3
    R1, k = 100e3, 100.0
    m = Model("DifferentialAmplifier")
    ground = m.add(Ground("ground"))
    amplitude = math.sqrt(2 / 3) * VSource
    source1 = m.add(VoltageSource("sourceVoltage1", V=Sine(amplitude=amplitude, f=f,
                                                           phase=1.0471975511966)))
    source2 = m.add(VoltageSource("sourceVoltage2", V=Sine(amplitude=amplitude, f=f,
                                                           phase=-1.0471975511966)))
    load = m.add(Resistor("resistanceLoad", R=10.0))
    r_ground = m.add(Resistor("resistorGround", R=100e3))
    r1, r2 = m.add(Resistor("resistor1", R=R1)), m.add(Resistor("resistor2", R=R1))
    r3, r4 = m.add(Resistor("resistor3", R=R1 / k)), m.add(Resistor("resistor4", R=R1 / k))
    instrument = m.add(Resistor("resistanceInstrument", R=100e3))
    sensor = m.add(VoltageSensor("voltageSensor"))
    op_amp = idealized_op_amp(m, V0, use_supply=True)
    positive = m.add(VoltageSource("positiveSupply", V=15.0))
    negative = m.add(VoltageSource("negativeSupply", V=-15.0))
    m.connect(positive.p, op_amp.s_p)
    m.connect(negative.p, op_amp.s_n)
    m.connect(source1.n, source2.n, r_ground.p, ground.p)
    m.connect(source1.p, r1.p, load.p)
    m.connect(source2.p, r2.p, load.n)
    m.connect(r1.n, r3.p, op_amp.in_n)
    m.connect(r2.n, r4.p, op_amp.in_p)
    m.connect(r3.n, op_amp.out, instrument.p, sensor.p)
    m.connect(r4.n, r_ground.n, instrument.n, sensor.n, positive.n, negative.n)
    return m



# --- Blocks -----------------------------------------------------------------------------------

def kinematic_ptp_steps(m: Model, name: str, deltaq: float, qd_max: float, qdd_max: float,
                        start_time: float):
    """The MSL's KinematicPTP (one axis): the acceleration of the fastest move over deltaq
    within qd_max and qdd_max from start_time, which is piecewise constant: +a, 0, −a (the
    middle phase absent when the top speed is never reached), made of steps summed by an Add
    block named ``name``. Returns the Add block's output."""
    sd_max, sdd_max = qd_max / abs(deltaq), qdd_max / abs(deltaq)
    ta1, ta2 = math.sqrt(1 / sdd_max), sd_max / sdd_max
    if ta2 >= ta1:
        switch, end = ta1, 2 * ta1          # no constant-speed phase
        edges = [(0.0, 1), (switch, -2), (end, 1)]
    else:
        tv, end = 1 / sd_max, 1 / sd_max + ta2
        edges = [(0.0, 1), (ta2, -1), (tv, -1), (end, 1)]
    adder = m.add(Add(name, k=[deltaq * sdd_max * sign for _, sign in edges]))
    for j, (t_edge, _) in enumerate(edges, 1):
        step = m.add(Step(f"{name}_step{j}", t0=start_time + t_edge))
        m.connect(step.y, getattr(adder, f"u{j}"))
    return adder.y


PID_K, PID_TI, PID_NI = 100.0, 0.1, 0.1


def pid_controller() -> Model:
    """Blocks.Examples.PID_Controller: a limited PI controller (LimPID, k = 100, Ti = 0.1 s,
    Ni = 0.1, output limits ±12 N·m) drives inertia1 (1 kg·m²), coupled by a spring-damper
    (c = 1e4 N·m/rad, d = 100 N·m·s/rad) to inertia2 (2 kg·m²), against a constant 10 N·m on
    inertia2; its set speed is the integral of a KinematicPTP acceleration (move π/2 rad with
    speed ≤ 1 rad/s, acceleration ≤ 1 rad/s², from 0.5 s), fed back by a speed sensor.

    physlib's PID with y_max/y_min is LimPID without set-point weights (wp = 1) and feed-
    forward: kp = k, ki = k/Ti, and its back-calculation der(xi) = u + (y − v)/(ki·Tt) is
    LimPID's with Tt = Ni·Ti; its integral xi is Ti times LimPID's I.y.
    Initial state (the MSL's SteadyState controller, inertia1 at phi = 0 with a = 0, the
    spring at w_rel = 0 and der(w_rel) = 0): no acceleration anywhere, so the controller holds
    the 10 N·m with y = −10 and u = 0 (speed 0 = the set point, the integrator's 0): I.y =
    −10/k = −0.1 (xi = −0.01) and the spring deflected by 10/c = 1e-3 rad."""
    m = Model("PID_Controller")
    acceleration = kinematic_ptp_steps(m, "kinematicPTP", deltaq=1.570796326794897, qd_max=1.0,
                                       qdd_max=1.0, start_time=0.5)
    integrator = m.add(Integrator("integrator"))
    error = m.add(Add("controlError", k1=1.0, k2=-1.0))
    pi = m.add(PID("PI", kp=PID_K, ki=PID_K / PID_TI, y_max=12.0, y_min=-12.0,
                   Tt=PID_NI * PID_TI, xi0=-0.1 * PID_TI))
    torque = m.add(rot.Torque("torque"))
    inertia1 = m.add(rot.Inertia("inertia1", J=1.0))
    spring = m.add(rot.SpringDamper("spring", c=1e4, d=100.0, phi_rel_start=1e-3))
    inertia2 = m.add(rot.Inertia("inertia2", J=2.0, phi0=1e-3))
    load = m.add(rot.Torque("loadTorque", tau=10.0))
    speed = m.add(rot.SpeedSensor("speedSensor"))
    m.connect(acceleration, integrator.u)
    m.connect(integrator.y, error.u1)
    m.connect(speed.w, error.u2)
    m.connect(error.y, pi.u)
    m.connect(pi.y, torque.tau)
    m.connect(torque.flange, inertia1.flange_a)
    m.connect(inertia1.flange_b, spring.flange_a, speed.flange)
    m.connect(spring.flange_b, inertia2.flange_a)
    m.connect(inertia2.flange_b, load.flange)
    return m



# --- Electrical.Machines.Examples.DCMachines --------------------------------------------------

def lim_pid(name: str, k: float, Ti: float, y_max: float, kFF: float, Ni: float = 0.9) -> Model:
    """The MSL's LimPID as a PI controller with feed-forward (withFeedForward = true, set-point
    weight wp = 1), from the same blocks under the same names: y = limiter(k·(u_s − u_m + I.y)
    + kFF·u_ff), der(I.y) = (u_s − u_m + (y − v)/(k·Ni))/Ti where v is the output before the
    limiter (anti-windup by back-calculation), limits ±y_max, I.y starting at 0. Exposes u_s,
    u_m, u_ff (the controller's inputs) and y."""
    c = Model(name)
    add_p = c.add(Add("addP", k1=1.0, k2=-1.0))
    p = c.add(Gain("P", k=1.0))
    add_i = c.add(Add("addI", k=[1.0, -1.0, 1.0]))
    integral = c.add(Integrator("I", k=1 / Ti))
    add_pid = c.add(Add("addPID"))
    gain_pid = c.add(Gain("gainPID", k=k))
    add_ff = c.add(Add("addFF", k1=1.0, k2=kFF))
    limiter = c.add(Limiter("limiter", u_max=y_max, u_min=-y_max))
    add_sat = c.add(Add("addSat", k1=1.0, k2=-1.0))
    gain_track = c.add(Gain("gainTrack", k=1 / (k * Ni)))
    c.connect(add_p.u1, add_i.u1)           # the set point u_s
    c.connect(add_p.u2, add_i.u2)           # the measurement u_m
    c.connect(add_p.y, p.u)
    c.connect(add_i.y, integral.u)
    c.connect(p.y, add_pid.u1)
    c.connect(integral.y, add_pid.u2)
    c.connect(add_pid.y, gain_pid.u)
    c.connect(gain_pid.y, add_ff.u1)
    c.connect(add_ff.y, limiter.u, add_sat.u2)
    c.connect(limiter.y, add_sat.u1)
    c.connect(add_sat.y, gain_track.u)
    c.connect(gain_track.y, add_i.u3)
    for port, exposed in ((add_p.u1, "u_s"), (add_p.u2, "u_m"), (add_ff.u2, "u_ff"),
                          (limiter.y, "y")):
        c.expose(port, exposed)
    return c


# DcPermanentMagnetData's defaults (MSL 4.1.0, the same in 3.2.3).
DCPM = dict(VaNominal=100.0, IaNominal=100.0, wNominal=1425 * 2 * math.pi / 60, Ra=0.05,
            La=0.0015, Jr=0.15)
DCPM_K = (DCPM["VaNominal"] - DCPM["Ra"] * DCPM["IaNominal"]) / DCPM["wNominal"]   # 0.63662 V·s


def dc_permanent_magnet(name: str) -> Model:
    """The MSL's DC_PermanentMagnet with DcPermanentMagnetData's defaults (alpha20a = 0, all
    losses zero): armature ra (0.05 Ω) and la (1.5 mH) in series with the air gap, an EMF of
    k = ViNominal/wNominal = (100 − 0.05·100)/(1425 rpm) = 0.63662 V·s/rad, on the rotor
    inertia (0.15 kg·m²); the stator is fixed. With zero reference powers and brush voltage the
    MSL's core, stray-load, friction and brush models carry no current, torque or voltage:
    left out. Exposes pin_ap, pin_an and flange."""
    c = Model(name)
    ra = c.add(Resistor("ra", R=DCPM["Ra"]))
    la = c.add(Inductor("la", L=DCPM["La"]))
    air_gap = c.add(EMF("airGapDC", k=DCPM_K))
    rotor = c.add(rot.Inertia("inertiaRotor", J=DCPM["Jr"]))
    c.connect(ra.n, la.p)
    c.connect(la.n, air_gap.p)
    c.connect(air_gap.flange, rotor.flange_a)
    for port, exposed in ((ra.p, "pin_ap"), (air_gap.n, "pin_an"), (rotor.flange_b, "flange")):
        c.expose(port, exposed)
    return c


def dcpm_current_controlled() -> Model:
    """Machines.Examples.DCMachines.DCPM_CurrentControlled: a DC permanent-magnet motor
    (dc_permanent_magnet) at rest, fed by a voltage that follows its controller through a first
    order lag (Ts = 1 ms, the inverter's dead time) and drives a load inertia (0.15 kg·m²)
    against a quadratic load torque (63.662 N·m at 1425 rpm). The current controller (LimPID,
    PI: k = Ra·Ta/(2·Ts) = 0.75 Ω with Ta = La/Ra = 30 ms, Ti = Ta, limits ±100 V, feed-forward
    kPhi·w with kPhi = 0.63662 V·s from a speed sensor) follows a 100 A step at 0.1 s.

    The load torque is signed in the MSL (TorqueDirection = false: −TLoad·(w/wLoad)²·sign(w));
    here it is the product w·w, the same while the load turns forward, which the test checks."""
    m = Model("DCPM_CurrentControlled")
    ground = m.add(Ground("ground"))
    step = m.add(Step("step", height=DCPM["IaNominal"], t0=0.1))
    controller = m.add(lim_pid("PID", k=DCPM["Ra"] * (DCPM["La"] / DCPM["Ra"]) / (2 * 1e-3),
                               Ti=DCPM["La"] / DCPM["Ra"], y_max=DCPM["VaNominal"], kFF=DCPM_K))
    lag = m.add(TransferFunction("firstOrder", num=[1.0], den=[1e-3, 1.0]))
    source = m.add(VoltageSource("signalVoltage"))
    current = m.add(CurrentSensor("currentSensor"))
    motor = m.add(dc_permanent_magnet("dcpm"))
    speed = m.add(rot.SpeedSensor("speedSensor"))
    load = m.add(rot.Inertia("loadInertia", J=DCPM["Jr"]))
    t_load = DCPM_K * DCPM["IaNominal"]
    drag = quadratic_speed_dependent_torque(m, "loadTorque", tau_nominal=-t_load,
                                            w_nominal=DCPM["wNominal"])
    m.connect(step.y, controller.u_s)
    m.connect(current.i, controller.u_m)
    m.connect(speed.w, controller.u_ff)
    m.connect(controller.y, lag.u)
    m.connect(lag.y, source.V)
    m.connect(source.p, current.p)
    m.connect(current.n, motor.pin_ap)
    m.connect(motor.pin_an, source.n, ground.p)
    m.connect(motor.flange, load.flange_a, speed.flange)
    m.connect(load.flange_b, drag)
    return m


MODE_FLAGS = ("the MSL's startForward/startBackward are internal Booleans of its friction "
              "model's event logic (the moment a slip starts); physlib's mode variable "
              "carries the friction state, compared as <name>.mode")

EXAMPLES = [
    Example("First", "Modelica.Mechanics.Rotational.Examples.First", first, 1.0, 1e-6),
    Example("FirstGrounded", "Modelica.Mechanics.Rotational.Examples.FirstGrounded",
            lambda: first(grounded=True), 1.0, 1e-6),
    Example("CoupledClutches", "Modelica.Mechanics.Rotational.Examples.CoupledClutches",
            coupled_clutches, 1.5, 1e-6,
            not_compared={f"clutch{k}.{flag}": MODE_FLAGS for k in (1, 2, 3)
                          for flag in ("startBackward", "startForward")}),
    Example("ElasticBearing", "Modelica.Mechanics.Rotational.Examples.ElasticBearing",
            elastic_bearing, 10.0, 1e-6),
    Example("SimpleGearShift", "Modelica.Mechanics.Rotational.Examples.SimpleGearShift",
            simple_gear_shift, 5.0, 1e-6,
            not_compared={f"{c}.{flag}": MODE_FLAGS for c in ("clutch", "brake")
                          for flag in ("startBackward", "startForward")}),
    Example("Damper", "Modelica.Mechanics.Translational.Examples.Damper", damper, 1.0, 1e-6),
    Example("Oscillator", "Modelica.Mechanics.Translational.Examples.Oscillator", oscillator,
            1.0, 1e-6),
    Example("InitialConditions", "Modelica.Mechanics.Translational.Examples.InitialConditions",
            initial_conditions, 5.0, 1e-6),
    Example("SignConvention", "Modelica.Mechanics.Translational.Examples.SignConvention",
            sign_convention, 1.0, 1e-6),
    Example("WhyArrows", "Modelica.Mechanics.Translational.Examples.WhyArrows", why_arrows,
            1.0, 1e-6),
    Example("Sensors", "Modelica.Mechanics.Translational.Examples.Sensors", sensors, 1.0, 1e-6),
    Example("TwoMasses", "Modelica.Thermal.HeatTransfer.Examples.TwoMasses", two_masses,
            1.0, 1e-6),
    Example("SeriesResonance", "Modelica.Electrical.Analog.Examples.SeriesResonance",
            series_resonance, 1.0, 1e-6,
            signals={f"{s}.phi": f"{s}_phi.y" for s in ("sineVoltage", "cosineVoltage")}),
    Example("ParallelResonance", "Modelica.Electrical.Analog.Examples.ParallelResonance",
            parallel_resonance, 1.0, 1e-6,
            signals={f"{s}.phi": f"{s}_phi.y" for s in ("sineCurrent", "cosineCurrent")}),
    Example("ResonanceCircuits", "Modelica.Electrical.Analog.Examples.ResonanceCircuits",
            resonance_circuits, 1.0, 1e-6),
    Example("CharacteristicIdealDiodes",
            "Modelica.Electrical.Analog.Examples.CharacteristicIdealDiodes",
            characteristic_ideal_diodes, 1.0, 1e-6),
    Example("InvertingAmp", "Modelica.Electrical.Analog.Examples.InvertingAmp", inverting_amp,
            1.0, 1e-7, signals={"vIn.signalSource.y": "vIn.v"}),
    Example("InvertingAmplifier", "Modelica.Electrical.Analog.Examples.OpAmps.InvertingAmplifier",
            lambda: four_pin_example("InvertingAmplifier", inverting_gain("gain", k=2.0),
                                     {"p1": trapezoid_input(10.0, -5.0)}),
            1.0, 1e-7),
    Example("NonInvertingAmplifier",
            "Modelica.Electrical.Analog.Examples.OpAmps.NonInvertingAmplifier",
            lambda: four_pin_example("NonInvertingAmplifier", buffer("buffer", k=2.0),
                                     {"p1": trapezoid_input(10.0, -5.0)}),
            1.0, 1e-7),
    Example("VoltageFollower", "Modelica.Electrical.Analog.Examples.OpAmps.VoltageFollower",
            voltage_follower, 1.0, 1e-7),
    Example("Integrator", "Modelica.Electrical.Analog.Examples.OpAmps.Integrator",
            lambda: four_pin_example("Integrator", integrating("integrator", k=2.0, f=10.0),
                                     {"p1": trapezoid_input(10.0, -5.0)}),
            1.0, 1e-7),
    Example("LowPass", "Modelica.Electrical.Analog.Examples.OpAmps.LowPass",
            lambda: four_pin_example("LowPass", first_order("firstOrder", T=1 / (2 * math.pi)),
                                     {"p1": trapezoid_input(5.0, 0.0)}),
            1.0, 1e-7),
    Example("Adder", "Modelica.Electrical.Analog.Examples.OpAmps.Adder",
            lambda: four_pin_example("Adder", adding("add"),
                                     {"p1": Sine(amplitude=5.0, f=10.0), "p1_2": 5.0}),
            1.0, 1e-7),
    Example("Subtracter", "Modelica.Electrical.Analog.Examples.OpAmps.Subtracter",
            lambda: four_pin_example("Subtracter", subtracting("feedback"),
                                     {"p1": Sine(amplitude=5.0, f=10.0), "p1_2": 5.0}),
            1.0, 1e-7),
    Example("DifferentialAmplifier",
            "Modelica.Electrical.Analog.Examples.OpAmps.DifferentialAmplifier",
            differential_amplifier, 0.2, 1e-8,
            not_compared={"rootMeanSquare.mean.x": "the state of the MSL's RootMeanSquare block "
                          "(the integral of u² over the running period, reset every 1/f). physlib's "
                          "RootMeanSquare on the sensor keeps it in the tube, but its ten sample "
                          "instants make the run take 25 s instead of 2 s (the simulator's output "
                          "rows of this model, whose algebraic rows are solved at run time, cost "
                          "seconds per event interval): left out of the suite"}),
    Example("PID_Controller", "Modelica.Blocks.Examples.PID_Controller", pid_controller,
            4.0, 1e-6, signals={"PI.I.y": lambda res: res["PI.xi"] / PID_TI}),
    Example("DCPM_CurrentControlled",
            "Modelica.Electrical.Machines.Examples.DCMachines.DCPM_CurrentControlled",
            dcpm_current_controlled, 2.0, 1e-7,
            premises=(("the load turns forward (w >= 0), where w·w is the MSL's signed square",
                       lambda res: bool(np.min(res["loadInertia.w"]) >= 0.0)),)),
]

# More examples (issue [catalog]'s group B) live beside this module, one file per area,
# msl_corpus_<area>.py, each with an EXAMPLES list of its own built from this module's
# Example (imported from here: it is defined above, so the partial import serves). An area's
# FMU_ELSEWHERE names its examples with events whose classes its own FMU test covers (one FMU
# for the whole area keeps the suite's gcc runs few), so that
# tests/test_export_fmu_differential.py need not export each of them.
FMU_ELSEWHERE: dict[str, str] = {}
for _path in sorted(Path(__file__).resolve().parent.glob("msl_corpus_*.py")):
    _module = importlib.import_module(_path.stem)
    EXAMPLES += _module.EXAMPLES
    FMU_ELSEWHERE.update(getattr(_module, "FMU_ELSEWHERE", {}))
