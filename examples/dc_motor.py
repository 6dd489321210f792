"""DC motor
========

A 12 V step into winding resistance, inductance and EMF, driving a rotor with a
viscous load. Plots speed and current.

Run: python examples/dc_motor.py   (saves dc_motor.png and prints the final speed)
"""
import sys

from physlib import Model
from physlib.components.electrical import EMF, Ground, Inductor, Resistor, VoltageSource
from physlib.components.rotational import Damper, Fixed, Inertia
from physlib.components.signals import Step

R, L, K, J, B, V = 1.0, 0.01, 0.1, 0.01, 0.001, 12.0


def build(supply=None) -> Model:
    """The motor fed by ``supply`` (a waveform or a number [V]; default: a 12 V step at 0 s)."""
    m = Model("dc_motor")
    src = m.add(VoltageSource("src", V=Step(height=V, t0=0.0) if supply is None else supply))
    winding = m.add(Resistor("R1", R=R))           # 1 Ω
    coil = m.add(Inductor("L1", L=L))              # 10 mH
    emf = m.add(EMF("emf", k=K))                   # 0.1 N·m/A = 0.1 V·s/rad
    gnd = m.add(Ground("gnd"))
    rotor = m.add(Inertia("rotor", J=J))           # 0.01 kg·m²
    load = m.add(Damper("load", d=B))              # 0.001 N·m·s/rad
    fixed = m.add(Fixed("fixed"))
    m.connect(src.p, winding.p)
    m.connect(winding.n, coil.p)
    m.connect(coil.n, emf.p)
    m.connect(emf.n, src.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    m.connect(rotor.flange_b, load.flange_a)
    m.connect(load.flange_b, fixed.flange)
    return m


def main(quick: bool = False, plot_path: str | None = "dc_motor.png"):
    sim = build().compile()
    res = sim.simulate(1.0 if quick else 5.0)
    print(sim.summary())
    w_final = V * K / (K**2 + R * B)
    print(f"rotor speed at {res.t[-1]:g} s: {res['rotor.w'][-1]:.3f} rad/s "
          f"(steady state V·k/(k² + R·b) = {w_final:.3f} rad/s); peak current {res['L1.i'].max():.2f} A")
    if plot_path:
        fig = res.plot("rotor.w", "L1.i")
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
