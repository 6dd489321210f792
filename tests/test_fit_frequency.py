"""``LinearModel.sensitivity`` and ``physlib.fit_frequency``: the derivatives of a linearization by
its parameters against closed forms (a series RLC's admittance; a diode's small-signal response,
whose operating point moves with the parameters), and a band-pass recovered from a noisy
measured response within its reported standard errors.

The closed forms agree with physlib's to 2e-14 relative for the RLC (rounding in both LU
solves) and to 2e-12 for the diode, whose bias the steady-state solver finds to about 1e-13 V:
its conductance e^(v/vt) turns that into 4e-12 relative. 1e-10 (issue 38's bound) leaves a
margin of 50 over that, while any wrong term (leaving out the operating point's motion changes
the diode's by more than 100 times itself) fails by far.
"""
import numpy as np
import pytest

import physlib
from physlib import FitError, Model, SensitivityError
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor, VoltageSource
from physlib.constants import k_B, q
from test_noise import biased_diode

R, L, C = 10.0, 10e-3, 1e-6          # f0 = 1.59 kHz, Q = 10
F = np.logspace(2, np.log10(2e4), 50)
S = 2j * np.pi * F
EXACT = 1e-10


def series_rlc():
    """src → R1 → L1 → C1 → ground; the current R1.i by src.V is the band-pass admittance
    Y = sC/(s²LC + sRC + 1), which determines R, L and C (the voltage across R1 would
    determine only RC and LC)."""
    m = Model("series_rlc")
    src, r, ind, cap, gnd = (m.add(c) for c in (VoltageSource("src", V=0.0), Resistor("R1", R=R),
                                                Inductor("L1", L=L), Capacitor("C1", C=C), Ground("gnd")))
    m.connect(src.p, r.p)
    m.connect(r.n, ind.p)
    m.connect(ind.n, cap.p)
    m.connect(cap.n, src.n, gnd.p)
    return m.compile()


def admittance(R=R, L=L, C=C):
    return S * C / (S * S * L * C + S * R * C + 1)


def admittance_derivatives():
    den = S * S * L * C + S * R * C + 1
    return {"R1.R": -(S * C) ** 2 / den ** 2, "L1.L": -S ** 3 * C ** 2 / den ** 2, "C1.C": S / den ** 2}


@pytest.fixture(scope="module")
def rlc():
    return series_rlc()


def relative_error(value, reference):
    return np.max(np.abs(value - reference) / np.abs(reference))


@pytest.mark.parametrize("descriptor", [False, True])
def test_rlc_admittance_derivatives_equal_the_closed_form_at_every_frequency(rlc, descriptor):
    linear = rlc.linearize(["src.V"], ["R1.i"], descriptor=descriptor)
    assert relative_error(linear.frequency_response(F)[0, 0], admittance()) < EXACT
    closed = admittance_derivatives()
    for sensitivity in linear.sensitivity(list(closed), F):
        assert sensitivity.H.shape == (1, 1, F.size)
        assert relative_error(sensitivity.H[0, 0], closed[sensitivity.param]) < EXACT, sensitivity.param


def test_rlc_state_matrix_derivatives_equal_the_closed_form(rlc):
    # L·i' = v_src − R·i − v_C, C·v_C' = i:  A = [[−R/L, −1/L], [1/C, 0]], B = [1/L, 0]ᵀ, C = [1, 0]
    linear = rlc.linearize(["src.V"], ["R1.i"])
    assert linear.states == ["L1.i", "C1.v"]
    by_R, by_L, by_C = (linear.sensitivity(n) for n in ("R1.R", "L1.L", "C1.C"))
    np.testing.assert_allclose(by_R.A, [[-1 / L, 0], [0, 0]], rtol=EXACT, atol=0)
    np.testing.assert_allclose(by_L.A, [[R / L ** 2, 1 / L ** 2], [0, 0]], rtol=EXACT, atol=0)
    np.testing.assert_allclose(by_C.A, [[0, 0], [-1 / C ** 2, 0]], rtol=EXACT, atol=0)
    np.testing.assert_allclose(by_L.B, [[-1 / L ** 2], [0]], rtol=EXACT, atol=0)
    for sensitivity in (by_R, by_L, by_C):
        assert not sensitivity.C.any() and not sensitivity.D.any() and sensitivity.H is None


