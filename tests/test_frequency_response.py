"""Frequency responses of linear models: the dense, banded and sparse-LU solvers against closed
forms and against each other, and a large RC ladder's response, linearized sparse."""
import numpy as np
import pytest
import scipy.sparse as sps

import physlib.analysis.linear.frequency_response as fr
from physlib import Model
from physlib.analysis import LinearModel
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.core.errors import PhyslibError


def ladder(stages, R=1e3, C=1e-9):
    """A 0 V source driving ``stages`` sections of R in series and C to ground, open at the end."""
    m = Model("ladder")
    src, gnd = m.add(VoltageSource("src", V=0.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(stages):
        r, c = m.add(Resistor(f"R{k}", R=R)), m.add(Capacitor(f"C{k}", C=C))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def ladder_gain(stages, s, R, C):
    """v(last node)/v(source) of the open-ended RC ladder: each section's chain matrix
    M = [[1 + sRC, R], [sC, 1]] has det 1 and trace 2·cosh θ, so M^N = (sinh(Nθ)·M −
    sinh((N−1)θ)·I)/sinh θ and v_in/v_out = (M^N)₁₁."""
    theta = np.arccosh(1 + s * R * C / 2)
    return np.sinh(theta) / (np.sinh(stages * theta) * (1 + s * R * C) - np.sinh((stages - 1) * theta))


def test_large_rc_ladder_against_its_closed_form():
    """2000 stages: the linearization stays sparse (3 nonzeros per row of A) and the response
    is banded solves, where a dense solve per frequency would take 2000³/3 operations each.
    From 1 mHz to 100 Hz the gain at the last node falls from 1 to 8e-16. The solves are
    backward stable, so the relative error is about ε·cond(A) ≈ ε·(2N/π)² = 4e-10 (measured
    4.7e-10 at the last node and at DC, 1.4e-12 at the first node, which the slow modes barely
    reach): bounds 2e-9 and 1e-10."""
    stages, R, C = 2000, 1e3, 1e-9
    sim = ladder(stages, R, C).compile()
    lin = sim.linearize(["src.V"], [f"C{stages - 1}.v", "C0.v"])
    assert lin.sparse("A").nnz <= 3 * stages
    f = np.geomspace(1e-3, 1e2, 60)
    H = lin.frequency_response(f)
    want = ladder_gain(stages, 2j * np.pi * f, R, C)
    np.testing.assert_allclose(H[0, 0], want, rtol=2e-9)
    # The first node: v(C0)/v(src) = ladder_gain(N)/ladder_gain(N − 1), the last node's gain
    # over its gain from C0 (the chain of the other N − 1 sections).
    first = want / ladder_gain(stages - 1, 2j * np.pi * f, R, C)
    np.testing.assert_allclose(H[1, 0], first, rtol=1e-10)
    # Only the output asked for is computed, and it is the same.
    np.testing.assert_array_equal(lin.frequency_response(f, outputs=["C0.v"])[0, 0], H[1, 0])
    assert lin.dcgain()[0, 0] == pytest.approx(1.0, rel=2e-9)


def random_model(n, m, p, seed, band=None):
    """A stable random sparse model: A with a few couplings per row (within ``band`` of the
    diagonal if given), diagonally dominant with a negative diagonal."""
    rng = np.random.default_rng(seed)
    A = sps.random(n, n, density=min(1.0, 4 / n), random_state=rng).toarray()
    if band is not None:
        A = np.triu(np.tril(A, band), -band)
    A -= np.diag(np.abs(A).sum(axis=1) + 1.0 + rng.random(n))
    return A, rng.standard_normal((n, m)), rng.standard_normal((p, n)), rng.standard_normal((p, m))


@pytest.mark.parametrize("dense, work", [(10_000, 0), (0, 1e12), (0, -1)],
                         ids=["dense", "banded", "splu"])
@pytest.mark.parametrize("n, m, p", [(30, 2, 3), (30, 5, 1)], ids=["direct", "adjoint"])
def test_each_solver_equals_a_dense_solve_per_frequency(monkeypatch, dense, work, n, m, p):
    """The three solvers, each forced (thresholds set), with more outputs than inputs and the
    adjoint case, against numpy's dense solve at each frequency, and with a descriptor E (an
    algebraic row). Backward-stable solves of well-conditioned systems (diagonally dominant):
    1e-12 relative to the response's largest entry."""
    monkeypatch.setattr(fr, "DENSE_STATES", dense)
    monkeypatch.setattr(fr, "BANDED_WORK", work)
    A, B, C, D = random_model(n, m, p, seed=n + m)
    E = np.eye(n)
    E[-1, -1] = 0.0
    f = np.r_[0.0, np.geomspace(1e-3, 1e3, 25)]
    for E_given in (None, E):
        H = fr.frequency_response(sps.csr_matrix(A), B, C, D, f, None if E_given is None else sps.csr_matrix(E_given))
        E_used = np.eye(n) if E_given is None else E_given
        want = np.stack([C @ np.linalg.solve(2j * np.pi * fk * E_used - A, B) + D for fk in f], axis=-1)
        assert np.max(np.abs(H - want)) < 1e-12 * np.max(np.abs(want))


@pytest.mark.parametrize("dense, work", [(10_000, 0), (0, 1e12), (0, -1)],
                         ids=["dense", "banded", "splu"])
@pytest.mark.parametrize("band", [None, 1], ids=["wide", "tridiagonal"])
def test_a_pole_on_the_grid_is_named(monkeypatch, dense, work, band):
    """An integrator (a zero column of A) has a pole at 0 Hz: each solver names it (the banded
    one through LAPACK's gbsv, or gtsv when tridiagonal)."""
    monkeypatch.setattr(fr, "DENSE_STATES", dense)
    monkeypatch.setattr(fr, "BANDED_WORK", work)
    A, B, C, D = random_model(30, 1, 1, seed=3, band=band)
    A[:, 4] = 0.0
    with pytest.raises(PhyslibError, match=r"pole at f = 0 Hz"):
        fr.frequency_response(A, B, C, D, [1.0, 0.0])


def test_linear_model_keeps_sparse_matrices_and_gives_dense_arrays():
    A, B, C, D = random_model(40, 2, 3, seed=7)
    sparse = LinearModel(sps.csr_matrix(A), sps.csr_matrix(B), sps.csr_matrix(C), D,
                         states=[f"x{k}" for k in range(40)], inputs=["u0", "u1"], outputs=["y0", "y1", "y2"])
    dense = LinearModel(A, B, C, D, states=sparse.states, inputs=sparse.inputs, outputs=sparse.outputs)
    assert isinstance(sparse.A, np.ndarray) and np.array_equal(sparse.A, A) and sparse.E is None
    assert sps.issparse(dense.sparse("A")) and dense.sparse("E") is None
    f = np.geomspace(0.1, 100, 7)
    # Same solver on the same numbers: equal to rounding of the sparse product (1e-14).
    np.testing.assert_allclose(sparse.frequency_response(f), dense.frequency_response(f), rtol=1e-14)
    picked = dense.frequency_response(f, inputs=["u1"], outputs=["y2", "y0"])
    np.testing.assert_array_equal(picked[:, 0], dense.frequency_response(f)[[2, 0], 1])
    with pytest.raises(PhyslibError, match="no output 'y9'"):
        dense.frequency_response(f, outputs=["y9"])


@pytest.mark.skipif(fr._band_sweep() is None, reason="no C compiler: the NumPy loop serves alone")
def test_the_c_tridiagonal_elimination_pivots_where_the_subdiagonal_is_larger(monkeypatch):
    """A tridiagonal pencil whose subdiagonal outweighs its diagonal on most rows (a diagonally
    dominant one never interchanges rows) and whose first and last diagonal entries are zero
    (elimination without interchanges would divide by zero at once, whichever end the
    renumbering starts from), with an algebraic row (E singular), against NumPy's dense solve
    at each frequency: backward-stable solves, 1e-10 of the largest response for a matrix
    whose condition number is about 1e3 here."""
    monkeypatch.setattr(fr, "DENSE_STATES", 0)
    monkeypatch.setattr(fr, "BANDED_WORK", 1e12)
    rng = np.random.default_rng(3)
    n = 60
    A = np.diag(0.1 * rng.standard_normal(n)) + np.diag(1.0 + rng.random(n - 1), -1) + \
        np.diag(0.5 * rng.standard_normal(n - 1), 1)
    E = np.diag(rng.random(n) + 0.5)
    E[7, 7] = 0.0
    for end in (0, n - 1):
        A[end, end] = E[end, end] = 0.0
    B, C = rng.standard_normal((n, 1)), rng.standard_normal((3, n))
    f = np.geomspace(1e-2, 10, 13)
    got = fr.frequency_response(sps.csr_matrix(A), B, C, np.zeros((3, 1)), f, E=sps.csr_matrix(E))
    expected = np.stack([C @ np.linalg.solve(2j * np.pi * fk * E - A, B) for fk in f], axis=-1)
    assert np.max(np.abs(got - expected)) <= 1e-10 * np.max(np.abs(expected))


@pytest.mark.skipif(fr._band_sweep() is None, reason="no C compiler: the NumPy loop serves alone")
@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_the_c_tridiagonal_elimination_keeps_extreme_scales(monkeypatch, scale):
    """Pivots whose |.|² would underflow or overflow (entries near 1e∓200) are inverted by
    Smith's quotient instead: H of (scale·A, scale·E) is H/scale, to rounding (1e-13)."""
    monkeypatch.setattr(fr, "DENSE_STATES", 0)
    monkeypatch.setattr(fr, "BANDED_WORK", 1e12)
    A, B, C, D = random_model(40, 1, 2, seed=5, band=1)
    f = np.geomspace(1e-3, 1e3, 11)
    plain = fr.frequency_response(sps.csr_matrix(A), B, C, np.zeros((2, 1)), f)
    scaled = fr.frequency_response(sps.csr_matrix(A * scale), B, C, np.zeros((2, 1)), f,
                                   E=sps.identity(40, format="csr") * scale)
    assert np.all(np.isfinite(scaled))
    assert np.max(np.abs(scaled * scale - plain)) <= 1e-13 * np.max(np.abs(plain))


@pytest.mark.skipif(fr._band_sweep() is None, reason="no C compiler: the NumPy loop serves alone")
@pytest.mark.parametrize("band", [1, 3], ids=["tridiagonal", "banded"])
def test_the_c_sweep_equals_the_numpy_loop_over_lapack(monkeypatch, band):
    """The C loop (c/band_sweep.c) against the NumPy loop over SciPy's zgtsv/zgbsv, over four
    blocks of the C loop (eight frequencies, the last one partial; in one thread and in three),
    the NumPy loop's chunks
    (the last one partial, a view into the chunk buffer), several inputs and outputs, and a
    pole named alike. A banded pencil makes the same zgbsv calls and products: equal bit for
    bit. A tridiagonal one is eliminated in C with zgtsv's pivots, each pivot inverted once
    where zgtsv divides: equal to rounding, 1e-13 of the largest response (measured 1e-16)."""
    monkeypatch.setattr(fr, "DENSE_STATES", 0)
    monkeypatch.setattr(fr, "BANDED_WORK", 1e12)
    monkeypatch.setattr(fr, "_CHUNK_BYTES", 16 * 40 * 7)       # 7 frequencies a chunk
    A, B, C, D = random_model(40, 2, 5, seed=7, band=band)
    f = np.geomspace(1e-3, 1e3, 31)
    native = fr.frequency_response(sps.csr_matrix(A), B, C, D, f)
    # shared among three threads (blocks 0, 1, 2-3): the same numbers, written in place
    monkeypatch.setattr(fr, "_THREADED_WORK", 0)
    monkeypatch.setattr(fr, "_sweep_threads", lambda: 3)
    assert np.array_equal(fr.frequency_response(sps.csr_matrix(A), B, C, D, f), native)
    # work arrays over _THREAD_WORK_BYTES a thread: one thread, no pool
    with monkeypatch.context() as patch:
        patch.setattr(fr, "_THREAD_WORK_BYTES", 8 * 40 * 5 * 16 - 1)
        patch.setattr(fr, "ThreadPoolExecutor", None)
        assert np.array_equal(fr.frequency_response(sps.csr_matrix(A), B, C, D, f), native)
    monkeypatch.setattr(fr, "_sweep", [None])                  # as without a compiler
    python = fr.frequency_response(sps.csr_matrix(A), B, C, D, f)
    if band == 1:
        assert np.max(np.abs(native - python)) <= 1e-13 * np.max(np.abs(python))
    else:
        assert np.array_equal(native, python)
    A[:, 4] = 0.0                                              # a pole at 0 Hz, third block
    for sweep in ([None], []):                                 # (the third thread's)
        monkeypatch.setattr(fr, "_sweep", sweep)
        with pytest.raises(PhyslibError, match=r"pole at f = 0 Hz"):
            fr.frequency_response(A, B, C, D, np.r_[f[:20], 0.0])
