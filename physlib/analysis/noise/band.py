"""Band integrals of a noise spectrum, ∫ S_k(f) df over [f_lo, f_hi] for every source k at once,
accurate for resonances of any Q.

A quadrature on a fixed grid is silently wrong once a resonance is narrower than its step: with
Simpson's rule on 400 points per decade, an LC tank's kT/C came out 1.02 times too large at
Q = 100, 2.4 times at Q = 1000 and 0.57 times at Q = 10⁴. Here the band is cut into segments,
:data:`SEGMENTS_PER_DECADE` per decade of log f, and, around each resonance narrower than
1/:data:`RESOLVED` of such a segment (centre f0, half-width w: :mod:`.resonances`, from the
model's poles), at f0 and at f0 ± w·RING^k out to the segment's scale: no segment is wider
than a few times the distance to the peak it borders, so none can step over one, whatever Q.

Each segment is integrated by the 7/15-point Gauss–Kronrod pair (QUADPACK's qk15) with
QUADPACK's error estimate, in the logarithm of the distance from its anchor — the centre of the
resonance whose rings it lies in, or 0 (log f) — where it keeps to one side of the anchor and
spans a factor above 1.5 in that distance, in f otherwise: a Lorentzian's tail, and the
power-law slopes of a spectrum, are smooth in those variables.

Adaptive rounds: the spectrum is evaluated at the 15 nodes of every open segment at once (one
frequency sweep for all sources), a segment whose estimated error is within :data:`RTOL` of its
own integral, or of the band's total shared equally among the segments, is closed, and the
others are halved. The closed segments' errors then sum to at most 2·RTOL of the band
integral. Near a peak of quality Q the spectrum itself is only good to about ε·Q (the solve of
jω − A there has a condition number ~Q), so a segment by a resonance also closes within
:data:`ROUNDING`·ε·Q of its integral: a tank's band at Q = 10⁸, 10⁹ is then 5e-9, 8e-8 off
its closed form from about 1000 frequencies, where halving on regardless took 9·10⁷ and
1.4·10⁹ (and got 2e-9, 9e-10); at Q = 10¹², 3e-5, with a warning. A band not closed after
:data:`MAX_FREQUENCIES` keeps its best estimate, with a
:class:`~physlib.analysis.noise.sources.NoiseWarning` when that is worse than 1e-6 (a pole on
the imaginary axis inside the band: an infinite integral).

Cost: about 150 frequencies per decade and some 15 per ring of each narrow resonance in the
band (the old fixed grid took 400 per decade): an LC tank in 4 decades 600 frequencies at Q = 1,
915 at Q = 10⁶; a 200-section LC ladder (199 resonances, Q = 74–6300) in 9 decades 52 000. The
error against the tank's closed form: below 1e-10 from Q = 1 to 10⁶.
"""
from __future__ import annotations

import warnings

import numpy as np

from .sources import NoiseWarning

SEGMENTS_PER_DECADE = 10
RING = 4.0          # the rings around a resonance: f0 ± w·RING^k
RESOLVED = 16       # a resonance wider than 1/RESOLVED of its decade segment needs no rings
RTOL = 1e-10
ROUNDING = 10       # ... or ROUNDING·ε·Q of a segment by a resonance of quality Q (the spectrum's own)
MAX_FREQUENCIES = 2_000_000     # evaluated per band integral at most
_CHUNK_VALUES = 1 << 22          # spectrum values (frequencies × sources) evaluated at a time

# QUADPACK's qk15: Kronrod nodes on [-1, 1], their weights, and the embedded 7-point Gauss rule
# (the nodes of odd index).
_HALF = np.array([0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                  0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                  0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                  0.207784955007898467600689403773245])
_HALF_K = np.array([0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                    0.204432940075298892414161999234649])
_HALF_G = np.array([0.0, 0.129484966168869693270611432679082, 0.0, 0.279705391489276667901467771423780,
                    0.0, 0.381830050505118944950369775488975, 0.0])
