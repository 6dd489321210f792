"""Analog filter design as the Modelica Standard Library's Blocks.Continuous.Internal.Filter
(v4.1.0), which :class:`~physlib.components.signals.filters.Filter` realizes: the prototype low
pass with cut-off 1 rad/s (``base``), its transformation to a low, high, band pass or band stop
at the given frequencies, and the eigenvalue form of its sections (``roots``).

A prototype is a product of first-order factors cr/(s + cr) (the real poles, coefficients
``cr``) and second-order factors c0/(s² + c1·s + c0) (the complex pole pairs, ``c0``, ``c1``),
each of DC gain 1, in the MSL's order. The Bessel polynomials are computed here (the MSL
tabulates their roots to order 41); their normalized coefficients agree with the MSL's table to
rounding (tests/test_catalog_blocks.py checks them against values copied from it).
"""
import math

__all__ = ["prototype", "sections", "ANALOG_FILTERS", "FILTER_TYPES"]

ANALOG_FILTERS = ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI")
FILTER_TYPES = ("LowPass", "HighPass", "BandPass", "BandStop")
MINUS_3DB = 10 ** (-3 / 20)     # the amplitude at the cut-off of a normalized filter


def prototype(analog_filter: str, order: int, A_ripple: float = 0.5, normalized: bool = True):
    """(cr, c0, c1) of the low pass of ``order`` with cut-off 1 rad/s (MSL base.<analogFilter>):
    normalized, its amplitude there is −3 dB (10^(−3/20)); otherwise the textbook filter."""
    if analog_filter == "CriticalDamping":
        alpha = math.sqrt(10 ** (3 / 10 / order) - 1) if normalized else 1.0
        return _highest_power_one([alpha] * order, [])
    if analog_filter == "Bessel":
        den1, den2, alpha = _bessel_base(order)
        if not normalized:
            den2 = [(b2 * alpha ** 2, b1 * alpha) for b2, b1 in den2]
            den1 = [a * alpha for a in den1]
        return _highest_power_one(den1, den2)
    if analog_filter == "Butterworth":
        # |H(j)| = 1/√2 for every order: the MSL applies no normalization to it.
        den2 = [(1.0, -2 * math.cos(math.pi * (0.5 + (i - 0.5) / order)))
                for i in range(1, order // 2 + 1)]
        return _highest_power_one([1.0] * (order % 2), den2)
    if analog_filter == "ChebyshevI":
        epsilon = math.sqrt(10 ** (A_ripple / 10) - 1)
        fac = math.asinh(1 / epsilon) / order
        den1 = [1 / math.sinh(fac)] * (order % 2)
        angle = (lambda i: (2 * i - 1) * math.pi / (2 * order)) if order % 2 == 0 else \
            (lambda i: i * math.pi / order)
        den2 = []
        for i in range(1, order // 2 + 1):
            b2 = 1 / (math.cosh(fac) ** 2 - math.cos(angle(i)) ** 2)
            den2.append((b2, 2 * b2 * math.sinh(fac) * math.cos(angle(i))))
        if normalized:
            alpha = _normalization_factor(den1, den2)
            den2 = [(b2 * alpha ** 2, b1 * alpha) for b2, b1 in den2]
            den1 = [a * alpha for a in den1]
        return _highest_power_one(den1, den2)
    raise ValueError(f"unknown analog filter {analog_filter!r}")


def _highest_power_one(den1, den2):
    """(cr, c0, c1) of the factors 1/(a·s + 1) and 1/(b2·s² + b1·s + 1) written with the
    highest power of s one (MSL Utilities.toHighestPowerOne)."""
    return ([1 / a for a in den1], [1 / b2 for b2, _ in den2], [b1 / b2 for b2, b1 in den2])


def _bessel_base(order: int):
    """The normalized Bessel low pass as the MSL's Utilities.BesselBaseCoefficients gives it:
    den1 [a] of a·p + 1 (odd order), den2 [(b2, b1)] of b2·p² + b1·p + 1, and alpha = 1/w0,
    where w0 is the frequency at which the unnormalized filter Bn(0)/Bn(p) is down 3 dB. The
    pairs come in the MSL's order, the most damped (largest |Re|) first."""
    import mpmath                       # SymPy's: the roots to the last bit of a double
    with mpmath.workdps(60):
        n = order
        # reverse Bessel polynomial Bn(p) = Σ c_k p^k, c_k = (2n−k)! / ((n−k)! k! 2^(n−k))
        c = [mpmath.factorial(2 * n - k) / (mpmath.factorial(n - k) * mpmath.factorial(k) * 2 ** (n - k))
             for k in range(n + 1)]
        roots = mpmath.polyroots(c[::-1], maxsteps=500, extraprec=400)
        beta = mpmath.mpf(10) ** (mpmath.mpf(-3) / 20)
        # |Bn(0)/Bn(jw0)| = 10^(−3/20)
        lo, hi = mpmath.mpf(0), mpmath.mpf(100)
        for _ in range(250):            # |Bn(jw)| grows with w: bisection to 60 digits
            w0 = (lo + hi) / 2
            lo, hi = (w0, hi) if abs(mpmath.polyval(c[::-1], 1j * w0)) * beta < c[0] else (lo, w0)
        scaled = [z / w0 for z in roots]        # zeros of Bn(w0·p)
        den1 = [float(-1 / z.real) for z in scaled if abs(z.imag) < 1e-30 * abs(z)]
        pairs = sorted((z for z in scaled if z.imag > 1e-30 * abs(z)), key=lambda z: z.real)
        den2 = [(float(1 / abs(z) ** 2), float(-2 * z.real / abs(z) ** 2)) for z in pairs]
        w0 = float(w0)
    return den1, den2, 1 / w0


def _normalization_factor(den1, den2) -> float:
    """alpha with which p → alpha·p puts the amplitude at 1 rad/s to −3 dB (MSL
    Utilities.normalizationFactor)."""
    def residue(alpha):
        a2 = 1.0
        for a in den1:
            a2 *= 1 + (a * alpha) ** 2
        for b2, b1 in den2:
            a2 *= 1 + (b1 * b1 - 2 * b2) * alpha ** 2 + b2 * b2 * alpha ** 4
        return 1 / math.sqrt(a2) - MINUS_3DB
    alpha_max = 1.0
    while residue(alpha_max) >= 0:
        alpha_max *= 1.1
    return _bisect(residue, 0.0, alpha_max)


def _bisect(f, lo, hi) -> float:
    """The root of f in [lo, hi] (f changes sign there) by bisection, to the last bit of a
    double (a few hundred cheap evaluations; SciPy's root finders would cost its import)."""
    f_lo = f(lo)
    while True:
        mid = (lo + hi) / 2
        if not lo < mid < hi:
            return mid
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid


def _band_alpha(a, b, w) -> float:
    """alpha (0 < alpha < 1) splitting the band-transformed pair into two second-order factors
    (MSL Utilities.bandPassAlpha): z = alpha² solves z² + (a·w·z/(1+z))² − (2 + b·w²)·z + 1 = 0."""
    if a * a / 4 - b > 0:
        raise ValueError("band pass transformation cannot be computed")
    return math.sqrt(_bisect(lambda z: z * z + (a * w * z / (1 + z)) ** 2 - (2 + b * w * w) * z + 1,
                             0.0, 1.0))


def sections(filter_type: str, cr, c0, c1, f_cut: float, f_min: float = 0.0):
    """The realization of a prototype (cr, c0, c1) as ``filter_type`` (MSL Internal.Filter
    coefficients.* and roots.*): (r, a, b, ku, k1, k2), real eigenvalues r of the first-order
    sections and, per second-order section, the eigenvalues a ± j·b, input gain ku and output
    gains k1, k2 (empty for a low pass)."""
    w_cut = 2 * math.pi * f_cut
    if filter_type in ("LowPass", "HighPass"):
        if filter_type == "LowPass":
            cr = [w_cut * x for x in cr]
            c0, c1 = [w_cut ** 2 * x for x in c0], [w_cut * x for x in c1]
        else:
            cr = [w_cut / x for x in cr]
            c0, c1 = [w_cut ** 2 / x0 for x0 in c0], [w_cut * x1 / x0 for x0, x1 in zip(c0, c1)]
        a = [-x / 2 for x in c1]
        b = [math.sqrt(x0 - ai * ai) for x0, ai in zip(c0, a)]
        ku = [x0 / bi for x0, bi in zip(c0, b)]
        if filter_type == "LowPass":
            return [-x for x in cr], a, b, ku, [], []
        k1 = [2 * ai / kui for ai, kui in zip(a, ku)]
        k2 = [(1 - (bi / ai) ** 2) / (1 + (bi / ai) ** 2) for ai, bi in zip(a, b)]
        return [-x for x in cr], a, b, ku, k1, k2
    band_c0, band_c1, cn = _band_coefficients(filter_type, cr, c0, c1, f_min, f_cut)
    a = [-x / 2 for x in band_c1]
    b = []
    for x0, ai in zip(band_c0, a):
        if x0 - ai * ai < 0:
            raise ValueError("the transformation gives a section without conjugate complex poles")
        b.append(math.sqrt(x0 - ai * ai))
    ku = [x0 / bi for x0, bi in zip(band_c0, b)]
    if filter_type == "BandPass":
        k1 = [cn / kui for kui in ku]
        k2 = [cn * ai / (bi * kui) for ai, bi, kui in zip(a, b, ku)]
    else:
        k1 = [2 * ai / kui for ai, kui in zip(a, ku)]
        k2 = [(x0 + ai ** 2 - bi ** 2) / (bi * kui) for x0, ai, bi, kui in zip(band_c0, a, b, ku)]
    return [], a, b, ku, k1, k2


def _band_coefficients(filter_type, cr, c0, c1, f_min, f_max):
    """(c0, c1, cn) of the band pass or band stop from f_min to f_max (MSL
    coefficients.bandPass, bandStop): one second-order section per real pole, then two per
    complex pair; cn the numerator gain of the band pass's cn·s/(s² + c1·s + c0)."""
    f0 = math.sqrt(f_min * f_max)
    w_cut, w_band = 2 * math.pi * f0, (f_max - f_min) / f0
    out_c0, out_c1 = [], []
    for x in cr:
        out_c1.append(w_cut * x * w_band if filter_type == "BandPass" else w_cut * w_band / x)
        out_c0.append(w_cut ** 2)
    for x0, x1 in zip(c0, c1):
        ww = w_band if filter_type == "BandPass" else w_band / x0
        alpha = _band_alpha(x1, x0, ww)
        c = x1 * ww / (alpha + 1 / alpha)
        out_c1 += [w_cut * c / alpha, w_cut * c * alpha]
        out_c0 += [w_cut ** 2 / alpha ** 2, w_cut ** 2 * alpha ** 2]
    return out_c0, out_c1, w_band * w_cut
