"""Noise of a diode biased through a resistor: operating point, contributions and their ranking.
=============================================================================================

5 V through 10 kΩ into a silicon diode (Is = 1e-14 A) with 10 nF across it. At the operating
point (0.634 V, 0.437 mA) the diode's shot noise 2qI and the resistor's Johnson noise 4kT/R
both flow into the node and see the same impedance 1/(g_d + 1/R + jωC). The shot-noise
density is 84 times the resistor's, so the diode makes 99 % of the variance: the summary
ranks the contributors, which no SPICE prints. The linear rest of the circuit, seen from the
diode's pins, is a noisy one-port whose noise needs no operating point (sim.portion_noise).

Run: python examples/noise_diode.py (saves noise_diode.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, VoltageSource


def build() -> Model:
    m = Model("diode_noise")
    src, r, d, c, gnd = (VoltageSource("V", V=5.0), Resistor("R", R=1e4), Diode("D1"),
                         Capacitor("C", C=1e-8), Ground("g"))
    for part in (src, r, d, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, d.p, c.p)
    m.connect(d.n, c.n, src.n, gnd.p)
    return m


def main(quick: bool = False, plot_path: str | None = "noise_diode.png"):
    sim = build().compile()
    op = sim.operating_point()
    print(f"operating point: diode {op['D1.v']:.4f} V, {op['D1.i'] * 1e3:.4f} mA")
    f = np.geomspace(10.0, 1e8, 60 if quick else 300)
    result = sim.noise("C.v", f, at=op)
    print(result.summary(10.0, 1e8))
    # The resistor, source and capacitor form the linear portion; seen from the diode's pins it
    # is a one-port (R ∥ C to ground) whose open-circuit noise 2kT·(Z + Zᴴ) = 4kT·R/(1 + (ωRC)²)
    # holds whatever the diode's operating point.
    portion, = sim.portion_noise([10.0, 1e3], T=300.15)
    print(f"linear portion {', '.join(portion.partition.components)} at {', '.join(portion.ports)}: "
          f"open-circuit noise {np.sqrt(portion.correlation('Z')[0, 0, 0].real) * 1e9:.3f} nV/√Hz at 10 Hz")
    if plot_path:
        fig = result.plot()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return result


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
