"""One position per connection: a position is integrated at most once per connected set of
flanges, and relative positions of compliant elements follow as differences of positions."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physlib import Model, UnknownNameError
from physlib.components import rotational as rot
from physlib.components import translational as tr
from test_linearize import B, J, K, L, R, dc      # examples/dc_motor.py and its values


def test_dc_motor_has_one_angle_and_its_linear_model_is_stabilizable():
    """The README's DC motor (source, R, L, EMF, rotor inertia, damper to a fixed flange)."""
    sim = dc.build().compile()
    lin = sim.linearize(["src.V"], ["rotor.w"])
    assert sorted(lin.states) == ["L1.i", "rotor.phi", "rotor.w"]
    # The closed form V -> w: K / ((L s + R)(J s + B) + K²); 1e-10 is rounding of 3x3 solves.
    f = np.logspace(-2, 4, 20)
    s = 2j * np.pi * f
    want = K / ((L * s + R) * (J * s + B) + K**2)
    np.testing.assert_allclose(lin.frequency_response(f)[0, 0], want, rtol=1e-10)
    # No uncontrollable integrator left: LQR with Q = I, R = 1 stabilizes every state (a
    # duplicated angle would leave a closed-loop pole at exactly 0).
    control = pytest.importorskip("control")
    gain, _, poles = control.lqr(lin.A, lin.B, np.eye(3), np.eye(1))
    assert np.all(np.real(poles) < 0)
    # The damper's relative angle is still there: minus the rotor's angle (flange_b is fixed).
    res = sim.simulate(1.0)
    np.testing.assert_allclose(res["load.phi_rel"], -res["rotor.phi"], rtol=0, atol=1e-15)


def test_spring_deflection_is_the_difference_of_positions_over_a_long_run():
    """A mass on a spring and a damper to a fixed flange at 0: two states (the spring's
    deflection, as the Modelica library prefers, and the speed), and over 10^6 s (160 periods)
    of free oscillation s_rel stays the fixed position minus the mass's position to rounding
    (1e-9 relative asked; a second integration would drift by the solver's error)."""
    s0 = 0.3
    m = Model("oscillator")
    mass = m.add(tr.Mass("mass", m=1.0, s0=s0))
    spring = m.add(tr.Spring("spring", c=1e-6, s_rel_start=-s0))     # flange_b fixed at 0
    damper = m.add(tr.Damper("damper", d=1e-9, s_rel_start=-s0))
    fixed = m.add(tr.Fixed("fixed"))
    m.connect(mass.flange_b, spring.flange_a, damper.flange_a)
    m.connect(spring.flange_b, damper.flange_b, fixed.flange)
    sim = m.compile()
    assert sorted(sim.states) == ["mass.v", "spring.s_rel"]
    res = sim.simulate(1e6, rtol=1e-8, atol=1e-12)
    assert np.ptp(res["mass.s"]) > s0        # it really oscillates
    np.testing.assert_allclose(res["spring.s_rel"], 0.0 - res["mass.s"], rtol=0, atol=1e-9 * s0)
    np.testing.assert_allclose(res["damper.s_rel"], res["spring.s_rel"], rtol=0, atol=1e-9 * s0)


def test_spring_between_two_bodies_reads_their_angles():
    m = Model("two")
    j1, j2 = m.add(rot.Inertia("J1", J=1.0, phi0=0.2)), m.add(rot.Inertia("J2", J=2.0, phi0=0.5))
    c = m.add(rot.Spring("c", c=100.0, phi_rel_start=0.3))
    tau = m.add(rot.Torque("tau", tau=1.0))
    m.connect(tau.flange, j1.flange_a)
    m.connect(j1.flange_b, c.flange_a)
    m.connect(c.flange_b, j2.flange_a)
    sim = m.compile()
    assert sorted(sim.states) == ["J1.phi", "J1.w", "J2.w", "c.phi_rel"]     # J2.phi follows
    res = sim.simulate(1.0)
    np.testing.assert_allclose(res["c.phi_rel"], res["J2.phi"] - res["J1.phi"], atol=1e-14)
    # A start value changed with params= reaches the follower too, with no recompile.
    res2 = sim.simulate(1e-3, params={"J2.phi0": 0.7, "c.phi_rel_start": 0.5})
    assert res2["c.phi_rel"][0] == pytest.approx(0.5, abs=1e-14)


