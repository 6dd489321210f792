"""Rotational mechanics against the MSL First reference, closed forms and bad input."""
from functools import lru_cache

import numpy as np
import pytest

from physlib import Model, ParameterError, PhyslibError
from physlib.components.rotational import (AngleSensor, Damper, Fixed, IdealGear, IdealPlanetary,
                                           Inertia, Speed, SpeedSensor, Spring, SpringDamper,
                                           Torque, TorqueSensor)
from physlib.components.signals import Sine

from reference import assert_in_tube, load_msl


def first(lumped_gear: bool = False) -> Model:
    """MSL Rotational.Examples.First (tests/data/README.md).

    With ``lumped_gear`` the rigid pair inertia1–gear–inertia2 is replaced by the one inertia
    it is equivalent to on the gear's output side, J2 + ratio²·J1 = 12 kg·m², driven by
    ratio·tau: the same equations of motion without a constraint between two states.
    """
    m = Model("First")
    fixed = m.add(Fixed("fixed"))
    amplitude = 100.0 if lumped_gear else 10.0
    torque = m.add(Torque("torque", tau=Sine(amplitude=amplitude, f=5.0), use_support=True))
    housing = [fixed.flange, torque.support]
    if lumped_gear:
        inertia2 = m.add(Inertia("inertia2", J=2.0 + 10.0**2 * 0.1))
        m.connect(torque.flange, inertia2.flange_a)
    else:
        inertia1 = m.add(Inertia("inertia1", J=0.1))
        gear = m.add(IdealGear("idealGear", ratio=10.0, use_support=True))
        inertia2 = m.add(Inertia("inertia2", J=2.0))
        m.connect(torque.flange, inertia1.flange_a)
        m.connect(inertia1.flange_b, gear.flange_a)
        m.connect(gear.flange_b, inertia2.flange_a)
        housing.append(gear.support)
    spring = m.add(Spring("spring", c=1e4))
    inertia3 = m.add(Inertia("inertia3", J=2.0))
    damper = m.add(Damper("damper", d=10.0))
    free_end = m.add(SpeedSensor("free_end"))   # draws no torque: inertia3's flange_b is free
    m.connect(inertia2.flange_b, spring.flange_a, damper.flange_a)
    m.connect(spring.flange_b, inertia3.flange_a)
    m.connect(inertia3.flange_b, free_end.flange)
    m.connect(damper.flange_b, *housing)
    return m


def _assert_first_in_tube(model: Model):
    ref = load_msl("First")
    t_ref = ref["time"]
    # rtol 1e-6 is the reference tool's own tolerance; the tube is 2e-3 of each signal's range.
    res = model.compile().simulate(1.0, t_eval=np.unique(t_ref), rtol=1e-6, atol=1e-9)
    for name in ("damper.phi_rel", "damper.w_rel", "inertia3.phi", "inertia3.w"):
        assert_in_tube(name, t_ref, ref[name], np.interp(t_ref, res.t, res[name]))


def test_first_stays_in_msl_tube():
    _assert_first_in_tube(first())


def test_first_with_gear_lumped_into_one_inertia_stays_in_msl_tube():
    _assert_first_in_tube(first(lumped_gear=True))


def test_ideal_gear_reflects_the_output_inertia_by_ratio_squared():
    # Seen from flange_a, J2 behind a gear w_a = n·w_b weighs J2/n²; a constant torque gives
    # w1 = tau·t/(J1 + J2/n²). Both inertias are rigidly tied (index reduction); the answer is
    # a straight line, so the solver's error is at rounding level: 1e-9 relative.
    J1, J2, n, tau = 0.5, 3.0, 4.0, 2.0
    m = Model("gear")
    src = m.add(Torque("tq", tau=tau))
    i1, i2 = m.add(Inertia("J1", J=J1)), m.add(Inertia("J2", J=J2))
    gear = m.add(IdealGear("gear", ratio=n))
    end = m.add(SpeedSensor("end"))
    m.connect(src.flange, i1.flange_a)
    m.connect(i1.flange_b, gear.flange_a)
    m.connect(gear.flange_b, i2.flange_a)
    m.connect(i2.flange_b, end.flange)
    res = m.compile().simulate(2.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["J1.w"], tau * res.t / (J1 + J2 / n**2), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["J1.w"], n * res["J2.w"], rtol=1e-9, atol=1e-12)


def test_gear_speeds_are_relative_to_a_rotating_housing():
    # w_a − w_s = n·(w_b − w_s): with the housing turning at w_s and flange_a at w_a, flange_b
    # turns at w_s + (w_a − w_s)/n. All algebraic and linear: exact to rounding (1e-12).
    n, w_a, w_s, d = 5.0, 30.0, 4.0, 0.2
    m = Model("gear_housing")
    drive = m.add(Speed("drive", w=w_a))
    housing = m.add(Speed("housing", w=w_s))
    gear = m.add(IdealGear("gear", ratio=n, use_support=True))
    load = m.add(Damper("load", d=d))
    fixed = m.add(Fixed("fixed"))
    m.connect(drive.flange, gear.flange_a)
    m.connect(housing.flange, gear.support)
    m.connect(gear.flange_b, load.flange_a)
    m.connect(load.flange_b, fixed.flange)
    res = m.compile().simulate(1.0, t_eval=[1.0])
    w_b = w_s + (w_a - w_s) / n
    assert res["load.w_rel"][0] == pytest.approx(-w_b, rel=1e-12)
    # The load brakes flange_b with d·w_b; flange_a carries 1/n of it, the housing the rest.
    assert res["gear.flange_a.tau"][0] == pytest.approx(d * w_b / n, rel=1e-12)
    assert res["gear.support.tau"][0] == pytest.approx(d * w_b * (1 - 1 / n), rel=1e-12)


