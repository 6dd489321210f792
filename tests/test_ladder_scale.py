"""The 10,000-element RC ladder (5,000 stages of 1 kΩ and 1 nF, τ = 1 µs a stage) of the
million-element benchmark (``benchmarks/bench_scale.py``), built in Python and read as a SPICE
deck: its 1 µs transient and its response at 100 kHz against independent answers, and the
stepped run's set-up doing no work of the size of the whole model twice.

Transient: the source ramps from 0 to 1 V over 1 µs (the deck's PULSE rise). The first nodes
are compared with the matrix exponential of the ladder truncated to 80 stages: over 1 µs the
ramp reaches node k with a weight of about (t/τ)^k/k!, so stages beyond 40 change the first
eight nodes by less than 1e-40 V (the truncation to 40 and to 80 stages agree exactly).

AC: node voltages at 100 kHz from the ladder's impedances, computed backwards from its last
capacitor (exact recurrences, rounding only)."""
import casadi as cs
import numpy as np
import pytest
import scipy.linalg as sla

import physlib.spice as spice
from physlib import Model
from physlib.analysis.simulation.stepping_functions import stepping_functions
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import Ramp

R, C, RISE = 1e3, 1e-9, 1e-6          # Ohm, F, s
STAGES = 5000                          # 10,000 elements
PROBED = 8                             # nodes compared
F_AC = 1e5                             # Hz
# The solvers run at rtol 1e-6, atol 1e-8 (the deck's .tran gets the same, see
# physlib.spice.runs.run_tran); the global error of a 1 V signal over ~50 steps stays within
# a few 1e-7 V (4e-7 V seen). A wrong stage, value or node numbering moves them by 1e-3 V and more.
TRAN_TOL = 2e-6                       # V
AC_TOL = 1e-9                         # relative: one sparse solve, rounding only


def ladder_model(stages: int) -> Model:
    m = Model(f"ladder_{stages}")
    src = m.add(VoltageSource("V1", V=Ramp(height=1.0, duration=RISE)))
    gnd = m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, stages + 1):
        r = m.add(Resistor(f"R{k}", R=R))
        c = m.add(Capacitor(f"C{k}", C=C, v0=0.0))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def ladder_deck(stages: int, card: str) -> str:
    lines = ["RC ladder", f"V1 n0 0 DC 0 AC 1 PULSE(0 1 0 {RISE:g} {RISE:g} 1 2)"]
    for k in range(1, stages + 1):
        lines += [f"R{k} n{k - 1} n{k} 1k", f"C{k} n{k} 0 1n"]
    return "\n".join(lines + [card, ".end"]) + "\n"


def exact_transient(t: float, stages: int = 80) -> np.ndarray:
    """Node voltages at t of the ladder truncated to ``stages``, driven by the ramp t/RISE:
    x' = A x + b u, u' = w/RISE, w' = 0 from x = 0, u = 0, w = 1, by one matrix exponential."""
    tau = R * C
    A = np.diag(np.full(stages, -2.0 / tau)) + np.diag(np.full(stages - 1, 1.0 / tau), 1) \
        + np.diag(np.full(stages - 1, 1.0 / tau), -1)
    A[-1, -1] = -1.0 / tau                         # the last node has no stage after it
    M = np.zeros((stages + 2, stages + 2))
    M[:stages, :stages] = A
    M[0, stages] = 1.0 / tau                        # the source drives node 1 through R1
    M[stages, stages + 1] = 1.0 / RISE
    start = np.zeros(stages + 2)
    start[-1] = 1.0
    return (sla.expm(M * t) @ start)[:stages]


