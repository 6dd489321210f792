"""The stepped SUNDIALS solver on large models: a large Jacobian, banded (SUNDIALS' band LU) or
sparse (SuperLU_MT; physlib.analysis.simulation.linear_solvers), for runs with modes and for
large ODEs without them (which skip CasADi's integrators). Checked against the closed-form solution of the
linear ladder, x(t) = A⁻¹(e^{A(t − t0)} − I)·b·u piece by piece, computed with SciPy."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from physlib import Model
from physlib.analysis.simulation import callbacks, integrators, linear_solvers
from physlib.analysis.simulation.simulate import stepped_without_modes
from physlib.analysis.simulation.sundials import DENSE_LIMIT, Stepper
from physlib.analysis.simulation.stepping_functions import stepping_functions
from physlib.components.electrical import (BehaviouralSource, Capacitor, CurrentSource, Ground, Resistor, Switch,
                                          VoltageSource)
from physlib.components.signals import Step

STAGES = 450                    # states: more than DENSE_LIMIT
R, C = 1e3, 1e-9                # 1 µs a stage
T_STEP = 1e-7                   # the source steps to 1 V here [s]


def ladder(switch: bool) -> Model:
    """1 V from T_STEP on into STAGES RC stages, through an ideal switch (closed until 5 µs)
    if ``switch``."""
    m = Model("ladder")
    src = m.add(VoltageSource("V1", V=Step(height=1.0, t0=T_STEP)))
    gnd = m.add(Ground("gnd"))
    node = src.p
    if switch:
        s = m.add(Switch("S1", control=Step(height=-1.0, offset=1.0, t0=5e-6)))
        m.connect(node, s.p)
        node = s.n
    for k in range(1, STAGES + 1):
        r, c = m.add(Resistor(f"R{k}", R=R)), m.add(Capacitor(f"C{k}", C=C))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    m.connect(src.n, gnd.p)
    return m


def closed_form(times, pieces):
    """Capacitor voltages at ``times`` for x' = A x + b·1 V, x = 0 until T_STEP; ``pieces``:
    (start time, series resistance of the first stage) in order, the last one open-ended."""
    out = np.zeros((STAGES, len(times)))
    x = np.zeros(STAGES)
    bounds = [p[0] for p in pieces] + [np.inf]
    for (start, series), end in zip(pieces, bounds[1:]):
        main = np.full(STAGES, -2.0 / (R * C))
        main[-1] = -1.0 / (R * C)
        main[0] = -1.0 / ((R + series) * C) - 1.0 / (R * C)
        A = np.diag(main) + np.diag(np.full(STAGES - 1, 1.0 / (R * C)), 1) + \
            np.diag(np.full(STAGES - 1, 1.0 / (R * C)), -1)
        b = np.zeros(STAGES)
        b[0] = 1.0 / ((R + series) * C)
        steady = -np.linalg.solve(A, b)
        for i, t in enumerate(times):
            if start <= t < end:
                out[:, i] = steady + scipy.linalg.expm(A * (t - start)) @ (x - steady)
        x = steady + scipy.linalg.expm(A * (min(end, 1.0) - start)) @ (x - steady) if end < np.inf else x
    return out


def voltages(res):
    return np.array([res[f"C{k}.v"] for k in range(1, STAGES + 1)])


@pytest.fixture(params=["band", "sparse"])
def kind(request, monkeypatch):
    """The large Jacobian's storage: the ladder's is tridiagonal, so band unless SuperLU_MT's
    sparse matrix is forced (no band is cheap enough)."""
    if request.param == "sparse":
        monkeypatch.setattr(linear_solvers, "BAND_WORK", -1.0)
    return request.param


def test_a_large_ode_without_modes_skips_casadi_and_matches_the_closed_form(monkeypatch, kind):
    sim = ladder(switch=False).compile()
    assert stepped_without_modes(sim.system) and len(sim.states) > DENSE_LIMIT
    monkeypatch.setattr(integrators.Integration, "__call__",
                        lambda *a, **k: pytest.fail("a large ODE went through CasADi's integrator"))
    times = np.linspace(0.0, 20e-6, 41)
    res = sim.simulate(20e-6, t_eval=times)
    expected = closed_form(times, [(T_STEP, 0.0)])
    # rtol 1e-6 per step: the global error of the first stages stays below 1e-6 of the 1 V
    # step (measured 1.3e-7); 1e-5 leaves room, and a wrong Jacobian pattern fails by volts
    assert np.max(np.abs(voltages(res) - expected)) < 1e-5
    assert voltages(res)[0, -1] > 0.5                     # the first stage did charge
    # a run whose parameter vector cannot change keeps one, not one per output row
    assert res.p.ndim == 1


def test_a_large_model_with_modes_steps_on_a_sparse_jacobian():
    sim = ladder(switch=True).compile()
    stepper = Stepper(sim.system, "idas", 1e-6, 1e-8, None)
    try:
        # not banded in the unknowns' order: the switch's algebraic variable comes after the
        # 450 states and meets the first one; SuperLU_MT, a few entries a row
        assert stepper.matrix.kind == "sparse" and stepper.matrix.entries.size < 10 * stepper.n
    finally:
        stepper.close()
    times = np.linspace(0.0, 12e-6, 49)
    res = sim.simulate(12e-6, t_eval=times, rtol=1e-8, atol=1e-10)
    assert [e.after["closed"] for e in res.events if e.component == "S1"] == [1, 0]
    # closed (Ron = 1e-5 Ω) from the start, open (1/Goff = 100 kΩ) from 5 µs. The fast
    # transient after the opening carries the solver's error: 8e-6 of the 1 V step at rtol
    # 1e-6, 1.2e-7 at 1e-8 (measured, the dense Jacobian alike), hence 1e-6 at 1e-8.
    expected = closed_form(times, [(T_STEP, 1e-5), (5e-6, 1e5)])
    assert np.max(np.abs(voltages(res) - expected)) < 1e-6


@pytest.mark.skipif(callbacks.library() is None, reason="no C compiler")
@pytest.mark.parametrize("switch, kind", [(True, "sparse"), (False, "band")])
def test_compiled_and_python_callbacks_fill_the_sparse_jacobian_alike(monkeypatch, switch, kind):
    # The solvers zero the sparse matrix's pattern with its values before each Jacobian: both
    # callbacks write it again (a band matrix's entries go to their places), and the runs are
    # the same bit for bit.
    sim = ladder(switch).compile()
    stepper = Stepper(sim.system, "idas", 1e-6, 1e-8, None)
    try:
        assert stepper.matrix.kind == kind
    finally:
        stepper.close()
    compiled = sim.simulate(8e-6)
    monkeypatch.setenv("PHYSLIB_PYTHON_CALLBACKS", "1")
    monkeypatch.setattr(callbacks, "_loaded", {})
    python = sim.simulate(8e-6)
    assert np.array_equal(compiled.t, python.t)
    assert np.array_equal(voltages(compiled), voltages(python))
    assert compiled.stats["steps"] == python.stats["steps"]


@pytest.mark.parametrize("solver", ["idas", "cvodes"])
def test_the_sparse_jacobian_equals_the_dense_one(solver):
    # Its pattern carries the whole diagonal as structural zeros; a first version added ones
    # there (casadi.SX(sparsity) is ones), which only slowed Newton on the ladder and broke
    # it once an algebraic row met the diagonal.
    sim = (ladder(switch=True) if solver == "idas" else ladder(switch=False)).compile()
    system, p = sim.system, sim.parameter_vector({})
    dense, sparse = stepping_functions(system, solver).jacobian, stepping_functions(system, solver, sparse=True).jacobian
    n = int(np.sqrt(dense.nnz_out(0)))
    y = np.random.default_rng(0).standard_normal(n)
    args = (y, p, 1e-6, 1e5) if solver == "idas" else (y, p, 1e-6)
    pattern = sparse.sparsity_out(0)
    assert all(pattern.has_nz(i, i) for i in range(n))
    assert np.array_equal(np.array(dense(*args)).reshape(n, n), sparse(*args).sparse().toarray())


def _ladder_with_source(expr: str) -> Model:
    """The ladder without switch, with a behavioural current source ``expr`` (s1: the last
    node's potential) from the last node to ground."""
    m = ladder(switch=False)
    b = m.add(BehaviouralSource("B1", kind="I", expr=expr))
    m.connect(m["R450"].n, b.p)
    m.connect(m["R450"].n, b.s1)
    m.connect(b.n, m["gnd"].p)
    return m


@pytest.mark.parametrize("solver, switch", [("idas", False), ("idas", True), ("cvodes", False)])
def test_a_linear_model_s_residual_is_its_jacobian_times_y_plus_the_sources(solver, switch):
    # The sparse path evaluates F = J·y + F(0, 0) (+ y') instead of CasADi's graph; at random
    # y, y' and each of the switch's modes it equals that graph within rounding: 1e-9 of the
    # residual's scale (entries of 1/(R·C) = 1e6 times volts; the sums differ only in order).
    # F(0, 0)'s rows are found at the restart, those that read time (the step source's) again
    # at each call: the restart comes before the step and the calls after it, and a constant
    # current source has a row that reads no time.
    m = ladder(switch)
    dc = m.add(CurrentSource("I1", I=2e-4))
    m.connect(m["R200"].n, dc.n)
    m.connect(dc.p, m["gnd"].p)
    sim = m.compile()
    system = sim.system
    functions = stepping_functions(system, solver, sparse=True)
    assert functions.linear is not None
    stepper = Stepper(system, solver, 1e-6, 1e-8, None)
    try:
        linear, n = stepper.linear, stepper.n
        rng = np.random.default_rng(1)
        for closed in ([1.0, 0.0] if switch else [None]):
            p = sim.parameter_vector({})
            if closed is not None:
                p[sim.mode_slot("S1.closed")] = closed
            linear.restart(p, 0.5 * T_STEP)             # before the source's step
            for t in (3e-7, 0.2 * T_STEP, 4e-6):
                y, yp = rng.standard_normal(n), rng.standard_normal(n)
                out = np.empty(n)
                assert linear.evaluate(t, y, yp if solver == "idas" else None, out)
                args = (y, yp, p, t) if solver == "idas" else (y, p, t)
                expected = np.array(functions.residual(*args)[0]).ravel()
                assert np.max(np.abs(out - expected)) < 1e-9 * np.max(np.abs(expected))
    finally:
        stepper.close()


@pytest.mark.parametrize("solver, switch", [("idas", False), ("idas", True), ("cvodes", False)])
def test_a_linear_model_s_run_builds_neither_function_and_its_jacobian_is_theirs(solver, switch):
    # The run's Jacobian is J's entries, found from the DAE on colored seeds, with cj added on
    # the states' diagonal: the numbers of CasADi's symbolic Jacobian function, which the run no
    # longer builds (nor the residual's), to within the rounding of the DAE's arithmetic: a
    # few units in the last place of each entry (4 ulp allowed; the entries are 1/(R·C) = 1e6
    # and 1/R = 1e-3 sized, the sources up to 1 V, so a source term leaking in would show).
    sim = ladder(switch).compile()
    functions = stepping_functions(sim.system, solver, sparse=True)
    stepper = Stepper(sim.system, solver, 1e-6, 1e-8, None)
    try:
        assert "residual" not in vars(functions) and "jacobian" not in vars(functions)
        for closed in ([1.0, 0.0] if switch else [None]):
            p = sim.parameter_vector({})
            if closed is not None:
                p[sim.mode_slot("S1.closed")] = closed
            stepper.linear.restart(p, 2e-7)
            y = np.random.default_rng(3).standard_normal(stepper.n)       # read by neither
            for cj in ([0.0, 3.7e5] if solver == "idas" else [0.0]):
                args = (y, p, 2e-7, cj) if solver == "idas" else (y, p, 2e-7)
                expected = np.array(functions.jacobian(*args).nonzeros())
                found = stepper.linear.jacobian(cj)
                assert np.all(np.abs(found - expected) <= 4 * np.spacing(np.abs(expected)))
    finally:
        stepper.close()


@pytest.mark.parametrize("expr", ["1e-3*s1**2", "1e-3*s1*(1 + 1e5*t)", "1e-3*s1 + 1e-4*sign(s1)",
                                  "1e-3*Piecewise((s1, s1 > 0), (s1 + 1, True))"],
                         ids=["square", "time-varying", "sign", "jump"])
def test_a_model_not_linear_in_its_unknowns_keeps_the_casadi_residual(expr):
    # J·y + F(0) would be wrong, silently, for a Jacobian that depends on the unknowns (a square
    # law) or on time (a conductance that grows), and for a jump in the unknowns that the
    # Jacobian does not show: CasADi's derivative of sign(v) is 0 and that of the Piecewise is
    # 1 on both sides, so J is constant. The component classes' equations tell (not affine).
    model = _ladder_with_source(expr)
    system = model.compile().system
    assert stepping_functions(system, "idas", sparse=True).linear is None
    assert ladder(switch=True).compile().system.affine       # modes held fixed: affine


def test_the_linear_residual_gives_the_run_the_casadi_residual_gives():
    # The 450-stage ladder with a linear load run both ways: the same steps to rounding.

    def run(linear: bool):
        sim = _ladder_with_source("1e-3*s1").compile()
        assert sim.system.affine
        sim.system.affine = linear              # False: as if a class were not affine
        stepper = Stepper(sim.system, "idas", 1e-6, 1e-8, None)
        try:
            assert (stepper.linear is not None) == linear
        finally:
            stepper.close()
        return sim.simulate(8e-6, t_eval=np.linspace(0, 8e-6, 17))
    fast = run(linear=True)
    slow = run(linear=False)
    # the two residuals differ by rounding (1e-16 of 1e6-sized terms); the runs by 1e-9 V
    assert np.max(np.abs(voltages(fast) - voltages(slow))) < 1e-9


def test_superlu_mt_runs_on_one_thread():
    # scikit-sundae's own OpenMP (where its wheel bundles one beside SuperLU_MT) is set to one
    # thread: left at the core count, an idle team member spun on the other core
    import ctypes
    import glob
    import os
    from physlib.analysis.common.sundials_library import _paths, sparse_libraries
    sparse_libraries()
    folder = os.path.dirname(_paths(("sunlinsolsuperlumt",))["sunlinsolsuperlumt"])
    found = glob.glob(os.path.join(folder, "libgomp*"))
    if not found:
        pytest.skip("no OpenMP bundled beside SuperLU_MT on this platform")
    for path in found:
        assert ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_LOCAL", 0)).omp_get_max_threads() == 1


@pytest.mark.parametrize("solver", ["idas", "cvodes"])
def test_the_band_matrix_holds_the_jacobian_where_sundials_reads_it(solver):
    # Each nonzero of CasADi's compressed columns goes to its place in SUNDIALS' band storage;
    # read back through SUNDIALS' own accessor (SUNBandMatrix_Column: column j from its
    # diagonal entry) it is the dense Jacobian, zeros outside the band included.
    from physlib.analysis.common.sundials_library import sparse_libraries
    sim = ladder(switch=False).compile()
    # capacitances that grow along the ladder make the Jacobian unsymmetric (a transposed
    # placement would show)
    system = sim.system
    p = sim.parameter_vector({f"C{k}.C": C * (1 + 0.01 * k) for k in range(1, STAGES + 1)})
    dense = stepping_functions(system, solver).jacobian
    stepper = Stepper(system, solver, 1e-6, 1e-8, None)
    try:
        matrix, n = stepper.matrix, stepper.n
        assert matrix.kind == "band"
        y = np.random.default_rng(2).standard_normal(n)
        args = (y, p, 1e-6, 1e5) if solver == "idas" else (y, p, 1e-6)
        matrix.entries[:] = 0.0
        matrix.entries[matrix.place] = np.array(stepping_functions(system, solver, sparse=True).jacobian(*args).nonzeros())
        band = sparse_libraries()[2]
        rebuilt = np.zeros((n, n))
        for j in range(n):
            column = band.SUNBandMatrix_Column(matrix.A, j)
            for i in range(max(0, j - 1), min(n, j + 2)):
                rebuilt[i, j] = column[i - j]
        expected = np.array(dense(*args))
        assert not np.allclose(expected, expected.T)
        assert np.array_equal(rebuilt, expected)
    finally:
        stepper.close()


@pytest.mark.parametrize("names", ["xzpt", "abct"])
def test_the_time_rows_offset_reads_the_dae_s_own_symbols_or_substitutes_them_all(names):
    # F(0, 0)'s time rows are built from the symbols they read, found by the DAE's names
    # (x_3, p_12, t) and checked to be its symbols; with other names (a model whose symbols
    # were made elsewhere) every unknown is substituted: the same values either way.
    import casadi as cs
    from physlib.analysis.simulation.stepping_functions import _at_zero_unknowns
    d = {kind: cs.SX.sym(name, size) for kind, name, size in zip("xzpt", names, (2, 1, 3, 1))}
    x, z, p, t = d["x"], d["z"], d["p"], d["t"]
    value = cs.vertcat(p[2] * x[0] + t / p[0] + z[0], 0 - (x[1] + p[0] * t))
    at_zero, read, indices = _at_zero_unknowns(value, d)
    # its own symbols: the parameters the rows read (p_1 is not); other names: all of p
    assert sorted(indices.tolist()) == ([0, 2] if names == "xzpt" else [0, 1, 2])
    assert read.numel() == len(indices)
    f = cs.Function("f", [read, t], [at_zero])
    values = np.array([2.0, 3.0, 5.0])
    got = np.array(f(values[indices], 4.0)).ravel()
    assert np.array_equal(got, [4.0 / 2.0, -(2.0 * 4.0)])
    assert not cs.depends_on(at_zero, cs.vertcat(x, z))
