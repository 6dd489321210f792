"""Issue [catalog]'s translational classes (Brake, SupportFriction, MassWithStopAndFriction,
ElastoGap, Vehicle, the force and motion sources, EddyCurrentForce, heat ports on the dissipative
parts): closed forms, linearization against finite differences, thermal noise against
equipartition, and the part of the MSL's HeatLosses example its reference can check.

All classes sit in one model, :func:`catalog_model`, which tests/test_export_fmu_differential.py
also exports as an FMU and runs in FMPy against ``simulate`` (one FMU for the whole area).
"""
from functools import cache

import numpy as np
import pytest

import msl_corpus  # noqa: F401  (msl_corpus_translational imports its Example from it)
import msl_corpus_translational as corpus
import physlib
from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components import rotational as rot
from physlib.components import translational as tr
from physlib.components.signals import Ramp, Sine
from physlib.components.thermal import FixedTemperature, HeatCapacitor
from reference import reference_file, tube_usage


def catalog_model() -> Model:
    """Every new translational class in one model: the MSL's HeatLosses chain (Brake,
    SupportFriction, MassWithStopAndFriction hitting its stop at 0.43 s, ElastoGap, Damper and
    SpringDampers, all with heat ports), a Vehicle in a gusting wind on a slope with its
    rolling resistance from an input and its wheels driven, each force source braking a mass,
    Accelerate and Position driving masses (the latter into an ElastoGap that stays pressed),
    an eddy current brake heating a capacitor, and the motion sources of :func:`motion_sources`."""
    m = corpus.heat_losses()
    fixed = m.add(tr.Fixed("ground"))
    car = m.add(tr.Vehicle("vehicle", m=1200.0, J=2.3, R=0.31, A=2.2, Cd=0.31, v0=10.0,
                           useWindInput=True, vWind=Sine(amplitude=3.0, f=2.0, offset=-2.0),
                           vWind_start=-2.0, useCrInput=True, cr=0.013,
                           useInclinationInput=True, inclination=Sine(amplitude=0.05, f=1.0)))
    drive = m.add(rot.Torque("drive", tau=Ramp(height=300.0, duration=0.2, t0=0.1)))
    m.connect(drive.flange, car.flangeR)
    loads = [tr.ConstantForce("constant", f_constant=-3.0),
             tr.LinearSpeedDependentForce("linear", f_nominal=-2.0, v_nominal=1.0, ForceDirection=False),
             tr.QuadraticSpeedDependentForce("quadratic", f_nominal=-2.0, v_nominal=1.0, ForceDirection=False),
             tr.InverseSpeedDependentForce("inverse", f_nominal=-1.0, v_nominal=1.0, v0=0.5, ForceDirection=False),
             tr.SignForce("sign", f_nominal=-1.0, v0=0.2, reg="sine"),
             tr.EddyCurrentForce("eddy", f_nominal=5.0, v_nominal=1.0, alpha20=3.92e-3, use_heat_port=True,
                                 excitation=Ramp(height=1.0, duration=0.1, t0=0.05))]
    for load in loads:
        mass = m.add(tr.Mass(f"{load.name}_mass", m=1.0, v0=2.0))
        m.connect(mass.flange_b, m.add(load).flange)
    m.connect(loads[-1].heat_port, m.add(HeatCapacitor("fin", C=0.5, T0=293.15)).port)
    accelerate = m.add(tr.Accelerate("accelerate", a_ref=Sine(amplitude=2.0, f=2.0), v_start=0.5))
    position = m.add(tr.Position("position", s_ref=Sine(amplitude=0.1, f=3.0), f_crit=20.0))
    for source in (accelerate, position):
        mass = m.add(tr.Mass(f"{source.name}_mass", m=1.0, v0=source.v_start if source is accelerate else 0.0))
        spring = m.add(tr.Spring(f"{source.name}_spring", c=50.0))
        m.connect(source.flange, mass.flange_a)
        m.connect(mass.flange_b, spring.flange_a)
        m.connect(spring.flange_b, fixed.flange)
    # pressed the whole run (the position mass moves ±0.1 m, contact begins at 0.5 m)
    pressed = m.add(tr.ElastoGap("pressedGap", c=100.0, d=5.0, s_rel0=0.5, n=1.5))
    m.connect(fixed.flange, pressed.flange_a)
    m.connect(position.flange, pressed.flange_b)
    motion_sources(m, fixed)
    return m


