"""Issue 36's signal blocks (Filter, FirstOrder, SecondOrder, Derivative, LimIntegrator,
SlewRateLimiter, VariableLimiter, DeadZone, Hysteresis, Mean, RootMeanSquare, PadeDelay,
FixedDelay, Table2D) against closed forms, the MSL's filter coefficients, finite differences of
operating points and an exported FMU. None of them dissipates energy (they are signal blocks):
there is no noise to check against equipartition.

One model, ``bench``, drives every new class from sources whose responses have closed forms, so
that one run and one FMU cover them all; one model of filters at rest, ``filters``, gives their
frequency responses by one linearization."""
from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

from physlib import Model
from physlib.components.signals import (Constant, DeadZone, Derivative, Filter, FirstOrder, FixedDelay,
                                        Hysteresis, LimIntegrator, Mean, PadeDelay, Pulse, Ramp, RootMeanSquare,
                                        SecondOrder, Sine, SlewRateLimiter, Step, Table2D, VariableLimiter)
from physlib.components.signals.filter_design import prototype, sections
from physlib.core.errors import ParameterError

T_END = 1.0
TABLE = [[0, 0.0, 1.0, 3.0], [0.0, 0.0, 1.0, 2.0], [2.0, 1.0, 4.0, 3.0], [3.0, -1.0, 0.0, 5.0]]


@cache
def bench():
    """Every new class on sources with known responses: a unit step at 0.1 s, a 2 Hz sine of
    amplitude 1 about 0.3, a ramp from 0 to 2 over 1 s."""
    m = Model("bench")
    step = m.add(Step("step", t0=0.1))
    sine = m.add(Sine("sine", f=2.0, offset=0.3))
    ramp = m.add(Ramp("ramp", height=2.0, duration=1.0))
    on_step = [FirstOrder("lag", k=2.0, T=0.1), SecondOrder("second", k=1.5, w=20.0, D=0.3),
               PadeDelay("pade", delay_time=0.1, n=1), Filter("bessel", analog_filter="Bessel", order=3,
                                                         f_cut=5.0),
               Filter("stop", analog_filter="ChebyshevI", filter_type="BandStop", order=2, f_cut=6.0,
                      f_min=4.0), SlewRateLimiter("slew", Rising=4.0, Falling=-2.0)]
    on_sine = [Derivative("derivative", k=0.5, T=1e-3, x_start=0.3), LimIntegrator("integral", k=3.0,
                                                                                   out_max=0.3, out_min=-0.1),
               Hysteresis("hysteresis", u_low=-0.2, u_high=0.8), Mean("mean", f=2.0),
               RootMeanSquare("rms", f=2.0), DeadZone("dead", u_max=0.8, u_min=-0.5)]
    for block in on_step:
        m.connect(step.y, m.add(block).u)
    for block in on_sine:
        m.connect(sine.y, m.add(block).u)
    delay = m.add(FixedDelay("delay", delay_time=0.25, n=5))
    table = m.add(Table2D("table", table=TABLE))
    limiter = m.add(VariableLimiter("limiter"))
    upper = m.add(Constant("upper", k=0.9))
    m.connect(ramp.y, delay.u, table.u1, limiter.u)
    m.connect(sine.y, table.u2, limiter.limit2)
    m.connect(upper.y, limiter.limit1)
    return m


@cache
def bench_run():
    return bench().compile().simulate(T_END, t_eval=np.linspace(0.0, T_END, 1001), rtol=1e-10, atol=1e-12)


def closed_forms(t):
    """{signal: value at t} of the bench's blocks (t after the step at 0.1 s: s = t − 0.1)."""
    s = np.maximum(t - 0.1, 0.0)
    wd = 20.0 * math.sqrt(1 - 0.3 ** 2)
    sine = 0.3 + np.sin(4 * np.pi * t)
    u1, u2 = np.clip(2 * t, 0, 3), np.clip(sine, 0, 3)
    table = [((0, 2), (0, 1)), ((0, 2), (1, 3)), ((2, 3), (0, 1)), ((2, 3), (1, 3))]
    return {
        "lag.y": 2.0 * (1 - np.exp(-s / 0.1)),
        "second.y": 1.5 * (1 - np.exp(-0.3 * 20 * s) * (np.cos(wd * s) + 0.3 * 20 / wd * np.sin(wd * s))),
        # (1 − sT/2)/(1 + sT/2): a step of −1 then the approach to 1 with time constant T/2
        "pade.y": np.where(t >= 0.1, 1 - 2 * np.exp(-s / 0.05), 0.0),
        # rises at 4/s until (1 − y)/Td falls to 4/s, at y = 1 − 4·Td (s = 0.249), then lags
        # the input with Td = 1 ms
        "slew.y": np.where(s < 0.249, 4 * s, 1 - 0.004 * np.exp(-(s - 0.249) / 1e-3)),
        "dead.y": np.maximum(sine - 0.8, 0) + np.minimum(sine + 0.5, 0),
        "delay.y": np.maximum(2 * (t - 0.25), 0.0),       # a ramp is its own interpolation
        "limiter.y": np.minimum(np.maximum(2 * t, sine), 0.9),
        "table.y": _bilinear(u1, u2),
    }


