"""How the cost of a nonlinear circuit without states between its elements grows with its size.

The model: a 5 V source feeding N stages, stage k a 1 kOhm resistor ``R{k}`` from node k-1 to
node k and a diode ``D{k}`` (SPICE level 1, Is = 1e-14 A) from node k to ground, in two forms:

* ``dc``   -- the diodes without junction capacitance: a purely algebraic model, one nonlinear
  loop through every stage. Timed: ``compile`` and the first ``operating_point()``.
* ``tran`` -- the diodes with CJO = 1 pF: each junction's charge is a state, the node voltages
  and currents algebraic. Timed: ``compile``, ``operating_point()`` and a 10 ns transient on the
  default output grid (every output row's algebraic variables are solved by Newton's method).

N doubles from row to row; ``growth`` is each time's ratio to the previous N's. A cost that
grows as the model does shows ~2x per doubling; the defects this benchmark was written for grew
as N^2 and N^3: torn explicit solutions made the dc model's Jacobian dense (a 1,100-stage
operating point took 37 s; physlib.assembly.loop_tearing.WIDE_COUPLING), and CasADi's sparse
LU ("csparse") filled in on the tran model's algebraic system (25 s for the transient at 400
stages; physlib.analysis.common.initialization.compiled_newton now uses its sparse QR).
Target: growth <= 2.5x per doubling for every timed step at N >= 200 (printed as PASS/FAIL;
the script exits 1 only if a case crashed). Each figure is the best of 3 runs (1 with
``--quick``), every run a freshly built and compiled model in this process.

    python benchmarks/bench_nonlinear_chain.py           # N = 100 .. 800
    python benchmarks/bench_nonlinear_chain.py --quick   # N = 25, 50 (the test suite)
"""
from __future__ import annotations

import argparse
import sys
import time

from benchlib import machine

SIZES, QUICK_SIZES = [100, 200, 400, 800], [25, 50]
GROWTH_TARGET = 2.5


def diode_ladder(stages: int, cjo: float):
    from physlib import Model
    from physlib.components.electrical import Diode, Ground, Resistor, VoltageSource

    m = Model(f"diode_ladder_{stages}")
    src, gnd = m.add(VoltageSource("V1", V=5.0)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, stages + 1):
        r, d = m.add(Resistor(f"R{k}", R=1e3)), m.add(Diode(f"D{k}", CJO=cjo))
        m.connect(node, r.p)
        m.connect(r.n, d.p)
        m.connect(d.n, gnd.p)
        node = r.n
    return m


def measure(form: str, stages: int, repeat: int) -> dict:
    best: dict = {}
    for _ in range(repeat):
        row = {}
        started = time.perf_counter()
        sim = diode_ladder(stages, 1e-12 if form == "tran" else 0.0).compile()
        row["compile"] = time.perf_counter() - started
        started = time.perf_counter()
        op = sim.operating_point()
        row["op"] = time.perf_counter() - started
        if form == "tran":
            started = time.perf_counter()
            sim.simulate(1e-8)
            row["tran"] = time.perf_counter() - started
        row["v1"] = float(op["D1.v"])        # the DC solution: the same in both forms
        row["unknowns"] = len(sim.system.z_pos) + len(sim.system.state_pos)
        best = {k: min(v, best[k]) if k in best and k not in ("v1", "unknowns") else v for k, v in row.items()}
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 25, 50 and one run each")
    args = parser.parse_args(argv)
    sizes, repeat = (QUICK_SIZES, 1) if args.quick else (SIZES, 3)
    print("bench_nonlinear_chain" + (" (quick)" if args.quick else ""))
    print(machine())
    measure("tran", 4, 1)                       # imports and the classes' templates, untimed
    failed, verdicts = 0, []
    for form, steps in (("dc", ("compile", "op")), ("tran", ("compile", "op", "tran"))):
        print(f"\n== {form}: N stages of 1 kOhm and a diode" + (" (CJO = 1 pF)" if form == "tran" else ""))
        print(f"{'N':>5} {'unknowns':>8} " + " ".join(f"{s + '_s':>10} {'growth':>7}" for s in steps) + "    D1.v at the operating point [V]")
        previous = None
        for n in sizes:
            try:
                row = measure(form, n, repeat)
            except Exception as err:         # noqa: BLE001 -- a benchmark reports and goes on
                failed += 1
                print(f"{n:>5} ERROR {type(err).__name__}: {err}")
                continue
            cells = []
            for s in steps:
                growth = row[s] / previous[s] if previous else None
                cells.append(f"{row[s]:>10.3f} {'-' if growth is None else f'{growth:.2f}x':>7}")
                if growth is not None and n >= 200:
                    verdicts.append((growth <= GROWTH_TARGET, f"{form} {s} growth {previous['n']} -> {n} "
                                     f"stages {growth:.2f}x <= {GROWTH_TARGET}x"))
            print(f"{n:>5} {row['unknowns']:>8} " + " ".join(cells) + f"    {row['v1']:.12f}")
            previous = dict(row, n=n)
    print("\ntargets (informative; they do not change the exit code)")
    for ok, text in verdicts:
        print(f"  [{'PASS' if ok else 'FAIL'}] {text}")
    if not verdicts:
        print("  [n/a ] growth at N >= 200: not run")
    print(f"\nbench_nonlinear_chain: done ({failed} case(s) failed to run)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
