"""Translational mechanics against the MSL Oscillator reference, closed forms and bad input."""
import numpy as np
import pytest

from physlib import Model, ParameterError
from physlib.components.rotational import Inertia, Torque
from physlib.components.rotational import SpeedSensor as RotSpeedSensor
from physlib.components.signals import Sine
from physlib.components.translational import (Damper, Fixed, Force, ForceSensor, IdealRackPinion,
                                              Mass, PositionSensor, SpeedSensor, Spring,
                                              SpringDamper, Velocity)

from reference import assert_in_tube, load_msl


def test_oscillator_stays_in_msl_tube():
    # MSL Translational.Examples.Oscillator (tests/data/README.md). Springs start at their
    # rest length 1 m; mass centres at s = −0.5 m; damper1 (parallel to spring2) starts at 1 m.
    ref = load_msl("Oscillator")
    m = Model("Oscillator")
    for k, damped in ((1, False), (2, True)):
        force = m.add(Force(f"force{k}", f=Sine(amplitude=1.0, f=15.9155)))
        mass = m.add(Mass(f"mass{k}", m=1.0, s0=-0.5))
        spring = m.add(Spring(f"spring{k}", c=1e4, s_rel0=1.0, s_rel_start=1.0))
        fixed = m.add(Fixed(f"fixed{k}"))
        m.connect(force.flange, mass.flange_a)
        m.connect(spring.flange_b, fixed.flange)
        if damped:
            damper = m.add(Damper("damper1", d=10.0, s_rel_start=1.0))
            m.connect(mass.flange_b, spring.flange_a, damper.flange_a)
            m.connect(damper.flange_b, fixed.flange)
        else:
            m.connect(mass.flange_b, spring.flange_a)
    t_ref = ref["time"]
    # rtol 1e-6 is the reference tool's own tolerance; the tube is 2e-3 of each signal's range.
    res = m.compile().simulate(1.0, t_eval=np.unique(t_ref), rtol=1e-6, atol=1e-9)
    for name in ("damper1.s_rel", "damper1.v_rel", "mass1.s", "mass1.v"):
        assert_in_tube(name, t_ref, ref[name], np.interp(t_ref, res.t, res[name]))


def test_spring_damper_free_vibration_matches_damped_closed_form():
    # m·x'' + d·x' + c·x = 0 from x = 0, x' = v0: x = v0/ωd·exp(−ζω t)·sin(ωd t).
    # Underdamped (ζ = 0.1); rtol 1e-10 keeps the error far below 1e-8 m.
    mass_, c, d, v0 = 2.0, 800.0, 8.0, 0.5
    m = Model("mck")
    fixed = m.add(Fixed("fixed"))
    suspension = m.add(SpringDamper("suspension", c=c, d=d))
    body = m.add(Mass("body", m=mass_, v0=v0))
    pos = m.add(PositionSensor("pos"))
    m.connect(fixed.flange, suspension.flange_a)
    m.connect(suspension.flange_b, body.flange_a)
    m.connect(body.flange_b, pos.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    w = np.sqrt(c / mass_)
    zeta = d / (2 * np.sqrt(c * mass_))
    wd = w * np.sqrt(1 - zeta**2)
    x = v0 / wd * np.exp(-zeta * w * res.t) * np.sin(wd * res.t)
    for name in ("body.s", "suspension.s_rel", "pos.s"):
        assert np.max(np.abs(res[name] - x)) < 1e-8, name


def test_velocity_source_force_sensor_reads_mass_times_acceleration():
    # Prescribing v = V·sin(ωt) on a mass takes the force m·V·ω·cos(ωt), which the sensor in
    # series reads (the mass's speed is fixed by the source: index reduction). The answer is
    # algebraic in t; rtol 1e-10 leaves the derivative path accurate to far below 1e-6 N.
    mass_, V, f = 3.0, 2.0, 1.5
    m = Model("push")
    drive = m.add(Velocity("drive", v=Sine(amplitude=V, f=f)))
    sensor = m.add(ForceSensor("sensor"))
    cart = m.add(Mass("cart", m=mass_))
    speed = m.add(SpeedSensor("speed"))
    m.connect(drive.flange, sensor.flange_a)
    m.connect(sensor.flange_b, cart.flange_a)
    m.connect(cart.flange_b, speed.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    w = 2 * np.pi * f
    np.testing.assert_allclose(res["sensor.f"], mass_ * V * w * np.cos(w * res.t), atol=1e-6)
    np.testing.assert_allclose(res["speed.v"], V * np.sin(w * res.t), atol=1e-9)
    np.testing.assert_allclose(res["cart.s"], V * (1 - np.cos(w * res.t)) / w, atol=1e-8)


def test_rack_and_pinion_turns_torque_into_force():
    # tau on the pinion pushes the rack with tau/r; the mass then moves at v = tau·t/(r·m)
    # and the pinion turns at v/r. Both linear in t: rounding-level agreement (1e-9).
    tau, r, mass_ = 0.6, 0.02, 5.0
    m = Model("rack")
    src = m.add(Torque("src", tau=tau))
    gear = m.add(IdealRackPinion("gear", radius=r))
    load = m.add(Mass("load", m=mass_))
    pinion_speed = m.add(RotSpeedSensor("pinion_speed"))
    end = m.add(SpeedSensor("end"))
    m.connect(src.flange, gear.pinion, pinion_speed.flange)
    m.connect(gear.rack, load.flange_a)
    m.connect(load.flange_b, end.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    v = tau * res.t / (r * mass_)
    np.testing.assert_allclose(res["load.v"], v, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["pinion_speed.w"], v / r, rtol=1e-9, atol=1e-10)


def test_rack_and_pinion_adds_reflected_inertia():
    # A pinion inertia J on radius r weighs J/r² on the rack: a force f accelerates the
    # rack at f/(m + J/r²). Index reduction ties the two states; result linear in t (1e-9).
    f, r, mass_, J = 4.0, 0.05, 2.0, 0.01
    m = Model("rack_inertia")
    src = m.add(Force("src", f=f))
    load = m.add(Mass("load", m=mass_))
    gear = m.add(IdealRackPinion("gear", radius=r))
    wheel = m.add(Inertia("wheel", J=J))
    wheel_end = m.add(RotSpeedSensor("wheel_end"))
    m.connect(src.flange, load.flange_a)
    m.connect(load.flange_b, gear.rack)
    m.connect(gear.pinion, wheel.flange_a)
    m.connect(wheel.flange_b, wheel_end.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["load.v"], f * res.t / (mass_ + J / r**2), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls, values, bad", [
    (Mass, {"m": -1.0}, "m"), (Mass, {"m": 0.0}, "m"), (Spring, {"c": -5.0}, "c"),
    (Damper, {"d": -1.0}, "d"), (IdealRackPinion, {"radius": 0.0}, "radius"),
])
def test_non_physical_translational_parameters_are_rejected(cls, values, bad):
    with pytest.raises(ParameterError, match=f"parameter {bad} of X1"):
        cls("X1", **values)