def _bilinear(u1, u2):
    from scipy.interpolate import RegularGridInterpolator
    values = np.array([row[1:] for row in TABLE[1:]])
    grid = ([row[0] for row in TABLE[1:]], TABLE[0][1:])
    return RegularGridInterpolator(grid, values)(np.c_[u1, u2])


@pytest.mark.parametrize("signal", ["lag.y", "second.y", "pade.y", "slew.y", "dead.y", "delay.y",
                                    "limiter.y", "table.y"])
def test_responses_equal_their_closed_forms(signal):
    # rtol 1e-10 leaves integration errors near 1e-8 and the events' location (1e-10 s)
    # less: 1e-6 of these unit-sized signals is far outside both, and far inside any wrong
    # coefficient, start value or extrapolation.
    res = bench_run()
    np.testing.assert_allclose(res[signal], closed_forms(res.t)[signal], rtol=0, atol=1e-6)


def test_sampled_and_hybrid_blocks_have_their_closed_form_values():
    res = bench_run()
    t = res.t
    # Over each whole period (0.5 s) of the 2 Hz sine its mean is the offset 0.3 and its rms
    # √(0.3² + 1/2); until the first period ends (0.5 s) the outputs are y0 = 0.
    first, second = t < 0.5 - 1e-9, t > 0.5 + 1e-9
    assert np.all(res["mean.y"][first] == 0) and np.all(res["rms.y"][first] == 0)
    np.testing.assert_allclose(res["mean.y"][second], 0.3, rtol=0, atol=1e-8)
    np.testing.assert_allclose(res["rms.y"][second], math.sqrt(0.09 + 0.5), rtol=0, atol=1e-8)
    # The hysteresis turns on where the sine first rises through 0.8, off where it falls
    # through −0.2: sin(4πt) = 0.5 at t = 1/24, = −0.5 at t = 7/24.
    on = res["hysteresis.y"]
    assert np.all(on[(t > 1 / 24 + 1e-6) & (t < 7 / 24 - 1e-6)] == 1)
    assert np.all(on[t < 1 / 24 - 1e-6] == 0) and np.all(on[(t > 7 / 24 + 1e-6) & (t < 0.5 + 1 / 24 - 1e-6)] == 0)
    # The limited integral of 3·(0.3 + sin 4πt) stops at 0.3 and leaves it when the sine
    # turns below −0.3 (sin = −0.3 at 4πt = π + asin 0.3).
    leave = (math.pi + math.asin(0.3)) / (4 * math.pi)
    held = (t > 0.2) & (t < leave - 1e-6)
    y = res["integral.y"]
    reach = t[np.argmax(y >= 0.3 - 1e-9)]
    free = t < reach
    exact = 3 * (0.3 * t + (1 - np.cos(4 * np.pi * t)) / (4 * np.pi))
    np.testing.assert_allclose(y[free], exact[free], atol=1e-8)
    assert np.allclose(y[held & (t >= reach)], 0.3, atol=1e-9) and y[t > leave + 0.01][0] < 0.3
    # The approximate derivative k·s/(Ts + 1) of the sine: k·ω/√(1 + (ωT)²)·cos(ωt − atan ωT),
    # once the start (x = u(0), off the periodic state by 0.013) has decayed: after 20 T its
    # trace k/T·0.013·e^−20 is 1e-8.
    w, after = 4 * np.pi, t > 0.02
    expected = 0.5 * w / math.hypot(1, w * 1e-3) * np.cos(w * t[after] - math.atan(w * 1e-3))
    np.testing.assert_allclose(res["derivative.y"][after], expected, rtol=0, atol=1e-6)


