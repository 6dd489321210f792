"""Standalone C export: the program's run time against ``simulate(solver="trapezoidal")``.

Model: an N-stage RC ladder (stage k: R{k} = 1 kOhm from node k-1 to node k, C{k} = 1 uF from
node k to ground, a 1 V source), N = 1000 (``--quick``: 100), 1000 steps of dt = 10 us.
Printed per N:

* ``export``  ``sim.export_c(path)``: C generation and the program's build (gcc -O2) [s];
* ``C run``   the program, its CSV (every variable, every step) written to /dev/null [s];
* ``C steps`` the same program with its rows cut down to the time column (``steps_only``):
  the integration alone [s];
* ``simulate`` ``sim.simulate(t_end, solver="trapezoidal", dt=dt)`` (best of 2, warm) [s];
* ``ratio``   C run / simulate and C steps / simulate.

simulate computes the variables of its result lazily, on access; the program prints all of
them (13,000 columns for N = 1000), so ``C run`` is mostly number formatting and ``C steps``
is the comparison of like with like. Run: python benchmarks/bench_export_c.py [--quick]
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import machine, timed

T_END, DT = 1e-2, 1e-5


def ladder(n):
    from physlib import Model
    from physlib.components.electrical import Capacitor, Ground, Resistor, VoltageSource
    m = Model(f"ladder{n}")
    src, gnd = m.add(VoltageSource("V1", V=1.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(n):
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-6))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def run_time(program: Path) -> float:
    def run():
        with open(subprocess.os.devnull, "w") as sink:
            subprocess.run([str(program)], stdout=sink, check=True)
    return timed(run, repeat=2)[0]


def steps_only(folder: Path, program: Path) -> Path:
    """The exported program rebuilt with rows that hold the time only (no variables evaluated
    or printed): what is left is the integration."""
    main = (folder / "main.c").read_text()
    cuts = {"    call(physlib_values, 4, in, 1, out);\n": "    (void)in; (void)out;\n",
            "for (int i = 0; i < NV; i++) {": "for (int i = 0; i < 0; i++) {"}
    for old, new in cuts.items():
        assert old in main, f"main.c changed: update steps_only ({old.strip()!r})"
        main = main.replace(old, new)
    (folder / "main_steps.c").write_text(main)
    output = folder / f"{program.name}_steps"
    subprocess.run(["cc", "-O2", "-std=c99", str(folder / "main_steps.c"), str(folder / "model.c"),
                    "-o", str(output), "-lm"], check=True)
    return output


def measure(n: int) -> dict:
    sim = ladder(n).compile()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        program = sim.export_c(Path(tmp) / f"ladder{n}", t_end=T_END, dt=DT)
        export = time.perf_counter() - start
        c_run = run_time(program)
        c_steps = run_time(steps_only(program.parent, program))
    sim.simulate(T_END, solver="trapezoidal", dt=DT)          # warm: compiled functions cached
    python = timed(lambda: sim.simulate(T_END, solver="trapezoidal", dt=DT), repeat=2)[0]
    return {"n": n, "export": export, "c_run": c_run, "c_steps": c_steps, "simulate": python}


def main(quick: bool = False) -> None:
    print(machine())
    print(f"{'N':>6} {'export s':>9} {'C run s':>8} {'C steps s':>10} {'simulate s':>11} "
          f"{'run/sim':>8} {'steps/sim':>10}")
    for n in ([100] if quick else [100, 1000]):
        r = measure(n)
        print(f"{r['n']:>6} {r['export']:>9.2f} {r['c_run']:>8.3f} {r['c_steps']:>10.4f} "
              f"{r['simulate']:>11.3f} {r['c_run'] / r['simulate']:>8.3f} {r['c_steps'] / r['simulate']:>10.4f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
