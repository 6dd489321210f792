"""Noise at ports: thermal and shot noise of every dissipative element, as a spectrum and a variance.

**Sources.** Every element that dissipates power (it declares a ``dissipation()`` pair) and
connects two ports of one physical domain is a noise source: a through source in parallel with
it (a current, force, torque, volume flow or heat flow between its two ports) whose one-sided
power spectral density is

* thermal noise, the fluctuation–dissipation theorem (Nyquist 1928): ``4·k·T·G`` with G the
  element's small-signal conductance ∂through/∂across at the operating point (1/R for a
  resistor, d for a damper, ∂q/∂Δp for a hydraulic resistance), and ``4·k·T²·G`` for heat
  conduction G [W/K] (heat-flow noise);
* shot noise for elements that declare it (``noise_kind = "shot"``: the Shockley Diode):
  ``2·q·|I|`` with I the element's current.

T is the temperature of the element's heat port when it has one (HeatingResistor), the mean of
its two port temperatures for a thermal conductor, else the analysis temperature ``T``.

**Spectrum.** The model is linearized at the operating point with the sources as inputs: a copy
of the model with a zero-valued source in parallel with each element is compiled once per
compiled model, and its transfer functions H_k(f) from each source to the output give the
output's one-sided PSD ``S_y(f) = Σ_k S_k·|H_k(f)|²`` and each source's contribution.

**An element's own through variables.** The source sits beside its element, so the element's
through variables in the copy are those of its inner branch: its terminals, where the rest of
the model (and a meter in series) sees it, carry the source's part too. An output that is one of
them (``"R1.i"``, ``"R1.p.i"``, a damper's force) is taken at the terminals: the source feeds
through to it with the sign of the port
(:func:`~physlib.analysis.noise.sources.terminal_feedthrough`). Across variables are the
same for both.

**Variance.** The total variance is exact, not a quadrature over the given frequencies: with
two-sided white intensities Q = diag(S_k/2), the state covariance P solves the Lyapunov equation
A·P + P·Aᵀ + B·Q·Bᵀ = 0 and the output variance is C·P·Cᵀ. States that cannot influence the
output (a free shaft's angle) are left out first. For a passive network at one temperature this
is equipartition: kT/C for a capacitor's voltage, kT/L for an inductor's current, kT/m for a
mass's speed (a theorem the tests check on random networks).

**Bands.** ``rms``, ``band_variance``, ``band_contributions`` and ``summary`` integrate each
source's part of the PSD over a band from the transfer functions (not from ``f``), by adaptive
Gauss–Kronrod on segments cut at the resonances of the model, which its poles locate
(:mod:`.band`, :mod:`.resonances`): a resonance counts in full whatever its Q.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sps

from ...core.errors import PhyslibError, UnknownNameError
from ...core.units import divided, raised
from ..linear.frequency_response import frequency_response
from ..linear.linear_model import LinearModel
from ..linear.operating_point import OperatingPoint, operating_point
from .band import BandIntegral
from .resonances import Resonances, reach
from .sources import (BOLTZMANN, ELEMENTARY_CHARGE, NoiseElement, NoiseWarning, noise_elements,
                      noise_source_model, terminal_feedthrough, transfer_operating_point)

__all__ = ["BOLTZMANN", "ELEMENTARY_CHARGE", "NoiseElement", "NoiseResult", "NoiseSource", "NoiseWarning",
           "noise", "noise_elements", "noise_source_model", "transfer_operating_point"]

class NoiseSource:
    """One noise source: the element ``path`` (or ``"external(port)"``), its ``kind``
    ("thermal", "shot" or "external"), its one-sided PSD ``density + flicker/f``
    [through unit²/Hz] (white part and 1/f coefficient), and the input of the model copy it
    drives."""

    def __init__(self, path, kind, density, input_path, flicker=0.0):
        self.path, self.kind, self.density, self.input_path = path, kind, float(density), input_path
        self.flicker = float(flicker)

    def psd(self, f) -> np.ndarray:
        """One-sided PSD [through unit²/Hz] at frequencies f [Hz]."""
        f = np.asarray(f, dtype=float)
        if self.flicker == 0.0:
            return np.full(f.shape, self.density)
        with np.errstate(divide="ignore"):
            return self.density + self.flicker / f

    def __repr__(self):
        text = f"{self.density:.4g}" + (f" + {self.flicker:.4g}/f" if self.flicker else "")
        return f"<NoiseSource {self.path} ({self.kind}): {text} /Hz>"


class NoiseResult:
    """The noise of one output: ``f`` [Hz], ``psd`` (one-sided [unit²/Hz]), ``contributions``
    (element path -> its part of ``psd``), ``variance`` [unit²] (exact, all frequencies),
    ``sources`` (the :class:`NoiseSource` list), ``output`` and its ``unit``; ``psd_unit``
    and ``asd_unit`` are the spectra's units in the Modelica grammar (``"V2/Hz"``,
    ``"V/Hz(1/2)"``)."""

    def __init__(self, output, unit, f, psd, contributions, variance, sources):
        self.output, self.unit = output, unit
        self.f, self.psd = f, psd
        self.contributions = contributions
        self._variance = variance          # a number, or a function computing it on first use
        self.sources = sources
        self._bands = {}                    # (f_lo, f_hi) -> {source: band variance}

    @property
    def variance(self) -> float:
        """Variance [unit²] over all frequencies, from the Lyapunov equation (computed once)."""
        if callable(self._variance):
            self._variance = self._variance()
        return self._variance

    @property
    def psd_unit(self) -> str:
        """The unit of ``psd`` and ``contributions``: the output's squared per hertz, ``"V2/Hz"``."""
        return divided(raised(self.unit, 2), "Hz")

    @property
    def asd_unit(self) -> str:
        """The unit of ``asd``, V/√Hz written in the Modelica grammar: ``"V/Hz(1/2)"``."""
        return divided(self.unit, "Hz(1/2)")

    @property
    def asd(self) -> np.ndarray:
        """Amplitude spectral density √psd [unit/√Hz] (what SPICE prints by default)."""
        return np.sqrt(self.psd)

    @property
    def std(self) -> float:
        """Standard deviation [unit] over all frequencies, √variance."""
        return float(np.sqrt(self.variance))

    def rms(self, f_lo: float, f_hi: float) -> float:
        """RMS [unit] in the band [f_lo, f_hi] Hz, √:meth:`band_variance`."""
        return float(np.sqrt(self.band_variance(f_lo, f_hi)))

    def band_variance(self, f_lo: float, f_hi: float, source: str | None = None) -> float:
        """Variance [unit²] in the band [f_lo, f_hi] Hz: the PSD (one ``source``'s part, by its
        path, if given) integrated over the band from the transfer functions, not from ``f``
        — adaptively, with every resonance of the model located from its poles, so a peak of
        any Q counts in full (:mod:`physlib.analysis.noise.band`, relative error ~1e-10)."""
        parts = self.band_contributions(f_lo, f_hi)
        if source is None:
            return float(sum(parts.values()))
        if source not in parts:
            raise UnknownNameError(f"noise: {source!r} is not a source of this result; its sources: "
                                   f"{', '.join(parts) or '(none)'}")
        return parts[source]

    def band_contributions(self, f_lo: float, f_hi: float) -> dict[str, float]:
        """Each source's variance [unit²] in the band [f_lo, f_hi] Hz (path -> value): their sum
        is :meth:`band_variance`. Computed together, once per band."""
        if not (0 < f_lo < f_hi < np.inf):
            raise PhyslibError(f"a band needs 0 < f_lo < f_hi < inf, got [{f_lo}, {f_hi}]")
        key = (float(f_lo), float(f_hi))
        if key not in self._bands:
            values = self._band(*key) if self.sources else []
            self._bands[key] = {s.path: float(v) for s, v in zip(self.sources, values)}
        return dict(self._bands[key])

    def summary(self, f_lo: float | None = None, f_hi: float | None = None, top: int = 10) -> str:
        """The contributors ranked by their share of the variance in [f_lo, f_hi] (default:
        the analysed frequencies), as a table."""
        f_lo = self.f[0] if f_lo is None else f_lo
        f_hi = self.f[-1] if f_hi is None else f_hi
        shares = self.band_contributions(f_lo, f_hi)
        total = sum(shares.values())
        lines = [f"noise of {self.output} in {f_lo:g}–{f_hi:g} Hz: {np.sqrt(total):.4g} {self.unit} rms "
                 f"(all frequencies: {self.std:.4g} {self.unit})",
                 f"{'source':<24} {'kind':<8} {'rms':>12} {'share':>8}"]
        kinds = {s.path: s.kind for s in self.sources}
        for path, value in sorted(shares.items(), key=lambda kv: -kv[1])[:top]:
            share = value / total if total > 0 else 0.0
            lines.append(f"{path:<24} {kinds[path]:<8} {np.sqrt(value):>12.4g} {share * 100:>7.2f}%")
        return "\n".join(lines)

    def plot(self, ax=None, top: int = 5):
        """Total PSD and the ``top`` largest contributions on log–log axes; returns the Figure."""
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots()
        else:
            fig = ax.figure
        ax.loglog(self.f, self.psd, "k", lw=2, label="total")
        ranked = sorted(self.contributions, key=lambda k: -np.trapezoid(self.contributions[k], self.f))
        for path in ranked[:top]:
            ax.loglog(self.f, self.contributions[path], lw=1, label=path)
        ax.set_xlabel("f [Hz]")
        ax.set_ylabel(f"PSD of {self.output} [{self.psd_unit}]")
        ax.legend()
        return fig

    @staticmethod
    def _band(f_lo, f_hi):            # replaced per result by the analysis that made it
        return []

    def __repr__(self):
        return f"<NoiseResult {self.output}: {self.std:.4g} {self.unit} rms, {len(self.sources)} sources>"