@cache
def filters():
    """A third-order low and high pass of each characteristic, a first-order band stop and a
    Butterworth band pass, at rest (the inputs given as values), for their frequency
    responses; the other orders' are checked on the design (test below)."""
    m = Model("filters")
    for kind in ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI"):
        for shape, order in (("LowPass", 3), ("HighPass", 3), ("BandStop", 1)):
            m.add(Filter(f"{kind}_{shape}_{order}", analog_filter=kind, filter_type=shape, order=order,
                         f_cut=3.0, f_min=2.0, u=0.0))
    m.add(Filter("Butterworth_BandPass_3", analog_filter="Butterworth", filter_type="BandPass", order=3,
                 f_cut=3.0, f_min=2.0, u=0.0))
    return m


@cache
def filter_responses():
    """{name: |H(j·2π·f)| at f_cut and, for band filters, at f_min} from one linearization."""
    sim = filters().compile()
    names = list(filters().components)
    lin = sim.linearize([f"{n}.u" for n in names], [f"{n}.y" for n in names])
    out = {}
    for f in (2.0, 3.0):
        H = transfer(lin, 2j * np.pi * f)
        for i, name in enumerate(names):
            out[name, f] = abs(H[i, i])
    return out


@pytest.mark.parametrize("kind", ["CriticalDamping", "Bessel", "Butterworth", "ChebyshevI"])
def test_normalized_filters_are_3db_down_at_the_cut_off(kind):
    # From the linearization: the MSL normalizes every characteristic to 10^(−3/20) at f_cut
    # but the Butterworth, which is 1/√2 there by itself (−3.01 dB). A band stop of order 1
    # is −3 dB at both band edges; the MSL's higher-order band stops place their zeros at
    # the two sections' own frequencies, not at the band centre, so they are not (its
    # coefficients are kept).
    target = 1 / math.sqrt(2) if kind == "Butterworth" else 10 ** (-3 / 20)
    response = filter_responses()
    for name in (f"{kind}_LowPass_3", f"{kind}_HighPass_3", f"{kind}_BandStop_1"):
        assert response[name, 3.0] == pytest.approx(target, rel=1e-12)
    assert response[f"{kind}_BandStop_1", 2.0] == pytest.approx(target, rel=1e-12)


@pytest.mark.parametrize("kind", ["CriticalDamping", "Bessel", "Butterworth", "ChebyshevI"])
def test_designs_of_every_order_are_3db_down_at_the_cut_off(kind):
    # The sections' product (the realization's transfer function, section by section: see
    # Filter) at f_cut for orders 1 … 6, low and high pass.
    target = 1 / math.sqrt(2) if kind == "Butterworth" else 10 ** (-3 / 20)
    for shape in ("LowPass", "HighPass"):
        for order in range(1, 7):
            r, a, b, ku, k1, k2 = sections(shape, *prototype(kind, order), 3.0)
            s = 2j * np.pi * 3.0
            H = np.prod([-ri / (s - ri) if shape == "LowPass" else s / (s - ri) for ri in r])
            for i in range(len(a)):
                den = (s - a[i]) ** 2 + b[i] ** 2
                x1, x2 = ku[i] * (s - a[i]) / den, b[i] * ku[i] / den
                H *= x2 if shape == "LowPass" else k1[i] * x1 + k2[i] * x2 + 1
            assert abs(H) == pytest.approx(target, rel=1e-12), (shape, order)


def test_butterworth_band_pass_is_3db_down_at_both_band_edges():
    response = filter_responses()
    for f in (2.0, 3.0):
        assert response["Butterworth_BandPass_3", f] == pytest.approx(1 / math.sqrt(2), rel=1e-12)


# Modelica.Blocks.Continuous.Internal.Filter.Utilities.BesselBaseCoefficients (MSL v4.1.0,
# BSD 3-clause, see tests/data/README.md): (alpha, den1, den2) for orders 3 and 6.
MSL_BESSEL = {
    3: (0.5704770156982642, [0.7548574865985343], [(0.4756958028827457, 0.9980615136104388)]),
    6: (0.3705098000736233, [], [(0.3874508649098960, 1.219740879520741),
                                 (0.3493298843155746, 0.9670265529381365),
                                 (0.2747419229514599, 0.5122165075105700)]),
}


@pytest.mark.parametrize("order", list(MSL_BESSEL))
def test_bessel_prototype_equals_the_msls_table(order):
    from physlib.components.signals.filter_design import _bessel_base
    alpha, den1, den2 = MSL_BESSEL[order]
    ours = _bessel_base(order)
    np.testing.assert_allclose(ours[2], alpha, rtol=1e-14)
    np.testing.assert_allclose(ours[0], den1, rtol=1e-14)
    np.testing.assert_allclose(np.array(ours[1]), np.array(den2), rtol=1e-14)
    # and the normalized prototype's cr, c0 = 1/b2, c1 = b1/b2 (MSL toHighestPowerOne)
    cr, c0, c1 = prototype("Bessel", order)
    np.testing.assert_allclose(cr, [1 / a for a in den1], rtol=1e-14)
    np.testing.assert_allclose(c0, [1 / b2 for b2, _ in den2], rtol=1e-14)


