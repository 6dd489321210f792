"""RC circuit charged by a 1 V step: the quickstart example.
=========================================================

Run: python examples/rc_circuit.py   (saves rc_circuit.png and prints the final voltage)
"""
import sys

import numpy as np

from physlib import Model
from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
from physlib.components.signals import Step


def build() -> Model:
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=0.0)))
    r = m.add(Resistor("R1", R=1e3))          # 1 kΩ
    c = m.add(Capacitor("C1", C=1e-6))        # 1 µF, τ = RC = 1 ms
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def main(quick: bool = False, plot_path: str | None = "rc_circuit.png"):
    sim = build().compile()
    res = sim.simulate(5e-3)
    res_slow = sim.simulate(5e-3, params={"R1.R": 2e3})     # no recompile
    print(sim.summary())
    print(f"C1.v at 5 ms: {res['C1.v'][-1]:.6f} V (R = 1 kΩ), {res_slow['C1.v'][-1]:.6f} V (R = 2 kΩ); "
          f"closed form {1 - np.exp(-5):.6f} V")
    if plot_path:
        fig = res.plot("C1.v", "R1.i")
        fig.axes[0].plot(res_slow.t, res_slow["C1.v"], "--", label="C1.v, R1 = 2 kΩ")
        fig.axes[0].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