MOVE_AMPLITUDE = 0.02
"""[m] of the motion Move prescribes between its housing and its mass in :func:`motion_sources`."""


def motion_sources(m: Model, fixed) -> None:
    """The filtered Velocity driving a mass on a spring; the exact Position and Move each
    between a housing mass (their support, on a spring to the ground) and what they drive (a
    spring to the ground, a mass), so that their reaction forces move the housings' states.
    Move's signals are one motion, MOVE_AMPLITUDE·(1 − cos(2π·2·t)), and its derivatives."""
    velocity = m.add(tr.Velocity("velocity", exact=False, f_crit=5.0, v=Sine(amplitude=0.5, f=2.0)))
    velocity_mass = m.add(tr.Mass("velocity_mass", m=1.0))
    m.connect(velocity.flange, velocity_mass.flange_a)
    springs = [(velocity_mass.flange_b, "velocity")]
    position = m.add(tr.Position("position_exact", exact=True, use_support=True,
                                 s_ref=Sine(amplitude=0.05, f=2.0)))
    omega, a = 4 * np.pi, MOVE_AMPLITUDE
    move = m.add(tr.Move("move", use_support=True, s_ref=Sine(amplitude=a, f=2.0, phase=-np.pi / 2, offset=a),
                         v_ref=Sine(amplitude=a * omega, f=2.0),
                         a_ref=Sine(amplitude=a * omega**2, f=2.0, phase=np.pi / 2)))
    m.connect(move.flange, m.add(tr.Mass("move_mass", m=1.0)).flange_a)
    springs.append((position.flange, "position_exact"))
    for source in (position, move):
        housing = m.add(tr.Mass(f"{source.name}_housing", m=2.0))
        m.connect(source.support, housing.flange_a)
        springs.append((housing.flange_b, f"{source.name}_housing"))
    for flange, name in springs:
        spring = m.add(tr.Spring(f"{name}_spring", c=50.0))
        m.connect(flange, spring.flange_a)
        m.connect(spring.flange_b, fixed.flange)


@cache
def catalog():
    """The compiled :func:`catalog_model` and its run over the first 0.3 s."""
    sim = catalog_model().compile()
    return sim, sim.simulate(0.3, rtol=1e-6, atol=1e-9)


def finite_difference_state_matrix(sim, at, step=1e-6):
    """A = f_x − f_z·g_z⁻¹·g_x of the DAE x' = f(x, z), 0 = g(x, z) at the point ``at``, every
    partial derivative a central difference of the DAE's own functions (step·max(1, |value|))."""
    x0, z0 = np.asarray(at.x, float), np.asarray(at.z, float)
    nx = len(x0)

    def residuals(w):
        ode, alg = sim.system.dae(w[:nx], w[nx:], at.p, at.t)
        return np.concatenate([np.asarray(ode).ravel(), np.asarray(alg).ravel()])

    w0 = np.concatenate([x0, z0])
    J = np.empty((len(w0), len(w0)))
    for k in range(len(w0)):
        h = step * max(1.0, abs(w0[k]))
        up, down = w0.copy(), w0.copy()
        up[k] += h
        down[k] -= h
        J[:, k] = (residuals(up) - residuals(down)) / (2 * h)
    fx, fz, gx, gz = J[:nx, :nx], J[:nx, nx:], J[nx:, :nx], J[nx:, nx:]
    return fx - fz @ np.linalg.solve(gz, gx)


