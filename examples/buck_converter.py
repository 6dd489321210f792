"""A buck converter with the catalog's ideal Switch and IdealDiode at their defaults.
==================================================================================

48 V in, a 50 kHz PWM at duty 0.3 driving the switch, L = 47 µH, C = 220 µF, 2 Ω load. In
continuous conduction the output averages D·Vin = 14.4 V and the inductor current ripples
by (1 − D)·Vout/(L·f) peak to peak. Every PWM edge is a time event (the solver stops there,
the switch and the diode change modes together); the diode's turn-offs while the current is
still discontinuous during start-up are the only state events.

Run: python examples/buck_converter.py (30 ms, saves buck_converter.png).
"""
import sys
import time

import numpy as np

from physlib import Model
from physlib.components.electrical import (Capacitor, Ground, IdealDiode, Inductor, Resistor,
                                           Switch, VoltageSource)
from physlib.components.signals import PWM

VIN, DUTY, F_SW = 48.0, 0.3, 50e3        # V, 1, Hz
L, C, R_LOAD = 47e-6, 220e-6, 2.0        # H, F, Ohm


def build() -> Model:
    m = Model("buck")
    src = m.add(VoltageSource("Vin", V=VIN))
    switch = m.add(Switch("S1", control=PWM(f=F_SW, duty=DUTY)))
    diode = m.add(IdealDiode("D1"))
    choke, cap, load = m.add(Inductor("L1", L=L)), m.add(Capacitor("C1", C=C)), m.add(Resistor("Rload", R=R_LOAD))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m


def last_period(res, name):
    """(times, values) of ``name`` over the last switching period of ``res``."""
    keep = res.t >= res.t[-1] - 1 / F_SW
    return res.t[keep], res[name][keep]


def average(times, values) -> float:
    return float(np.trapezoid(values, times) / (times[-1] - times[0]))


def main(quick: bool = False, plot_path: str | None = "buck_converter.png"):
    t_end = 3e-3 if quick else 30e-3
    sim = build().compile()
    started = time.perf_counter()
    res = sim.simulate(t_end)
    elapsed = time.perf_counter() - started
    v_avg = average(*last_period(res, "C1.v"))
    _, current = last_period(res, "L1.i")
    ripple = np.ptp(current)
    causes = {cause: sum(e.cause == cause for e in res.events) for cause in ("time", "state")}
    print(f"{len(res.events)} events ({causes['time']} at PWM edges, {causes['state']} diode "
          f"turn-offs during start-up) in {elapsed:.2f} s: {len(res.events) / elapsed:.0f} events "
          "per second")
    print(f"average output over the last period: {v_avg:.4f} V (D·Vin = {DUTY * VIN:.4f} V)")
    print(f"inductor ripple: {ripple:.4f} A ((1 − D)·Vout/(L·f) = "
          f"{(1 - DUTY) * v_avg / (L * F_SW):.4f} A)")
    if plot_path:
        import matplotlib.pyplot as plt

        # Theory in continuous conduction: Vout = D·Vin, i_L = Vout/R ± ripple/2.
        i_mean, i_ripple = DUTY * VIN / R_LOAD, (1 - DUTY) * DUTY * VIN / (L * F_SW)
        fig, (whole, zoom) = plt.subplots(2, 1, figsize=(8, 6))
        whole.plot(res.t * 1e3, res["C1.v"], label="output C1.v [V]")
        whole.plot(res.t * 1e3, res["L1.i"], label="inductor L1.i [A]", lw=0.5)
        whole.axhline(DUTY * VIN, color="k", ls="--", lw=0.8, label="D·Vin")
        whole.set_xlabel("t [ms]")
        whole.legend()
        tail = res.t >= t_end - 3 / F_SW
        zoom.plot(res.t[tail] * 1e6, res["L1.i"][tail], label="L1.i [A]")
        for level in (i_mean - i_ripple / 2, i_mean + i_ripple / 2):
            zoom.axhline(level, color="k", ls="--", lw=0.8)
        zoom.plot([], [], color="k", ls="--", lw=0.8, label="Vout/R ± (1 − D)·Vout/(2·L·f)")
        zoom.plot(res.t[tail] * 1e6, res["S1.closed"][tail] * ripple + current.min(), lw=0.8,
                  label="S1 closed (scaled)")
        zoom.set_xlabel("t [µs]")
        zoom.legend(loc="lower left")
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
