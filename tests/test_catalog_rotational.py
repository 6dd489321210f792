"""Issue 36's rotational catalog (LossyGear, BearingFriction, ElastoBacklash, IdealRollingWheel,
the MSL's torque, speed and motion sources, heat ports on the lossy parts) against closed forms, finite
differences of operating points, kT-equipartition and an exported FMU.

One model, ``catalog``, holds every new class, each in a shaft of its own driven by an input
torque (or speed) to a steady state, so that one operating point, one linearization and one FMU
cover them all."""
from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest

from physlib import Model
from physlib.core.errors import PhyslibError
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.signals import Sine
from physlib.components.thermal import FixedTemperature, HeatCapacitor
from fmu_runs import away_from_events
from physlib.analysis.noise.sources import BOLTZMANN

T_HEAT = 350.0     # [K] the heat ports' sink, and so the lossy parts' noise temperature
GEAR_TABLE = [(0.0, 0.9, 0.8, 0.1, 0.05), (10.0, 0.8, 0.7, 0.3, 0.2)]
BEARING_TABLE = [(0.0, 0.5), (1.0, 1.0)]

# (input path, its value at the operating point, output path): one shaft per class, each
# driven to a steady state with the class sliding, rolling or in contact.
SHAFTS = {
    "BearingFriction": ("bearing_drive.tau", 0.75, "bearing_J.w"),
    "LossyGear": ("gear_drive.tau", 4.0, "gear_J2.w"),
    "ElastoBacklash": ("backlash_drive.tau", 5.0, "backlash.phi_rel"),
    "EddyCurrentTorque": ("eddy_drive.tau", 30.0, "eddy_J.w"),
    "LinearSpeedDependentTorque+ConstantTorque": ("linear_drive.tau", 4.0, "linear_J.w"),
    "QuadraticSpeedDependentTorque": ("quadratic_drive.tau", 4.0, "quadratic_J.w"),
    "InverseSpeedDependentTorque": ("inverse_drive.tau", 4.0, "inverse_J.w"),
    "SignTorque": ("sign_drive.tau", 1.0, "sign_J.w"),
    "ConstantSpeed": ("constant_speed_drive.tau", 0.0, "constant_speed_d.tau"),
    "Position": ("position.phi_ref", 0.3, "position.phi"),
    "IdealRollingWheel": ("wheel_drive.tau", 2.0, "wheel_mass.v"),
    "Damper+SpringDamper": ("damped_drive.tau", 2.0, "damped_spring.phi_rel"),
    "Speed(exact=False)": ("speed.w", 2.0, "speed_d.tau"),
    "Position(exact=True)": ("position_exact.phi_ref", 0.2, "position_exact.phi"),
    "Move": ("move.a_ref", 1.5, "move.flange.tau"),
}

GUESS = {"quadratic_J.w": 3.0, "inverse_J.w": 3.0, "backlash.phi_rel": 0.1, "eddy_J.w": 2.0}
"""Where the steady state's Newton iteration starts off zero: a quadratic load and the free
play of the backlash have no slope at rest."""


def shaft(m: Model, name: str, J: float, drive_value: float, *loads, w0: float = 0.0):
    """A torque input ``name``_drive on an inertia ``name``_J (J, starting at w0) whose other
    flange turns ``loads`` (flanges); returns the inertia."""
    drive = m.add(rot.Torque(f"{name}_drive", tau=drive_value))
    inertia = m.add(rot.Inertia(f"{name}_J", J=J, w0=w0))
    m.connect(drive.flange, inertia.flange_a)
    m.connect(inertia.flange_b, *loads)
    return inertia


