"""The Modelica Standard Library's CoupledClutches: a drive train with three stick-slip clutches.
==============================================================================================

A 10·sin(2π·5·t) N·m torque drives J1; clutches join J1–J2–J3–J4 (all J = 1 kg·m²). Clutch 1
is pressed with cos(0.4π·t) (released at 1.25 s), clutch 2 from 0.4 s, clutch 3 from 0.9 s.
Each clutch sticks when its slip speed reaches zero and breaks away when the torque it must
hold exceeds 1.1 times its sliding torque. Run: python examples/coupled_clutches.py
(prints the events, saves coupled_clutches.png with the MSL reference overlaid when found).
"""
import sys
from pathlib import Path

import numpy as np

from physlib import Model
from physlib.components.rotational import Clutch, Fixed, Inertia, Torque
from physlib.components.signals import Sine, Step

# The MSL reference result committed with the tests (tests/data/README.md); absent when this
# file is run outside a clone of the repository, and then the plot simply has no overlay.
REFERENCE = Path(__file__).resolve().parents[1] / "tests/data/msl/CoupledClutches/reference.csv"


def build() -> Model:
    m = Model("CoupledClutches")
    drive = m.add(Torque("torque", tau=Sine(amplitude=10.0, f=5.0), use_support=True))
    fixed = m.add(Fixed("fixed"))
    inertias = [m.add(Inertia(f"J{k}", J=1.0, w0=10.0 if k == 1 else 0.0)) for k in range(1, 5)]
    pressure = {1: Sine(amplitude=1.0, f=0.2, phase=np.pi / 2), 2: Step(t0=0.4), 3: Step(t0=0.9)}
    clutches = [m.add(Clutch(f"clutch{k}", mu=0.5, peak=1.1, cgeo=1.0, fn_max=20.0,
                             f_normalized=pressure[k])) for k in (1, 2, 3)]
    m.connect(drive.support, fixed.flange)
    m.connect(drive.flange, inertias[0].flange_a)
    for clutch, left, right in zip(clutches, inertias, inertias[1:]):
        m.connect(left.flange_b, clutch.flange_a)
        m.connect(clutch.flange_b, right.flange_a)
    return m


def main(quick: bool = False, plot_path: str | None = "coupled_clutches.png"):
    sim = build().compile()
    res = sim.simulate(1.0 if quick else 1.5, rtol=1e-8, atol=1e-10)
    for event in res.events:
        print(event)
    print(f"J1.w at the end: {res['J1.w'][-1]:.6f} rad/s")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (ax_w, ax_m) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
        ref = _reference()
        for k in range(1, 5):
            line, = ax_w.plot(res.t, res[f"J{k}.w"], label=f"J{k}.w")
            if ref is not None and k == 1:
                ax_w.plot(ref["time"], ref["J1.w"], "k:", lw=2, label="J1.w (MSL reference)")
        for k in (1, 2, 3):
            ax_m.step(res.t, res[f"clutch{k}.mode"] + 0.05 * k, where="post", label=f"clutch{k}.mode")
        ax_w.set_ylabel("speed [rad/s]")
        ax_m.set_ylabel("mode (−1 back, 0 stuck, 1 fwd, 2 free)")
        ax_m.set_xlabel("time [s]")
        for ax in (ax_w, ax_m):
            ax.grid(True, alpha=0.3)
            ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


def _reference():
    if not REFERENCE.exists():
        return None
    data = np.genfromtxt(REFERENCE, delimiter=",", names=True, deletechars="")
    return {name: data[name] for name in data.dtype.names}


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
