"""A switch closing at 1 ms connects a 5 V source to an RC and an RL branch (ngspice case).
========================================================================================

The control ramps through the 0.5 V threshold at exactly 1 ms; the switch event is located
there and both branches start charging: v(out) = 5·(1 − e^(−(t−1 ms)/τ)) with τ = (R1+Ron)·C1,
and the inductor current rises with τ = L2/(R2+Ron). Run: python examples/switch_rc.py
(saves switch_rc.png).
"""
import sys

from physlib import Model
from physlib.components.electrical import (Capacitor, Ground, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import Table

RON, GOFF = 1e-3, 1e-9      # the ngspice switch model: RON = 1 mΩ, ROFF = 1 GΩ


def build() -> Model:
    m = Model("switch_rc")
    src = m.add(VoltageSource("Vsrc", V=5.0))
    control = Table(points=[(0.0, 0.0), (0.9999e-3, 0.0), (1.0001e-3, 1.0), (10e-3, 1.0)])
    s1 = m.add(Switch("S1", Ron=RON, Goff=GOFF, control=control))
    s2 = m.add(Switch("S2", Ron=RON, Goff=GOFF, control=control))
    r1, c1 = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6))
    r2, l2 = m.add(Resistor("R2", R=10.0)), m.add(Inductor("L2", L=10e-3))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, s1.p, s2.p)
    m.connect(s1.n, r1.p)
    m.connect(r1.n, c1.p)
    m.connect(s2.n, r2.p)
    m.connect(r2.n, l2.p)
    m.connect(src.n, c1.n, l2.n, gnd.p)
    return m


def main(quick: bool = False, plot_path: str | None = "switch_rc.png"):
    res = build().compile().simulate(6e-3, rtol=1e-9, atol=1e-12)
    for event in res.events:
        print(event)
    print(f"v(out) at 2 ms: {res.at(2e-3)['C1.v']:.6f} V (ngspice 3.160603 V)")
    if plot_path:
        fig = res.plot("C1.v", "L2.i", "S1.closed")
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