@lru_cache(maxsize=None)
def _planetary_run():
    """Ring held (its inertia fixed), carrier driven by a torque, sun inertia free."""
    m = Model("planetary")
    gears = m.add(IdealPlanetary("planetary", ratio=100 / 40))
    drive = m.add(Torque("drive", tau=Sine(amplitude=2.0, f=1.0, offset=1.0)))
    sun, carrier, ring = (m.add(Inertia(name, J=J)) for name, J in
                          (("sun", 0.01), ("carrier", 0.1), ("ring", 0.2)))
    fixed = m.add(Fixed("fixed"))
    sun_end = m.add(SpeedSensor("sun_end"))
    m.connect(drive.flange, carrier.flange_a)
    m.connect(carrier.flange_b, gears.carrier)
    m.connect(gears.sun, sun.flange_a)
    m.connect(sun.flange_b, sun_end.flange)
    m.connect(gears.ring, ring.flange_a)
    m.connect(ring.flange_b, fixed.flange)
    return m.compile().simulate(2.0, rtol=1e-10, atol=1e-12)


def test_planetary_sun_runs_at_one_plus_ratio_times_carrier_with_ring_held():
    # Willis: (1 + r)·w_c = w_s + r·w_r with w_r = 0. Kinematic constraint, kept by index
    # reduction to solver precision: 1e-8 relative to the largest speed.
    res = _planetary_run()
    r = 100 / 40
    scale = np.max(np.abs(res["sun.w"]))
    assert scale > 1.0
    assert np.max(np.abs(res["sun.w"] - (1 + r) * res["carrier.w"])) < 1e-8 * scale
    assert np.max(np.abs(res["ring.w"])) < 1e-8 * scale


def test_planetary_torques_obey_willis_balance():
    # Lossless planetary: ring.tau = r·sun.tau and carrier.tau = −(1 + r)·sun.tau at every
    # instant. These are the component's own algebraic equations: 1e-9 relative.
    res = _planetary_run()
    r = 100 / 40
    sun_tau = res["planetary.sun.tau"]
    scale = np.max(np.abs(sun_tau))
    assert scale > 1e-3
    assert np.max(np.abs(res["planetary.ring.tau"] - r * sun_tau)) < 1e-9 * scale
    assert np.max(np.abs(res["planetary.carrier.tau"] + (1 + r) * sun_tau)) < 1e-9 * scale


def test_planetary_carrier_accelerates_with_the_reflected_sun_inertia():
    # With the ring held, the carrier sees J_c + (1 + r)²·J_s; under tau = 1 + 2·sin(2πt) its
    # speed is (t + (1 − cos 2πt)/π)/J_eq. rtol 1e-10 makes 1e-7 relative a safe bound.
    res = _planetary_run()
    r = 100 / 40
    J_eq = 0.1 + (1 + r)**2 * 0.01
    expected = (res.t + (1 - np.cos(2 * np.pi * res.t)) / np.pi) / J_eq
    assert np.max(np.abs(res["carrier.w"] - expected)) < 1e-7 * np.max(expected)


def test_spring_and_inertia_oscillate_at_the_natural_frequency():
    # J·phi'' = −c·phi from rest at phi0 (the spring's deflection matches): phi = phi0·cos(ω·t),
    # ω = √(c/J). Over ~5 periods at rtol 1e-10 the error stays far below 1e-7 rad.
    J, c, phi0 = 0.2, 50.0, 0.3
    m = Model("torsion")
    fixed = m.add(Fixed("fixed"))
    spring = m.add(Spring("spring", c=c, phi_rel_start=phi0))
    inertia = m.add(Inertia("J", J=J, phi0=phi0))
    angle = m.add(AngleSensor("angle", phi0=phi0))
    m.connect(fixed.flange, spring.flange_a)
    m.connect(spring.flange_b, inertia.flange_a)
    m.connect(inertia.flange_b, angle.flange)
    res = m.compile().simulate(2.0, rtol=1e-10, atol=1e-12)
    expected = phi0 * np.cos(np.sqrt(c / J) * res.t)
    for name in ("J.phi", "spring.phi_rel", "angle.phi"):
        assert np.max(np.abs(res[name] - expected)) < 1e-7, name


