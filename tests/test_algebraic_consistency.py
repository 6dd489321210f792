"""Algebraic variables on their equations at every output row, and settling that stops at time
events: silent wrong results the suite did not catch.

* A Zener clipper (5 V... 10 V sine through 1 kΩ) beside an unrelated R–C branch: at rtol 1e-8
  IDA accepted each step after one Newton iteration on a convergence rate measured thousands
  of steps before (its own test), so the diode's current drifted off its equation by a stale
  Jacobian's correction per step, and from 10 ms the run reported −5.87 V with +6.5 mA (the
  characteristic says −1.4e11 A there) without a word. At rtol 1e-4 a Newton iteration
  started far down the diode's exponential stopped 10 tolerances off after two corrections
  (the steepness there makes every correction small), and rows between steps whose
  reconstruction did not converge came out at +1.04 V with −3.5 mA.
* The same clipper beside a 400-stage R-C ladder (no modes, so CasADi's IDAS): the last row
  took IDAS's own algebraic variable at the end, interpolated: 1.8e11 V and -1.8e8 A.
* A settling probe 1e-8 s after an event integrated through a source's step 2 ns later in the
  old modes: an ideal diode turned on by rounding at 7.8e-11 s carried 1e5 A backwards for
  8 ns and charged a capacitor by a volt that the reverse-biased diode never lets through.

The references are independent of physlib: each row's voltage is the root of
Vs(t) = v + R·i(v), by bisection on the MSL's characteristic, and the current
(Vs − v)/R. Tolerance: 10 units of the run's own tolerance on the current, the algebraic
variable the solver solves for (rtol·|i| + atol), what the rows' Newton iteration guarantees
with room; a drifted row is off by milliamperes.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource, ZDiode
from physlib.components.signals import Sine

from hybrid_circuits import HORIZON, compiled
from test_catalog_electrical import ZENER, zener_current

R = 1e3
def clipper(diode) -> Model:
    """A 10 V, 100 Hz sine through R into ``diode``, and beside it an R–C branch (1 kΩ,
    1 µF) that gives the model a state the diode does not touch."""
    m = Model("clipper")
    g = m.add(Ground("g"))
    src = m.add(VoltageSource("V", V=Sine(amplitude=10.0, f=100.0)))
    r, r2, c2 = m.add(Resistor("R", R=R)), m.add(Resistor("R2", R=1e3)), m.add(Capacitor("C2", C=1e-6))
    d = m.add(diode)
    m.connect(src.p, r.p, r2.p)
    m.connect(r.n, d.p)
    m.connect(r2.n, c2.p)
    m.connect(g.p, src.n, d.n, c2.n)
    return m


def root_voltage(vs: float, current) -> float:
    """v with vs = v + R·current(v) (monotonic in v), by bisection to rounding."""
    lo, hi = min(vs, 0.0) - 1.0, max(vs, 0.0) + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mid + R * current(mid) < vs else (lo, mid)
    return 0.5 * (lo + hi)


def assert_rows_on_the_characteristic(res, name, current, rtol, atol):
    """The diode current of every row against the root's: the current is what the solver
    solves for (the algebraic variable, R.p.i), its tolerance rtol·|i| + atol."""
    vs = res["V.v"]
    expected = np.array([(v - root_voltage(v, current)) / R for v in vs])
    i = res[f"{name}.i"]
    units = np.abs(i - expected) / (rtol * np.abs(expected) + atol)
    worst = int(np.argmax(units))
    assert units[worst] <= 10.0, (f"t = {res.t[worst]}: {name}.i = {i[worst]} A, the characteristic "
                                  f"gives {expected[worst]} A ({units[worst]:.3g} tolerances)")


@pytest.fixture(scope="module")
def zener_clipper():
    return clipper(ZDiode("zd", **ZENER)).compile()


@pytest.mark.parametrize("rtol, atol", [(1e-8, 1e-10), (1e-4, 1e-6), (1e-6, 1e-8)])
def test_a_zener_clipper_stays_on_its_characteristic(zener_clipper, rtol, atol):
    res = zener_clipper.simulate(0.02, t_eval=np.linspace(0, 0.02, 201), rtol=rtol, atol=atol)
    assert_rows_on_the_characteristic(res, "zd", lambda v: zener_current(v, **ZENER), rtol, atol)


def test_settling_stops_at_the_next_time_event():
    # A 1 V step at 2 ns on a reversed ideal diode (cathode on the source) feeding 10 Ω, 7.4 µF
    # and 62.5 mH to ground: the diode never conducts, only its off-state leak (1e-5 S)
    # charges the node by microvolts. An output at 1.4e-23 s restarts the run inside the
    # start's settling window; its probe must not run through the step.
    sim = compiled(("step", (("reversed diode", "CL", None),)))
    params = {"src.V.height": 1.0, "src.V.t0": 2e-9, "R2g.R": 10.0, "C2g.C": 7.4024944241576675e-06,
              "L2g.L": 0.0625}
    default = sim.simulate(HORIZON, params=params)
    gridded = sim.simulate(HORIZON, params=params, t_eval=np.array([1.380649e-23, HORIZON]))
    assert not default.events and not gridded.events
    # The leak through 1e-5 S into the 10 Ω load: the node stays below 1e-5·10·1 V = 1e-4 V.
    for res in (default, gridded):
        assert np.max(np.abs(res["C2g.v"])) < 1e-4
    bound = 100 * (1e-6 * np.max(np.abs(default.x), axis=1) + 1e-8)     # as test_grid_differential
    assert np.all(np.abs(gridded.x[:, -1] - default.x[:, -1]) <= bound)


def test_the_residual_check_flags_values_that_are_not_finite():
    # The callbacks' one-number finite check (a sum compared with infinity): written as
    # total - total, CasADi folded it to 0 when it built the graph and it flagged nothing.
    from physlib.analysis.simulation.stepping_functions import stepping_functions
    sim = clipper(ZDiode("zd", **ZENER)).compile()
    residual = stepping_functions(sim.system, "idas").residual
    p = sim.parameter_vector({})
    _, ok = residual([0.0, 0.0], [0.0, 0.0], p, 0.0)
    _, bad = residual([0.0, float("nan")], [0.0, 0.0], p, 0.0)
    assert float(ok) == 0.0 and math.isnan(float(bad))


def test_a_zener_clipper_beside_a_large_ladder_starts_and_stays_on_its_characteristic():
    # 400 R-C stages beside the clipper: a run without modes, in CasADi's IDAS, whose
    # algebraic variables between and at its steps are interpolated; the rows between were
    # solved again, the last one was not (1.8e11 V and -1.8e8 A at t_end).
    m = clipper(ZDiode("zd", **ZENER))
    previous = m["V"].p
    for k in range(400):
        r, c = m.add(Resistor(f"Rl{k}", R=10.0)), m.add(Capacitor(f"Cl{k}", C=1e-6))
        m.connect(previous, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, m["g"].p)
        previous = r.n
    res = m.compile().simulate(0.01, t_eval=np.linspace(0, 0.01, 51))
    assert_rows_on_the_characteristic(res, "zd", lambda v: zener_current(v, **ZENER), 1e-6, 1e-8)
