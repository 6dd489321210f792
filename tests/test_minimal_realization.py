"""LinearModel.minimal(): the uncontrollable and unobservable states removed, the transfer
function kept (to 1e-10 relative), names kept where a state survives unchanged."""
import numpy as np
import pytest

from physlib import LinearModel, Model, PhyslibError
from physlib.analysis.linear.linear_model import DescriptorError
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource

F = np.logspace(-1, 5, 20)      # Hz


def ladder_with_extras(R1=1e3, C1=1e-6, R2=2.2e3, C2=4.7e-7, R3=5e2, C3=2e-6, R4=3.3e3, C4=1e-7):
    """src -> R1 -> C1 -> R2 -> C2 (the 2nd-order ladder from src.V to C2.v); R3-C3 from the
    source to ground (driven, but no output sees it: unobservable); R4 || C4 on a node of its
    own (seen at the output C4.v, but no input drives it: uncontrollable)."""
    m = Model("ladder")
    src, gnd = m.add(VoltageSource("src", V=1.0)), m.add(Ground("gnd"))
    r1, c1 = m.add(Resistor("R1", R=R1)), m.add(Capacitor("C1", C=C1))
    r2, c2 = m.add(Resistor("R2", R=R2)), m.add(Capacitor("C2", C=C2))
    r3, c3 = m.add(Resistor("R3", R=R3)), m.add(Capacitor("C3", C=C3))
    r4, c4 = m.add(Resistor("R4", R=R4)), m.add(Capacitor("C4", C=C4))
    m.connect(src.p, r1.p, r3.p)
    m.connect(r1.n, c1.p, r2.p)
    m.connect(r2.n, c2.p)
    m.connect(r3.n, c3.p)
    m.connect(r4.p, c4.p)
    m.connect(src.n, c1.n, c2.n, c3.n, r4.n, c4.n, gnd.p)
    return m


def test_minimal_of_a_circuit_has_the_closed_form_order_and_response():
    R1, C1, R2, C2 = 1e3, 1e-6, 2.2e3, 4.7e-7
    lin = ladder_with_extras(R1=R1, C1=C1, R2=R2, C2=C2).compile().linearize(["src.V"], ["C2.v", "C4.v"])
    assert len(lin.states) == 4
    small = lin.minimal()
    # closed form: only the ladder is controllable and observable, a 2nd-order low-pass
    # C2.v/V = 1 / (1 + s (R1 C1 + R1 C2 + R2 C2) + s² R1 R2 C1 C2); C4.v does not see V
    assert len(small.states) == 2
    s = 2j * np.pi * F
    want = 1 / (1 + s * (R1 * C1 + R1 * C2 + R2 * C2) + s**2 * R1 * R2 * C1 * C2)
    H, H_full = small.frequency_response(F), lin.frequency_response(F)
    np.testing.assert_allclose(H[0, 0], want, rtol=1e-10)
    np.testing.assert_allclose(H, H_full, rtol=1e-10, atol=1e-10 * np.abs(H_full).max())
    np.testing.assert_allclose(H[1, 0], 0.0, atol=1e-14)
    assert small.inputs == lin.inputs and small.outputs == lin.outputs
    np.testing.assert_array_equal(small.D, lin.D)


def test_states_that_survive_unchanged_keep_their_names():
    lin = ladder_with_extras().compile().linearize(["src.V"], ["C2.v", "C4.v"])
    small = lin.minimal()
    assert small.states == ["C1.v", "C2.v"]
    keep = [lin.states.index(name) for name in small.states]
    np.testing.assert_allclose(small.A, lin.A[np.ix_(keep, keep)], rtol=1e-14)
    np.testing.assert_allclose(small.B, lin.B[keep], rtol=1e-14)
    # a minimal model is its own minimal realization
    again = small.minimal()
    assert again.states == small.states
    np.testing.assert_allclose(again.A, small.A, rtol=1e-14)


def ctrb(A, B):
    return np.hstack([np.linalg.matrix_power(A, k) @ B for k in range(A.shape[0])])


def test_minimal_of_a_mixed_realization():
    # a controllable and observable 3rd-order core, one uncontrollable and one unobservable
    # mode, then all states mixed by a random invertible transformation: no state survives
    # unchanged, so the states are new; the order is 3 and the response the core's.
    rng = np.random.default_rng(3)
    A = np.diag([-1.0, -2.0, -5.0, -3.0, -7.0])
    A[0, 1] = 0.5
    B = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, -1.0]])   # mode 4: uncontrollable
    C = np.array([[1.0, 1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 2.0, 0.0]])          # mode 5: unobservable
    D = np.array([[0.0, 0.5], [0.0, 0.0]])
    core = LinearModel(A[:3, :3], B[:3], C[:, :3], D, states=["a", "b", "c"], inputs=["u1", "u2"],
                       outputs=["y1", "y2"])
    S = rng.normal(size=(5, 5)) + 3 * np.eye(5)
    Si = np.linalg.inv(S)
    names = [f"x{k}" for k in range(5)]
    mixed = LinearModel(S @ A @ Si, S @ B, C @ Si, D, states=names, inputs=["u1", "u2"], outputs=["y1", "y2"])
    small = mixed.minimal()
    assert len(small.states) == 3
    assert small.states == ["minimal[0]", "minimal[1]", "minimal[2]"]
    np.testing.assert_allclose(small.frequency_response(F), core.frequency_response(F), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(small.poles(), core.poles(), rtol=1e-9)
    # controllable and observable: full-rank Kalman matrices
    assert np.linalg.matrix_rank(ctrb(small.A, small.B)) == 3
    assert np.linalg.matrix_rank(ctrb(small.A.T, small.C.T)) == 3


def test_nothing_controllable_leaves_only_the_feedthrough():
    lin = LinearModel([[-1.0]], [[0.0]], [[1.0]], [[2.0]], states=["x"], inputs=["u"], outputs=["y"])
    small = lin.minimal()
    assert small.states == [] and small.A.shape == (0, 0)
    np.testing.assert_allclose(small.frequency_response(F), 2.0)


def test_descriptor_models():
    A = np.array([[-2.0, 1.0], [0.0, -3.0]])
    B = np.array([[1.0], [0.0]])
    C = np.array([[1.0, 0.0]])
    E = np.array([[2.0, 0.0], [0.0, 1.0]])
    lin = LinearModel(A, B, C, [[0.0]], E=E, states=["p", "q"], inputs=["u"], outputs=["y"])
    small = lin.minimal()                      # E invertible: reduced in explicit form
    assert small.E is None and small.states == ["p"]
    np.testing.assert_allclose(small.frequency_response(F), lin.frequency_response(F), rtol=1e-12)
    singular = LinearModel(A, B, C, [[0.0]], E=np.diag([1.0, 0.0]), states=["p", "z"], inputs=["u"],
                           outputs=["y"])
    with pytest.raises(DescriptorError, match="descriptor=False"):
        singular.minimal()
    assert issubclass(DescriptorError, PhyslibError)
