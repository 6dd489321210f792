"""A half-wave rectifier and its closed-form solution, for the output-grid tests.

Sine source A·sin(ωt) -> IdealDiode (defaults: Ron = Goff = 1e-5) -> R parallel C to ground,
the capacitor empty at t = 0 (the source starts at 0 V rising, so the diode turns on at once).

Closed form with an ideal conducting diode (Ron -> 0) and the blocking diode's Goff kept:

* conducting, v = A·sin(ωt) until the diode current C·v' + v/R falls through zero, at
  ωt = π − atan(ωRC) (mod 2π);
* blocking, C·v' = Goff·(src − v) − v/R, linear: v = v_p + (v_off − v_p(t_off))·e^(−a(t − t_off))
  with a = (Goff + 1/R)/C and the periodic solution v_p = b·(a·sin ωt − ω·cos ωt)/(a² + ω²),
  b = Goff·A/C, until src − v rises through zero (brentq to 1e-15 s).

Ron shifts v by Ron·i and the switching times by about Ron·C: for the circuits here below
1e-6 V and 1e-10 s.
"""
import numpy as np
from scipy.optimize import brentq

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
from physlib.components.signals import Sine

GOFF = 1e-5         # IdealDiode's default blocking conductance [S]


def rectifier(amplitude, f, R, C):
    """The compiled rectifier: source "src", diode "D1", resistor "R1", capacitor "C1"."""
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Sine(amplitude=amplitude, f=f)))
    d, r = m.add(IdealDiode("D1")), m.add(Resistor("R1", R=R))
    c, gnd = m.add(Capacitor("C1", C=C)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    return m.compile()


class ClosedForm:
    """The rectifier's capacitor voltage from 0 to t_end: ``switchings`` (the times the diode
    turns off and on again, alternately, after it turns on at t = 0), ``v(t)`` and
    ``conducting(t)`` at any times."""

    def __init__(self, amplitude, f, R, C, t_end):
        self.amplitude, self.w = amplitude, 2 * np.pi * f
        self.a, self.b = (GOFF + 1 / R) / C, GOFF * amplitude / C
        phase_off = np.pi - np.arctan(self.w * R * C)      # where the conducting current is zero
        self.intervals = []         # (start, end, v at start or None while conducting)
        t_on, period = 0.0, 1 / f
        while t_on < t_end:
            k = np.ceil((self.w * t_on - phase_off) / (2 * np.pi))
            t_off = (phase_off + 2 * np.pi * k) / self.w
            if t_off <= t_on:
                t_off += period
            self.intervals.append((t_on, min(t_off, t_end), None))
            if t_off >= t_end:
                break
            v_off = self.source(t_off)
            t_on = self._turn_on(t_off, v_off, period, t_end)
            self.intervals.append((t_off, t_on, v_off))
        self.switchings = np.array([start for start, _, _ in self.intervals[1:]])

    def source(self, t):
        return self.amplitude * np.sin(self.w * np.asarray(t, dtype=float))

    def _periodic(self, t):
        a, b, w = self.a, self.b, self.w
        return b * (a * np.sin(w * t) - w * np.cos(w * t)) / (a * a + w * w)

    def _blocking(self, t, t_off, v_off):
        return self._periodic(t) + (v_off - self._periodic(t_off)) * np.exp(-self.a * (t - t_off))

    def _turn_on(self, t_off, v_off, period, t_end):
        """The first time after t_off that the source rises through the blocking capacitor's
        voltage (t_end if none before it)."""
        def across(t):
            return self.source(t) - self._blocking(t, t_off, v_off)
        # src − v leaves t_off with zero slope and goes negative (the current's zero is where
        # their slopes meet); it comes back up in a later period
        lo = t_off + period / 1000
        while lo < t_end:
            hi = min(lo + period / 100, t_end)
            if across(hi) > 0:
                return brentq(across, lo, hi, xtol=1e-15, rtol=1e-15)
            lo = hi
        return t_end

    def v(self, t):
        """The capacitor voltage at times t (an array or a number) [V]."""
        shape, t = np.shape(t), np.ravel(np.asarray(t, dtype=float))
        out = np.empty_like(t)
        for start, end, v_off in self.intervals:
            inside = (t >= start) & (t <= end)
            out[inside] = self.source(t[inside]) if v_off is None else self._blocking(t[inside], start, v_off)
        return out.reshape(shape)

    def conducting(self, t):
        """Whether the diode conducts at times t (an array)."""
        t = np.asarray(t, dtype=float)
        on = np.zeros(t.shape, dtype=bool)
        for start, end, v_off in self.intervals:
            if v_off is None:
                on |= (t >= start) & (t < end)
        return on
