"""Drivetrain: a DC motor drives a load through a 5:1 gear and an elastic shaft.
=============================================================================

The gear sits between the motor rotor and the shaft; the shaft's compliance makes the load
oscillate against the rotor after the voltage step, until the shaft damping settles it.
Plots the motor and load speeds (the motor's divided by the ratio) and the shaft torque.

Run: python examples/drivetrain.py   (saves drivetrain.png)
"""
import sys

from physlib import Model
from physlib.components.electrical import EMF, Ground, Inductor, Resistor, VoltageSource
from physlib.components.rotational import (Damper, Fixed, IdealGear, Inertia, SpeedSensor,
                                           SpringDamper, TorqueSensor)
from physlib.components.signals import Step

RATIO = 5.0


def build() -> Model:
    m = Model("drivetrain")
    src = m.add(VoltageSource("src", V=Step(height=24.0, t0=0.05)))
    winding = m.add(Resistor("R1", R=0.5))
    coil = m.add(Inductor("L1", L=2e-3))
    emf = m.add(EMF("emf", k=0.05))
    gnd = m.add(Ground("gnd"))
    rotor = m.add(Inertia("rotor", J=2e-4))
    gear = m.add(IdealGear("gear", ratio=RATIO))
    sensor = m.add(TorqueSensor("shaft_torque"))
    shaft = m.add(SpringDamper("shaft", c=50.0, d=0.02))
    load = m.add(Inertia("load", J=0.02))
    friction = m.add(Damper("friction", d=5e-3))
    fixed = m.add(Fixed("fixed"))
    tacho = m.add(SpeedSensor("tacho"))
    m.connect(src.p, winding.p)
    m.connect(winding.n, coil.p)
    m.connect(coil.n, emf.p)
    m.connect(emf.n, src.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    m.connect(rotor.flange_b, gear.flange_a)
    m.connect(gear.flange_b, sensor.flange_a)
    m.connect(sensor.flange_b, shaft.flange_a)
    m.connect(shaft.flange_b, load.flange_a)
    m.connect(load.flange_b, friction.flange_a, tacho.flange)
    m.connect(friction.flange_b, fixed.flange)
    return m


def main(quick: bool = False, plot_path: str | None = "drivetrain.png"):
    sim = build().compile()
    res = sim.simulate(0.5 if quick else 2.0, rtol=1e-8, atol=1e-10)
    print(sim.summary())
    print(f"load speed at {res.t[-1]:g} s: {res['tacho.w'][-1]:.3f} rad/s, "
          f"motor speed / ratio: {res['rotor.w'][-1] / RATIO:.3f} rad/s, "
          f"shaft torque {res['shaft_torque.tau'][-1]:.4f} N·m")
    if plot_path:
        fig = res.plot("tacho.w", "shaft_torque.tau", "L1.i")
        fig.axes[0].plot(res.t, res["rotor.w"] / RATIO, "--", label="rotor.w / ratio")
        fig.axes[0].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
