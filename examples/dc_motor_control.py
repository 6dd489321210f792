"""Speed control of a DC motor: linearize, design with python-control, close the loop in physlib.
==============================================================================================

1. The plant (examples/dc_motor.py's motor: R = 1 Ω, L = 10 mH, k = 0.1 N·m/A, J = 0.01 kg·m²,
   b = 0.001 N·m·s/rad) is linearized from the source voltage to the winding current and the
   rotor speed: states L1.i and rotor.w.
2. State feedback with integral action, designed by pole placement with python-control: the
   plant augmented with ξ' = r − w, gains K = place(A_a, B_a, poles). Specification: settle
   within 1 % in 0.5 s after a 60 rad/s step. The poles −15 ± 5j, −60 give the linear loop a
   1 % settling time of 0.39 s, which leaves room for the time the 24 V supply limits the
   voltage at the start of the step.
3. The loop is closed in physlib around the physical motor with sensors and signal blocks:
   v = sat(−k_i·i − k_w·w − k_ξ·ξ) with the supply limited to ±24 V, and back-calculation
   anti-windup on ξ (ξ' = r − w − (v − v_cmd)/(k_ξ·T_t), inactive while the voltage is within
   its limits).
4. The closed loop is linearized again (its poles are the designed ones, plus two at 0 for the
   rotor angle and the damper's relative angle, which nothing feeds back) and simulated for a
   speed step of 0 → 60 rad/s at 0.1 s: the voltage sits at its 24 V limit for about 0.16 s, and
   the speed settles within 1 % by the specified 0.5 s.

Run: python examples/dc_motor_control.py (needs python-control: pip install control; saves
dc_motor_control.png).
"""
import sys

import numpy as np

from physlib import Model
from physlib.components.electrical import (EMF, CurrentSensor, Ground, Inductor, Resistor,
                                           VoltageSource)
from physlib.components.rotational import Damper, Fixed, Inertia, SpeedSensor
from physlib.components.signals import Add, Integrator, Limiter, Step

R, L, K, J, B = 1.0, 0.01, 0.1, 0.01, 0.001      # Ω, H, N·m/A, kg·m², N·m·s/rad
V_MAX = 24.0                                      # V, supply limit
POLES = [-15 + 5j, -15 - 5j, -60.0]               # designed closed-loop poles [1/s]
SETTLING = 0.5                                    # s, specified 1 % settling time
STEP_TIME, SPEED = 0.1, 60.0                      # s, rad/s
TRACKING = 0.02                                   # s, anti-windup tracking time constant


