"""State projection (energy-minimizing at locks and impacts, invariant projection) against the
closed forms of locks and collisions (the two collisions are those of P. J. Mosterman's HYBRSIM
hybrid bond graph simulator, 1998: plastic, and elastic with restitution 0.6).

Every expected value below is physics worked out by hand: momentum conservation, the plastic
collision loss ½·J1·J2/(J1 + J2)·Δw², Newton's restitution law, the quadratic form of stored
energy. The projections are a few floating-point operations on O(1)–O(10) numbers, so their
rounding error is a few ulp; 1e-12 (relative) leaves a margin of ~1e3 over that.
"""
import numpy as np
import pytest
import scipy.sparse as sps
import sympy as sp

from physlib import Component, Model, Parameter, PhyslibError, Variable, der
from physlib.analysis.common.projection import (energy_matrix, energy_projection, invariant_projection,
                                         naive_projection)
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor, VoltageSource

TIGHT = 1e-12


# --- a clutch locking two shafts (§1) ---------------------------------------------------------

J1, J2, W1, W2 = 1.0, 3.0, 10.0, 0.0
M_SHAFTS = np.diag([J1, J2])
LOCK = np.array([[1.0, -1.0]])        # w1 − w2 = 0


def kinetic(w):
    return 0.5 * w @ M_SHAFTS @ w


def momentum(w):
    return J1 * w[0] + J2 * w[1]


def test_energy_projection_locks_shafts_at_momentum_weighted_speed():
    # A plastic lock: both shafts end at (J1·w1 + J2·w2)/(J1 + J2) = 10/4 = 2.5 rad/s.
    w = energy_projection([W1, W2], M_SHAFTS, LOCK, [0.0])
    np.testing.assert_allclose(w, [2.5, 2.5], rtol=TIGHT)


def test_energy_projection_conserves_angular_momentum():
    w = energy_projection([W1, W2], M_SHAFTS, LOCK, [0.0])
    before = momentum(np.array([W1, W2]))
    assert abs(momentum(w) - before) <= TIGHT * abs(before)


def test_energy_projection_loses_exactly_the_plastic_collision_energy():
    # Energy dissipated by a perfectly plastic lock: ½·J1·J2/(J1 + J2)·(w1 − w2)² = 37.5 J.
    w = energy_projection([W1, W2], M_SHAFTS, LOCK, [0.0])
    lost = kinetic(np.array([W1, W2])) - kinetic(w)
    expected = 0.5 * J1 * J2 / (J1 + J2) * (W1 - W2) ** 2
    assert lost == pytest.approx(expected, rel=TIGHT)


def test_naive_projection_creates_momentum():
    # Prior art keeps the first shaft's speed: both at 10 rad/s, momentum 40 instead of 10.
    w = naive_projection([W1, W2], LOCK, [0.0])
    np.testing.assert_array_equal(w, [W1, W1])
    assert abs(momentum(w) - momentum(np.array([W1, W2]))) == pytest.approx(30.0)


def test_fixed_state_keeps_its_value():
    # Shaft 2 held by a speed source (listed as fixed): the lock brings shaft 1 to it and
    # leaves shaft 2 alone, whatever the inertias.
    w = energy_projection([W1, 4.0], M_SHAFTS, LOCK, [0.0], fixed=[1])
    np.testing.assert_array_equal(w, [4.0, 4.0])


def test_redundant_locks_around_a_loop_are_accepted():
    # Three shafts locked pairwise (1–2, 2–3, 1–3): one constraint is redundant. The common
    # speed is still Σ J·w / Σ J = (1·6 + 2·0 + 3·0)/6 = 1 rad/s.
    locks = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [1.0, 0.0, -1.0]])
    w = energy_projection([6.0, 0.0, 0.0], np.diag([1.0, 2.0, 3.0]), locks, np.zeros(3))
    np.testing.assert_allclose(w, [1.0, 1.0, 1.0], rtol=TIGHT)


def test_sparse_inputs_give_the_same_lock():
    w = energy_projection([W1, W2], sps.diags([J1, J2]), sps.csr_matrix(LOCK), [0.0])
    np.testing.assert_allclose(w, [2.5, 2.5], rtol=TIGHT)


def test_inconsistent_constraints_are_reported():
    # w1 − w2 = 0 and w1 − w2 = 1 cannot both hold.
    with pytest.raises(PhyslibError, match="cannot be satisfied"):
        energy_projection([W1, W2], M_SHAFTS, np.vstack([LOCK, LOCK]), [0.0, 1.0])


# --- collisions (§3) --------------------------------------------------------------------------

M_BODIES = np.eye(2)                   # m1 = m2 = 1 kg