NODES = np.concatenate([-_HALF, [0.0], _HALF[::-1]])
KRONROD = np.concatenate([_HALF_K, [0.209482141084727828012999174891714], _HALF_K[::-1]])
GAUSS = np.concatenate([_HALF_G, [0.417959183673469387755102040816327], _HALF_G[::-1]])


class BandIntegral:
    """∫ S_k df over a band for each source k: ``parts(f)`` gives the spectrum's contributions,
    shape (len(f), ``sources``); ``resonances(f_lo, f_hi, narrow)`` the (f0, w) [Hz] of the
    resonances narrower than ``narrow``·f0 near the band (:class:`.resonances.Resonances`),
    or None for a spectrum without any."""

    def __init__(self, parts, sources: int, resonances=None):
        self.parts, self.sources, self.resonances = parts, sources, resonances

    def __call__(self, f_lo: float, f_hi: float) -> np.ndarray:
        segments = max(2, int(np.ceil(SEGMENTS_PER_DECADE * np.log10(f_hi / f_lo))))
        edges = np.geomspace(f_lo, f_hi, segments + 1)
        step = edges[1] / edges[0] - 1
        f0, w = self.resonances(f_lo, f_hi, step / RESOLVED) if self.resonances is not None else ((), ())
        lo, hi, anchor, quality = _segments(edges, np.asarray(f0, float), np.asarray(w, float), step)
        closed, total, error, evaluated = 0, np.zeros(self.sources), 0.0, 0
        while len(lo) and evaluated < MAX_FREQUENCIES:
            K, err = self._rule(lo, hi, anchor)
            evaluated += K.shape[0] * len(NODES)
            share = (total.sum() + K.sum()) / (closed + len(lo))   # the estimate per segment
            # the spectrum itself is good to about ε·Q near a peak of quality Q: no better than that
            floor = ROUNDING * np.finfo(float).eps * quality * K.sum(axis=1)
            done = err <= np.maximum(RTOL * np.maximum(K.sum(axis=1), share), floor)
            total += K[done].sum(axis=0)
            closed += int(done.sum())
            error += err[done].sum()
            lo, hi, anchor, quality = _halve(lo[~done], hi[~done], anchor[~done], quality[~done])
        if len(lo):                               # not closed: the open halves' estimates
            K, err = self._rule(lo, hi, anchor)
            total += K.sum(axis=0)
            error += err.sum()
        if error > 1e-6 * abs(total.sum()):
            warnings.warn(f"noise: the band integral from {f_lo:g} to {f_hi:g} Hz did not converge "
                          f"(estimated error {error:.3g} of {total.sum():.6g}): a pole on the "
                          "imaginary axis inside the band, or a spectrum too rough to integrate",
                          NoiseWarning, stacklevel=4)
        return total

    def _rule(self, lo, hi, anchor):
        """(Kronrod estimates, shape (segments, sources); QUADPACK's error estimate of their
        sum, per segment). Each segment runs in ln|f − anchor| where it keeps to one side of
        its anchor and spans a factor above 1.5 in that distance, in f otherwise."""
        near, far, logarithmic, side = _distances(lo, hi, anchor)
        a = np.where(logarithmic, np.log(np.where(logarithmic, near, 1.0)), lo)
        b = np.where(logarithmic, np.log(np.where(logarithmic, far, 1.0)), hi)
        centre, half = 0.5 * (a + b), 0.5 * (b - a)
        x = centre[:, None] + half[:, None] * NODES[None, :]
        distance = np.exp(np.where(logarithmic[:, None], x, 0.0))
        f = np.where(logarithmic[:, None], anchor[:, None] + side[:, None] * distance, x)
        jacobian = half[:, None] * np.where(logarithmic[:, None], distance, 1.0)   # |df| = e^v·dv
        f = f.ravel()
        step = max(len(NODES), _CHUNK_VALUES // max(1, self.sources))        # bounded memory
        values = np.concatenate([np.asarray(self.parts(f[i:i + step])).reshape(-1, self.sources)
                                 for i in range(0, len(f), step)])
        weighted = values.reshape(len(lo), len(NODES), self.sources) * jacobian[:, :, None]
        K = np.einsum("snk,n->sk", weighted, KRONROD)
        G = np.einsum("snk,n->sk", weighted, GAUSS)
        total = weighted.sum(axis=2)
        spread = np.abs(total - K.sum(axis=1)[:, None] / 2) @ KRONROD       # Σ w·|g − mean|·half
        return K, _estimate(np.abs((K - G).sum(axis=1)), spread)


def _estimate(difference, spread):
    """QUADPACK's error estimate of the Kronrod sum from |Kronrod − Gauss| and the integrand's
    spread about its mean (``resasc``): the difference overstates the error of the 15-point
    rule, which converges much faster than the 7-point one."""
    scaled = spread * np.minimum(1.0, (200 * difference / np.where(spread > 0, spread, 1.0)) ** 1.5)
    return np.where((spread > 0) & (difference > 0), scaled, difference)


def _segments(edges, f0, w, step):
    """(lo, hi, anchor, quality) of the initial segments: the base edges with each resonance's centre
    and its rings f0 ± w·RING^k (out to the base segments' relative step) added inside the
    band. A segment's anchor is the centre of the nearest resonance whose rings reach it (its
    rule then runs in the log of the distance from that centre, where the peak's tail is
    smooth), else 0 (log f); its quality that resonance's Q (1 without one)."""
    f_lo, f_hi = edges[0], edges[-1]
    extra = [f0]
    w = np.maximum(w, 64 * np.finfo(float).eps * f0)       # a pole on the axis: rings all the same
    for k in range(60):
        radius = w * RING**k
        inside = radius <= step * f0
        if not inside.any():
            break
        extra += [(f0 - radius)[inside], (f0 + radius)[inside]]
    points = np.unique(np.concatenate([edges, *extra]))
    points = points[(points > f_lo * (1 + 1e-13)) & (points < f_hi * (1 - 1e-13))]
    if len(points):
        points = points[np.r_[True, np.diff(points) > 1e-13 * points[1:]]]
    points = np.concatenate([[f_lo], points, [f_hi]])
    lo, hi = points[:-1], points[1:]
    anchor, quality = np.zeros(len(lo)), np.ones(len(lo))
    if len(f0):
        middle = 0.5 * (lo + hi)
        right = np.clip(np.searchsorted(f0, middle), 0, len(f0) - 1)
        left = np.clip(right - 1, 0, len(f0) - 1)
        nearest = np.where(np.abs(f0[left] - middle) < np.abs(f0[right] - middle), left, right)
        centre = f0[nearest]
        reached = np.maximum(np.abs(lo - centre), np.abs(hi - centre)) <= step * centre * (1 + 1e-12)
        anchor = np.where(reached, centre, 0.0)
        quality = np.where(reached, centre / (2 * np.maximum(w[nearest], 64 * np.finfo(float).eps * centre)), 1.0)
    return lo, hi, anchor, quality


def _distances(lo, hi, anchor):
    """(the nearer and the farther end's distance from the anchor, whether the segment's rule
    runs in their log, which side of the anchor it lies on: +1 or −1)."""
    side = np.where(lo >= anchor, 1.0, -1.0)
    d_lo, d_hi = np.abs(lo - anchor), np.abs(hi - anchor)
    near, far = np.minimum(d_lo, d_hi), np.maximum(d_lo, d_hi)
    logarithmic = ((lo - anchor) * (hi - anchor) > 0) & (far > 1.5 * near)
    return near, far, logarithmic, side


def _halve(lo, hi, anchor, quality):
    """Each segment in two halves: at the geometric mean of its ends' distances from its
    anchor where its rule runs in their log, at the middle otherwise."""
    near, far, logarithmic, side = _distances(lo, hi, anchor)
    middle = np.where(logarithmic, anchor + side * np.sqrt(near * far), 0.5 * (lo + hi))
    return (np.concatenate([lo, middle]), np.concatenate([middle, hi]), np.concatenate([anchor, anchor]),
            np.concatenate([quality, quality]))
