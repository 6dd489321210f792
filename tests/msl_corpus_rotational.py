"""The Modelica Standard Library's rotational examples of issue 36's catalog (group B): the
lossy gear, rolling wheel, eddy-current brake and ModelicaTest's braking sources, rebuilt from
physlib's components with the MSL's instance names (see msl_corpus.py for how examples are
described and compared)."""
from __future__ import annotations

import numpy as np

from physlib import Model
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.signals import Gain, Product, Ramp, Sine
from physlib.components.thermal import HeatCapacitor

from msl_corpus import Example


def lossy_gear_demo1() -> Model:
    """Rotational.Examples.LossyGearDemo1: a sine torque (10 N·m, 1 Hz) drives Inertia1
    (1 kg·m²) through a LossyGear (ratio 2, lossTable [0, 0.5, 0.5, 0, 0]: mesh efficiency 0.5
    both ways, no bearing friction) to Inertia2 (1.5 kg·m²), loaded by a torque ramping from
    −10 to −5 N·m over 2 s. Everything at rest; the gear's and the sources' housings on
    ``fixed``. The gear rolls backward, sticks, rolls forward, sticks and rolls backward.

    (LossyGearDemo2 adds a BearingFriction before Inertia1; at its start both stick on the one
    motion, which physlib reports as an error: see tests/data/README.md.)"""
    m = Model("LossyGearDemo1")
    gear = m.add(rot.LossyGear("gear", ratio=2.0, lossTable=[(0, 0.5, 0.5, 0, 0)], use_support=True))
    inertia1 = m.add(rot.Inertia("Inertia1", J=1.0))
    inertia2 = m.add(rot.Inertia("Inertia2", J=1.5))
    torque1 = m.add(rot.Torque("torque1", tau=Sine(amplitude=10.0, f=1.0), use_support=True))
    torque2 = m.add(rot.Torque("torque2", tau=Ramp(height=5.0, duration=2.0, offset=-10.0),
                               use_support=True))
    fixed = m.add(rot.Fixed("fixed"))
    m.connect(torque1.flange, inertia1.flange_a)
    m.connect(inertia1.flange_b, gear.flange_a)
    m.connect(gear.flange_b, inertia2.flange_a)
    m.connect(torque2.flange, inertia2.flange_b)
    m.connect(fixed.flange, gear.support, torque1.support, torque2.support)
    return m


def rolling_wheel() -> Model:
    """Rotational.Examples.RollingWheel: a torque step (10 N·m at 0.1 s) turns a wheel's
    inertia (1 kg·m²) and, through an IdealRollingWheel (radius 1 m), pushes a mass (1 kg)
    against a quadratic drag reaching −10 N at 5 m/s (QuadraticSpeedDependentForce,
    ForceDirection = false: f = −10·(v/5)·|v/5|). All at rest at the start.

    The drag is built as a speed sensor, a product v·v and a gain driving a force source, the
    MSL's signed square while the mass moves forward (a premise)."""
    m = Model("RollingWheel")
    step = m.add(rot.TorqueStep("torqueStep", stepTorque=10.0, offsetTorque=0.0, startTime=0.1))
    inertia = m.add(rot.Inertia("inertia", J=1.0))
    wheel = m.add(rot.IdealRollingWheel("idealRollingWheel", radius=1.0))
    mass = m.add(tr.Mass("mass", m=1.0))
    speed = m.add(tr.SpeedSensor("quadraticSpeedDependentForce_speed"))
    square = m.add(Product("quadraticSpeedDependentForce_square"))
    gain = m.add(Gain("quadraticSpeedDependentForce_gain", k=-10.0 / 5.0**2))
    drag = m.add(tr.Force("quadraticSpeedDependentForce"))
    m.connect(step.flange, inertia.flange_a)
    m.connect(inertia.flange_b, wheel.flangeR)
    m.connect(wheel.flangeT, mass.flange_a)
    m.connect(drag.flange, mass.flange_b, speed.flange)
    m.connect(speed.v, square.u1, square.u2)
    m.connect(square.y, gain.u)
    m.connect(gain.y, drag.f)
    return m


