"""MOSFET buck converter
=====================

A buck converter switched by a level-1 power MOSFET with a gate driver, its losses from the
energy books.

24 V in; an NMOS (VTO = 2.5 V, KP = 20 µA/V², W/L = 0.5 m/1 µm, RD = 20 mΩ, RS = 10 mΩ,
junction capacitances CBD = 200 pF, CBS = 100 pF, gate overlaps 0.5 nF gate–source and 50 pF
gate–drain) driven by a 12 V, 100 kHz, 50 % gate pulse with 20 ns edges from a driver floating
on the switch node, through a 10 Ω gate resistor; a freewheeling diode (IS = 1 nA, N = 1.2,
RS = 20 mΩ), 47 µH, 22 µF, 6 Ω. It is tests/data/spice/mosfet/buck.cir built from components
(GMIN = 1e-12 S as ngspice's): ngspice-39 averages 11.574 V over 0.8–1 ms on that deck, which
physlib matches within 0.5 % (tests/test_mosfet.py). The MOSFET is a smooth device: the run
has no modes, only the gate pulse's corners as time events.

Losses: each component declares the power it dissipates and the energy it stores, so over the
last switching period the energy the two sources deliver splits into the change of the
stored energy and each component's dissipated energy — the MOSFET's (channel, RD, RS, bulk
diodes: conduction and switching; the charging of its capacitances is stored, not lost), the
diode's, the gate resistor's and the load's; the books' residual is printed as a check (1.7e-5
of the delivered energy at the default tolerances with the trapezoidal rule on 0.5 ns rows;
tests/test_mosfet.py closes them within 1e-6, measured 1.1e-8, at rtol 1e-8 with refined rows).
Over the last of 1 ms the load takes 22.4 W at 11.60 V, the diode loses 0.66 W, the MOSFET
0.10 W (mostly at turn-off, where the drain voltage rises within 5 ns), the gate resistor 4 mW.

Run: python examples/mosfet_buck.py (1 ms, saves mosfet_buck.png).
"""
import sys
import time

import numpy as np

from physlib import Model
from physlib.components.electrical import (MOSFET, Capacitor, Diode, Ground, Inductor, Resistor,
                                           VoltageSource)
from physlib.components.signals import Trapezoid

VIN, F_SW, DUTY = 24.0, 100e3, 0.5           # V, Hz, 1
EDGE, V_GATE, R_GATE = 20e-9, 12.0, 10.0     # s, V, Ohm
L, C, R_LOAD = 47e-6, 22e-6, 6.0             # H, F, Ohm
SAMPLES = 20000                              # output rows in the booked period (0.5 ns apart)


def build() -> Model:
    m = Model("mosfet_buck")
    src = m.add(VoltageSource("Vin", V=VIN))
    period = 1 / F_SW
    driver = m.add(VoltageSource("Vdrv", V=Trapezoid(
        amplitude=V_GATE, rising=EDGE, falling=EDGE, width=DUTY * period - 2 * EDGE,
        period=period)))
    gate = m.add(Resistor("Rg", R=R_GATE))
    switch = m.add(MOSFET("M1", channel="N", VTO=2.5, KP=20e-6, LAMBDA=0.01, RD=20e-3, RS=10e-3,
                          CBD=200e-12, CBS=100e-12, CGSO=1e-9, CGDO=0.1e-9, IS=1e-12,
                          L=1e-6, W=0.5, GMIN=1e-12))
    diode = m.add(Diode("D1", IS=1e-9, N=1.2, RS=20e-3, GMIN=1e-12))
    choke, cap = m.add(Inductor("L1", L=L)), m.add(Capacitor("C1", C=C))
    load, gnd = m.add(Resistor("Rload", R=R_LOAD)), m.add(Ground("gnd"))
    m.connect(src.p, switch.d)
    m.connect(driver.p, gate.p)
    m.connect(gate.n, switch.g)
    m.connect(driver.n, switch.s, switch.b, diode.n, choke.p)     # the switch node
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m


def books(res, keep):
    """Energies [J] over the output rows ``keep`` (a mask of consecutive rows) of ``res``, by
    the trapezoidal rule: the sources' delivered energy, each component's dissipated energy,
    the change of the stored energy."""
    t = res.t[keep]
    delivered = (-res["Vin.v"] * res["Vin.i"] - res["Vdrv.v"] * res["Vdrv.i"])[keep]
    losses = {name: float(np.trapezoid(res.dissipated_power(name)[keep], t))
              for name in res.model.system.dissipation_owner}
    stored = res.stored_energy()[keep]
    return float(np.trapezoid(delivered, t)), losses, float(stored[-1] - stored[0])


def main(quick: bool = False, plot_path: str | None = "mosfet_buck.png"):
    t_end, samples = (0.1e-3, 2000) if quick else (1e-3, SAMPLES)
    period = 1 / F_SW
    sim = build().compile()
    # coarse rows up to the last period, then 0.5 ns apart for the books
    start = t_end - period
    t_eval = np.concatenate([np.linspace(0.0, start, 501)[:-1],
                             np.linspace(start, t_end, samples + 1)])
    started = time.perf_counter()
    res = sim.simulate(t_end, t_eval=t_eval)
    elapsed = time.perf_counter() - started
    last = res.t >= start
    t = res.t[last]
    delivered, losses, stored = books(res, last)
    v_out = float(np.trapezoid(res["C1.v"][last], t) / period)
    p_out = losses["Rload"] / period
    print(f"{t_end * 1e3:g} ms in {elapsed:.1f} s ({res.stats['steps']} steps, "
          f"{res.stats['events']['time']} time events)")
    print(f"last period: average output {v_out:.4f} V, input {delivered / period:.3f} W, "
          f"load {p_out:.3f} W, efficiency load/(load + losses) "
          f"{losses['Rload'] / sum(losses.values()) * 100:.2f} %")
    for name, energy in sorted(losses.items(), key=lambda item: -item[1]):
        if name != "Rload":
            print(f"  {name:6s} loses {energy / period * 1e3:9.3f} mW")
    residual = delivered - stored - sum(losses.values())
    print(f"books: delivered {delivered * 1e6:.4f} µJ = stored {stored * 1e6:+.4f} µJ + "
          f"dissipated {sum(losses.values()) * 1e6:.4f} µJ, residual {residual / delivered:.1e} "
          f"of the delivered energy (the trapezoidal rule on {period / samples * 1e9:g} ns rows)")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (whole, edge, bars) = plt.subplots(3, 1, figsize=(8, 9))
        whole.plot(res.t * 1e3, res["C1.v"], label="output C1.v [V]")
        whole.plot(res.t * 1e3, res["L1.i"], label="inductor L1.i [A]", lw=0.5)
        whole.set_xlabel("t [ms]")
        whole.legend()
        shown = (res.t >= start + DUTY * period - 0.05e-6) & (res.t <= start + DUTY * period + 0.05e-6)
        edge.plot((res.t[shown] - start) * 1e6, res["M1.d.v"][shown] - res["M1.s.v"][shown],
                  label="drain–source [V]")
        edge.plot((res.t[shown] - start) * 1e6, res["M1.g.v"][shown] - res["M1.s.v"][shown],
                  label="gate–source [V]")
        edge.plot((res.t[shown] - start) * 1e6, res.dissipated_power("M1")[shown],
                  label="M1 dissipation [W]")
        edge.set_xlabel("t in the last period [µs] (turn-off)")
        edge.legend()
        names = [name for name in losses if name != "Rload"]
        bars.bar(names, [losses[name] / period * 1e3 for name in names])
        bars.set_ylabel("loss over the last period [mW]")
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