def motor(m: Model, source: VoltageSource):
    """The DC motor of examples/dc_motor.py, driven by ``source``; returns (current sensor, rotor)."""
    winding, coil, emf = m.add(Resistor("R1", R=R)), m.add(Inductor("L1", L=L)), m.add(EMF("emf", k=K))
    ammeter, gnd = m.add(CurrentSensor("ammeter")), m.add(Ground("gnd"))
    rotor, load, fixed = m.add(Inertia("rotor", J=J)), m.add(Damper("load", d=B)), m.add(Fixed("fixed"))
    m.connect(source.p, ammeter.p)
    m.connect(ammeter.n, winding.p)
    m.connect(winding.n, coil.p)
    m.connect(coil.n, emf.p)
    m.connect(emf.n, source.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    m.connect(rotor.flange_b, load.flange_a)
    m.connect(load.flange_b, fixed.flange)
    return ammeter, rotor


def plant() -> Model:
    m = Model("dc_motor")
    motor(m, m.add(VoltageSource("src", V=0.0)))
    return m


def design():
    """(K, A): state-feedback gains [k_i, k_w, k_ξ] placing the poles of the plant augmented
    with the integral of the speed error, and the plant's A for (L1.i, rotor.w)."""
    import control

    lin = plant().compile().linearize(["src.V"], ["L1.i", "rotor.w"])
    # The rotor angle is a state too (the damper's relative angle is minus it, not a state of
    # its own), but nothing depends on it (no spring): the speed loop is the (L1.i, rotor.w) block.
    keep = [lin.states.index("L1.i"), lin.states.index("rotor.w")]
    others = [k for k in range(len(lin.states)) if k not in keep]
    assert np.all(lin.A[np.ix_(keep, others)] == 0)
    A, Bu = lin.A[np.ix_(keep, keep)], lin.B[keep]
    w_row = np.array([[0.0, 1.0]])
    A_a = np.block([[A, np.zeros((2, 1))], [-w_row, np.zeros((1, 1))]])
    B_a = np.vstack([Bu, [[0.0]]])
    gains = np.asarray(control.place(A_a, B_a, POLES)).ravel()
    return gains, A


def closed_loop(gains, setpoint=None) -> Model:
    """The motor under v = sat(−K·[i, w, ξ]), ξ' = r − w − (v − v_cmd)/(k_ξ·T_t)."""
    k_i, k_w, k_xi = gains
    m = Model("dc_motor_control")
    source = m.add(VoltageSource("src"))
    ammeter, rotor = motor(m, source)
    speed = m.add(SpeedSensor("tacho"))
    r = m.add(setpoint if setpoint is not None else Step("r", height=SPEED, t0=STEP_TIME))
    # ξ' = r − w − (v − v_cmd)/(k_ξ·T_t)
    xi_rate = m.add(Add("xi_rate", k=[1.0, -1.0, -1.0 / (k_xi * TRACKING), 1.0 / (k_xi * TRACKING)]))
    xi = m.add(Integrator("xi"))
    command = m.add(Add("v_cmd", k=[-k_i, -k_w, -k_xi]))
    limit = m.add(Limiter("v_limit", u_max=V_MAX, u_min=-V_MAX))
    m.connect(rotor.flange_b, speed.flange)
    m.connect(r.y, xi_rate.u1)
    m.connect(speed.w, xi_rate.u2, command.u2)
    m.connect(ammeter.i, command.u1)
    m.connect(xi.y, command.u3)
    m.connect(command.y, limit.u, xi_rate.u4)
    m.connect(limit.y, source.V, xi_rate.u3)
    m.connect(xi_rate.y, xi.u)
    return m


def main(quick: bool = False, plot_path: str | None = "dc_motor_control.png"):
    gains, lin = design()
    print(f"plant poles {np.round(np.linalg.eigvals(lin), 4)}; gains k_i, k_w, k_xi = {np.round(gains, 5)}")
    sim = closed_loop(gains).compile()
    # Closed-loop poles from the setpoint's value, at the steady state before the step (r = 0).
    loop = sim.linearize(["r.offset"], ["rotor.w"])
    print(f"closed-loop poles {np.sort_complex(np.round(loop.poles(), 6))} (designed {POLES})")
    t_end = STEP_TIME + (1.5 if not quick else 1.2) * SETTLING
    res = sim.simulate(t_end, rtol=1e-8, atol=1e-10)
    w, v = res["rotor.w"], res["src.v"]
    settled = res.t >= STEP_TIME + SETTLING
    error = np.max(np.abs(w[settled] - SPEED)) / SPEED
    print(f"after {SETTLING:.2f} s the speed stays within {error * 100:.3f} % of {SPEED:g} rad/s; "
          f"voltage between {v.min():.2f} and {v.max():.2f} V (limit ±{V_MAX:g} V)")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (ax_w, ax_v) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
        ax_w.plot(res.t, w, label="rotor.w [rad/s]")
        ax_w.plot(res.t, res["r.y"], "k--", lw=0.8, label="setpoint")
        ax_w.axvline(STEP_TIME + SETTLING, color="grey", lw=0.8, label="specified settling time")
        after = res.t >= STEP_TIME
        ax_w.fill_between(res.t[after], 0.99 * SPEED, 1.01 * SPEED, color="grey", alpha=0.2, label="±1 %")
        ax_w.legend()
        ax_v.plot(res.t, v, label="motor voltage [V]")
        ax_v.axhline(V_MAX, color="r", ls="--", lw=0.8, label="supply limit")
        ax_v.set_xlabel("t [s]")
        ax_v.legend()
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
