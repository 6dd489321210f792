"""Export physlib models as FMI 2.0 Model Exchange FMUs and run them in another tool (FMPy).
=========================================================================================

1. The DC motor with its supply voltage as an FMU input and the rotor speed as an output,
   driven by FMPy with a voltage profile (12 V, dropping to 6 V at 0.5 s).
2. The Modelica Standard Library's CoupledClutches: the clutches' stick/slip transitions and
   the projection of locked shafts run inside the FMU's C code; FMPy's CVODE finds the same
   events as physlib's own simulator.

The FMUs are self-contained (C from CasADi's code generator, no Python inside) and import into
Simulink, Dymola, OpenModelica/OMSimulator and FMPy. Needs a C compiler and FMPy
(pip install physlib[fmi]). Run: python examples/export_fmu.py (writes dc_motor.fmu,
CoupledClutches.fmu and export_fmu.png).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from coupled_clutches import build as coupled_clutches  # noqa: E402
from dc_motor import build as dc_motor  # noqa: E402


def main(quick: bool = False, plot_path: str | None = "export_fmu.png", folder: str = "."):
    import fmpy
    from fmpy.validation import validate_fmu

    folder = Path(plot_path).parent if plot_path else Path(folder)
    motor = dc_motor(supply=12.0).compile()          # a constant source: its value "src.V" is the input
    motor_fmu = motor.export_fmu(folder / "dc_motor", inputs=["src.V"], outputs=["rotor.w"])
    print(f"wrote {motor_fmu}; FMPy's validation: {validate_fmu(str(motor_fmu)) or 'no problems'}")
    t_end = 1.0
    profile = np.array([(0.0, 12.0), (0.5, 12.0), (0.5, 6.0), (t_end, 6.0)],
                       dtype=[("time", float), ("src.V", float)])
    driven = fmpy.simulate_fmu(str(motor_fmu), stop_time=t_end, input=profile, output=["rotor.w", "L1.i"],
                               relative_tolerance=1e-8)
    print(f"rotor speed at 0.5 s and {t_end:g} s: {np.interp(0.5, driven['time'], driven['rotor.w']):.4f}, "
          f"{driven['rotor.w'][-1]:.4f} rad/s")

    clutches = coupled_clutches().compile()
    t_clutch = 1.0 if quick else 1.5
    clutch_fmu = clutches.export_fmu(folder / "CoupledClutches", outputs=["J1.w"])
    speeds = [f"J{k}.w" for k in range(1, 5)]
    in_fmpy = fmpy.simulate_fmu(str(clutch_fmu), stop_time=t_clutch, relative_tolerance=1e-10,
                                output=speeds + ["clutch1.mode"], output_interval=t_clutch / 300)
    own = clutches.simulate(t_clutch, rtol=1e-10, atol=1e-12)
    print(f"CoupledClutches: physlib {len(own.events)} events; J1.w at {t_clutch:g} s: FMU "
          f"{in_fmpy['J1.w'][-1]:.8f}, physlib {own['J1.w'][-1]:.8f} rad/s")
    if plot_path:
        import matplotlib.pyplot as plt

        fig, (ax_motor, ax_clutch) = plt.subplots(2, 1, figsize=(8, 6))
        ax_motor.plot(driven["time"], driven["rotor.w"], label="rotor.w (FMU in FMPy)")
        ax_motor.set_ylabel("speed [rad/s]")
        for name in speeds:
            ax_clutch.plot(in_fmpy["time"], in_fmpy[name], label=f"{name} (FMU)")
            ax_clutch.plot(own.t, own[name], ":", color="k", lw=1)
        ax_clutch.set_ylabel("speed [rad/s] (dotted: physlib)")
        for ax in (ax_motor, ax_clutch):
            ax.set_xlabel("time [s]")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(plot_path, dpi=120)
        print(f"saved {plot_path}")
    return in_fmpy


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