def catalog(transient: bool = False) -> Model:
    """Every new rotational class in one model of independent shafts (see SHAFTS); the heat
    ports go to a sink at T_HEAT, or with ``transient`` to heat capacitors, with a TorqueStep
    and an Accelerate added, and the position reference a sine."""
    m = Model("rotational_catalog")
    fixed = m.add(rot.Fixed("fixed"))

    def heat(part):
        sink = (HeatCapacitor(f"{part.name}_heat", C=1.0, T0=T_HEAT) if transient
                else FixedTemperature(f"{part.name}_heat", T=T_HEAT))
        m.connect(part.heat_port, m.add(sink).port)

    bearing = m.add(rot.BearingFriction("bearing", tau_pos=BEARING_TABLE, peak=1.2, use_heat_port=True))
    shaft(m, "bearing", 2.0, 0.75, bearing.flange_a)
    # A damper beside the friction: the operating point's first solve, in the start mode (free),
    # has a steady state too.
    bearing_damper = m.add(rot.Damper("bearing_damper", d=0.5))
    m.connect(bearing.flange_b, bearing_damper.flange_b)
    heat(bearing)
    gear = m.add(rot.LossyGear("gear", ratio=2.0, lossTable=GEAR_TABLE, use_heat_port=True))
    shaft(m, "gear", 0.5, 4.0, gear.flange_a)
    gear_load = m.add(rot.Inertia("gear_J2", J=1.5))
    gear_damper = m.add(rot.Damper("gear_damper", d=1.0))
    m.connect(gear.flange_b, gear_load.flange_a)
    m.connect(gear_load.flange_b, gear_damper.flange_a)
    heat(gear)
    backlash = m.add(rot.ElastoBacklash("backlash", c=100.0, d=2.0, b=0.1, use_heat_port=True))
    shaft(m, "backlash", 1.0, 5.0, backlash.flange_b)
    heat(backlash)
    eddy = m.add(rot.EddyCurrentTorque("eddy", tau_nominal=100.0, w_nominal=10.0, alpha20=3.92e-3,
                                       use_heat_port=True, excitation=0.8))
    shaft(m, "eddy", 1.0, 30.0, eddy.flange)
    heat(eddy)
    loads = {"linear": rot.LinearSpeedDependentTorque("linear", tau_nominal=-10.0, w_nominal=5.0,
                                                      TorqueDirection=False),
             "quadratic": rot.QuadraticSpeedDependentTorque("quadratic", tau_nominal=-10.0, w_nominal=5.0,
                                                            TorqueDirection=False),
             "inverse": rot.InverseSpeedDependentTorque("inverse", tau_nominal=-2.0, w_nominal=5.0, w0=1.0),
             "sign": rot.SignTorque("sign", tau_nominal=-2.0, w0=1.0, reg="Linear")}
    values = {"linear": 4.0, "quadratic": 4.0, "inverse": 4.0, "sign": 1.0}
    for name, load in loads.items():
        # The inverse load brakes at any speed (TorqueDirection): its shaft starts above the
        # steady speed, which it then falls to.
        shaft(m, name, 1.0, values[name], m.add(load).flange, w0=3.0 if name == "inverse" else 0.0)
    # A constant torque on the linear load's shaft.
    m.connect(m.add(rot.ConstantTorque("constant", tau_constant=-0.5)).flange, m["linear"].flange)
    speed = m.add(rot.ConstantSpeed("constant_speed", w_fixed=3.0))
    speed_damper = m.add(rot.Damper("constant_speed_d", d=0.5, use_heat_port=True))
    speed_drive = m.add(rot.Torque("constant_speed_drive", tau=0.0))    # the source takes it
    m.connect(speed.flange, speed_damper.flange_b, speed_drive.flange)
    heat(speed_damper)
    reference = Sine(amplitude=0.3, f=1.0) if transient else 0.3
    position = m.add(rot.Position("position", f_crit=5.0, phi_ref=reference))
    position_J = m.add(rot.Inertia("position_J", J=1.0))
    m.connect(position.flange, position_J.flange_a)
    wheel = m.add(rot.IdealRollingWheel("wheel", radius=0.5))
    shaft(m, "wheel", 0.2, 2.0, wheel.flangeR)
    wheel_mass = m.add(tr.Mass("wheel_mass", m=3.0))
    wheel_drag = m.add(tr.Damper("wheel_drag", d=4.0))
    wheel_ground = m.add(tr.Fixed("wheel_ground"))
    m.connect(wheel.flangeT, wheel_mass.flange_a)
    m.connect(wheel_mass.flange_b, wheel_drag.flange_a)
    m.connect(wheel_drag.flange_b, wheel_ground.flange)
    damper = m.add(rot.Damper("damped_damper", d=1.5, use_heat_port=True))
    spring_damper = m.add(rot.SpringDamper("damped_spring", c=20.0, d=0.5, use_heat_port=True))
    damped = shaft(m, "damped", 1.0, 2.0, damper.flange_b, spring_damper.flange_b)
    if transient:
        step = m.add(rot.TorqueStep("step", stepTorque=-1.0, offsetTorque=0.5, startTime=0.2))
        m.connect(step.flange, damped.flange_a)
        accelerate = m.add(rot.Accelerate("accelerate", a_ref=Sine(amplitude=2.0, f=2.0), w0=1.0))
        m.connect(accelerate.flange, m.add(rot.Inertia("accelerate_J", J=1.0, w0=1.0)).flange_a)
    heat(damper)
    heat(spring_damper)
    m.connect(fixed.flange, bearing_damper.flange_a, gear_damper.flange_b, backlash.flange_a,
              speed_damper.flange_a, damper.flange_a, spring_damper.flange_a, *motion_sources(m, transient))
    return m