def noise(model, output, f=None, *, T: float = 300.15, at=None, external=None) -> NoiseResult:
    """The noise of ``output`` at an operating point of a compiled ``model``.

    output: a variable path (``"C1.v"``), or a pair of across-variable paths whose difference is
    wanted (``("R1.p.v", "R1.n.v")``). f: frequencies [Hz] for the spectrum (may be None: the
    variance only). T: analysis temperature [K] (> 0). at: an operating point (default: the
    steady state, :meth:`CompiledModel.operating_point`). external: noise injected at ports by
    the user, ``{port path: white density}`` or ``{port path: (white, flicker)}`` with the
    one-sided PSD ``white + flicker/f`` of a through variable into the port's node [through
    unit²/Hz], e.g. a force noise on a mass: ``{"M.flange_a": 1e-20}``.
    With a 1/f part (a diode's ``KF``, or an external flicker), the variance over all
    frequencies is infinite: use ``rms(f_lo, f_hi)``.
    """
    if not (isinstance(T, (int, float)) and np.isfinite(T) and T > 0):
        raise PhyslibError(f"noise: the temperature T must be a positive number of kelvins, got {T!r}")
    names, label = _output(model, output)
    f = None if f is None else _frequencies(f)
    op = at if at is not None else operating_point(model)
    if not isinstance(op, OperatingPoint) or op.model is not model:
        raise PhyslibError("noise: at must be an operating point of this compiled model")
    unit = model.unit(names[0])
    external = _external(external)
    elements = noise_elements(model, op.p)
    if not elements and not external:
        warnings.warn(f"{model.name} has no dissipative elements, so no noise sources: the noise of "
                      f"{label} is zero", NoiseWarning, stacklevel=3)
        result = NoiseResult(label, unit, f, np.zeros(0 if f is None else f.size), {}, 0.0, [])
        result.linear_model = None
        return result

    noisy, inputs = noise_source_model(model, elements, tuple(external))
    sources = [NoiseSource(e.path, e.kind, e.density(model, op, T), inputs[e.path], e.flicker(model, op))
               for e in elements]
    sources += [NoiseSource(f"external({port})", "external", white, inputs[f"external({port})"], flicker)
                for port, (white, flicker) in external.items()]
    if f is not None and np.any(f == 0) and any(s.flicker for s in sources):
        raise PhyslibError("noise: a 1/f source makes the PSD infinite at f = 0; give f > 0")
    # descriptor form where the algebraic equations are singular at the point (a MOSFET's
    # Meyer capacitance that is zero in saturation): a spectrum needs only the pencil
    lin = noisy.linearize([s.input_path for s in sources], names,
                          at=transfer_operating_point(model, noisy, op), descriptor="auto")
    feedthrough = terminal_feedthrough(noisy, elements, len(sources), names)
    if feedthrough.any():
        lin = LinearModel(lin.sparse("A"), lin.sparse("B"), lin.sparse("C"), lin.sparse("D") + feedthrough,
                          states=lin.states, inputs=lin.inputs, outputs=lin.outputs, E=lin.sparse("E"),
                          at=lin.at, origin=lin.origin, units=lin.units, input_units=lin.input_units)
    spectrum = _Spectrum(lin, sources, difference=len(names) == 2)
    if f is not None:
        parts = spectrum.parts(f)
        psd, contributions = parts.sum(axis=1), {s.path: parts[:, k] for k, s in enumerate(sources)}
    else:
        psd, contributions = None, {}
    result = NoiseResult(label, unit, f, psd, contributions, spectrum.variance, sources)
    result._band = spectrum.band_integral
    result.linear_model = lin
    return result