def eddy_current_brake() -> Model:
    """Rotational.Examples.EddyCurrentBrake: an inertia (1 kg·m², 20 rad/s at the start) is
    braked by an EddyCurrentTorque (tau_nominal = 100 N·m at w_nominal = 10 rad/s, copper's
    alpha20 = 3.92e-3 /K at TRef = 293.15 K) whose excitation ramps 0 → 1 from 0.1 s to
    0.2 s; the loss heats a heat capacitor (1 J/K, 293.15 K at the start)."""
    m = Model("EddyCurrentBrake")
    brake = m.add(rot.EddyCurrentTorque("eddyCurrentTorque", tau_nominal=100.0, w_nominal=10.0,
                                        alpha20=3.92e-3, TRef=293.15, use_heat_port=True,
                                        excitation=Ramp(height=1.0, duration=0.1, t0=0.1)))
    inertia = m.add(rot.Inertia("inertia", J=1.0, w0=20.0))
    capacitor = m.add(HeatCapacitor("heatCapacitor", C=1.0, T0=293.15))
    m.connect(brake.flange, inertia.flange_a)
    m.connect(brake.heat_port, capacitor.port)
    return m


def test_braking() -> Model:
    """ModelicaTest.Rotational.TestBraking: six inertias (1 kg·m², 100 rad/s at the start)
    each braked by one source: LinearSpeedDependentTorque, QuadraticSpeedDependentTorque
    (tau_nominal = −100 N·m at w_nominal = 100 rad/s), ConstantTorque (−100 N·m), SignTorque
    (−100 N·m, w0 = 1 rad/s), InverseSpeedDependentTorque (−100 N·m at 100 rad/s, w0 = 1);
    inertia5 (20 rad/s at the start) by the eddy-current brake of the EddyCurrentBrake example,
    fully excited, heating a heat capacitor (1 J/K)."""
    m = Model("TestBraking")
    loads = [rot.LinearSpeedDependentTorque("linearSpeedDependentTorque", tau_nominal=-100.0,
                                            w_nominal=100.0),
             rot.QuadraticSpeedDependentTorque("quadraticSpeedDependentTorque", tau_nominal=-100.0,
                                               w_nominal=100.0),
             rot.ConstantTorque("constantTorque", tau_constant=-100.0),
             rot.SignTorque("signTorque", tau_nominal=-100.0, w0=1.0),
             rot.EddyCurrentTorque("eddyCurrentTorque", tau_nominal=100.0, w_nominal=10.0, alpha20=3.92e-3,
                                   TRef=293.15, use_heat_port=True, excitation=1.0),
             rot.InverseSpeedDependentTorque("inverseSpeedDependentTorque", tau_nominal=-100.0,
                                             w_nominal=100.0, w0=1.0)]
    for k, load in enumerate(loads, start=1):
        inertia = m.add(rot.Inertia(f"inertia{k}", J=1.0, w0=20.0 if k == 5 else 100.0))
        m.connect(inertia.flange_b, m.add(load).flange)
    capacitor = m.add(HeatCapacitor("heatCapacitor", C=1.0, T0=293.15))
    m.connect(loads[4].heat_port, capacitor.port)
    return m


EXAMPLES = [
    Example("LossyGearDemo1", "Modelica.Mechanics.Rotational.Examples.LossyGearDemo1", lossy_gear_demo1,
            0.5, 1e-6),
    Example("RollingWheel", "Modelica.Mechanics.Rotational.Examples.RollingWheel", rolling_wheel, 5.0, 1e-6,
            premises=(("the mass moves forward (v >= 0), where v·v is the MSL's signed square",
                       lambda res: bool(np.min(res["mass.v"]) >= 0.0)),)),
    Example("EddyCurrentBrake", "Modelica.Mechanics.Rotational.Examples.EddyCurrentBrake", eddy_current_brake,
            1.0, 1e-6, signals={"eddyCurrentTorque.lossPower": lambda res: -res["eddyCurrentTorque.tau"]
                                * res["eddyCurrentTorque.w"]}),
    Example("TestBraking", "ModelicaTest.Rotational.TestBraking", test_braking, 2.0, 1e-6),
]