def motion_sources(m: Model, transient: bool) -> list:
    """The filtered Speed, the exact Position and Move, each driving a shaft of its own, and
    with ``transient`` an exact Speed on an inertia (its angle following the inertia's) and
    sine references (Move's consistent: angle, speed and acceleration of one sine); returns
    the flanges to fix."""
    def driven(source, J, d):
        """``source`` turning an inertia J (none for J = 0) and a damper d to the housing."""
        damper = m.add(rot.Damper(f"{source.name}_d", d=d))
        if J:
            inertia = m.add(rot.Inertia(f"{source.name}_J", J=J))
            m.connect(m.add(source).flange, inertia.flange_a)
            m.connect(inertia.flange_b, damper.flange_b)
        else:
            m.connect(m.add(source).flange, damper.flange_b)
        return damper.flange_a

    def sine(amplitude, phase=0.0):
        return Sine(amplitude=amplitude, f=1.0, phase=phase) if transient else amplitude
    w = 2 * np.pi
    flanges = [driven(rot.Speed("speed", exact=False, f_crit=5.0, w=sine(2.0), w0=0.0), 1.0, 0.5),
               driven(rot.Position("position_exact", exact=True, phi_ref=sine(0.2)), 0.0, 0.5),
               driven(rot.Move("move", phi_ref=0.3, w_ref=2.0, a_ref=1.5) if not transient else
                      rot.Move("move", phi_ref=sine(0.3), w_ref=sine(0.3 * w, np.pi / 2), a_ref=sine(-0.3 * w**2)),
                      2.0, 0.5)]
    if transient:
        flanges.append(driven(rot.Speed("speed_exact", w=sine(1.0, np.pi / 2)), 1.0, 0.5))
    return flanges


@cache
def compiled(transient: bool = False):
    return catalog(transient).compile()


@cache
def steady(**inputs):
    return compiled().operating_point(inputs=inputs, x_guess=GUESS)


def eddy_speed(drive: float) -> float:
    """The speed at which the eddy-current brake (excitation 0.8, at T_HEAT) takes ``drive``:
    2·100·0.8²·wn/(1 + wn²) = drive, on the rising branch wn < 1."""
    k = 2 * 100.0 * 0.8**2
    wn = (k - np.sqrt(k**2 - 4 * drive**2)) / (2 * drive)
    return wn * 10.0 * (1 + 3.92e-3 * (T_HEAT - 293.15))


