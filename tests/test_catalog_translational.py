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
    and an eddy current brake heating a capacitor."""
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
    return m


@cache
def catalog():
    """The compiled :func:`catalog_model` and its run over the first 0.45 s (past the stop)."""
    sim = catalog_model().compile()
    return sim, sim.simulate(0.45, rtol=1e-8, atol=1e-10)


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