def _frequencies(f) -> np.ndarray:
    """``f`` as a 1-D array of frequencies [Hz]: a string reached float() (ValueError), a 2-D
    array a message's format (TypeError)."""
    try:
        values = np.asarray(f, dtype=float)
    except (TypeError, ValueError):
        values = None
    if values is None or values.ndim > 1 or values.size == 0 or np.any(~np.isfinite(values)) or np.any(values < 0):
        raise PhyslibError(f"noise: f must be a number or a 1-D sequence of finite frequencies >= 0 [Hz], "
                           f"e.g. np.logspace(0, 6, 61); got {f!r:.60}")
    return np.atleast_1d(values)


def _output(model, output):
    """(the output's variable paths, its label); unknown names raise with suggestions."""
    names = [output] if isinstance(output, str) else list(output) if isinstance(output, (tuple, list)) else None
    if not names or len(names) > 2 or not all(isinstance(n, str) for n in names):
        raise PhyslibError("noise: output is a variable path ('C1.v') or a pair of across-variable "
                           f"paths (('R1.p.v', 'R1.n.v')), got {output!r}")
    for name in names:
        model.variable(name)
    return names, names[0] if len(names) == 1 else f"{names[0]} − {names[1]}"


class _Spectrum:
    """The output's PSD from the linearized model with the sources as inputs (a difference of
    two outputs when ``difference``): per frequency one sparse solve for all sources at once."""

    def __init__(self, lin, sources, difference):
        self.lin, self.sources = lin, sources
        self.C, self.D = lin.sparse("C"), lin.sparse("D")
        if difference:
            self.C, self.D = self.C[:1] - self.C[1:], self.D[:1] - self.D[1:]
        self.band = BandIntegral(self.parts, len(sources), self.resonances)
        self.poles = None

    def band_integral(self, f_lo, f_hi):
        """Each source's variance in the band (:class:`.band.BandIntegral`): infinite, with a
        warning, where the spectrum is (a pole of the model on the imaginary axis in the band)."""
        try:
            return self.band(f_lo, f_hi)
        except PhyslibError as err:
            warnings.warn(f"{err}: the variance in {f_lo:g}–{f_hi:g} Hz is infinite", NoiseWarning, stacklevel=4)
            return np.full(len(self.sources), np.inf)

    def resonances(self, f_lo, f_hi, narrow):
        """The narrow resonances near a band (:class:`.resonances.Resonances`, made on first use)."""
        if self.poles is None:
            lin, weights = self.lin, np.array([s.density + s.flicker for s in self.sources])
            self.poles = Resonances(lin.sparse("A"), lin.sparse("B"), self.C, lin.sparse("E"), weights)
        return self.poles(f_lo, f_hi, narrow)

    def transfer(self, f):
        """|H_k(f)|² for every source at once, shape (len(f), sources): with one output and many
        sources, :func:`~physlib.analysis.linear.frequency_response.frequency_response` solves
        the transposed system, (jωE − A)ᵀ·y = Cᵀ, then H = yᵀ·B + D (the adjoint method)."""
        lin = self.lin
        try:
            H = frequency_response(lin.sparse("A"), lin.sparse("B"), self.C, self.D, f, lin.sparse("E"))
        except PhyslibError as err:
            raise PhyslibError(f"noise: {err}, and so is the noise spectrum") from None
        return np.abs(H[0].T) ** 2

    def parts(self, f):
        """Each source's contribution to the PSD, shape (len(f), sources)."""
        return self.transfer(f) * np.column_stack([s.psd(f) for s in self.sources])

    def variance(self):
        A, B, C, D = self.lin.A, self.lin.B, self.C.toarray(), self.D.toarray()
        flicker = np.array([s.flicker for s in self.sources])
        if np.any(flicker > 0) and _variance(A, B, C, D, flicker) > 0:
            return float("inf")             # 1/f noise that reaches the output: ∫ df/f diverges
        density = np.array([s.density for s in self.sources])
        return _variance(A, B, C, D, density / 2)


