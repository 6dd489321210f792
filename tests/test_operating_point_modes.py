"""Operating points of models with modes: the modes settle as at the start of a simulation
(transitions asked at the solved point, the steady state solved again in the modes they choose,
until nothing changes), against closed forms of the settled circuits.

Tolerances: every circuit here is linear in each mode, so its steady state is one linear solve
and agrees with the closed form to rounding: 1e-12 relative (values of order 1), 1e-9 where a
quantity is a difference or a small conductance (Goff = 1e-5 S) enters; the noise spectrum
and the poles come from the same linear algebra (1e-9). A simulation from the operating point
is integrated to rtol = 1e-10, hence 1e-9 there.
"""
import warnings

import numpy as np
import pytest

import physlib
import physlib.spice as spice
from physlib import InitializationError, Model, ModeSettlingError
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components.electrical import (VCCS, Capacitor, Ground, IdealDiode, Resistor, Switch,
                                           VoltageSource)
from physlib.components.rotational import Brake, Damper, Fixed, Inertia, Torque

V, R1, R2, RON, GOFF = 10.0, 1e3, 3e3, 1e-5, 1e-5      # Switch and IdealDiode defaults: Ron, Goff


def switched(name, control, last):
    """V1 — R1 — S1 — ``last`` — ground, compiled."""
    m = Model(name)
    src, r1, s1, g = (m.add(VoltageSource("V1", V=V)), m.add(Resistor("R1", R=R1)),
                      m.add(Switch("S1", control=control)), m.add(Ground("g")))
    m.add(last)
    m.connect(src.p, r1.p)
    m.connect(r1.n, s1.p)
    m.connect(s1.n, last.p)
    m.connect(last.n, src.n, g.p)
    return m.compile()


def divider(control):
    """V1 — R1 — S1 — R2 — ground: R2.v = V·R2/(R1 + Ron + R2) closed, V·R2/(R1 + 1/Goff + R2) open."""
    return switched("switched_divider", control, Resistor("R2", R=R2))


def test_a_switch_whose_control_is_1_at_dc_is_closed():
    op = divider(1.0).operating_point()
    assert op["R2.v"] == pytest.approx(V * R2 / (R1 + RON + R2), rel=1e-12)
    assert op.modes == {"S1.closed": 1.0} and op["S1.closed"] == 1.0
    (event,) = op.events
    assert (event.component, event.before, event.after, event.cause) == ("S1", {"closed": 0}, {"closed": 1},
                                                                         "initial")
    # control 0 leaves it in its start mode, open: nothing changes.
    op = divider(0.0).operating_point()
    assert op["R2.v"] == pytest.approx(V * R2 / (R1 + 1 / GOFF + R2), rel=1e-12)
    assert op.modes == {"S1.closed": 0.0} and op.events == []


def test_inputs_and_trim_settle_the_modes_too():
    sim = divider(0.0)
    op = sim.operating_point(params={"S1.control": 1.0})
    assert op["R2.v"] == pytest.approx(V * R2 / (R1 + RON + R2), rel=1e-12)
    # trim: the source voltage that puts 5 V on R2 through the closed switch.
    op = divider(1.0).trim(targets={"R2.v": 5.0}, free=["V1.V"])
    assert op["V1.V"] == pytest.approx(5.0 * (R1 + RON + R2) / R2, rel=1e-12)
    assert op.modes == {"S1.closed": 1.0}


def test_a_sweep_of_operating_points_settles_each_point():
    # The control swept across the threshold: open below 0.5, closed above (closed forms as above).
    table = physlib.sweep(divider(0.0), {"S1.control": [0.0, 0.4, 0.6, 1.0]}, analysis="operating_point",
                          summary=lambda op: op["R2.v"])
    open_, closed = V * R2 / (R1 + 1 / GOFF + R2), V * R2 / (R1 + RON + R2)
    np.testing.assert_allclose(table["value"], [open_, open_, closed, closed], rtol=1e-12)


def diode_circuit(V_src, Vknee=0.7, Ron=0.1, R=100.0):
    m = Model("ideal_diode")
    src, d, r, g = (m.add(VoltageSource("V1", V=V_src)), m.add(IdealDiode("D1", Vknee=Vknee, Ron=Ron)),
                    m.add(Resistor("R1", R=R)), m.add(Ground("g")))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p)
    m.connect(r.n, src.n, g.p)
    return m.compile()