def test_massless_node_between_spring_and_damper_keeps_the_spring_deflection():
    """Fixed – spring – (massless node) – damper – inertia: the node's position is integrated
    once, as the spring's deflection; the damper's relative angle follows from it."""
    m = Model("series")
    fixed, c = m.add(rot.Fixed("fixed")), m.add(rot.Spring("c", c=10.0))
    d, j = m.add(rot.Damper("d", d=1.0)), m.add(rot.Inertia("J", J=1.0, w0=1.0))
    m.connect(fixed.flange, c.flange_a)
    m.connect(c.flange_b, d.flange_a)
    m.connect(d.flange_b, j.flange_a)
    sim = m.compile()
    assert sorted(sim.states) == ["J.phi", "J.w", "c.phi_rel"]
    res = sim.simulate(2.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["d.phi_rel"], res["J.phi"] - res["c.phi_rel"], atol=1e-13)


# --- property: random drivetrains -------------------------------------------------------------

KINDS = ("spring", "damper", "springdamper")


@st.composite
def drivetrains(draw):
    """Inertias 0..n-1 and a ground (n), joined by compliant elements between random pairs."""
    n = draw(st.integers(1, 5))
    links = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n), st.sampled_from(KINDS)),
                          min_size=1, max_size=8))
    return n, [(a, b, k) for a, b, k in links if a != b]


def build(n, links):
    m = Model("train")
    bodies = [m.add(rot.Inertia(f"J{i}", J=1.0 + i, w0=0.5 * i - 1.0)) for i in range(n)]
    fixed = m.add(rot.Fixed("fixed"))
    ends = [b.flange_b for b in bodies] + [fixed.flange]
    for i, b in enumerate(bodies):       # every body's flange_a is driven or free
        if i == 0:
            m.connect(m.add(rot.Torque("tau", tau=1.0)).flange, b.flange_a)
    elements = []
    for k, (a, b, kind) in enumerate(links):
        cls = {"spring": rot.Spring, "damper": rot.Damper, "springdamper": rot.SpringDamper}[kind]
        kw = {"c": 5.0} if kind != "damper" else {}
        kw |= {"d": 0.5} if kind != "spring" else {}
        e = m.add(cls(f"e{k}", **kw))
        m.connect(ends[a], e.flange_a)
        m.connect(ends[b], e.flange_b)
        elements.append((e.name, a, b))
    return m, elements


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drivetrains())
def test_random_drivetrains_integrate_each_angle_once(train):
    """One angle state per body (the bodies and the ground are n + 1 connected nodes, so a
    spanning forest has n edges), springs' deflections preferred to bodies' angles and no
    damper's angle integrated; every compliant element's relative angle is the difference of
    its ends' angles (the ground at 0) along a simulation (1e-12: rounding of sums of O(1)
    angles)."""
    n, links = train
    if not links:
        return
    model, elements = build(n, links)
    sim = model.compile()
    angles = [s for s in sim.states if s.endswith(".phi") or s.endswith(".phi_rel")]
    assert len(angles) == n
    dampers = {name for name, _, _ in elements if type(model.components[name]) is rot.Damper}
    assert not {a.split(".")[0] for a in angles} & dampers
    res = sim.simulate(0.5)
    phi = [res[f"J{i}.phi"] for i in range(n)] + [np.zeros_like(res.t)]
    for name, a, b in elements:
        np.testing.assert_allclose(res[f"{name}.phi_rel"], phi[b] - phi[a], rtol=0, atol=1e-12)


def test_a_position_nothing_reads_is_not_integrated():
    """Fixed – damper – (massless node) – damper – inertia: no spring or body needs the node's
    position, so neither damper's relative angle is a state; asking for one says why and how to
    get it (a sensor on the flange, which then reads it)."""
    def build(sensor: bool):
        m = Model("dampers")
        fixed, d1 = m.add(rot.Fixed("fixed")), m.add(rot.Damper("d1", d=1.0))
        d2, j = m.add(rot.Damper("d2", d=2.0)), m.add(rot.Inertia("J", J=1.0, w0=1.0))
        m.connect(fixed.flange, d1.flange_a)
        node = [d1.flange_b, d2.flange_a]
        if sensor:
            node.append(m.add(rot.AngleSensor("angle")).flange)
        m.connect(*node)
        m.connect(d2.flange_b, j.flange_a)
        return m.compile()

    sim = build(sensor=False)
    assert sorted(sim.states) == ["J.phi", "J.w"]
    res = sim.simulate(1.0)
    with pytest.raises(UnknownNameError, match=r"d1\.phi_rel is not computed.*AngleSensor"):
        res["d1.phi_rel"]
    # w_J' = −(1/(1/d1 + 1/d2))·w_J / J: the two dampers in series, 2/3 N·m·s/rad.
    assert res["J.w"][-1] == pytest.approx(np.exp(-2 / 3), rel=1e-5)

    sensed = build(sensor=True)
    assert sorted(sensed.states) == ["J.phi", "J.w", "angle.phi"]
    res = sensed.simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res["d1.phi_rel"], res["angle.phi"], atol=1e-13)
    np.testing.assert_allclose(res["d2.phi_rel"], res["J.phi"] - res["angle.phi"], atol=1e-13)


