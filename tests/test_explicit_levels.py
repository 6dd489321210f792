"""Explicit solutions are built level by level (each level from the values found before it),
or, for dependency chains deeper than ``MAX_LEVELS``, as definitions substituted into each
other. Both ways must give the same model: each model here is compiled both ways (the limit
set to 0 forces substitution, a large one forces levels) and checked against closed forms."""
import numpy as np
import pytest

import physlib.assembly.passes.explicit as explicit
from physlib import Model
from physlib.components.electrical import Capacitor, CurrentSource, Ground, Resistor, VoltageSource
from physlib.components.rotational import IdealGear, Inertia, Torque
from physlib.components.signals import Step

WAYS = {"levels": 10_000, "substitution": 0}


@pytest.fixture(params=sorted(WAYS))
def way(request, monkeypatch):
    monkeypatch.setattr(explicit, "MAX_LEVELS", WAYS[request.param])
    return request.param


def resistor_chain(n: int, R: float, current: float) -> Model:
    """A current source pushing ``current`` into node 0 of ``n`` resistors in series to ground:
    every resistor current depends on the one before, every node voltage on the one below."""
    m = Model("chain")
    src, gnd = m.add(CurrentSource("I", I=current)), m.add(Ground("gnd"))
    m.connect(src.p, gnd.p)
    node = src.n
    for k in range(1, n + 1):
        r = m.add(Resistor(f"R{k}", R=R))
        m.connect(node, r.p)
        node = r.n
    m.connect(node, gnd.p)
    return m


