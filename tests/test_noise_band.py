"""Band integrals of noise spectra (NoiseResult.band_variance, rms, summary) with resonances of
any Q: an LC tank against its closed form, the per-source split and the summary, and a large
model whose poles come from the sparse search instead of a dense eigenvalue problem."""
import warnings

import numpy as np
import pytest

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN, NoiseWarning
from physlib.components.electrical import Capacitor, Ground, Inductor, Resistor
from physlib.core.errors import UnknownNameError
from test_frequency_response import ladder

T = 300.0
L_TANK, C_TANK = 1e-3, 1e-9          # f0 = 159.155 kHz, √(L/C) = 1 kΩ: Q = 1 kΩ / R


def tank(resistors):
    """A series loop of the resistors, L and C (grounded at C.n): C.v carries the resistors'
    Johnson noise through 1/(LC·s² + RC·s + 1), R their sum."""
    m = Model("tank")
    parts = [m.add(Resistor(f"R{k + 1}", R=value)) for k, value in enumerate(resistors)]
    inductor, capacitor, ground = m.add(Inductor("L", L=L_TANK)), m.add(Capacitor("C", C=C_TANK)), m.add(Ground("g"))
    for a, b in zip(parts, parts[1:]):
        m.connect(a.n, b.p)
    m.connect(parts[-1].n, inductor.p)
    m.connect(inductor.n, capacitor.p)
    m.connect(capacitor.n, parts[0].p, ground.p)
    return m.compile()


def tank_band(R, f1, f2):
    """∫ 4kTR·|H(j2πf)|² df from f1 to f2 [V²], H = 1/(1 − (f/f0)² + j·f/(f0·Q)), in closed form:
    with x = f/f0, ζ = 1/(2Q) < 1 and a = 2√(1 − ζ²), 1/((1 − x²)² + 4ζ²x²) is
    (x + a)/(2a·(x² + ax + 1)) + (a − x)/(2a·(x² − ax + 1)), whose antiderivative is
    F(x) = [½·ln((x² + ax + 1)/(x² − ax + 1)) + a/(2ζ)·(atan((2x + a)/2ζ) + atan((2x − a)/2ζ))]/(2a).
    F(0) = 0 and F(∞) = π/(4ζ), so the whole spectrum is 4kTR·f0·π·Q/2 = kT/C (equipartition)."""
    f0, Q = 1 / (2 * np.pi * np.sqrt(L_TANK * C_TANK)), np.sqrt(L_TANK / C_TANK) / R
    zeta = 1 / (2 * Q)
    a = 2 * np.sqrt(1 - zeta**2)

    def F(x):
        if np.isinf(x):
            return np.pi / (4 * zeta)
        return (0.5 * np.log((x * x + a * x + 1) / (x * x - a * x + 1))
                + a / (2 * zeta) * (np.arctan((2 * x + a) / (2 * zeta)) + np.arctan((2 * x - a) / (2 * zeta)))) / (2 * a)

    return 4 * BOLTZMANN * T * R * f0 * (F(f2 / f0) - F(f1 / f0))


def test_a_tank_of_any_q_is_integrated_exactly():
    # A resonance narrower than a fixed grid's step was miscounted silently: Simpson's rule on
    # 400 points per decade gave 1.02, 2.41 and 0.57 times the band's variance at Q = 100, 1000
    # and 10⁴. The reference is kT/C less the parts below 1 kHz and above 10 MHz (closed form,
    # tank_band). Tolerance 1e-9: the adaptive quadrature closes each band to 2e-10, and the
    # spectrum itself loses about log10(Q) digits at the peak (the solve of jω − A there has a
    # condition number ~Q); measured at most 4e-11 from Q = 1 to 10⁶.
    f0 = 1 / (2 * np.pi * np.sqrt(L_TANK * C_TANK))
    for Q in np.geomspace(1.0, 1e5, 11):
        R = np.sqrt(L_TANK / C_TANK) / Q
        result = tank([R]).noise("C.v", [1e3], T=T)
        exact = BOLTZMANN * T / C_TANK - tank_band(R, 0.0, 1e3) - tank_band(R, 1e7, np.inf)
        assert result.band_variance(1e3, 1e7) == pytest.approx(exact, rel=1e-9, abs=0), Q
        # A band that cuts through the peak (half-width w = f0/2Q): from 3w below to w above.
        w = f0 / (2 * Q)
        f1, f2 = max(f0 - 3 * w, f0 / 10), f0 + w
        assert result.band_variance(f1, f2) == pytest.approx(tank_band(R, f1, f2), rel=1e-9, abs=0), Q