def test_linearization_agrees_with_finite_differences():
    """At t = 0.3 s every friction element slides or is free (SupportFriction and
    MassWithStopAndFriction forward, the Brake released), an ElastoGap presses, the Vehicle
    drives against drag, rolling and slope, each force source acts away from its kinks: the
    state matrix of ``linearize`` (CasADi's derivatives) against central differences of the
    model's DAE. Central differences of step 1e-6 are exact to ~1e-9 of the largest entry
    (truncation h² times third derivatives of order 1, rounding 1e-16/h); 1e-6 of it fails on
    any wrong partial derivative."""
    sim, res = catalog()
    at = res.at(0.3)
    assert at.modes == {"supportFriction.mode": 1, "brake.mode": 2, "massWithStopAndFriction.mode": 1,
                     "massWithStopAndFriction.stopped": 0}
    assert at["pressedGap.s_rel"] < 0.5          # compressed past s_rel0: in contact
    lin = sim.linearize(["force.f"], ["mass1.v"], at=at)
    assert lin.states == sim.states
    expected = finite_difference_state_matrix(sim, at)
    np.testing.assert_allclose(lin.A, expected, rtol=0, atol=1e-6 * np.max(np.abs(expected)))


HOT = 350.0
"""[K] the heat ports' temperature in the noise tests (not the analysis' 300.15 K): a part with
a heat port makes its thermal noise at the port's temperature."""


def oscillator(part, *, m=2.0, c=50.0, push=0.0) -> Model:
    """A mass m on a spring c to the ground, ``part`` from the ground (its flange_a, or its
    support) to the mass (its flange_b, or its flange), its heat port at HOT, a constant force
    ``push`` on the mass."""
    model = Model(f"noisy_{type(part).__name__}")
    ground, mass, spring = tr.Fixed("ground"), tr.Mass("M", m=m), tr.Spring("S", c=c)
    for element in (ground, mass, spring, part, tr.ConstantForce("push", f_constant=push)):
        model.add(element)
    grounded, moving = (part.support, part.flange) if hasattr(part, "flange") else (part.flange_a, part.flange_b)
    model.connect(ground.flange, spring.flange_a, grounded)
    model.connect(spring.flange_b, moving, mass.flange_a, model["push"].flange)
    model.connect(part.heat_port, model.add(FixedTemperature("T", T=HOT)).port)
    return model


NOISY = {
    "Damper": lambda: oscillator(tr.Damper("part", d=3.0, use_heat_port=True)),
    "SpringDamper": lambda: oscillator(tr.SpringDamper("part", c=20.0, d=3.0, use_heat_port=True)),
    # pressed 0.1 m past its contact point by 10 N (c = 100 N/m), the spring next to it slack
    "ElastoGap": lambda: oscillator(tr.ElastoGap("part", c=100.0, d=3.0, s_rel0=0.1, use_heat_port=True),
                                    c=1e-9, push=-10.0),
    # its housing grounded through the support flange: a force between two flanges, which the
    # noise analysis injects (one grounded inside it would be left out with a NoiseWarning)
    "EddyCurrentForce": lambda: oscillator(tr.EddyCurrentForce(
        "part", f_nominal=5.0, v_nominal=1.0, alpha20=3.92e-3, use_heat_port=True, use_support=True,
        excitation=1.0)),
}


@pytest.mark.parametrize("name", list(NOISY))
def test_thermal_noise_gives_equipartition(name):
    """A mass on a spring with the dissipative part: its force noise 4kT·(small-signal damping)
    at the heat port's temperature HOT gives ⟨v²⟩ = k·HOT/m, whatever the damping
    (equipartition, to the analysis' rounding: 1e-9; abs=0, since pytest.approx's default
    absolute tolerance of 1e-12 would pass any variance of this size, even none)."""
    variance = NOISY[name]().compile().noise("M.v").variance
    assert variance == pytest.approx(BOLTZMANN * HOT / 2.0, rel=1e-9, abs=0)