def exact_ac(f: float, stages: int = STAGES) -> np.ndarray:
    """Phasors of the first PROBED nodes for a 1 V source at f: Z_k, the impedance from node k
    to ground (C_k in parallel with R_{k+1} + Z_{k+1}), from the last node back, then
    v_k = v_{k-1}·Z_k/(R + Z_k)."""
    y_c = 2j * np.pi * f * C
    z = 1.0 / y_c
    impedances = [z]
    for _ in range(stages - 1):
        z = 1.0 / (y_c + 1.0 / (R + z))
        impedances.append(z)
    impedances.reverse()                               # Z_1 ... Z_N
    v, out = 1.0 + 0j, []
    for k in range(PROBED):
        v = v * impedances[k] / (R + impedances[k])
        out.append(v)
    return np.array(out)


@pytest.fixture(scope="module")
def compiled():
    return ladder_model(STAGES).compile()


def test_python_ladder_transient_matches_the_matrix_exponential(compiled):
    times = [0.0, RISE / 2, RISE]
    res = compiled.simulate(RISE, t_eval=times)
    for i, t in enumerate(times[1:], start=1):
        got = np.array([res[f"C{k}.v"][i] for k in range(1, PROBED + 1)])
        np.testing.assert_allclose(got, exact_transient(t)[:PROBED], rtol=0, atol=TRAN_TOL)
    # The stepped run of this large ODE took its starting rates from the compiled dae
    # function: a rates function of its own copies the whole model's graph (0.46 s and
    # tens of MB at 100,000 elements).
    assert ("fast", "rates_unrolled") not in compiled.system.cache
    assert ("fast", "dae") in compiled.system.cache


def test_python_ladder_ac_matches_the_impedance_recurrence(compiled):
    outputs = [f"C{k}.v" for k in range(1, PROBED + 1)]
    lin = compiled.linearize(["V1.V"], outputs, at=compiled.operating_point())
    got = lin.frequency_response([F_AC])[:, 0, 0]
    exact = exact_ac(F_AC)
    assert np.max(np.abs(got - exact) / np.abs(exact)) < AC_TOL


def test_deck_ladder_transient_and_ac_match_the_same_answers():
    deck = spice.read(ladder_deck(STAGES, f".tran {RISE / 2:g} {RISE:g}\n.ac lin 1 {F_AC:g} {F_AC:g}"))
    results = deck.run()
    tran, ac = results["tran"], results["ac"]
    for t in (RISE / 2, RISE):
        i = int(np.argmin(np.abs(tran["time"] - t)))
        assert tran["time"][i] == pytest.approx(t, rel=1e-12)
        got = np.array([tran[f"v(n{k})"][i] for k in range(1, PROBED + 1)])
        np.testing.assert_allclose(got, exact_transient(t)[:PROBED], rtol=0, atol=TRAN_TOL)
    got = np.array([ac[f"v(n{k})"][0] for k in range(1, PROBED + 1)])
    exact = exact_ac(F_AC)
    assert np.max(np.abs(got - exact) / np.abs(exact)) < AC_TOL


def test_a_large_affine_model_s_runs_and_linearization_derive_no_symbolic_jacobian(monkeypatch):
    # The stepped runs, the operating point and the linearization of a large affine model
    # find J on colored seeds: CasADi's symbolic Jacobian of the whole model (4.6 s of a
    # million-element ladder's first transient, growing faster than the model) is never made.
    compiled = ladder_model(1200).compile()         # 1,200 states: above every size limit
    def refuse(*args):
        raise AssertionError("the whole model's symbolic Jacobian was derived")
    monkeypatch.setattr(type(compiled.system), "dae_jacobian", refuse)
    monkeypatch.setattr(cs, "depends_on", refuse)
    for solver in ("idas", "cvodes"):
        assert stepping_functions(compiled.system, solver, sparse=True).linear is not None
        compiled.simulate(RISE, solver=solver, t_eval=[0.0, RISE])
    lin = compiled.linearize(["V1.V"], ["C1.v"], at=compiled.operating_point())
    got = lin.frequency_response([F_AC])[0, 0, 0]
    # the first node of a 1,200-stage ladder is that of the 5,000-stage one (the impedance
    # seen from node 1 converges within a few dozen stages at F_AC)
    assert abs(got - exact_ac(F_AC)[0]) < AC_TOL * abs(exact_ac(F_AC)[0])