def test_a_forward_biased_ideal_diode_conducts_and_a_reverse_biased_one_blocks():
    # Conducting: v = Vknee + Ron·s, i = s + Goff·Vknee, and V = v + R·i, so
    # s = (V − Vknee − R·Goff·Vknee)/(Ron + R).
    op = diode_circuit(5.0).operating_point()
    s = (5.0 - 0.7 - 100.0 * GOFF * 0.7) / (0.1 + 100.0)
    assert op["R1.i"] == pytest.approx(s + GOFF * 0.7, rel=1e-12)
    assert op["D1.v"] == pytest.approx(0.7 + 0.1 * s, rel=1e-12)
    assert op.modes == {"D1.on": 1.0}
    # Blocking: i = Goff·v, so v = V/(1 + R·Goff).
    op = diode_circuit(-5.0).operating_point()
    assert op["D1.v"] == pytest.approx(-5.0 / (1 + 100.0 * GOFF), rel=1e-12)
    assert op["R1.i"] == pytest.approx(GOFF * -5.0 / (1 + 100.0 * GOFF), rel=1e-9)
    assert op.modes == {"D1.on": 0.0} and op.events == []


def test_ideal_diodes_with_no_consistent_modes_raise_the_named_error():
    # 1 V drives two ideal diodes in series into a −1 Ω load (a VCCS across itself, i = −v).
    # Both conducting: i = 1/(2·Ron − 1) < 0, so both must block; both blocking: each holds
    # v = 1/(2 − Goff) > 0, so both must conduct; one of each: the blocking one holds a
    # positive voltage. No set of modes is consistent, and the iteration returns to one.
    m = Model("no_consistent_modes")
    src, d1, d2, neg, g = (m.add(VoltageSource("V1", V=1.0)), m.add(IdealDiode("D1")), m.add(IdealDiode("D2")),
                           m.add(VCCS("G1", gm=-1.0)), m.add(Ground("g")))
    m.connect(src.p, d1.p)
    m.connect(d1.n, d2.p)
    m.connect(d2.n, neg.p, neg.pc)
    m.connect(neg.n, neg.nc, src.n, g.p)
    with pytest.raises(ModeSettlingError, match=r"modes of D1, D2 do not settle at the operating point"):
        m.compile().operating_point()


def switched_rc(control=1.0, C=1e-6):
    """V1 — R1 — S1 — C1 — ground."""
    return switched("switched_rc", control, Capacitor("C1", C=C))


def test_linearize_and_noise_use_the_settled_modes():
    sim, C = switched_rc(), 1e-6
    tau = (R1 + RON) * C                     # closed: one pole at −1/((R1 + Ron)·C)
    lin = sim.linearize(["V1.V"], ["C1.v"])
    np.testing.assert_allclose(lin.poles(), [-1 / tau], rtol=1e-9)
    assert lin.at.modes == {"S1.closed": 1.0}
    # Thermal noise of R1 and the closed switch's Ron in series, filtered by C:
    # 4kT(R1 + Ron)/(1 + (2πf·tau)²).
    f = np.array([0.0, 10.0, 1e3, 1e5])
    result = sim.noise("C1.v", f, T=300.0)
    expected = 4 * BOLTZMANN * 300.0 * (R1 + RON) / (1 + (2 * np.pi * f * tau) ** 2)
    np.testing.assert_allclose(result.psd, expected, rtol=1e-9)


def test_a_simulation_started_at_the_operating_point_stays_there():
    # The transient's start closes the switch at t0 as the operating point did, so the
    # capacitor charged to the closed-form V stays at V.
    sim = switched_rc()
    op = sim.operating_point()
    assert op["C1.v"] == pytest.approx(V, rel=1e-12)
    res = sim.simulate(1e-3, x0=op.states, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["C1.v"], V, rtol=1e-9)
    assert res["S1.closed"][-1] == 1.0