def gear_speed(drive: float) -> float:
    """gear_J2's speed with ``drive`` on flange_a, rolling forward with flange_a driving:
    d·w2 = ratio·(drive − tau_loss(2·w2)), tau_loss = (1 − eta_mf1)·drive + tau_bf1, the table
    extended by its last segment (w_a > 10 rad/s); bisection to rounding."""
    def residual(w2):
        w_a = 2 * w2
        eta1, bf1 = 0.9 - 0.01 * w_a, 0.1 + 0.02 * w_a
        return 1.0 * w2 - 2 * (drive - ((1 - eta1) * drive + bf1))
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if residual(mid) < 0 else (lo, mid)
    return lo


CLOSED_FORMS = {
    "BearingFriction": 0.25,                       # 0.75 = tau_pos(w) + 0.5·w = 0.5 + w
    "LossyGear": gear_speed(4.0),
    "ElastoBacklash": 0.05 + 5.0 / 100.0,          # c·(phi_rel − b/2) = 5
    "EddyCurrentTorque": eddy_speed(30.0),
    "LinearSpeedDependentTorque+ConstantTorque": (4.0 - 0.5) * 5.0 / 10.0,
    "QuadraticSpeedDependentTorque": 5.0 * np.sqrt(4.0 / 10.0),
    "InverseSpeedDependentTorque": 2.0 * 5.0 / 4.0,
    "SignTorque": 1.0 / 2.0,                       # Linear regularization: 2·w/w0 = 1
    "ConstantSpeed": 0.5 * 3.0,
    "Position": 0.3,
    "IdealRollingWheel": (2.0 / 0.5) / 4.0,        # force torque/radius against d = 4
    "Damper+SpringDamper": 2.0 / 20.0,
    "Speed(exact=False)": 0.5 * 2.0,               # the damper's tau = d·w (its flange_b turning)
    "Position(exact=True)": 0.2,
    "Move": -(2.0 * 1.5 + 0.5 * 2.0),              # −(J·a_ref + d·w_ref): a_ref, not d/dt of w_ref
}


@pytest.mark.parametrize("part", list(SHAFTS))
def test_steady_state_is_the_closed_form(part):
    _, _, output = SHAFTS[part]
    assert steady()[output] == pytest.approx(CLOSED_FORMS[part], rel=1e-9)


def test_friction_modes_at_the_steady_state():
    # The bearing slides and the gear rolls forward (flange_a driving), as the closed forms assume.
    assert steady().modes == {"bearing.mode": 1.0, "gear.mode": 1.0}


@pytest.mark.parametrize("part", list(SHAFTS))
def test_linearization_equals_finite_differences_of_steady_states(part):
    # The static gain of the linearization at the steady state against central
    # differences of steady states: with δ = 1e-5 of the input the truncation error is of
    # order δ² (1e-10 relative), far below the 1e-6 asked.
    u, value, y = SHAFTS[part]
    lin = compiled().linearize([u], [y], at=steady())
    gain = lin.dcgain()[0, 0]     # the free angles of the other shafts do not count
    delta = 1e-5 * max(abs(value), 1.0)
    difference = (steady(**{u: value + delta})[y] - steady(**{u: value - delta})[y]) / (2 * delta)
    assert gain == pytest.approx(difference, rel=1e-6, abs=1e-9)


