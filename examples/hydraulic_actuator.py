"""Hydraulic actuator
==================

A DC motor drives a pump that pushes oil through an orifice into a
cylinder; the piston moves a mass against a spring.

As the spring compresses, the pressure rises until the motor stalls at the torque its
current limit allows; the piston settles where the spring force equals pressure × area.
The mass overshoots, and while the spring pushes it back the ideal pump runs backwards as a
motor (there is no check valve).
Plots the piston position, the pressures on both sides of the orifice and the motor speed.

Run: python examples/hydraulic_actuator.py   (saves hydraulic_actuator.png)
"""
import sys

from physlib import Model
from physlib.components.electrical import EMF, Ground, Inductor, Resistor, VoltageSource
from physlib.components.hydraulic import Cylinder, FixedPressure, FluidCapacitance, Orifice, Pump
from physlib.components.rotational import Inertia
from physlib.components.signals import Step
from physlib.components.translational import Damper, Fixed, Mass, Spring

V, R, K = 24.0, 0.5, 0.05          # supply [V], winding [Ω], motor constant [N·m/A]
D, A = 1e-6, 5e-4                  # pump displacement [m³/rad], piston area [m²]
C_SPRING = 2e4                     # return spring [N/m]


def build() -> Model:
    m = Model("hydraulic_actuator")
    # Motor
    src = m.add(VoltageSource("src", V=Step(height=V, t0=0.0)))
    winding = m.add(Resistor("R1", R=R))
    coil = m.add(Inductor("L1", L=1e-3))
    emf = m.add(EMF("emf", k=K))
    gnd = m.add(Ground("gnd"))
    rotor = m.add(Inertia("rotor", J=5e-4))
    m.connect(src.p, winding.p)
    m.connect(winding.n, coil.p)
    m.connect(coil.n, emf.p)
    m.connect(emf.n, src.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    # Hydraulics: tank → pump → hose → orifice → cylinder chamber; return side to the tank.
    tank = m.add(FixedPressure("tank", p=0.0))
    pump = m.add(Pump("pump", D=D))
    hose = m.add(FluidCapacitance("hose", V=2e-4, beta=1.2e9))
    orifice = m.add(Orifice("orifice", A=3e-5, Cd=0.7, rho=870.0))
    chamber = m.add(FluidCapacitance("chamber", V=1e-4, beta=1.2e9))
    cylinder = m.add(Cylinder("cylinder", A=A))
    m.connect(rotor.flange_b, pump.flange)
    m.connect(tank.port_a, pump.port_a, cylinder.port_b)
    m.connect(pump.port_b, hose.port_a, orifice.port_a)
    m.connect(orifice.port_b, chamber.port_a, cylinder.port_a)
    # Load: the piston moves a 10 kg mass against a spring, with some viscous friction.
    load = m.add(Mass("load", m=10.0))
    spring = m.add(Spring("spring", c=C_SPRING))
    friction = m.add(Damper("friction", d=200.0))
    fixed = m.add(Fixed("fixed"))
    m.connect(cylinder.flange, load.flange_a)
    m.connect(load.flange_b, spring.flange_a, friction.flange_a)
    m.connect(spring.flange_b, friction.flange_b, fixed.flange)
    return m


def main(quick: bool = False, plot_path: str | None = "hydraulic_actuator.png"):
    sim = build().compile()
    res = sim.simulate(0.3 if quick else 1.0)
    print(sim.summary())
    p_stall = K * V / R / D                       # pump torque D·p = stall torque k·V/R
    print(f"piston at {res.t[-1]:g} s: {1e3 * res['load.s'][-1]:.2f} mm "
          f"(stall limit A·p_stall/c = {1e3 * A * p_stall / C_SPRING:.2f} mm); "
          f"chamber pressure {res['chamber.p'][-1] / 1e5:.2f} bar")
    if plot_path:
        fig = res.plot("load.s", "hose.p", "rotor.w")
        fig.axes[1].plot(res.t, res["chamber.p"], "--", label="chamber.p")
        fig.axes[1].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