def test_brake_follows_its_friction_table_to_a_stop():
    """A 1 kg mass at 1 m/s braked by fn = 2 N with mu_pos = [(0, 0.5), (1, 0.3)]: mu = 0.5 −
    0.2·v, so dv/dt = −(1 − 0.4·v), v(t) = 2.5 − 1.5·e^(0.4·t) until it stops at
    t = ln(5/3)/0.4 = 1.277 s; then stuck (the friction needed, 0, is within peak·mu(0)·fn).
    Held to 1e-6 of the speed range: the run's tolerance; a constant mu (the table ignored)
    would stop it at 1 s."""
    m = Model("table_brake")
    brake = m.add(tr.Brake("brake", fn_max=2.0, mu_pos=[(0.0, 0.5), (1.0, 0.3)], f_normalized=1.0))
    mass = m.add(tr.Mass("mass", m=1.0, v0=1.0))
    m.connect(mass.flange_b, brake.flange_a)
    t = np.linspace(0.0, 1.6, 161)
    res = m.compile().simulate(1.6, t_eval=t, rtol=1e-9, atol=1e-12)
    t_stop = np.log(5 / 3) / 0.4
    expected = np.where(t < t_stop, 2.5 - 1.5 * np.exp(0.4 * np.minimum(t, t_stop)), 0.0)
    np.testing.assert_allclose(res["mass.v"], expected, atol=1e-6)
    assert [(e.t, e.after["mode"]) for e in res.events if e.cause != "initial"] == \
        [(pytest.approx(t_stop, abs=1e-8), tr.Brake.STUCK)]


def test_support_friction_breaks_away_at_its_peak_and_slides_at_its_table():
    """A force 4·t N on a 1 kg mass held by SupportFriction (f_pos = [(0, 1)], peak = 2): stuck
    until the force reaches peak·f_pos(0) = 2 N at t = 0.5 s, then sliding against 1 N:
    v = ∫(4·t − 1) dt = 2·(t² − 0.25) − (t − 0.5)."""
    m = Model("support_friction")
    friction = m.add(tr.SupportFriction("friction", f_pos=[(0.0, 1.0)], peak=2.0))
    mass = m.add(tr.Mass("mass", m=1.0))
    force = m.add(tr.Force("force", f=Ramp(height=4.0, duration=1.0)))
    m.connect(force.flange, mass.flange_a)
    m.connect(mass.flange_b, friction.flange_a)
    t = np.linspace(0.0, 1.0, 101)
    res = m.compile().simulate(1.0, t_eval=t, rtol=1e-9, atol=1e-12)
    expected = np.where(t < 0.5, 0.0, 2 * (t**2 - 0.25) - (t - 0.5))
    np.testing.assert_allclose(res["mass.v"], expected, atol=1e-7)
    assert [(e.t, e.after["mode"]) for e in res.events if e.cause != "initial"] == \
        [(pytest.approx(0.5, abs=1e-8), tr.SupportFriction.FORWARD)]


IMPACT = 0.42854941954174963
"""[s] the MSL reference's instant at which massWithStopAndFriction hits its stop in HeatLosses."""


def test_heat_losses_follows_the_msl_until_its_stop_impact():
    """The MSL's HeatLosses (tests/msl_corpus_translational.py builds it), against MAP-LIB's
    reference (tests/data/msl-partial/HeatLosses) in the 2e-3 tube, every comparison signal
    but the mode flags, up to the instant massWithStopAndFriction hits its stop.

    From there on the reference follows Dymola's state selection, not the impact: the MSL's
    reinit(v, 0) keeps every other state, and Dymola's states include springDamper1's relative
    velocity (its SpringDamper prefers relative states), so in the reference mass3, joined to
    the stopping mass through springDamper1, stops with it: at the impact row
    massWithStopAndFriction.v drops from 0.677 to 0 while springDamper1.v_rel stays −0.00136.
    physlib's plastic impact stops the mass that hits the stop; mass3 keeps its 0.68 m/s and
    the damper (d = 1000 N·s/m) brakes it within milliseconds, 0.25 mm later, which the tube of
    springDamper1.s_rel (range 2e-3 m) cannot absorb; the chain then drifts apart. So the
    example is not in the corpus (tests/data/README.md)."""
    sim = corpus.heat_losses().compile()
    path = reference_file("msl-partial", "HeatLosses", "reference.csv")
    with open(path) as fh:
        names = [h.strip('"') for h in fh.readline().strip().split(",")]
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    before = data[:, 0] < IMPACT
    ref = {name: data[before, k] for k, name in enumerate(names)}
    t_ref = ref["time"]
    res = sim.simulate(IMPACT + 0.01, t_eval=np.unique(t_ref), rtol=1e-6, atol=1e-9)
    signals = [s for s in reference_file("msl-partial", "HeatLosses", "comparisonSignals.txt").read_text().split()
               if s != "time" and not s.endswith(("startForward", "startBackward"))]
    usage = {s: float(np.max(tube_usage(t_ref, ref[s], np.interp(t_ref, res.t, res[s])))) for s in signals}
    assert max(usage.values()) <= 1, usage
    hits = [e.t for e in res.events if e.component == "massWithStopAndFriction" and e.after.get("stopped") == 1]
    assert hits == [pytest.approx(IMPACT, abs=1e-5)]