def test_spring_damper_energy_decays_by_its_dissipation():
    # Free decay of J on a SpringDamper: d/dt(½J w² + ½c phi²) = −d·w². The stored energy
    # must fall by exactly the integrated dissipated power (Simpson on 20,001 points and
    # rtol 1e-11 make both sides accurate to ~1e-10 of the initial energy; bound 1e-7).
    from scipy.integrate import simpson
    J, c, d, w0 = 0.05, 20.0, 0.1, 3.0
    m = Model("decay")
    fixed = m.add(Fixed("fixed"))
    shaft = m.add(SpringDamper("shaft", c=c, d=d))
    inertia = m.add(Inertia("J", J=J, w0=w0))
    end = m.add(SpeedSensor("end"))
    m.connect(fixed.flange, shaft.flange_a)
    m.connect(shaft.flange_b, inertia.flange_a)
    m.connect(inertia.flange_b, end.flange)
    t = np.linspace(0.0, 1.0, 20001)
    res = m.compile().simulate(1.0, t_eval=t, rtol=1e-11, atol=1e-13)
    stored = res.stored_energy()
    np.testing.assert_allclose(stored, 0.5 * J * res["J.w"]**2 + 0.5 * c * res["shaft.phi_rel"]**2,
                               rtol=1e-12)
    np.testing.assert_allclose(res.dissipated_power("shaft"), d * res["J.w"]**2, rtol=1e-12, atol=1e-15)
    lost = simpson(res.dissipated_power(), x=t)
    assert abs(stored[0] - stored[-1] - lost) < 1e-7 * stored[0]
    assert stored[-1] < 0.5 * stored[0]


def test_speed_source_drags_an_inertia_through_a_damper():
    # J·w' = d·(w_src − w): w = w_src·(1 − exp(−d·t/J)). rtol 1e-10 → 1e-8 absolute is safe.
    J, d, w_src = 0.4, 2.0, 10.0
    m = Model("drag")
    drive = m.add(Speed("drive", w=w_src))
    coupling = m.add(Damper("coupling", d=d))
    inertia = m.add(Inertia("J", J=J))
    end = m.add(SpeedSensor("end"))
    m.connect(drive.flange, coupling.flange_a)
    m.connect(coupling.flange_b, inertia.flange_a)
    m.connect(inertia.flange_b, end.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    expected = w_src * (1 - np.exp(-d * res.t / J))
    assert np.max(np.abs(res["J.w"] - expected)) < 1e-8
    assert np.max(np.abs(res["end.w"] - expected)) < 1e-8


def test_torque_sensor_reads_the_torque_passed_to_an_inertia():
    # MSL sign: Torque drives its flange with +tau (flange.tau = −tau); the sensor in series
    # reads flange_a.tau = +tau, and the inertia accelerates at tau/J. Linear: exact to 1e-9.
    J = 0.25
    m = Model("sensor")
    src = m.add(Torque("src", tau=Sine(amplitude=3.0, f=2.0)))
    sensor = m.add(TorqueSensor("sensor"))
    inertia = m.add(Inertia("J", J=J))
    end = m.add(SpeedSensor("end"))
    m.connect(src.flange, sensor.flange_a)
    m.connect(sensor.flange_b, inertia.flange_a)
    m.connect(inertia.flange_b, end.flange)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    tau = 3.0 * np.sin(2 * np.pi * 2.0 * res.t)
    np.testing.assert_allclose(res["sensor.tau"], tau, atol=1e-9)
    np.testing.assert_allclose(res["J.w"], 3.0 * (1 - np.cos(4 * np.pi * res.t)) / (4 * np.pi) / J,
                               atol=1e-8)


@pytest.mark.parametrize("cls, values, bad", [
    (Inertia, {"J": -1.0}, "J"), (Inertia, {"J": 0.0}, "J"), (Spring, {"c": -1.0}, "c"),
    (Damper, {"d": -0.1}, "d"), (SpringDamper, {"c": 1.0, "d": -0.1}, "d"),
    (IdealGear, {"ratio": 0.0}, "ratio"), (IdealPlanetary, {"ratio": -2.0}, "ratio"),
])
def test_non_physical_rotational_parameters_are_rejected(cls, values, bad):
    with pytest.raises(ParameterError, match=f"parameter {bad} of X1"):
        cls("X1", **values)


def test_network_with_nothing_fixing_its_speed_names_the_components():
    # A torque source across a damper fixes only the relative speed of the two flanges; their
    # absolute speed is left undetermined, which must be reported before any solver runs.
    m = Model("floating")
    src = m.add(Torque("torque", tau=1.0, use_support=True))
    damper = m.add(Damper("damper", d=1.0))
    m.connect(src.flange, damper.flange_a)
    m.connect(damper.flange_b, src.support)
    with pytest.raises(PhyslibError) as err:
        m.compile()
    assert "torque" in str(err.value) and "damper" in str(err.value)


def test_unconnected_flange_is_a_free_end():
    # A torque on a lone inertia with its other flange left open: w = tau·t/J.
    m = Model("free")
    drive = m.add(Torque("drive", tau=2.0))
    body = m.add(Inertia("J1", J=0.5))
    m.connect(drive.flange, body.flange_a)
    res = m.compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["J1.w"], 4.0 * res.t, atol=1e-9)
    assert np.all(res["J1.flange_b.tau"] == 0.0)