def dissipative_shafts() -> Model:
    """The shafts whose lossy parts are noise sources for physlib's noise analysis: the
    backlash in contact, the eddy-current brake (its housing a flange, so that it joins two
    rotational ports) and the damper beside the spring-damper, heat ports at T_HEAT. (Coulomb
    friction on a shaft through a housing, BearingFriction as Brake, and the lossy gear's
    two-port are no noise sources there: their conductance is not derived.)"""
    m = Model("rotational_noise")
    fixed = m.add(rot.Fixed("fixed"))
    backlash = m.add(rot.ElastoBacklash("backlash", c=100.0, d=2.0, b=0.1, use_heat_port=True))
    shaft(m, "backlash", 1.0, 5.0, backlash.flange_b)
    eddy = m.add(rot.EddyCurrentTorque("eddy", tau_nominal=100.0, w_nominal=10.0, alpha20=3.92e-3,
                                       use_heat_port=True, use_support=True, excitation=0.8))
    shaft(m, "eddy", 0.5, 30.0, eddy.flange)
    damper = m.add(rot.Damper("damped_damper", d=1.5, use_heat_port=True))
    spring_damper = m.add(rot.SpringDamper("damped_spring", c=20.0, d=0.5, use_heat_port=True))
    shaft(m, "damped", 3.0, 2.0, damper.flange_b, spring_damper.flange_b)
    for part in (backlash, eddy, damper, spring_damper):
        m.connect(part.heat_port, m.add(FixedTemperature(f"{part.name}_heat", T=T_HEAT)).port)
    m.connect(fixed.flange, backlash.flange_a, eddy.support, damper.flange_a, spring_damper.flange_a)
    return m


@cache
def dissipative_steady():
    sim = dissipative_shafts().compile()
    return sim, sim.operating_point(x_guess={"backlash.phi_rel": 0.1, "eddy_J.w": 2.0})


@pytest.mark.parametrize("output, energy_scale", [
    ("backlash.phi_rel", 100.0), ("backlash_J.w", 1.0),     # spring c in contact, inertia J
    ("eddy_J.w", 0.5), ("damped_spring.phi_rel", 20.0), ("damped_J.w", 3.0)])
def test_noise_gives_equipartition(output, energy_scale):
    # Each state holds kT/2 on average: ⟨x²⟩ = kT/(its stiffness or inertia), whatever the
    # damping, at the temperature of the lossy parts: their heat ports' T_HEAT, not the
    # analysis temperature (an element with a heat port is as hot as its port). The Lyapunov
    # variance is exact: rel 1e-8 (abs=0: approx's absolute 1e-12 would pass any variance).
    sim, op = dissipative_steady()
    assert op["backlash.phi_rel"] > 0.05           # in contact
    assert sim.noise(output, at=op, T=300.15).variance == pytest.approx(BOLTZMANN * T_HEAT / energy_scale,
                                                                        rel=1e-8, abs=0)


def test_fmu_in_fmpy_agrees_with_simulate(tmp_path):
    # Every class of the catalog in one FMU: the bearing breaking away and the gear starting to
    # roll at t = 0, the torque step's time event at 0.2 s, the sine references of Position,
    # Accelerate and the motion sources, heat capacitors warming. States at FMPy's rows away from event instants
    # within 1e-6 of their range, both runs at rtol 1e-10 (as tests/test_export_fmu_differential.py).
    # The motion sources' torques too (Move's is J·a_ref + d·w_ref: the acceleration input, not
    # the speed's derivative; exact Position's and Speed's the derivatives of their references).
    fmpy = pytest.importorskip("fmpy")
    sim = compiled(transient=True)
    t_end = 0.5
    torques = ["move.flange.tau", "position_exact.flange.tau", "speed_exact.flange.tau", "speed.flange.tau"]
    signals = list(sim.states) + list(sim.modes) + torques
    path = sim.export_fmu(tmp_path / "rotational_catalog", outputs=list(sim.states) + torques)
    fmu = fmpy.simulate_fmu(str(path), stop_time=t_end, relative_tolerance=1e-10, solver="CVode",
                            output=signals, output_interval=t_end / 100, record_events=True)
    rows = away_from_events(fmu["time"])
    res = sim.simulate(t_end, t_eval=fmu["time"][rows], rtol=1e-10, atol=1e-12)
    assert [(e.component, e.after) for e in res.events if e.t > 0] == []     # no event but the step's
    assert fmu["bearing.mode"][-1] == res["bearing.mode"][-1] == 1
    assert fmu["gear.mode"][-1] == res["gear.mode"][-1] == 1
    errors = {s: float(np.max(np.abs(fmu[s][rows] - res[s]))) / max(np.ptp(res[s]), 1e-300)
              for s in list(sim.states) + torques}
    assert not {s: e for s, e in errors.items() if e > 1e-6}