def test_a_simulation_takes_the_operating_point_itself_as_x0_and_z_guess():
    # x0=op (and z_guess=op) take the point's vectors as they are, without naming every state
    # (half a second for a million-element deck's .tran): the same run as from its dicts.
    sim = switched_rc()
    op = sim.operating_point(params={"V1.V": 7.0})
    by_name = sim.simulate(1e-3, params={"V1.V": 7.0}, x0=op.states, z_guess=op.algebraic)
    as_point = sim.simulate(1e-3, params={"V1.V": 7.0}, x0=op, z_guess=op)
    for name in ("C1.v", "R1.i", "S1.closed"):
        np.testing.assert_array_equal(as_point[name], by_name[name])
    np.testing.assert_allclose(as_point["C1.v"], 7.0, rtol=1e-6)
    other = switched("other", 1.0, Capacitor("C1", C=1e-6)).operating_point()
    with pytest.raises(physlib.analysis.OptionError, match="an operating point of other"):
        sim.simulate(1e-3, x0=other)


def test_spice_ac_through_a_switch_closed_at_dc():
    # v(ctl) = 2 V > VT + VH: S1 (RON = 10 Ω) is closed at the DC operating point, so .ac from
    # sup (AC 1) to out is Z/(RON + Z) with Z = R1 ∥ C1; open, RON would be ROFF = 1 MΩ.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", spice.SpiceWarning)
        deck = spice.read("s\nV1 ctl 0 2\nV2 sup 0 DC 5 AC 1\nS1 sup out ctl 0 sm\nR1 out 0 1k\n"
                          "C1 out 0 1u\n.model sm SW(VT=1 VH=0.5 RON=10 ROFF=1meg)\n.end\n")
    result = deck.ac("dec", 5, 10.0, 1e6)
    f = np.asarray(result["frequency"])
    Z = 1 / (1 / 1e3 + 2j * np.pi * f * 1e-6)
    np.testing.assert_allclose(result["v(out)"], Z / (10.0 + Z), rtol=1e-9)


# --- clutches and brakes ------------------------------------------------------------------------

MU, CGEO, FN_MAX, D = 0.5, 0.1, 100.0, 2.0
SLIDE = MU * CGEO * FN_MAX                  # kinetic friction torque of the pressed brake: 5 N·m


def braked_shaft(drive, f_normalized):
    """A torque on an inertia with a damper to ground and a brake (fixed housing)."""
    m = Model("braked_shaft")
    src, j = m.add(Torque("drive", tau=drive)), m.add(Inertia("J", J=1.0))
    brake = m.add(Brake("brake", mu=MU, cgeo=CGEO, fn_max=FN_MAX, f_normalized=f_normalized))
    damper, ground = m.add(Damper("damper", d=D)), m.add(Fixed("ground"))
    m.connect(src.flange, j.flange_a)
    m.connect(j.flange_b, brake.flange_a, damper.flange_a)
    m.connect(damper.flange_b, ground.flange)
    return m.compile()


def test_a_pressed_brake_driven_beyond_its_friction_slides_at_the_operating_point():
    # Released: w = tau/d. Pressed and driven beyond the kinetic friction, it slides forward
    # at w = (tau − mu·cgeo·fn)/d (the start mode, free, would ignore the brake: w = tau/d).
    released = braked_shaft(12.0, 0.0).operating_point()
    assert released["J.w"] == pytest.approx(12.0 / D, rel=1e-12)
    assert released.modes == {"brake.mode": Brake.FREE}
    op = braked_shaft(12.0, 1.0).operating_point()
    assert op["J.w"] == pytest.approx((12.0 - SLIDE) / D, rel=1e-12)
    assert op.modes == {"brake.mode": Brake.FORWARD}


def test_a_brake_that_must_stick_is_an_error_not_a_slip_the_wrong_way():
    # Driven below the friction torque (3 < 5 N·m) the brake sticks and holds the drive. Freed,
    # the shaft would turn at 3/d; sliding forward, the steady slip (3 − 5)/d = −1 rad/s is
    # backward: a run from one to the other crosses w_rel = 0 and sticks. A stuck lock is not a
    # steady-state equation yet, so this is an error naming the brake, not a silent −1 rad/s.
    with pytest.raises(InitializationError, match=r"puts brake in a locked mode"):
        braked_shaft(3.0, 1.0).operating_point()