def test_a_deep_chain_is_substituted_by_default():
    # 40 resistors: the chain of currents and node voltages is about 80 levels deep.
    m = resistor_chain(40, 10.0, 1e-3)
    assert explicit.MAX_LEVELS < 80
    calls = []
    original = explicit._substituted

    def spy(*args):
        calls.append(1)
        return original(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(explicit, "_substituted", spy)
        m.compile()
    assert calls


def test_resistor_chain_node_voltages(way):
    # The source current I flows through every resistor, so the pin above R_k sits at
    # (n - k + 1)·R·I; every value is a few products and sums of exact inputs (1e-12).
    n, R, current = 40, 10.0, 1e-3
    res = resistor_chain(n, R, current).compile().simulate(1.0)
    for k in (1, 7, 20, 40):
        np.testing.assert_allclose(res[f"R{k}.i"], current, rtol=1e-12)
        np.testing.assert_allclose(res[f"R{k}.p.v"], (n - k + 1) * R * current, rtol=1e-12)


def gear_train(n: int, ratio: float) -> Model:
    """A torque step on J0, then ``n`` ideal gears, each driving one more inertia."""
    m = Model("train")
    drive = m.add(Torque("tau", tau=Step(height=2.0)))
    prev = m.add(Inertia("J0", J=1.0))
    m.connect(drive.flange, prev.flange_a)
    for k in range(1, n + 1):
        gear, body = m.add(IdealGear(f"G{k}", ratio=ratio)), m.add(Inertia(f"J{k}", J=0.5))
        m.connect(prev.flange_b, gear.flange_a)
        m.connect(gear.flange_b, body.flange_a)
        prev = body
    return m


@pytest.mark.parametrize("n", [1, 30])
def test_gear_train_accelerates_as_one_equivalent_inertia(way, n):
    # Index reduction differentiates every gear constraint. Shaft k turns at w0/ratio^k, so the
    # train is one inertia J_eq = J0 + sum 0.5/ratio^(2k) at shaft 0: w0 = 2·t/J_eq.
    ratio = 1.1
    res = gear_train(n, ratio).compile().simulate(1.0, rtol=1e-10, atol=1e-12)
    j_eq = 1.0 + sum(0.5 / ratio ** (2 * k) for k in range(1, n + 1))
    np.testing.assert_allclose(res["J0.w"], 2.0 * res.t / j_eq, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(res[f"J{n}.w"], res["J0.w"] / ratio ** n, rtol=1e-8, atol=1e-12)


def test_bridge_solved_as_a_small_linear_loop(way):
    # A capacitor charged through R0 feeds a Wheatstone bridge (R1..R5): the bridge's node
    # voltages are a small linear loop solved symbolically. Given the capacitor voltage, an
    # independent nodal solve gives them.
    m = Model("bridge")
    src, gnd = m.add(VoltageSource("V", V=Step())), m.add(Ground("gnd"))
    r0, c = m.add(Resistor("R0", R=100.0)), m.add(Capacitor("C", C=1e-3))
    rs = {k: m.add(Resistor(f"R{k}", R=R)) for k, R in ((1, 100.0), (2, 220.0), (3, 330.0), (4, 470.0), (5, 50.0))}
    m.connect(src.p, r0.p)
    m.connect(r0.n, c.p, rs[1].p, rs[3].p)                 # node s
    m.connect(rs[1].n, rs[2].p, rs[5].p)                   # node a
    m.connect(rs[3].n, rs[4].p, rs[5].n)                   # node b
    m.connect(src.n, c.n, rs[2].n, rs[4].n, gnd.p)
    res = m.compile().simulate(0.2, rtol=1e-10, atol=1e-12)
    g = {k: 1.0 / r.R for k, r in rs.items()}
    # Nodal equations for (a, b) with s known: G·[a, b] = [g1·s, g3·s].
    G = np.array([[g[1] + g[2] + g[5], -g[5]], [-g[5], g[3] + g[4] + g[5]]])
    s = res["C.v"]
    a, b = np.linalg.solve(G, np.vstack([g[1] * s, g[3] * s]))
    np.testing.assert_allclose(res["R5.p.v"], a, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(res["R5.n.v"], b, rtol=1e-10, atol=1e-13)
    # The bridge loads s with the conductance g_in = g1·(1 - a/s) + g3·(1 - b/s) (constant):
    # s' = ((1 - s)/R0 - g_in·s)/C: s = s_inf·(1 - exp(-t/tau)).
    a1, b1 = np.linalg.solve(G, [g[1], g[3]])
    g_in = g[1] * (1 - a1) + g[3] * (1 - b1)
    s_inf, tau = (1 / 100.0) / (1 / 100.0 + g_in), 1e-3 / (1 / 100.0 + g_in)
    np.testing.assert_allclose(s, s_inf * (1 - np.exp(-res.t / tau)), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("coefficients, target_coefficient", [
    ([1.0, -1.0, 2.5, -0.5], None),     # weights of both signs and of other sizes
    ([1.0], None),                      # a connection sum's: every weight -1
    ([1.0], -1.0),                      # every weight 1
])
def test_linear_rows_are_solved_as_the_sparse_product_sums_them(coefficients, target_coefficient):
    """solve_linear_rows sums each row's terms on vectors (short rows) or alone (long ones) in
    the order of their columns: the expressions a sparse matrix-vector product makes, string
    for string, on rows of 1 to 29 terms (in the order solve_linear_rows gives them)."""
    import casadi as cs
    from physlib.assembly.passes.explicit import SHORT_ROWS, solve_linear_rows
    from physlib.assembly.sparse import CSR
    rng = np.random.default_rng(1)
    n, width = 400, 900
    rows, cols, values, targets = [], [], [], []
    for i in range(n):
        picked = rng.choice(width, size=rng.integers(1, 30), replace=False)
        rows += [i] * len(picked)
        cols += picked.tolist()
        target = rng.integers(0, len(picked))
        row_values = rng.choice(coefficients, size=len(picked))
        if target_coefficient is not None:
            row_values[target] = target_coefficient
        values += row_values.tolist()
        targets.append(picked[target])
    A = CSR.from_entries(np.array(rows), np.array(cols), (n, width), np.array(values))
    X, targets = cs.SX.sym("x", width), np.array(targets)
    assert max(np.bincount(rows)) > SHORT_ROWS + 1           # both kinds of row
    # the reference: -(row without its target) / target's coefficient, as one sparse product
    other = A.indices != targets[A.row_of_entries()]
    coefficient = np.zeros(n)
    coefficient[A.row_of_entries()[~other]] = A.data[~other]
    solve = CSR.from_entries(A.row_of_entries()[other], A.indices[other], (n, width),
                             -A.data[other] / coefficient[A.row_of_entries()[other]])
    reference = cs.densify(cs.mtimes(solve.to_dm(), X))
    order, solved = solve_linear_rows(A, targets, X)
    assert sorted(order.tolist()) == list(range(n))
    assert [str(solved[i]) for i in range(n)] == [str(reference[k]) for k in order.tolist()]