def test_plastic_collision_in_one_projection():
    # HYBRSIM's iteration 1, 0.6, 0.52, 0.504, ... converges to 0.5; one solve gives the limit.
    v = energy_projection([1.0, 0.0], M_BODIES, [[1.0, -1.0]], [0.0])
    np.testing.assert_allclose(v, [0.5, 0.5], rtol=TIGHT)


def test_restitution_collision_obeys_newton_law_and_conserves_momentum():
    # e = 0.6: v2⁺ − v1⁺ = −e·(v2 − v1) = 0.6; with momentum 1 that is v1⁺ = 0.2, v2⁺ = 0.8.
    e, v1, v2 = 0.6, 1.0, 0.0
    v = energy_projection([v1, v2], M_BODIES, [[-1.0, 1.0]], [-e * (v2 - v1)])
    assert v[1] - v[0] == pytest.approx(-e * (v2 - v1), rel=TIGHT)
    assert v[0] + v[1] == pytest.approx(v1 + v2, rel=TIGHT)


# --- invariant projection (§2) ----------------------------------------------------------------

def test_linear_invariant_is_restored_in_one_euclidean_step():
    # x1 + x2 = 1 from (0.7, 0.7): the nearest point moves both by −0.2.
    x = invariant_projection([0.7, 0.7], [1.0 - 1.4], [[1.0, 1.0]])
    np.testing.assert_allclose(x, [0.5, 0.5], rtol=TIGHT)


def test_energy_weighted_invariant_projection_shifts_every_speed_equally():
    # Restoring the angular momentum L = J1·w1 + J2·w2 = 10 in the energy metric: the
    # correction M⁻¹Jᵀλ = (λ, λ) changes both speeds by (L − L(w))/(J1 + J2) = 2/4.
    w = np.array([2.0, 2.0])
    x = invariant_projection(w, [10.0 - momentum(w)], [[J1, J2]], M_SHAFTS)
    np.testing.assert_allclose(x, [2.5, 2.5], rtol=TIGHT)


def test_nonlinear_invariant_is_iterated_to_rounding_level():
    # Back onto the circle x² + y² = 2 from (1.1, 0.9): Gauss–Newton converges quadratically,
    # so the residual ends at a few ulp of 2.
    x = invariant_projection([1.1, 0.9], lambda v: [2.0 - v @ v], lambda v: [2 * v])
    assert abs(x @ x - 2.0) < 1e-14           # ulp(2) = 4.4e-16


# --- the energy matrix of a compiled model ----------------------------------------------------

def test_energy_matrix_of_lc_circuit_is_diag_c_l():
    # E = C·v²/2 + L·i²/2, so ∂²E/∂x² = diag(C, L) in the order of model.states.
    C, L = 4.7e-6, 2.2e-3
    sim = _rlc(C, L)
    x = np.array([0.3, -0.2])
    p = sim.parameter_vector(None)
    M = energy_matrix(sim.system, x, np.zeros(len(sim.algebraic)), p, 0.0)
    expected = np.diag([{"C1.v": C, "L1.i": L}[s] for s in sim.states])
    np.testing.assert_allclose(M, expected, rtol=TIGHT, atol=0.0)


def _rlc(C, L):
    m = Model("rlc")
    src = m.add(VoltageSource("src", V=1.0))
    r = m.add(Resistor("R1", R=10.0))
    ind = m.add(Inductor("L1", L=L))
    cap = m.add(Capacitor("C1", C=C))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, ind.p)
    m.connect(ind.n, cap.p)
    m.connect(cap.n, src.n, gnd.p)
    return m.compile()


class QuarticSpring(Component):
    """A portless hardening spring, der(x) = v, der(v) = −k·x³/m, storing k·x⁴/4 + m·v²/2."""

    k = Parameter(5.0)
    m = Parameter(2.0)
    x = Variable(start=0.0)
    v = Variable(start=0.0)

    def equations(self):
        return [sp.Eq(der(self.x), self.v), sp.Eq(self.m * der(self.v), -self.k * self.x**3)]

    def energy(self):
        return self.k * self.x**4 / 4 + self.m * self.v**2 / 2


def test_energy_matrix_is_evaluated_at_the_state():
    # For E = k·x⁴/4 + m·v²/2 the Hessian is diag(3·k·x², m): at x = 2, diag(60, 2).
    m = Model("quartic")
    m.add(QuarticSpring("s"))
    sim = m.compile()
    values = {"s.x": 2.0, "s.v": -1.0}
    x = np.array([values[s] for s in sim.states])
    M = energy_matrix(sim, x, np.zeros(0), sim.parameter_vector(None), 0.0)
    expected = np.diag([{"s.x": 3 * 5.0 * 2.0**2, "s.v": 2.0}[s] for s in sim.states])
    np.testing.assert_allclose(M, expected, rtol=TIGHT, atol=0.0)