def test_motion_sources_take_the_torques_of_their_references():
    # Each source's torque is what its shaft needs to follow the reference exactly: J·a + d·w
    # with Move's a = a_ref (−0.3·(2π)²·sin), the exact Position's d·der(phi_ref) (no inertia)
    # and the exact Speed's J·der(w) + d·w. Integration error only: 1e-8 of the amplitude.
    res = compiled(transient=True).simulate(0.5, rtol=1e-10, atol=1e-12)
    w, t = 2 * np.pi, res.t
    expected = {"move.flange.tau": 2.0 * (-0.3 * w**2) * np.sin(w * t) + 0.5 * 0.3 * w * np.cos(w * t),
                "position_exact.flange.tau": 0.5 * 0.2 * w * np.cos(w * t),
                "speed_exact.flange.tau": 1.0 * (-w) * np.sin(w * t) + 0.5 * np.cos(w * t)}
    for path, torque in expected.items():     # flange.tau is the torque into the source
        np.testing.assert_allclose(res[path], -torque, rtol=0, atol=1e-8 * np.max(np.abs(torque)))
    assert res["speed_exact.phi"] == pytest.approx(res["speed_exact_J.phi"], abs=1e-12)


def test_speed_angle_follows_the_driven_bodies_and_costs_no_state():
    # The MSL's Speed.phi (the flange's angle relative to the housing): a housing turned at
    # 1 rad/s by an exact Speed and an AngleSensor, a Speed on it turning an inertia at 2 rad/s
    # relative to it. Only the inertia's and the sensor's angles are states; each source's
    # angle follows from them (over 1 s: 2 rad relative, 1 rad for the housing's source).
    m = Model("speeds")
    housing = m.add(rot.Speed("housing", w=1.0))
    speed = m.add(rot.Speed("speed", w=2.0, use_support=True))
    m.connect(housing.flange, speed.support, m.add(rot.AngleSensor("angle")).flange)
    m.connect(speed.flange, m.add(rot.Inertia("J", J=1.0)).flange_a)
    sim = m.compile()
    assert sorted(sim.states) == ["J.phi", "angle.phi"]
    res = sim.simulate(1.0, rtol=1e-10, atol=1e-12)
    assert (res["speed.phi"][-1], res["housing.phi"][-1], res["J.phi"][-1]) == pytest.approx((2.0, 1.0, 3.0), rel=1e-9)


def test_exact_position_on_an_inertia_says_what_to_use_instead():
    # phi = phi_ref on a body needs phi_ref's second derivative (index three).
    m = Model("exact_position")
    position = m.add(rot.Position("position", exact=True, phi_ref=Sine(amplitude=1.0, f=1.0)))
    m.connect(position.flange, m.add(rot.Inertia("J", J=1.0)).flange_a)
    with pytest.raises(PhyslibError, match=r"position\.phi_ref.*exact=True.*Move.*exact=False"):
        m.compile()


@pytest.mark.parametrize("table, problem", [
    ([(0, 1, 1, 0, 0), (10, 0.9, 0.9, 0, 0)], "both efficiencies 1 in some rows"),
    ([(0, 1.2, 0.9, 0, 0)], "must be in (0, 1]"),
    ([(1, 0.9, 0.9, 0, 0), (0, 0.9, 0.9, 0, 0)], "strictly increasing")])
def test_bad_loss_table_is_named(table, problem):
    with pytest.raises(PhyslibError, match=f"LossyGear 'gear'.*{re.escape(problem)}"):
        rot.LossyGear("gear", lossTable=table)
