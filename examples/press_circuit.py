"""Hydraulic press
===============

A pump at constant speed charges an accumulator through a supply pipe; a
relief valve caps the supply pressure; a 4/3 spool valve sends the oil to a double-acting
cylinder that pushes a 200 kg platen against a 10 kN load down its stroke into the end stop,
holds, and retracts; the return oil leaves through a meter-out throttle to the tank.

From rest and empty, the pump first fills the lines and the accumulator (the spool centred,
closed); the spool then opens and the platen extends, fed by the pump and the accumulator, into
the end stop, where the pump goes on charging the accumulator. Retracting, the load pushes the
rod in and the meter-out throttle holds it back; once the supply reaches the cracking pressure,
the relief valve spills the pump's flow to the tank. The energy books close: the work of the
pump's drive and of the load equals the energy stored (oil compression, accumulator gas,
platen motion, the end stop's spring) plus the energy dissipated (valves, pipe friction,
leakage, friction, throttle), to 1.1e-7 over the whole run.
Plots the rod position, the supply and chamber pressures and the relief-valve flow.

Run: python examples/press_circuit.py   (saves press_circuit.png)
"""
import sys

import numpy as np
import sympy
from scipy.integrate import simpson

from physlib import Model
from physlib.constants import Constant
from physlib.components.hydraulic import (Accumulator, DoubleActingCylinder, FixedPressure,
                                          FluidCapacitance, Pipe, ReliefValve, SpoolValve,
                                          VariableDisplacementPump, VariableOrifice)
from physlib.components.rotational import Speed
from physlib.components.signals import Expression, t
from physlib.components.translational import Force, Mass

W_PUMP, D_PUMP = 150.0, 2e-6            # pump speed [rad/s], displacement [m³/rad]: 3e-4 m³/s
A_PISTON, A_ANNULUS = 2e-3, 1e-3        # cylinder areas [m²]
P_CRACK, P_RANGE = 150e5, 10e5          # relief valve: cracks at 150 bar, open at 160 bar
X_MAX = 1e-3                            # spool travel to full opening [m]
F_LOAD = 1e4                           # load on the platen, against extension [N]
T_EXTEND, T_RETRACT, T_SHIFT = 0.075, 0.825, 0.005   # spool moves [s] and their time scale [s]
T_END = 1.2


def spool_command():
    """The spool's position [m]: centred, then +x_max (extend) from about T_EXTEND, then −x_max
    (retract) from about T_RETRACT, each move a smooth tanh step over a few T_SHIFT, as a
    proportional valve's spool moves (and with no corner for the solver to stop at)."""
    def step(at):
        return (1 + sympy.tanh((t - at) / Constant(T_SHIFT, "s"))) / 2     # tanh of a pure number
    return Expression(X_MAX * (step(T_EXTEND) - 2 * step(T_RETRACT)))


def build() -> Model:
    m = Model("press_circuit")
    tank = m.add(FixedPressure("tank", p=0.0))
    motor = m.add(Speed("motor", w=W_PUMP))
    pump = m.add(VariableDisplacementPump("pump", D=D_PUMP, G_leak=1e-12, d=2e-3))
    outlet = m.add(FluidCapacitance("outlet", V=2e-5, beta=1.5e9))
    line = m.add(Pipe("line", L=2.0, diameter=0.012, N=3))
    # Starts empty at p = 0: the liquid volume where the empty chamber's wall balances p_pre.
    accumulator = m.add(Accumulator("accumulator", V_gas=2.5e-4, p_pre=40e5, n=1.4,
                                    k_empty=1e15, V_f0=-40e5 / 1e15))
    relief = m.add(ReliefValve("relief", p_crack=P_CRACK, p_range=P_RANGE, A_max=2e-5))
    valve = m.add(SpoolValve("valve", x=spool_command(), A_max=4e-5, x_max=X_MAX,
                             overlap=1e-4))
    cylinder = m.add(DoubleActingCylinder("cylinder", A_a=A_PISTON, A_b=A_ANNULUS, stroke=0.05,
                                          G_leak=1e-13, d=2e3, F_c=200.0, v_th=1e-3))
    platen = m.add(Mass("platen", m=200.0))
    load = m.add(Force("load", f=-F_LOAD))
    throttle = m.add(VariableOrifice("throttle", A=3e-6))
    m.connect(motor.flange, pump.flange)
    m.connect(tank.port_a, pump.port_a, relief.port_b, throttle.port_b)
    m.connect(pump.port_b, outlet.port_a, line.port_a)
    m.connect(line.port_b, accumulator.port_a, relief.port_a, valve.port_P)
    m.connect(valve.port_A, cylinder.port_a)
    m.connect(valve.port_B, cylinder.port_b)
    m.connect(valve.port_T, throttle.port_a)
    m.connect(cylinder.flange, platen.flange_a)
    m.connect(platen.flange_b, load.flange)
    return m


def energy_books(res):
    """(work delivered by the pump's drive and the load [J], energy stored + dissipated [J])
    over the run: ∫ (shaft power + load power) dt against ΔE_stored + ∫ dissipated power dt,
    by Simpson's rule on the output grid (an odd number of equally spaced points)."""
    power = res["pump.flange.tau"] * res["pump.flange.w"] - res["load.flange.f"] * res["platen.v"]
    stored = res.stored_energy()
    return simpson(power, x=res.t), stored[-1] - stored[0] + simpson(res.dissipated_power(), x=res.t)


def main(quick: bool = False, plot_path: str | None = "press_circuit.png"):
    sim = build().compile()
    # Output every 50 µs: the books' quadrature resolves the valves' and the stops' transients
    # (the solver's own error at rtol 1e-8 is far below). atol is for the smallest states, the
    # flows (~1e-4 m³/s); far smaller, the rates of the stiff chambers' pressures cannot meet
    # it in rounding. At rtol 1e-9 they cannot either once the retracting rod has nearly
    # emptied chamber a (β/V grows as V shrinks): idas's corrector stalls at 1.105 s.
    t_end = 0.2 if quick else T_END
    res = sim.simulate(t_end, t_eval=np.linspace(0.0, t_end, round(t_end / 5e-5) + 1),
                       rtol=1e-8, atol=1e-8)
    delivered, booked = energy_books(res)
    print(sim.summary())
    print(f"rod at {res.t[-1]:g} s: {1e3 * res['cylinder.s'][-1]:.1f} mm; supply "
          f"{res['accumulator.p'][-1] / 1e5:.1f} bar; relief flow {1e3 * res['relief.q'][-1]:.3f} l/s")
    print(f"energy delivered {delivered:.3f} J, stored + dissipated {booked:.3f} J "
          f"(difference {abs(delivered - booked) / abs(delivered):.1e} of it)")
    if plot_path:
        fig = res.plot("cylinder.s", "accumulator.p", "relief.q")
        fig.axes[1].plot(res.t, res["cylinder.p_a"], "--", label="cylinder.p_a")
        fig.axes[1].plot(res.t, res["cylinder.p_b"], ":", label="cylinder.p_b")
        fig.axes[1].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