def _external(external) -> dict:
    """``external`` as {port path: (white, flicker)}, checked."""
    if external is None:
        return {}
    if not isinstance(external, dict):
        raise PhyslibError("noise: external is a dict of port paths to a white density or a (white, "
                           f"flicker) pair, e.g. {{'M.flange_a': 1e-20}}; got {external!r}")
    out = {}
    for port, value in external.items():
        white, flicker = (value if isinstance(value, (tuple, list)) else (value, 0.0))
        if not all(isinstance(v, (int, float)) and np.isfinite(v) and v >= 0 for v in (white, flicker)):
            raise PhyslibError(f"noise: the external noise at {port!r} must be densities >= 0, got {value!r}")
        out[port] = (float(white), float(flicker))
    return out


def _variance(A, B, C, D, Q):
    """C·P·Cᵀ with A·P + P·Aᵀ + B·Q·Bᵀ = 0, on the states that reach the output and that the
    sources reach (a free angle neither changes the output nor is bounded); inf when white noise
    reaches the output directly (D ≠ 0) or through an unstable or undamped part."""
    if np.any(np.abs(D) > 0) and np.any(np.abs(D) @ Q > 0):
        return float("inf")
    n = A.shape[0]
    if n == 0:
        return 0.0
    pattern = sps.csr_matrix((np.abs(A) > 0).astype(float))
    # pattern[i, j]: x_i' depends on x_j. The output sees the states from which its support is
    # reached (edges i -> j backwards along that dependency); the sources drive the states their
    # support reaches (edges j -> i: the transposed pattern).
    seen = reach(pattern, np.flatnonzero(np.abs(C).sum(axis=0) > 0))
    driven = reach(pattern.T.tocsr(), np.flatnonzero(np.abs(B) @ Q > 0))
    keep = np.flatnonzero(seen & driven)
    if not len(keep):
        return 0.0
    A_k, B_k, C_k = A[np.ix_(keep, keep)], B[keep], C[:, keep]
    import scipy.linalg
    # Balanced first (A_k = S·Ã·S⁻¹, S diagonal powers of two): states of very different
    # scales (a 1e-13 m³/Pa volume's pressure beside a shaft's speed, A's entries from 1e-3 to
    # 1e7) otherwise cost the Lyapunov solve all its digits, down to a negative variance, and
    # make the largest entry a poor scale for "undamped".
    A_b, (scale, _) = scipy.linalg.matrix_balance(A_k, permute=False, separate=True)
    if np.max(np.linalg.eigvals(A_b).real) >= -1e-12 * max(1.0, np.abs(A_b).max()):
        return float("inf")
    B_b, C_b = B_k / scale[:, None], C_k * scale
    P = scipy.linalg.solve_continuous_lyapunov(A_b, -(B_b * Q) @ B_b.T)
    return float((C_b @ P @ C_b.T).item())
