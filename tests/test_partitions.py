"""Linear/nonlinear partitions, tearing and the reduction summary."""
import numpy as np

from physlib import Model
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, VoltageSource
from physlib.components.signals import Sine


def diode_rc():
    """Sine source → R1 → node a; C1 and diode D1 from a to ground; R2 load from a to ground."""
    m = Model("clipper")
    src = m.add(VoltageSource("src", V=Sine(amplitude=5.0, f=1e3)))
    r1, r2 = m.add(Resistor("R1", R=1e3)), m.add(Resistor("R2", R=10e3))
    c1, d1 = m.add(Capacitor("C1", C=10e-9)), m.add(Diode("D1"))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r1.p)
    m.connect(r1.n, c1.p, d1.p, r2.p)
    m.connect(c1.n, d1.n, r2.n, src.n, gnd.p)
    return m


def test_diode_is_nonlinear_and_the_rc_network_linear():
    parts = diode_rc().compile().partitions
    linear = [p for p in parts if p.linear]
    nonlinear = [p for p in parts if not p.linear]
    assert [p.components for p in nonlinear] == [["D1"]]
    assert len(linear) == 1                                 # maximal: merged into one portion
    assert {"R1", "R2", "C1", "src", "gnd"} <= set(linear[0].components)
    # The capacitor (memory) stays on the linear side, so the nonlinear portion is memoryless.
    assert nonlinear[0].memoryless and not linear[0].memoryless
    assert any("D1" in node and "C1" in node for node in nonlinear[0].boundary)
    assert any("exp" in e for e in nonlinear[0].equations)


def test_tearing_leaves_one_unknown_for_the_diode_loop():
    sim = diode_rc().compile()
    assert len(sim.algebraic) == 1
    res = sim.simulate(2e-3, rtol=1e-9, atol=1e-12)
    # Kirchhoff's current law at node a and the diode law hold along the clipped waveform.
    i_c = 10e-9 * np.gradient(res["C1.v"], res.t)
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    # IDAS solves the torn residual to its tolerances (atol 1e-12 A): allow 1e-10 A.
    np.testing.assert_allclose(res["D1.i"], 1e-14 * (np.exp(res["D1.v"] / vt) - 1), rtol=1e-9, atol=1e-10)
    assert np.max(np.abs(res["R1.i"] - res["D1.i"] - res["R2.i"] - res["C1.i"])) < 1e-12
    assert np.max(res["C1.v"]) < 0.8                       # clipped near one diode drop
    assert np.max(np.abs(res["C1.i"] - i_c)[5:-5]) < 2e-4  # finite differences, coarse grid


def test_summary_reports_each_reduction_step():
    text = diode_rc().compile().summary()
    for phrase in ("flattened:", "alias elimination:", "BLT and tearing:", "states (1): C1.v",
                   "algebraic variables (1)", "partitions: linear", "nonlinear [D1]"):
        assert phrase in text, phrase