def test_a_stiff_spring_on_a_fast_shaft_keeps_its_torque():
    """Two inertias (1 kg·m² each) spinning at 100 rad/s, joined by a stiff spring-damper
    (c = 1e6 N·m/rad), 1 N·m on the first: after 100 s the angles are ~1e4 rad and the
    deflection 5e-7 rad. The deflection is integrated itself (the spring reads it), so the
    solver's error test weighs it on its own scale and the transmitted torque is the 0.5 N·m
    that accelerates the second inertia to 1e-9 (measured 1e-15). Computed as the difference
    of the two ~1e4-rad angles it was 4e-6 off (measured with the bodies' angles integrated)."""
    m = Model("shaft")
    tau = m.add(rot.Torque("tau", tau=1.0))
    j1, j2 = m.add(rot.Inertia("J1", J=1.0, w0=100.0)), m.add(rot.Inertia("J2", J=1.0, w0=100.0))
    sd = m.add(rot.SpringDamper("sd", c=1e6, d=100.0))
    m.connect(tau.flange, j1.flange_a)
    m.connect(j1.flange_b, sd.flange_a)
    m.connect(sd.flange_b, j2.flange_a)
    sim = m.compile()
    assert "sd.phi_rel" in sim.states
    res = sim.simulate(100.0, rtol=1e-6, atol=1e-9)
    assert res["J1.phi"][-1] > 1e4
    # J2 lags behind J1 (phi_rel = phi_b − phi_a < 0), and the spring pulls it along.
    assert res["sd.tau"][-1] == pytest.approx(-0.5, rel=1e-9)
    assert res["sd.phi_rel"][-1] == pytest.approx(-5e-7, rel=1e-9)


@pytest.mark.parametrize("s_rel_start, s_range", [(None, (1.0, 3.0)), (1.0, (1.0, 1.0))])
def test_each_position_starts_where_its_own_start_puts_it(s_rel_start, s_range):
    """docs/guide/domains.md: a spring's relative start and a body's absolute one are
    independent (the difference is geometry the model does not hold: a Fixed flange has no
    position). A 1 kg mass at s0 = 1 m on a spring (c = 100 N/m, rest length 1 m) from a
    Fixed flange: left to its default the spring starts at s_rel = 0, compressed by 1 m, and
    the mass swings between 1 m and 3 m (cos(10 t) about 2 m); given s_rel_start = 1 it rests."""
    m = Model("spring_mass")
    wall = m.add(tr.Fixed("wall"))
    start = {} if s_rel_start is None else {"s_rel_start": s_rel_start}
    spring = m.add(tr.Spring("spr", c=100.0, s_rel0=1.0, **start))
    mass = m.add(tr.Mass("m1", m=1.0, s0=1.0))
    m.connect(wall.flange, spring.flange_a)
    m.connect(spring.flange_b, mass.flange_a)
    res = m.compile().simulate(1.0, rtol=1e-9, atol=1e-12)
    assert res["spr.s_rel"][0] == (s_rel_start or 0.0)
    expected = 2.0 - np.cos(10 * res.t) if s_rel_start is None else np.ones_like(res.t)
    np.testing.assert_allclose(res["m1.s"], expected, rtol=0, atol=1e-6)
    assert (res["m1.s"].min(), res["m1.s"].max()) == pytest.approx(s_range, abs=1e-3)
    np.testing.assert_allclose(res["m1.s"] - res["spr.s_rel"], 1.0 - (s_rel_start or 0.0), atol=1e-9)
