"""The Modelica Standard Library's block examples of group B (Modelica.Blocks.Examples and
ModelicaTest.Blocks, tag v4.1.0), built from physlib's signal blocks under the MSL's instance
names, for tests/test_msl_corpus.py (which collects this module's EXAMPLES).

The MSL's filters, delays and controllers start in steady state for their input at the start
(init = SteadyState); physlib's initial values are functions of parameters, so each builder
gives that input as the block's ``u_start`` (or the steady values as start values), worked out
in its docstring. A filter's states x[i] are physlib's ``x{i}``."""
from __future__ import annotations

import math

from physlib import Model
from physlib.components.signals import (PID, Add, Constant, DampedSine, DeadZone, Filter, FirstOrder,
                                        Hysteresis, Limiter, Mean, PadeDelay, RootMeanSquare, Sine,
                                        SlewRateLimiter, Step, VariableLimiter)

from msl_corpus import Example

ANALOG_FILTERS = ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI")


def state_signals(*blocks: str, n: int) -> dict[str, str]:
    """The MSL's x[i] of ``blocks`` mapped to physlib's x{i}, i = 1 … n."""
    return {f"{b}.x[{i}]": f"{b}.x{i}" for b in blocks for i in range(1, n + 1)}


def filters() -> Model:
    """Blocks.Examples.Filter: a step from 0.1 to 1.1 at 0.1 s into four third-order low
    passes at f_cut = 2 Hz (critical damping, Bessel, Butterworth, Chebyshev I with 0.5 dB
    ripple), normalized, each starting in steady state for the step's 0.1 (u_start)."""
    m = Model("Filter")
    step = m.add(Step("step", t0=0.1, offset=0.1))
    for kind in ANALOG_FILTERS:
        block = m.add(Filter(kind, analog_filter=kind, order=3, f_cut=2.0, f_min=0.8 * 2.0, u_start=0.1))
        m.connect(step.y, block.u)
    return m


def filter_with_differentiation() -> Model:
    """Blocks.Examples.FilterWithDifferentiation: the step of :func:`filters` into a third-order
    Bessel low pass at 2 Hz. The MSL differentiates its output three times (blocks Der, none of
    them compared): the filter's states are compared."""
    m = Model("FilterWithDifferentiation")
    step = m.add(Step("step", t0=0.1, offset=0.1))
    bessel = m.add(Filter("Bessel", analog_filter="Bessel", order=3, f_cut=2.0, u_start=0.1))
    m.connect(step.y, bessel.u)
    return m


def filter_with_rise_time() -> Model:
    """Blocks.Examples.FilterWithRiseTime: a unit step at 1 s into second-order critical-damping
    low passes (the MSL's default filter) with f_cut = fac/(2π·riseTime), riseTime = 2 s,
    fac = 3, 4, 5; at rest before the step."""
    m = Model("FilterWithRiseTime")
    step = m.add(Step("step", t0=1.0))
    for fac in (5, 4, 3):
        block = m.add(Filter(f"filter_fac{fac}", order=2, f_cut=fac / (2 * math.pi * 2.0)))
        m.connect(step.y, block.u)
    return m


def limiters() -> Model:
    """ModelicaTest.Blocks.Limiters: a sine (amplitude 2, 1 Hz) through a Limiter (±1), a
    VariableLimiter with limits from constPos (+1) and constNeg (−1), a DeadZone (±1) and a
    SlewRateLimiter (Rising = 10/s, Falling = −10/s, Td = 1 ms) starting in steady state, y = u(0)
    = 0. The MSL's idealDerivative (a Der block on the slew-rate limiter's output) is that
    block's rate, dy/dt."""
    m = Model("Limiters")
    sine = m.add(Sine("sine", amplitude=2.0, f=1.0))
    blocks = [m.add(Limiter("limiter", u_max=1.0, u_min=-1.0)), m.add(VariableLimiter("variableLimiter")),
              m.add(DeadZone("deadZone", u_max=1.0, u_min=-1.0)),
              m.add(SlewRateLimiter("slewRateLimiter", Rising=10.0))]
    for block in blocks:
        m.connect(sine.y, block.u)
    const_pos = m.add(Constant("constPos", k=1.0))
    const_neg = m.add(Constant("constNeg", k=-1.0))
    m.connect(const_pos.y, blocks[1].limit1)
    m.connect(const_neg.y, blocks[1].limit2)
    return m


def hysteresis() -> Model:
    """ModelicaTest.Blocks.Hysteresis: a sine (amplitude 1, 1 Hz) into a Hysteresis with
    uLow = −0.5, uHigh = 0.5, false before the start."""
    m = Model("Hysteresis")
    signal = m.add(Sine("Signal", f=1.0))
    block = m.add(Hysteresis("hysteresis", u_low=-0.5, u_high=0.5))
    m.connect(signal.y, block.u)
    return m


def root_mean_square() -> Model:
    """ModelicaTest.Blocks.RootMeanSquare: an exponentially damped sine (ExpSine: amplitude 1,
    2 Hz, damping 0.5/s, offset −0.5) into a Mean and a RootMeanSquare over periods of 0.5 s."""
    m = Model("RootMeanSquare")
    source = m.add(DampedSine("expSine", f=2.0, damping=0.5, offset=-0.5))
    mean = m.add(Mean("mean1", f=2.0))
    rms = m.add(RootMeanSquare("rootMeanSquare", f=2.0))
    m.connect(source.y, mean.u, rms.u)
    return m