def test_position_source_is_the_msl_bessel_filter():
    """Position (f_crit = 5 Hz) asked to move a mass from 0 to 1 m at once: s follows the step
    response of the MSL's second-order Bessel filter 1/(1 + af/w·p + bf/w²·p²), w = 2π·5 rad/s,
    af = 1.3617, bf = 0.6180 (scipy's, to 1e-7 m: both runs' tolerances)."""
    signal = pytest.importorskip("scipy.signal")
    m = Model("position")
    source = m.add(tr.Position("position", s_ref=1.0, f_crit=5.0))
    mass = m.add(tr.Mass("mass", m=3.0))
    m.connect(source.flange, mass.flange_a)
    t = np.linspace(0.0, 0.5, 101)
    res = m.compile().simulate(0.5, t_eval=t, rtol=1e-10, atol=1e-12)
    w = 2 * np.pi * 5.0
    _, expected = signal.step(signal.lti([1.0], [tr.Position.BF / w**2, tr.Position.AF / w, 1.0]), T=t)
    np.testing.assert_allclose(res["position.s"], expected, atol=1e-7)
    np.testing.assert_allclose(res["mass.v"], res["position.v"], atol=1e-12)


def test_motion_sources_move_their_housings_as_the_closed_forms():
    """The exact Position's and Move's housings (2 kg on 50 N/m) take their reaction forces:
    Position holds a 50 N/m spring at the housing's position plus s_ref = 0.05·sin(4π·t), so
    2·s'' + 100·s = −2.5·sin(4π·t); Move accelerates its 1 kg mass at the housing's
    acceleration plus a_ref, so 3·s'' + 50·s = −1·a_ref. Both housings start at rest at 0
    (the closed forms: a forced and a free sine). The catalog runs at rtol 1e-6: 1e-5 of each
    amplitude; a missing reaction or a wrong acceleration is off by all of it."""
    _, res = catalog()
    t, omega = res.t, 4 * np.pi
    w0 = np.sqrt(100.0 / 2.0)
    forced = -2.5 / (100.0 - 2.0 * omega**2)
    position = forced * (np.sin(omega * t) - omega / w0 * np.sin(w0 * t))
    a = MOVE_AMPLITUDE
    forced = -a * omega**2 / (50.0 - 3.0 * omega**2)
    move = forced * (np.cos(omega * t) - np.cos(np.sqrt(50.0 / 3.0) * t))
    for path, expected in (("position_exact_housing.s", position), ("move_housing.s", move)):
        np.testing.assert_allclose(res[path], expected, rtol=0, atol=1e-5 * np.max(np.abs(expected)))
    np.testing.assert_allclose(res["move.s"], a * (1 - np.cos(omega * t)), atol=1e-12)
    np.testing.assert_allclose(res["velocity.s"], res["velocity_mass.s"], atol=1e-12)


@pytest.mark.parametrize("part, named", [
    (lambda: tr.Brake("b", fn_max=1.0, mu_pos=[(0.5, 0.3)], f_normalized=1.0), "mu_pos"),
    (lambda: tr.SupportFriction("b", f_pos=[(0.0, -1.0)]), "f_pos"),
    (lambda: tr.SignForce("b", f_nominal=1.0, reg="tanh"), "reg"),
    (lambda: tr.MassWithStopAndFriction("b", m=1.0, smin=0.0, smax=0.4, L=0.1, s0=0.38), "s0"),
])
def test_bad_parameters_name_the_part_and_what_to_give(part, named):
    with pytest.raises(physlib.ParameterError, match=f"{named}.*'b'|'b'.*{named}"):
        part()
