"""Tearing must not make a sparse nonlinear circuit dense: along a chain of nonlinear elements
with no state between them, torn explicit solutions carry every tearing variable before them,
so the residuals' Jacobian became lower-triangular dense (n² entries, O(n³) per Newton step: a
1,100-stage diode ladder's operating point took 37 s). Such a block is solved whole
(physlib.assembly.loop_tearing.WIDE_COUPLING); a small loop is still torn to its few
equations."""
import numpy as np
import pytest

from physlib import Model
from physlib.assembly import loop_tearing
from physlib.components.electrical import Diode, Ground, Resistor, VoltageSource


def diode_ladder(stages: int) -> Model:
    """5 V through ``stages`` 1 kOhm resistors in series, a diode from each node to ground."""
    m = Model("diode_ladder")
    src, gnd = m.add(VoltageSource("V1", V=5.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, stages + 1):
        r, d = m.add(Resistor(f"R{k}", R=1e3)), m.add(Diode(f"D{k}"))
        m.connect(node, r.p)
        m.connect(r.n, d.p)
        m.connect(d.n, gnd.p)
        node = r.n
    return m


def jacobian_entries(stages: int) -> int:
    return diode_ladder(stages).compile().system.dae_jacobian().nnz()


def test_a_long_diode_ladder_keeps_a_sparse_jacobian():
    # entries per stage stay constant (the circuit's own sparsity): torn, 100 stages had 5,149
    # entries and 400 stages 80,599 (n²/2)
    small, large = jacobian_entries(50), jacobian_entries(200)
    assert large <= 4.2 * small
    assert large < 40 * 200


def test_a_short_loop_is_still_torn_to_its_few_equations():
    # 20 stages: 20 tearing variables, within WIDE_COUPLING, so the diode voltages are the
    # only algebraic unknowns left to Newton's method (one per stage)
    assert 20 < loop_tearing.WIDE_COUPLING
    system = diode_ladder(20).compile().system
    assert len(system.z_pos) == 20


def test_the_ladder_solved_whole_agrees_with_the_torn_solution(monkeypatch):
    stages = 60
    whole = diode_ladder(stages).compile()
    assert len(whole.system.z_pos) > stages                   # solved whole
    op = whole.operating_point()
    monkeypatch.setattr(loop_tearing, "WIDE_COUPLING", 10**9)  # torn, as before
    torn = diode_ladder(stages).compile()
    assert len(torn.system.z_pos) == stages
    reference = torn.operating_point()
    names = [f"D{k}.v" for k in (1, 2, 30, stages)] + ["R1.i", f"R{stages}.i"]
    # both Newton runs end at rounding of values ~0.7 V and ~4 mA
    np.testing.assert_allclose([op[n] for n in names], [reference[n] for n in names],
                               rtol=1e-9, atol=1e-15)
    # KCL at every inner node: the current in through R_k leaves through D_k and R_{k+1}
    for k in (1, 30, stages - 1):
        assert op[f"R{k}.i"] == pytest.approx(op[f"D{k}.i"] + op[f"R{k + 1}.i"], rel=1e-9, abs=1e-15)
    # and a transient of the ladder solved whole starts there and stays (a DC source)
    res = whole.simulate(1e-6)
    assert res[f"D{stages}.v"][-1] == pytest.approx(op[f"D{stages}.v"], abs=1e-9)


def test_a_large_ladder_settled_by_the_damped_newton_solves_the_nodal_equations(monkeypatch):
    # 300 stages solved whole: 1,799 unknowns. Newton's full steps from the start diverge, and
    # the damped Newton takes over; its steps are sparse solves (dense, the Jacobian's
    # conversion and LU took 28 s). The answer is checked against the circuit's own nodal
    # equations, written here independently: Ohm's law in every resistor and the Shockley
    # law (Is = 1e-14 A, N = 1, T = 27 °C, SI constants) in every diode.
    from physlib.analysis.common import sparse_lu
    from physlib.analysis.linear import direct_newton, steady_state
    stages = 300
    sim = diode_ladder(stages).compile()
    direct, sparse = [], []
    first = direct_newton.direct_newton
    monkeypatch.setattr(steady_state, "direct_newton", lambda *a: direct.append(first(*a)) or direct[-1])
    solve = sparse_lu.sparse_solve
    monkeypatch.setattr(sparse_lu, "sparse_solve", lambda J, rhs: sparse.append(sparse_lu.as_columns(J).n) or solve(J, rhs))
    op = sim.operating_point()
    assert direct == [None] and sparse and min(sparse) > sparse_lu.DENSE_SOLVE_LIMIT
    v = np.array([5.0] + [op[f"D{k}.v"] for k in range(1, stages + 1)] + [0.0])
    vt = 1.380649e-23 * 300.15 / 1.602176634e-19
    diode = 1e-14 * np.expm1(v[1:-1] / vt)
    inflow = (v[:-2] - v[1:-1]) / 1e3
    outflow = np.append((v[1:-2] - v[2:-1]) / 1e3, 0.0)          # no resistor after the last node
    # currents of ~4 mA at the first node down to picoamperes at the far end: each node's
    # balance to 1e-12 of the source current (Newton ends at rounding)
    np.testing.assert_allclose(inflow - outflow - diode, 0.0, atol=1e-12 * inflow[0])
