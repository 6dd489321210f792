"""Clutch lock-up time over a grid of normal force and driven inertia (a parameter sweep).
=======================================================================================

An engine (constant tau = 20 N·m on J1 = 0.2 kg·m², turning at w0 = 200 rad/s) is clutched at
t0 = 0.1 s to a driven inertia J2 at rest. While the clutch slips it transmits T = mu·cgeo·fn
(mu = 0.3, cgeo = 0.15 m, fn the normal force [N]), so the slip speed, w0 + tau·t0/J1 at
engagement, falls at the constant rate T·(1/J1 + 1/J2) − tau/J1 and the clutch locks

    t_lock = (w0 + tau·t0/J1) / (T·(1/J1 + 1/J2) − tau/J1)      after engagement [s],

with J2 then turning at w_lock = T·t_lock/J2 [rad/s]. The sweep simulates every (fn, J2) pair of
the grid and takes the lock-up time and speed from the clutch's lock event; both are compared
with the formulas. Where the clutch cannot overcome the engine, or does not lock within the
4 s simulated, the lock-up time is NaN.

Run: python examples/clutch_sweep.py (90 runs on local processes, saves clutch_sweep.png).
"""
import sys

import numpy as np

import physlib
from physlib import Model
from physlib.components.rotational import Clutch, Inertia, Torque
from physlib.components.signals import Step

TAU, J1, W0, T0 = 20.0, 0.2, 200.0, 0.1     # engine torque [N·m], inertia [kg·m²], speed [rad/s], engagement [s]
MU, CGEO, T_END = 0.3, 0.15, 4.0


def build() -> Model:
    m = Model("clutch_launch")
    engine = m.add(Torque("engine", tau=TAU))
    j1 = m.add(Inertia("J1", J=J1, w0=W0))
    clutch = m.add(Clutch("clutch", mu=MU, peak=1.1, cgeo=CGEO, fn_max=1000.0, f_normalized=Step(t0=T0)))
    j2 = m.add(Inertia("J2", J=2.0, w0=0.0))
    m.connect(engine.flange, j1.flange_a)
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    return m


def lockup(res) -> dict:
    """Lock-up time [s] after engagement and J2's speed [rad/s] at that instant (NaN if the
    clutch did not lock), from the clutch's first change to mode 0 (stuck)."""
    locks = [e.t for e in res.events if e.component == "clutch" and e.after["mode"] == 0]
    if not locks:
        return {"lockup_time": float("nan"), "lock_speed": float("nan")}
    row = int(np.searchsorted(res.t, locks[0]))          # the row just before the lock
    return {"lockup_time": locks[0] - T0, "lock_speed": res["J2.w"][row]}


def closed_form(fn, j2):
    """(lock-up time [s], lock speed [rad/s]) from the formulas in the module docstring."""
    torque = MU * CGEO * np.asarray(fn)
    rate = torque * (1 / J1 + 1 / np.asarray(j2)) - TAU / J1
    t_lock = (W0 + TAU * T0 / J1) / np.where(rate > 0, rate, np.nan)
    t_lock = np.where(t_lock < T_END - T0, t_lock, np.nan)
    return t_lock, torque * t_lock / j2


def main(quick: bool = False, plot_path: str | None = "clutch_sweep.png"):
    sim = build().compile()
    forces = np.linspace(600.0, 2000.0, 3 if quick else 15).tolist()       # N
    inertias = [0.5, 2.0, 5.0] if quick else [0.5, 1.0, 2.0, 3.0, 4.0, 5.0]     # kg·m²
    table = physlib.sweep(sim, {"clutch.fn_max": forces, "J2.J": inertias}, summary=lockup,
                          executor="serial" if quick else "processes", t_end=T_END, rtol=1e-8, atol=1e-10)
    t_formula, w_formula = closed_form(table["clutch.fn_max"], table["J2.J"])
    t_sim, w_sim = table["lockup_time"], table["lock_speed"]
    print(f"{len(table)} runs ({table.timing['executor']}, {table.timing['wall']:.1f} s), {len(table.failed)} failed; "
          f"{np.count_nonzero(np.isnan(t_sim))} did not lock within {T_END - T0:g} s")
    print(f"against the formulas: lock-up time within {np.nanmax(np.abs(t_sim - t_formula)):.1e} s, "
          f"lock speed within {np.nanmax(np.abs(w_sim - w_formula)):.1e} rad/s")
    assert np.array_equal(np.isnan(t_sim), np.isnan(t_formula))
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (ax_t, ax_w) = plt.subplots(1, 2, figsize=(10, 4))
        for j2 in inertias:
            rows = table["J2.J"] == j2
            ax_t.plot(forces, t_sim[rows], "o-", label=f"J2 = {j2:g} kg·m²")
            ax_w.plot(forces, w_sim[rows], "o-", label=f"J2 = {j2:g} kg·m²")
        ax_t.set_ylabel("lock-up time after engagement [s]")
        ax_w.set_ylabel("speed at lock-up [rad/s]")
        for ax in (ax_t, ax_w):
            ax.set_xlabel("clutch normal force fn_max [N]")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
    return table


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