def test_the_operating_points_own_motion_is_in_the_derivative():
    # test_noise's biased diode: 5 V → R (10 kΩ) → D1 ‖ C (10 nF). H = G/(G + g + sC) with
    # G = 1/R and g = Is·e^(v/vt)/vt at the bias v, which solves 5 = R·Is·(e^(v/vt) − 1) + v:
    # dv/dR = −i/(1 + R·g), dv/dIs = −R·(e^(v/vt) − 1)/(1 + R·g), and g moves as (g/vt)·dv
    sim = biased_diode()
    op = sim.operating_point()
    Rb, Cb, Is, vt = 1e4, 1e-8, 1e-14, float(k_B) * 300.15 / float(q)
    v = op["C.v"]
    e = np.exp(v / vt)
    i, g = Is * (e - 1), Is * e / vt
    assert 5.0 - Rb * i - v == pytest.approx(0.0, abs=1e-12)       # the point is the closed form's
    f = np.logspace(3, 7, 50)
    s = 2j * np.pi * f
    den = 1 / Rb + g + s * Cb
    by_R = (g + s * Cb) / den ** 2 * (-1 / Rb ** 2) - (1 / Rb) / den ** 2 * (g / vt) * (-i / (1 + Rb * g))
    by_Is = -(1 / Rb) / den ** 2 * (e / vt + g / vt * (-Rb * (e - 1) / (1 + Rb * g)))
    linear = sim.linearize(["V.V"], ["C.v"], at=op)
    for name, closed in (("R.R", by_R), ("D1.Is", by_Is)):     # Is = 1e-14 A: a tiny parameter works
        assert relative_error(linear.sensitivity(name, f).H[0, 0], closed) < EXACT, name
        # the point held fixed leaves out dv: wrong by more than the value itself
        assert relative_error(linear.sensitivity(name, f, hold_point=True).H[0, 0], closed) > 1.0
    # a point of a transient (the capacitor charging from 0 V) has no motion of its own to include
    charging = sim.linearize(["V.V"], ["C.v"], at=sim.simulate(1e-6, x0={"C.v": 0.0}).at(1e-7))
    with pytest.raises(SensitivityError, match=r"at t = 1e-07 is not a steady state.*hold_point=True"):
        charging.sensitivity("R.R")
    assert charging.sensitivity("R.R", hold_point=True).A.shape == (1, 1)


def test_a_series_rlc_band_pass_is_recovered_from_50_noisy_points_within_three_sigma(rlc):
    truth = {"R1.R": R, "L1.L": L, "C1.C": C}
    guess = {"R1.R": (20.0, 0.1, 1e3), "L1.L": (5e-3, 1e-5, 1.0), "C1.C": (2e-6, 1e-9, 1e-3)}
    clean = admittance()
    exact = physlib.fit_frequency(rlc, F, clean, "src.V", "R1.i", guess)
    for name, value in truth.items():
        assert exact.params[name] == pytest.approx(value, rel=1e-8), name
    sigma = 0.01 * np.abs(clean)             # 1 % of |Y| in the real and in the imaginary part
    real, imaginary = np.random.default_rng(3).standard_normal((2, F.size))
    noisy = clean + sigma * (real + 1j * imaginary)
    result = physlib.fit_frequency(rlc, F, noisy, "src.V", "R1.i", guess, sigma=sigma)
    assert result.success and result.identifiability().identifiable
    for name, value in truth.items():
        assert abs(result.params[name] - value) < 3 * result.stderr[name], name
        assert 1e-4 < result.stderr[name] / value < 2e-2, name      # the noise seen, not zero or huge
    # the residual cost of a right model with the right sigma: about (N − p)/2 = 48.5
    assert 30 < result.cost < 70
    assert result.residuals[0]["src.V → R1.i"].shape == (F.size,)


def test_bad_frequency_fit_input_is_named(rlc):
    guess = {"R1.R": 20.0}
    H = admittance()
    with pytest.raises(FitError, match=r"H_measured has shape \(2, 50\); give \(1, 1, 50\)"):
        physlib.fit_frequency(rlc, F, np.vstack([H, H]), "src.V", "R1.i", guess)
    broken = H.copy()
    broken[4] = np.nan
    with pytest.raises(FitError, match=r"NaN or infinite values at 1 frequencies \(the first the 4th\)"):
        physlib.fit_frequency(rlc, F, broken, "src.V", "R1.i", guess)
    with pytest.raises(FitError, match=r"sigma must be positive"):
        physlib.fit_frequency(rlc, F, H, "src.V", "R1.i", guess, sigma=-1.0)
    with pytest.raises(FitError, match=r"an OperatingPoint cannot be given"):
        physlib.fit_frequency(rlc, F, H, "src.V", "R1.i", guess, at=rlc.operating_point())
    with pytest.raises(FitError, match=r"unknown parameter 'R1.RR'.*R1.R"):
        physlib.fit_frequency(rlc, F, H, "src.V", "R1.i", {"R1.RR": 20.0})
    with pytest.raises(SensitivityError, match=r"C1.v: a state's initial value does not enter"):
        rlc.linearize(["src.V"], ["R1.i"]).sensitivity("C1.v")
    with pytest.raises(SensitivityError, match=r"needs a model made by linearize"):
        physlib.LinearModel([[-1.0]], [[1.0]], [[1.0]], [[0.0]], states=["x"], inputs=["u"],
                            outputs=["y"]).sensitivity("R1.R")
