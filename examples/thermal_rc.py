"""Thermal RC network
==================

A 100 W heater in a component block, conducting to a case that loses
heat to the air by convection and radiation.

Plots the block and case temperatures and the heat flows leaving the case.

Run: python examples/thermal_rc.py   (saves thermal_rc.png)
"""
import sys

from physlib import Model
from physlib.components.signals import Step
from physlib.components.thermal import (BodyRadiation, Convection, FixedTemperature,
                                        HeatCapacitor, HeatFlowSensor, HeatFlowSource,
                                        ThermalConductor)

T_AIR = 293.15


def build() -> Model:
    m = Model("thermal_rc")
    heater = m.add(HeatFlowSource("heater", Q=Step(height=100.0, t0=60.0)))   # 100 W from 1 min
    block = m.add(HeatCapacitor("block", C=450.0, T0=T_AIR))        # ~1 kg of steel
    mount = m.add(ThermalConductor("mount", G=5.0))                  # block → case
    case = m.add(HeatCapacitor("case", C=1800.0, T0=T_AIR))          # ~2 kg of aluminium
    convection_meter = m.add(HeatFlowSensor("convection_meter"))
    air = m.add(Convection("air", Gc=2.0))                           # h·A = 10 W/(m²K) × 0.2 m²
    radiation = m.add(BodyRadiation("radiation", Gr=0.18))           # ε·A = 0.9 × 0.2 m²
    room = m.add(FixedTemperature("room", T=T_AIR))
    m.connect(heater.port, block.port, mount.port_a)
    m.connect(mount.port_b, case.port, convection_meter.port_a, radiation.port_a)
    m.connect(convection_meter.port_b, air.port_a)
    m.connect(air.port_b, radiation.port_b, room.port)
    return m


def main(quick: bool = False, plot_path: str | None = "thermal_rc.png"):
    sim = build().compile()
    res = sim.simulate(1800.0 if quick else 7200.0)
    print(sim.summary())
    print(f"after {res.t[-1] / 60:.0f} min: block {res['block.T'][-1] - 273.15:.1f} °C, "
          f"case {res['case.T'][-1] - 273.15:.1f} °C; case loses "
          f"{res['convection_meter.Q'][-1]:.1f} W by convection and {res['radiation.Q'][-1]:.1f} W "
          "by radiation")
    if plot_path:
        fig = res.plot("block.T", "convection_meter.Q")
        fig.axes[0].plot(res.t, res["case.T"], "--", label="case.T")
        fig.axes[0].legend()
        fig.axes[1].plot(res.t, res["radiation.Q"], "--", label="radiation.Q")
        fig.axes[1].legend()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return res


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
