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
from physlib.components.signals import Filter, Step

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


EXAMPLES = [
    Example("Filter", "Modelica.Blocks.Examples.Filter", filters, 0.9, 1e-6,
            signals=state_signals(*ANALOG_FILTERS, n=3)),
    Example("FilterWithDifferentiation", "Modelica.Blocks.Examples.FilterWithDifferentiation",
            filter_with_differentiation, 0.9, 1e-6, signals=state_signals("Bessel", n=3)),
    Example("FilterWithRiseTime", "Modelica.Blocks.Examples.FilterWithRiseTime", filter_with_rise_time,
            4.0, 1e-6, signals=state_signals("filter_fac3", "filter_fac4", "filter_fac5", n=2)),
]
