"""Noise along a transient: a diode circuit under a slow ramp, with its ±3σ noise envelope.
========================================================================================

A source ramps from 0 to 5 V over 20 ms into 10 kΩ and a diode with 1 µF across it. Before the
diode conducts, the capacitor sees the resistor's Johnson noise through the 10 ms RC; once it
conducts, the diode's shot noise 2qI takes over while its small-signal conductance shortens
the time constant to 65 µs. `simulate(..., noise=["C.v"])` propagates the covariance along the
run (the circuit linearized along its trajectory); a 200-run Euler–Maruyama ensemble checks it.

Run: python examples/noise_transient.py (saves noise_transient.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.analysis.noise.transient import simulate_stochastic
from physlib.components.electrical import Capacitor, Diode, Ground, Resistor, VoltageSource
from physlib.components.signals import Ramp


def build() -> Model:
    m = Model("diode_ramp")
    src, r, d, c, gnd = (VoltageSource("V", V=Ramp(height=5.0, duration=20e-3)), Resistor("R", R=1e4),
                         Diode("D1"), Capacitor("C", C=1e-6), Ground("g"))
    for part in (src, r, d, c, gnd):
        m.add(part)
    m.connect(src.p, r.p)
    m.connect(r.n, d.p, c.p)
    m.connect(d.n, c.n, src.n, gnd.p)
    return m


def main(quick: bool = False, plot_path: str | None = "noise_transient.png"):
    sim = build().compile()
    t_end = 20e-3
    res = sim.simulate(t_end, noise=["C.v"], rtol=1e-10, atol=1e-14)
    std = res.noise_std("C.v")
    print(f"σ(C.v): {std[res.t <= 5e-3][-1] * 1e9:.2f} nV at 5 ms (resistor noise), "
          f"{std[-1] * 1e9:.2f} nV at 20 ms (diode shot noise)")
    runs = 50 if quick else 200
    check = np.linspace(2e-3, t_end, 5)
    ensemble = simulate_stochastic(sim, t_end, dt=2e-6 if not quick else 1e-5, runs=runs, names=["C.v"],
                                   seed=1, t_eval=check)
    for tt, s, e in zip(check, np.interp(check, res.t, std), ensemble.std("C.v")):
        print(f"t = {tt * 1e3:5.1f} ms: propagated {s * 1e9:6.2f} nV, ensemble of {runs} {e * 1e9:6.2f} nV")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (ax_v, ax_s) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
        # The envelope is ±3σ around the noiseless trajectory, magnified 10⁵× to be visible.
        v = res["C.v"]
        ax_v.plot(res.t * 1e3, v, label="C.v [V]")
        ax_v.fill_between(res.t * 1e3, v - 3e5 * std, v + 3e5 * std, alpha=0.3, label="±3σ × 10⁵")
        ax_v.legend()
        ax_s.plot(res.t * 1e3, std * 1e9, label="σ propagated [nV]")
        ax_s.plot(check * 1e3, ensemble.std("C.v") * 1e9, "o", label=f"σ of {runs} runs [nV]")
        ax_s.set_xlabel("t [ms]")
        ax_s.legend()
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
