"""Thermal motion of a mass on a spring and damper (Brownian motion of an oscillator).
===================================================================================

m = 1 µg, c = 1 N/m, d = 1e-6 N·s/m at 300 K: the damper's force noise 4kTd drives the
oscillator; its speed variance is kT/m and its displacement variance kT/c whatever d is
(equipartition): 0.064 nm and 2.04 µm/s rms here, with the displacement spectrum peaked at
the resonance √(c/m)/2π = 5.03 kHz.

Run: python examples/noise_mechanical.py (saves noise_mechanical.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.analysis.noise.sources import BOLTZMANN
from physlib.components.translational import Damper, Fixed, Mass, Spring

M, K, D, T = 1e-9, 1.0, 1e-6, 300.0      # kg, N/m, N·s/m, K


def build() -> Model:
    m = Model("brownian_oscillator")
    fixed, mass, spring, damper = Fixed("wall"), Mass("M", m=M), Spring("S", c=K), Damper("D", d=D)
    for part in (fixed, mass, spring, damper):
        m.add(part)
    m.connect(fixed.flange, spring.flange_a, damper.flange_a)
    m.connect(spring.flange_b, damper.flange_b, mass.flange_a)
    return m


def main(quick: bool = False, plot_path: str | None = "noise_mechanical.png"):
    sim = build().compile()
    f = np.geomspace(10.0, 1e6, 80 if quick else 600)
    position = sim.noise("S.s_rel", f, T=T)
    speed = sim.noise("M.v", T=T)
    print(f"displacement: {position.std * 1e9:.4f} nm rms (√(kT/c) = {np.sqrt(BOLTZMANN * T / K) * 1e9:.4f} nm)")
    print(f"speed: {speed.std * 1e6:.4f} µm/s rms (√(kT/m) = {np.sqrt(BOLTZMANN * T / M) * 1e6:.4f} µm/s)")
    if plot_path:
        fig = position.plot()
        fig.axes[0].axvline(np.sqrt(K / M) / (2 * np.pi), color="grey", lw=0.8, ls="--")
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return position


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