# (input, value at the operating point, output): a steady state for each class
STEADY = {
    "Filter": ("bessel.u", 0.7, "bessel.y"),
    "Filter band stop": ("stop.u", 0.7, "stop.y"),
    "FirstOrder": ("lag.u", 0.7, "lag.y"),
    "SecondOrder": ("second.u", 0.7, "second.y"),
    "PadeDelay": ("pade.u", 0.7, "pade.y"),
    "Derivative": ("derivative.u", 0.7, "derivative.y"),
    "SlewRateLimiter": ("slew.u", 0.7, "slew.y"),
    "DeadZone": ("dead.u", 1.3, "dead.y"),
    "VariableLimiter": ("limiter.u", 0.4, "limiter.y"),
    "Table2D": ("table.u1", 1.3, "table.y"),
    "Hysteresis": ("hysteresis.u", 0.3, "hysteresis.y"),
    "FixedDelay": ("delay.u", 0.7, "delay.y"),
}


@cache
def steady_model():
    """The bench's blocks with their inputs given as values, for operating points."""
    m = Model("steady")
    start = {u.split(".")[0]: value for u, value, _ in STEADY.values()}
    for block in [FirstOrder("lag", k=2.0, T=0.1), SecondOrder("second", k=1.5, w=20.0, D=0.3),
                  PadeDelay("pade", delay_time=0.1, n=3), Filter("bessel", analog_filter="Bessel", order=3, f_cut=5.0),
                  Filter("stop", analog_filter="ChebyshevI", filter_type="BandStop", order=2, f_cut=6.0, f_min=4.0),
                  SlewRateLimiter("slew", Rising=4.0, y_start=0.7), Derivative("derivative", k=0.5),
                  DeadZone("dead", u_max=0.8, u_min=-0.5),
                  Hysteresis("hysteresis", u_low=-0.2, u_high=0.8), FixedDelay("delay", delay_time=0.25, n=5)]:
        block.u = start[block.name]
        m.add(block)
    m.add(VariableLimiter("limiter", u=start["limiter"], limit1=0.9, limit2=-0.2))
    m.add(Table2D("table", table=TABLE, u1=start["table"], u2=0.6))
    return m.compile()


def steady(**inputs):
    values = {u: value for u, value, _ in STEADY.values()}
    return steady_model().operating_point(inputs={**values, **inputs})


