"""A carrier-driven planetary gear whose clutch locks the ring to the sun, at a large fixed step.
==============================================================================================

The carrier is driven by a torque; the sun spins fast and the ring stands still. At 10.5 ms the
clutch between ring and sun is pressed hard enough to stick within one step of rk4 at
dt = 10 ms. The lock is detected only at the end of that step, where the state has overshot:
the slip speed has changed sign. Projection decides what happens to the angular momentum about
the common axis, L = Js·ws + Jc·wc + Jr·wr, which the internal clutch and gear torques cannot
change:

- projection="energy" (the state nearest in stored energy: a plastic lock) keeps it exactly
  and loses the plastic-lock energy;
- projection="naive" (keep one shaft's speed) creates momentum out of nothing;
- projection=None leaves the overshot, inconsistent state.

Run: python examples/planetary_clutch.py (prints the errors, saves planetary_clutch.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.components.rotational import Clutch, IdealPlanetary, Inertia, Torque
from physlib.components.signals import Step

J_SUN, J_CARRIER, J_RING, RATIO = 0.2, 1.0, 1.5, 3.0
W_SUN, W_RING = 40.0, 0.0
W_CARRIER = (W_SUN + RATIO * W_RING) / (1 + RATIO)      # consistent with the Willis relation


def build() -> Model:
    m = Model("planetary_clutch")
    gear = m.add(IdealPlanetary("gear", ratio=RATIO))
    sun = m.add(Inertia("sun", J=J_SUN, w0=W_SUN))
    carrier = m.add(Inertia("carrier", J=J_CARRIER, w0=W_CARRIER))
    ring = m.add(Inertia("ring", J=J_RING, w0=W_RING))
    drive = m.add(Torque("drive", tau=2.0))
    clutch = m.add(Clutch("clutch", mu=0.5, peak=1.1, fn_max=5e3, f_normalized=Step(t0=0.0105)))
    m.connect(gear.sun, sun.flange_a)
    m.connect(gear.carrier, carrier.flange_a)
    m.connect(gear.ring, ring.flange_a)
    m.connect(drive.flange, carrier.flange_b)
    m.connect(ring.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, sun.flange_b)
    return m


def momentum(res) -> np.ndarray:
    return J_SUN * res["sun.w"] + J_CARRIER * res["carrier.w"] + J_RING * res["ring.w"]


def lock_jump(res):
    """(momentum before, momentum after, kinetic energy before, after) at the lock event."""
    t_lock = next(e.t for e in res.events if e.after == {"mode": Clutch.STUCK})
    before, after = np.flatnonzero(res.t == t_lock)[:2]
    L, E = momentum(res), res.stored_energy()
    return L[before], L[after], E[before], E[after]


def main(quick: bool = False, plot_path: str | None = "planetary_clutch.png"):
    sim = build().compile()
    runs = {}
    for projection in ("energy", "naive", None):
        res = sim.simulate(0.05, solver="rk4", dt=0.01, projection=projection)
        L0, L1, E0, E1 = lock_jump(res)
        runs[projection] = res
        print(f"projection={projection!s:7} momentum error at the lock {L1 - L0:+.3e} N·m·s, "
              f"energy change {E1 - E0:+.3f} J, slip after lock {res['clutch.w_rel'][-1]:+.3e} rad/s")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for projection, res in runs.items():
            ax.plot(res.t, momentum(res), marker="o", label=f"projection={projection}")
        ax.set_xlabel("time [s]")
        ax.set_ylabel("angular momentum about the axis [N·m·s]")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return runs["energy"]


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
