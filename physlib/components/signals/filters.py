"""Continuous IIR filters of any order (the Modelica Standard Library's Blocks.Continuous.Filter):
critical damping, Bessel, Butterworth and Chebyshev I characteristics as low, high, band pass
or band stop, realized in the MSL's eigenvalue form with the MSL's coefficients
(:mod:`.filter_design`)."""
import math
from functools import lru_cache

from ...core import Component, Input, Output, Parameter, Variable, der
from ...core.component import as_real
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from .filter_design import ANALOG_FILTERS, FILTER_TYPES, prototype, sections

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Filter"]


class Filter(Component):
    """Low pass, high pass, band pass or band stop filter of ``order`` with a critical damping,
    Bessel, Butterworth or Chebyshev I characteristic, as the MSL's Blocks.Continuous.Filter
    (Simulink: the DSP System Toolbox's Analog Filter Design; Simscape's Foundation library
    has no filter block).

    ``Filter("F", analog_filter="Bessel", filter_type="LowPass", order=3, f_cut=2.0)``.

    The filter is the product of the MSL's prototype low pass with cut-off 1 rad/s (real poles
    cr, complex pairs s² + c1·s + c0; normalized: amplitude 10^(−3/20), −3 dB, at the cut-off)
    transformed by s → s/ω (low pass), ω/s (high pass) or (s + ω²/s)/Δω (band pass and stop
    from f_min to f_cut, ω = 2π·√(f_min·f_cut)). Its sections are realized as the MSL's, in
    series (uu1 = u; each section's output is the next one's input, y = gain·uu_last)::

        real pole r:          der(x) = r·(x − uu)                      low pass: y = x,  high pass: y = uu − x
        pair a ± j·b:         der(x1) = a·x1 − b·x2 + ku·uu            low pass: y = x2
                              der(x2) = b·x1 + a·x2                    else: y = k1·x1 + k2·x2 (+ uu but band pass)

    with ku = (a² + b²)/b, so that every state is of the order of the input. The states are
    x1 … x{nx} in the MSL's order (nx = order, or 2·order for a band filter): the real-pole
    sections first, then x1, x2 of each pair.

    Parameters (structural: the design is part of the compiled model): analog_filter
    ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI"); filter_type ("LowPass",
    "HighPass", "BandPass", "BandStop"); order (>= 1); f_cut [Hz] cut-off (upper band edge of a
    band filter); f_min [Hz] lower band edge (band filters); A_ripple [dB] pass-band ripple
    (Chebyshev I, > 0); normalized (True: −3 dB at f_cut, the MSL's default; False: the textbook
    filter); x_start (nx values) initial states. Ordinary: gain (the amplitude at zero frequency,
    or in the pass band of a high pass); u_start, the input at the start.

    The band filters are the MSL's as they are: each second-order section of a band pass is
    cn·s/(s² + c1·s + c0), cn = 2π·(f_cut − f_min), without the prototype section's gain (c0
    or cr), so that of the band passes only the Butterworth's is −3 dB at f_min and f_cut (and
    1 at the centre); each section of a band stop puts its zeros at its own √c0, not at the
    band centre, so that beyond order 1 its notch is split in two and its band edges are not at
    −3 dB. The low and high passes are exact.

    Start: the MSL's default (init = SteadyState) starts in steady state for the input at the
    start; physlib's initial values are functions of parameters, so that input is given as
    u_start (default 0: at rest). x_start (the MSL's InitialState) gives the states instead.
    The MSL's u_nominal (a scaling of the states) is left out: the states are those of
    u_nominal = 1.
    """

    u = Input(description="input")
    y = Output(description="filtered input")
    analog_filter = Parameter("CriticalDamping", description="CriticalDamping, Bessel, Butterworth or "
                              "ChebyshevI", structural=True)
    filter_type = Parameter("LowPass", description="LowPass, HighPass, BandPass or BandStop", structural=True)
    order = Parameter(2, description="order of the filter", structural=True)
    f_cut = Parameter(unit="Hz", description="cut-off frequency (upper band edge of a band filter)",
                      structural=True)
    gain = Parameter(1.0, description="amplitude of the frequency response at zero frequency "
                     "(in the pass band of a high pass)")
    A_ripple = Parameter(0.5, unit="dB", description="pass-band ripple of a Chebyshev I filter",
                         structural=True)
    f_min = Parameter(0.0, unit="Hz", description="lower band edge of a band pass or band stop",
                      structural=True)
    normalized = Parameter(True, description="True: amplitude −3 dB at f_cut; False: the textbook "
                           "filter", structural=True)
    u_start = Parameter(0.0, description="input at the start, at whose steady state the filter starts")
    x_start = Parameter(None, description="initial states (nx), instead of the steady state",
                        structural=True)

    def validate(self):
        where = f"Filter {self.name!r}"
        if self.analog_filter not in ANALOG_FILTERS:
            raise ParameterError(f"{where}: analog_filter must be one of {', '.join(ANALOG_FILTERS)}, "
                                 f"got {self.analog_filter!r}")
        if self.filter_type not in FILTER_TYPES:
            raise ParameterError(f"{where}: filter_type must be one of {', '.join(FILTER_TYPES)}, "
                                 f"got {self.filter_type!r}")
        if not isinstance(self.order, int) or isinstance(self.order, bool) or self.order < 1:
            raise ParameterError(f"{where}: order must be an integer >= 1, got {self.order!r}")
        f_cut, f_min, ripple = (as_real(getattr(self, k)) for k in ("f_cut", "f_min", "A_ripple"))
        if not (math.isfinite(f_cut) and f_cut > 0):
            raise ParameterError(f"{where}: f_cut must be a positive frequency [Hz], got {self.f_cut!r}")
        if self.filter_type in ("BandPass", "BandStop") and not 0 < f_min < f_cut:
            raise ParameterError(f"{where}: a {self.filter_type} needs 0 < f_min < f_cut, got "
                                 f"f_min = {self.f_min!r}, f_cut = {self.f_cut!r}")
        if not ripple > 0:
            raise ParameterError(f"{where}: A_ripple must be > 0 dB, got {self.A_ripple!r}")
        self._values.update(f_cut=f_cut, f_min=f_min, A_ripple=ripple, normalized=bool(self.normalized))
        try:
            self._design()
        except ValueError as err:
            raise ParameterError(f"{where}: {err}; try another analog_filter for this band") from None
        if self.x_start is not None:
            try:
                x0 = tuple(float(v) for v in self.x_start)
            except (TypeError, ValueError):
                x0 = ()
            if len(x0) != self.nx or not all(map(math.isfinite, x0)):
                raise ParameterError(f"{where}: x_start must be {self.nx} finite numbers, got {self.x_start!r}")
            self._values["x_start"] = x0

    @property
    def nx(self) -> int:
        """Number of states: order, or 2·order for a band pass or band stop."""
        return self.order * (2 if self.filter_type in ("BandPass", "BandStop") else 1)

    def variables(self):
        return {**super().variables(),
                **{f"x{i}": Variable(description=f"filter state {i}") for i in range(1, self.nx + 1)}}

    def _design(self):
        """(r, a, b, ku, k1, k2) of :func:`.filter_design.sections` for these parameters."""
        return _design(self.filter_type, self.analog_filter, self.order, self.A_ripple, self.normalized,
                       self.f_cut, self.f_min)

    def _sections(self):
        """[(kind, state names, coefficients)] in series order, kind "real" or "pair"."""
        r, a, b, ku, k1, k2 = self._design()
        out = [("real", (f"x{i + 1}",), (ri,)) for i, ri in enumerate(r)]
        for i in range(len(a)):
            j = len(r) + 2 * i + 1
            gains = (k1[i], k2[i]) if k1 else (None, None)
            out.append(("pair", (f"x{j}", f"x{j + 1}"), (a[i], b[i], ku[i], *gains)))
        return out

    def equations(self):
        eqs, uu = [], self.u
        kind_type = self.filter_type
        for kind, names, coef in self._sections():
            if kind == "real":
                x = self.var(names[0])
                eqs.append(sp.Eq(der(x), coef[0] * (x - uu)))
                uu = x if kind_type == "LowPass" else uu - x
                continue
            x1, x2 = (self.var(n) for n in names)
            a, b, ku, k1, k2 = coef
            eqs += [sp.Eq(der(x1), a * x1 - b * x2 + ku * uu), sp.Eq(der(x2), b * x1 + a * x2)]
            if kind_type == "LowPass":
                uu = x2
            else:
                uu = k1 * x1 + k2 * x2 + (0 if kind_type == "BandPass" else uu)
        return eqs + [sp.Eq(self.y, self.gain * uu)]

    def initial(self):
        if self.x_start is not None:
            return {self.var(f"x{i}"): v for i, v in enumerate(self.x_start, 1)}
        # Steady state for the constant input u_start, section by section: a real pole's x
        # and a pair's x2 equal the section's input U, a pair's x1 is −(a/b)·U; a section
        # passes U on (low pass, band stop) or 0 (high pass, band pass).
        start, passes = {}, self.filter_type in ("LowPass", "BandStop")
        level = self.u_start
        for kind, names, coef in self._sections():
            if kind == "real":
                start[self.var(names[0])] = level
            else:
                start[self.var(names[0])] = -coef[0] / coef[1] * level
                start[self.var(names[1])] = level
            level = level if passes else 0
        return start


@lru_cache(maxsize=64)
def _design(filter_type, analog_filter, order, A_ripple, normalized, f_cut, f_min):
    return sections(filter_type, *prototype(analog_filter, order, A_ripple, normalized), f_cut, f_min)