def test_rms_summary_and_each_sources_share_agree_with_the_closed_form():
    # Q = 10⁴ from two resistors in series, 25 mΩ and 75 mΩ: the same transfer function, so
    # their shares of any band are exactly 1/4 and 3/4 of the tank's. rms² and each share to
    # 1e-9 (as above); the summary prints the same total (4 digits) and shares.
    result = tank([0.025, 0.075]).noise("C.v", [1e3, 1e7], T=T)
    exact = tank_band(0.1, 1e3, 1e7)
    assert result.rms(1e3, 1e7) ** 2 == pytest.approx(exact, rel=1e-9, abs=0)
    assert result.band_variance(1e3, 1e7, "R1") == pytest.approx(exact / 4, rel=1e-9, abs=0)
    assert result.band_variance(1e3, 1e7, "R2") == pytest.approx(3 * exact / 4, rel=1e-9, abs=0)
    parts = result.band_contributions(1e3, 1e7)
    assert sum(parts.values()) == pytest.approx(result.band_variance(1e3, 1e7), rel=1e-12)
    summary = result.summary()                      # default band: the analysed frequencies
    assert f"{np.sqrt(exact):.4g} V rms" in summary.splitlines()[0]
    lines = summary.splitlines()[2:]
    assert lines[0].split()[0] == "R2" and lines[0].endswith("75.00%")
    assert lines[1].split()[0] == "R1" and lines[1].endswith("25.00%")
    with pytest.raises(UnknownNameError, match="'R3' is not a source.*R1, R2"):
        result.band_variance(1e3, 1e7, "R3")


def ladder_and_tank(sections: int):
    """An RC ladder (10 Ω, 1 nF per section) from a grounded source, its last node coupled by
    1 pF to a parallel tank (L = 1 mH with 1 mΩ in series, C = 1 nF): a resonance at 159 kHz of
    Q ≈ 10⁶, inside one strongly connected block of 2·sections + 3 states."""
    m = ladder(sections, R=10.0, C=1e-9)
    ground, node = m["gnd"], m[f"R{sections - 1}"].n
    coupling, r_t, l_t, c_t = (m.add(Capacitor("Ck", C=1e-12)), m.add(Resistor("Rt", R=1e-3)),
                               m.add(Inductor("Lt", L=1e-3)), m.add(Capacitor("Ct", C=1e-9)))
    m.connect(node, coupling.p)
    m.connect(coupling.n, c_t.p, r_t.p)
    m.connect(r_t.n, l_t.p)
    m.connect(l_t.n, c_t.n, ground.p)
    return m.compile()


def test_a_large_block_finds_its_resonances_by_sparse_search(monkeypatch):
    # Above DENSE_STATES states a block's poles near the band come from shift-invert Arnoldi
    # searches along it. With the limit at 0 the 63-state model takes that path: it must find
    # the Q ≈ 10⁶ resonance (as the dense eigenvalues do) and integrate the band to the tank
    # capacitor's equipartition value kT·[C⁻¹]_tt of the nodal capacitance matrix (Ct + Ck at
    # the tank, C + Ck at the ladder's end, −Ck between them). The band, 1 mHz to 100 THz,
    # leaves out below 1e-10 of it: the inductor shorts the tank at DC, and above, the spectrum
    # falls as 1/f². Tolerance 1e-9 as for the tank; measured 2e-11.
    sim = ladder_and_tank(30)
    C, Ck, Ct = 1e-9, 1e-12, 1e-9
    exact = BOLTZMANN * T * (C + Ck) / ((Ct + Ck) * (C + Ck) - Ck**2)
    result = sim.noise("Ct.v", [1e3], T=T)
    assert result.variance == pytest.approx(exact, rel=1e-9, abs=0)       # Lyapunov, all frequencies
    assert result.band_variance(1e-3, 1e14) == pytest.approx(exact, rel=1e-9, abs=0)   # dense poles

    from physlib.analysis.noise import resonances

    monkeypatch.setattr(resonances, "DENSE_STATES", 0)
    result = sim.noise("Ct.v", [1e3], T=T)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoiseWarning)
        assert result.band_variance(1e-3, 1e14) == pytest.approx(exact, rel=1e-9, abs=0)