@pytest.mark.parametrize("part", list(STEADY))
def test_linearization_equals_finite_differences_of_steady_states(part):
    # The static gain D − C·A⁻¹·B of the linearization at the steady state against central
    # differences of steady states (δ = 1e-5: truncation error ~δ², far below the 1e-7 asked).
    # The sampled and hybrid blocks hold their outputs between events: zero gain in both.
    u, value, y = STEADY[part]
    lin = steady_model().linearize([u], [y], at=steady())
    gain = (lin.D - lin.C @ np.linalg.solve(lin.A, lin.B))[0, 0]
    delta = 1e-5
    difference = (steady(**{u: value + delta})[y] - steady(**{u: value - delta})[y]) / (2 * delta)
    assert gain == pytest.approx(difference, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("state, gain", [("integral.y", 3.0), ("mean.x", 1.0), ("rms.x", 1.0)])
def test_integrating_blocks_linearize_to_their_integrators(state, gain):
    # No steady state to difference: at t = 0.1 s of a run with the inputs at 0.5 each
    # block's state follows dx/dt = g(u), so its linearization from the input is g'(u)/s:
    # k = 3 for the LimIntegrator (free, below its limit 1; its output is that state), 1 for
    # the Mean's integral, 2u = 1 for the RootMeanSquare's of u²; their held outputs y do not
    # move (zero).
    block = state.split(".")[0]
    sim = integrators()
    at = sim.simulate(0.2, rtol=1e-10, atol=1e-12).at(0.1)
    outputs = [state] if block == "integral" else [state, f"{block}.y"]
    lin = sim.linearize([f"{block}.u"], outputs, at=at)
    s = 2j * np.pi
    np.testing.assert_allclose(transfer(lin, s)[:, 0], [gain / s, 0.0][:len(outputs)], rtol=1e-12, atol=1e-15)


@cache
def integrators():
    m = Model("integrators")
    m.add(LimIntegrator("integral", k=3.0, out_max=1.0, out_min=-0.1, u=0.5))
    m.add(Mean("mean", f=2.0, u=0.5))
    m.add(RootMeanSquare("rms", f=2.0, u=0.5))
    return m.compile()


def transfer(lin, s):
    """The linear model's transfer matrix C·(sI − A)⁻¹·B + D at s."""
    return lin.C @ np.linalg.solve(s * np.eye(lin.A.shape[0]) - lin.A, lin.B) + lin.D


def test_fmu_of_the_bench_agrees_with_simulate(tmp_path):
    # FMPy's CVODE and physlib's IDAS at rtol 1e-10 agree to ~1e-8 of a signal's range away
    # from events; a wrong mode, held sample or start would be off by a good part of it.
    fmpy = pytest.importorskip("fmpy")
    from fmu_runs import away_from_events
    sim = bench().compile()
    outputs = ["lag.y", "second.y", "pade.y", "bessel.y", "stop.y", "slew.y", "derivative.y", "integral.y",
               "hysteresis.y", "mean.y", "rms.y", "dead.y", "delay.y", "table.y", "limiter.y"]
    path = sim.export_fmu(tmp_path / "bench", outputs=outputs)
    fmu = fmpy.simulate_fmu(str(path), stop_time=T_END, relative_tolerance=1e-10, solver="CVode",
                            output=outputs, output_interval=T_END / 400, record_events=True)
    rows = away_from_events(fmu["time"])
    res = sim.simulate(T_END, t_eval=fmu["time"][rows], rtol=1e-10, atol=1e-12)
    errors = {s: float(np.max(np.abs(fmu[s][rows] - res[s]))) / max(np.ptp(res[s]), 1e-300) for s in outputs}
    failed = {s: f"{e:.2g}" for s, e in errors.items() if e > 1e-6}
    assert not failed, f"off simulate (fraction of the range): {failed}"


@pytest.mark.parametrize("make, message", [
    (lambda: Filter("f1", f_cut=0.0), "f_cut"),
    (lambda: Filter("f1", f_cut=1.0, analog_filter="Chebyshev"), "analog_filter"),
    (lambda: Filter("f1", f_cut=1.0, filter_type="BandPass"), "f_min < f_cut"),
    (lambda: Filter("f1", f_cut=1.0, order=0), "order"),
    (lambda: Filter("f1", f_cut=1.0, x_start=[0.0]), "x_start"),
    (lambda: PadeDelay("f1", n=2, m=3), "m must be"),
    (lambda: FixedDelay("f1", n=0), "n must be"),
    (lambda: LimIntegrator("f1", out_max=1.0, out_min=1.0), "out_min"),
    (lambda: Hysteresis("f1", u_low=1.0, u_high=0.0), "u_low"),
    (lambda: Table2D("f1", table=[[0, 1, 2], [1, 0, 0], [0, 0, 0]]), "increase strictly"),
    (lambda: SlewRateLimiter("f1", Falling=1.0), "negative"),
])
def test_bad_parameters_name_the_block(make, message):
    with pytest.raises(ParameterError) as err:
        make()
    assert "f1" in str(err.value) and message in str(err.value)


def test_slew_rate_limiter_falls_at_minus_rising_wherever_rising_is_set():
    """Falling defaults to −Rising (the MSL's binding): a 10-high pulse from 0 to 2 s through
    a limiter made with Rising = 1/s, run with params Rising = 5/s, rises to 10 at 2 s and
    falls at 5/s: 5, 10, 5, 0 at 1, 2, 3, 4 s (Td = 1 ms lags each ramp by Td·5 = 5e-3; 1e-2
    asked). Falling was once fixed at −1/s when the block was made: 9.998, 8.998, 7.998."""
    m = Model("slew")
    m.add(SlewRateLimiter("s", u=Pulse(amplitude=10.0, period=4.0, width=2.0), Rising=1.0))
    sim = m.compile()
    y = sim.simulate(4.0, t_eval=[1.0, 2.0, 3.0, 4.0], params={"s.Rising": 5.0})["s.y"]
    np.testing.assert_allclose(y, [5.0, 10.0, 5.0, 0.0], atol=1e-2)
    y = sim.simulate(4.0, t_eval=[1.0, 2.0, 3.0, 4.0], params={"s.Falling": -2.0})["s.y"]
    np.testing.assert_allclose(y, [1.0, 2.0, 0.0, 0.0], atol=1e-2)      # rises at 1/s, falls at 2/s