def pade_delay() -> Model:
    """ModelicaTest.Blocks.PadeDelay1: a step (0.1 → 1.1 at 0.1 s) and a sine (2 Hz, offset 0.1,
    from 0.1 s) each through a PadeDelay of order n = m = 10 with delay 0.2 s (balance = false),
    starting with x[n] = u(0) = 0.1. The MSL compares them with its 3.2.1 implementation
    (padeDelayOld1, padeDelayOld2), the same transfer function in the same realization: those
    signals are compared with the same blocks' outputs."""
    m = Model("PadeDelay1")
    step = m.add(Step("step", t0=0.1, offset=0.1))
    sine = m.add(Sine("Sine", f=2.0, offset=0.1, t0=0.1))
    for name, source in (("padeDelay1", step), ("padeDelay2", sine)):
        block = m.add(PadeDelay(name, delay_time=0.2, n=10, u_start=0.1))
        m.connect(source.y, block.u)
    return m


LIMPID_TI, LIMPID_NI = 1.0, 0.9


def lim_pid_loops() -> Model:
    """ModelicaTest.Blocks.LimPID: four PI loops (LimPID k = 1, Ti = 1 s, Ni = 0.9, output
    limits 0 … 1) each closed over a first-order lag (T = 1 s), with set-point steps at 1 s
    (0.5 → 0.9, 2 → 0.5, −1 → 0.5, 0.5 → 0.9); the MSL's homotopy options (PID2…PID4) only
    help its initialization.

    physlib's PID with limits is the LimPID (see msl_corpus.pid_controller): kp = k,
    ki = k/Ti, Tt = Ni·Ti, xi = Ti·I.y; the control error u_s − u_m is an Add. Steady start
    (der(I.y) = 0, der(firstOrder.y) = 0, so u_m = y): within the limits (PID1, PID4) u_m =
    u_s = 0.5 = I.y; PID2 (set point 2) is held at 1: (2 − 1) + (1 − v)/Ni = 0, v = 1.9,
    I.y = v − (u_s − u_m) = 0.9; PID3 (set point −1) at 0: v = −0.9, I.y = 0.1."""
    m = Model("LimPID")
    starts = {1: (0.5, 0.4, 0.5, 0.5), 2: (2.0, -1.5, 0.9, 1.0), 3: (-1.0, 1.5, 0.1, 0.0),
              4: (0.5, 0.4, 0.5, 0.5)}
    for i, (offset, height, integral, output) in starts.items():
        step = m.add(Step(f"step{i}", offset=offset, height=height, t0=1.0))
        error = m.add(Add(f"error{i}", k1=1.0, k2=-1.0))
        pid = m.add(PID(f"PID{i}", kp=1.0, ki=1 / LIMPID_TI, y_max=1.0, y_min=0.0,
                        Tt=LIMPID_NI * LIMPID_TI, xi0=integral * LIMPID_TI))
        lag = m.add(FirstOrder(f"firstOrder{i}", T=1.0, y_start=output))
        m.connect(step.y, error.u1)
        m.connect(lag.y, error.u2)
        m.connect(error.y, pid.u)
        m.connect(pid.y, lag.u)
    return m


EXAMPLES = [
    Example("Filter", "Modelica.Blocks.Examples.Filter", filters, 0.9, 1e-6,
            signals=state_signals(*ANALOG_FILTERS, n=3)),
    Example("FilterWithDifferentiation", "Modelica.Blocks.Examples.FilterWithDifferentiation",
            filter_with_differentiation, 0.9, 1e-6, signals=state_signals("Bessel", n=3)),
    Example("FilterWithRiseTime", "Modelica.Blocks.Examples.FilterWithRiseTime", filter_with_rise_time,
            4.0, 1e-6, signals=state_signals("filter_fac3", "filter_fac4", "filter_fac5", n=2)),
    Example("Limiters", "ModelicaTest.Blocks.Limiters", limiters, 1.1, 1e-6,
            signals={"idealDerivative.y": "slewRateLimiter.rate"}),
    Example("Hysteresis", "ModelicaTest.Blocks.Hysteresis", hysteresis, 3.0, 1e-6),
    Example("RootMeanSquare", "ModelicaTest.Blocks.RootMeanSquare", root_mean_square, 2.0, 1e-6,
            signals={"rootMeanSquare.mean.x": "rootMeanSquare.x",
                     "rootMeanSquare.mean.y": "rootMeanSquare.mean_square"}),
    Example("LimPID", "ModelicaTest.Blocks.LimPID", lim_pid_loops, 10.0, 1e-6,
            signals={f"PID{i}.I.y": (lambda res, i=i: res[f"PID{i}.xi"] / LIMPID_TI) for i in range(1, 5)}),
    Example("PadeDelay1", "ModelicaTest.Blocks.PadeDelay1", pade_delay, 1.0, 1e-6,
            signals={"padeDelayOld1.y": "padeDelay1.y", "padeDelayOld2.y": "padeDelay2.y"}),
]

BENCH_FMU = ("tests/test_catalog_blocks.py::test_fmu_of_the_bench_agrees_with_simulate, whose one FMU "
             "holds every block class of this example")
FMU_ELSEWHERE = {e.name: BENCH_FMU for e in EXAMPLES if e.name != "LimPID"}
FMU_ELSEWHERE["LimPID"] = ("the PID with limits: PID_Controller's case in tests/test_export_fmu_differential.py; "
                           "FirstOrder: " + BENCH_FMU)
