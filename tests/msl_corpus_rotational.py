"""The Modelica Standard Library's rotational examples of issue 36's catalog (group B): the
lossy gear, rolling wheel, eddy-current brake and ModelicaTest's braking, speed and move sources, rebuilt from
physlib's components with the MSL's instance names (see msl_corpus.py for how examples are
described and compared)."""
from __future__ import annotations

import numpy as np

from physlib import Model
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.signals import Constant, Gain, Product, Ramp, Sine, Step
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


def test_speed() -> Model:
    """ModelicaTest.Rotational.TestSpeed: four speed sources each driving an inertia (1 kg·m²)
    or a mass (2 kg). speed1 (filtered, f_crit = 5 Hz) follows a unit step at 0.5 s, speed2
    (exact) a sine (1 rad/s, 1 Hz); the translational speed3 (filtered, 5 Hz) a unit step at
    0.5 s, speed4 (exact) a sine (1 m/s, 1 Hz). Angles start at 0, positions at 1 m (s(start
    = 1)); the filters at 0, their steps' values at the start."""
    m = Model("TestSpeed")
    sources = [rot.Speed("speed1", exact=False, f_crit=5.0, w=Step(t0=0.5)),
               rot.Speed("speed2", w=Sine(amplitude=1.0, f=1.0)),
               tr.Velocity("speed3", exact=False, f_crit=5.0, s_start=1.0, v=Step(t0=0.5)),
               tr.Velocity("speed4", s_start=1.0, v=Sine(amplitude=1.0, f=1.0))]
    loads = [rot.Inertia("inertia1", J=1.0), rot.Inertia("inertia2", J=1.0),
             tr.Mass("mass1", m=2.0), tr.Mass("mass2", m=2.0)]
    for source, load in zip(sources, loads):
        m.connect(m.add(source).flange, m.add(load).flange_a)
    return m


def test_move() -> Model:
    """ModelicaTest.Rotational.TestMove: a Move source (useSupport = false) turns a revolute
    joint at the world's origin carrying Body1 (m = 1 kg, I_33 = 2 kg·m², its centre of mass
    on the joint, g = 0) by u = {Constant2.y, Constant2.y, Constant1.y} = {0, 0, 1}: angle and
    speed 0, acceleration 1 rad/s² (inconsistent on purpose); a translational Move drives
    slidingMass (2 kg) by the same signals.

    physlib has no multibody library: the joint and body are an Inertia of J = I_33 on the
    Move's flange (the body turns about a principal axis through its centre of mass, so its
    moment about the axis is I_33·a, and no other force or torque acts; see tests/data/README.md)."""
    m = Model("TestMove")
    constant1, constant2 = m.add(Constant("Constant1", k=1.0)), m.add(Constant("Constant2", k=0.0))
    move = m.add(rot.Move("move"))
    move1 = m.add(tr.Move("move1"))
    m.connect(move.flange, m.add(rot.Inertia("Body1", J=2.0)).flange_a)
    m.connect(move1.flange, m.add(tr.Mass("slidingMass", m=2.0)).flange_a)
    m.connect(constant2.y, move.phi_ref, move.w_ref, move1.s_ref, move1.v_ref)
    m.connect(constant1.y, move.a_ref, move1.a_ref)
    return m


def frame_b_zero(result) -> np.ndarray:
    """A frame_b force or torque component of TestMove's joint that is zero whatever the motion
    (see :func:`test_move`)."""
    return np.zeros_like(result.t)


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
    Example("TestSpeed", "ModelicaTest.Rotational.TestSpeed", test_speed, 1.1, 1e-6,
            signals={"speed1.w": "speed1.w_flange", "speed3.v": "speed3.v_flange"}),
    Example("TestMove", "ModelicaTest.Rotational.TestMove", test_move, 1.1, 1e-6,
            signals={"ActuatedRevolute1.frame_b.t[3]": "move.flange.tau",
                     **{f"ActuatedRevolute1.frame_b.{q}[{k}]": frame_b_zero
                        for q, k in (("r_0", 1), ("r_0", 2), ("r_0", 3), ("f", 1), ("f", 2), ("f", 3),
                                     ("t", 1), ("t", 2))},
                     "Multiplex3_1.y[1]": "move.phi_ref", "Multiplex3_1.y[2]": "move.w_ref",
                     "Multiplex3_1.y[3]": "move.a_ref"}),
]

FMU_ELSEWHERE = {"TestSpeed": "its step's time event and classes: the filtered and exact Speed in the FMU of "
                              "tests/test_catalog_rotational.py, the filtered Velocity in the translational "
                              "catalog's (tests/test_export_fmu_differential.py)"}
