"""Thermal noise of an RC low-pass: the spectrum at the capacitor and kT/C.
========================================================================

R = 1 kΩ, C = 1 nF at 300.15 K (ngspice's noise example). The resistor's Johnson noise 4kTR
is shaped by the low-pass: S(f) = 4kTR/(1 + (f/fc)²), fc = 1/(2πRC) = 159 kHz, and the
variance over all frequencies is kT/C whatever R is (2.04 µV rms).

Run: python examples/noise_rc.py (saves noise_rc.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource

R, C, T = 1e3, 1e-9, 300.15      # Ω, F, K


def build() -> Model:
    m = Model("rc_noise")
    src, r, c, gnd = VoltageSource("V1", V=0.0), Resistor("R1", R=R), Capacitor("C1", C=C), Ground("g")
    for part in (src, r, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def main(quick: bool = False, plot_path: str | None = "noise_rc.png"):
    sim = build().compile()
    f = np.geomspace(1.0, 1e8, 60 if quick else 400)
    result = sim.noise("C1.v", f, T=T)
    print(f"noise density at 1 Hz: {result.asd[0]:.6g} V/√Hz (√(4kTR) = {np.sqrt(4 * BOLTZMANN * T * R):.6g})")
    print(f"rms 1 Hz–100 MHz: {result.rms(1.0, 1e8):.6g} V")
    print(f"rms over all frequencies: {result.std:.6g} V (√(kT/C) = {np.sqrt(BOLTZMANN * T / C):.6g} V)")
    if plot_path:
        fig = result.plot()
        fc = 1 / (2 * np.pi * R * C)
        fig.axes[0].axvline(fc, color="grey", lw=0.8, ls="--", label="fc")
        fig.axes[0].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return result


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
