"""Read benchmark: what reading one variable of a simulated RC ladder costs, against compiling the
model and simulating it.

Model: ``bench_scale``'s ``rc_ladder`` -- N stages of a Resistor ``R{k}`` (1 kOhm) and a Capacitor
``C{k}`` (1 mF, to ground) behind a 1 V step; a pure ODE with the N capacitor voltages as states.
Every run is ``sim.simulate(T_END)`` with ``simulate``'s defaults (solver ``"idas"``, rtol = 1e-6,
atol = 1e-8, 501 output points), T_END = 10 s. N in {1000, 10000}; {10, 100} with ``--quick``.

Measured for each N (wall clock, ``time.perf_counter``; each process first compiles and reads a
one-stage ladder, so the one-time SymPy derivation of the component templates is not included):

* ``compile``  ``m.compile()`` of a freshly built model.
* ``sim1``     the first ``simulate`` of that compiled model (includes building the integrator).
* ``sim``      the same call again (cached integrator): the steady cost of a run.
* ``read1``    the first ``res["R1.i"]`` on the compiled model: R1's current is neither a state
  nor an algebraic variable, so this is one row of the output map, and it includes expanding
  the model's output map into one symbolic expression (done once per compiled model).
* ``read2``    ``res["R2.v"]`` on the result of another run of the same compiled model: what
  every later read of a non-state variable costs.
* ``read1/sim`` and ``read2/sim``: the reads against the steady simulate.

``compile``, ``sim1`` and ``read1`` are the best over ``repeat`` freshly built and compiled
models (3 for N <= 1000, 1 above); ``sim`` the best of 5 runs; ``read2`` the best of 5 reads of
different variables (R2.v, R3.v, ...) on one result.

Targets (issue "[hybrid]", acceptance 10): read1 <= 0.2 x sim at N = 1000; read1 <= 0.5 s at
N = 10000. Correctness: the values read equal Ohm's law on the states, R1.i = (1 V - C1.v) / R1
and R2.v = C1.v - C2.v, to 1e-9 relative. They are printed as PASS/FAIL after the table; the
script exits 0 whatever they say (1 only if a case crashed). Run from the repository root:

    python benchmarks/bench_reads.py            # full run (N = 1000 and 10000; under half a minute)
    python benchmarks/bench_reads.py --quick    # N = 10 and 100, a few seconds (run by the tests)
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from bench_scale import RC_R, RC_V, build_rc_ladder
from benchlib import machine, ms, timed

T_END = 10.0                      # s
FULL_SIZES = [1000, 10000]
QUICK_SIZES = [10, 100]
READ_RATIO_TARGET = (1000, 0.2)   # (N, read1 / sim)
READ_TIME_TARGET = (10000, 0.5)   # (N, seconds)
AGREEMENT = 1e-9                  # relative, Ohm's law on the states against the values read


def warm_up() -> None:
    """Derive the templates of the ladder's component classes and exercise the read path once."""
    build_rc_ladder(1).compile().simulate(T_END)["R1.i"]


def run_case(n: int) -> dict:
    """All measurements of one ladder size, in the current process."""
    repeat = 3 if n <= 1000 else 1
    row = {"n": n, "compile_s": np.inf, "sim1_s": np.inf, "read1_s": np.inf}
    for _ in range(repeat):
        model = build_rc_ladder(n)
        compile_s, sim = timed(model.compile)
        sim1_s, res = timed(lambda: sim.simulate(T_END))
        read1_s, current = timed(lambda: res["R1.i"])
        row["compile_s"] = min(row["compile_s"], compile_s)
        row["sim1_s"] = min(row["sim1_s"], sim1_s)
        row["read1_s"] = min(row["read1_s"], read1_s)
    row["states"] = len(sim.states)
    row["sim_s"], other = timed(lambda: sim.simulate(T_END), 5)
    names = iter(f"R{k}.v" for k in range(2, n + 1))
    reads = min(5, n - 1)
    row["read2_s"], _ = timed(lambda: other[next(names)], reads) if reads else (None, None)

    # Ohm's law on the states (read straight from the solution) against the rows read.
    scale = RC_V / RC_R
    diff = np.max(np.abs(current - (RC_V - res["C1.v"]) / RC_R)) / scale
    if n > 1:
        diff = max(diff, np.max(np.abs(other["R2.v"] - (other["C1.v"] - other["C2.v"]))) / RC_V)
    row["diff"] = float(diff)
    return row


COLUMNS = [  # header, width, row -> text
    ("N", 6, lambda r: str(r["n"])),
    ("states", 6, lambda r: str(r["states"])),
    ("compile_ms", 10, lambda r: ms(r["compile_s"])),
    ("sim1_ms", 8, lambda r: ms(r["sim1_s"])),
    ("sim_ms", 8, lambda r: ms(r["sim_s"])),
    ("read1_ms", 8, lambda r: ms(r["read1_s"])),
    ("read1/sim", 9, lambda r: f"{r['read1_s'] / r['sim_s']:.3f}x"),
    ("read2_ms", 8, lambda r: ms(r["read2_s"])),
    ("read2/sim", 9, lambda r: "-" if r["read2_s"] is None else f"{r['read2_s'] / r['sim_s']:.4f}x"),
    ("diff", 8, lambda r: f"{r['diff']:.1e}"),
]


def print_table(rows: list[dict]) -> None:
    print(f"\n== RC ladder: N x (R = {RC_R:g} Ohm, C = 1 mF), {RC_V:g} V step; simulate({T_END:g}) "
          "with the defaults (idas, rtol = 1e-6, atol = 1e-8, 501 output points)")
    print("  ".join(h.rjust(w) for h, w, _ in COLUMNS))
    for row in rows:
        if "error" in row:
            print(f"{row['n']:>6}  ERROR {row['error']}")
            continue
        print("  ".join(fmt(row).rjust(w) for _, w, fmt in COLUMNS))


def check_targets(rows: list[dict]) -> list[str]:
    """One line per target: [PASS], [FAIL] or [n/a ] (size not run)."""
    by_n = {r["n"]: r for r in rows if "error" not in r}
    lines = []

    def add(passed, text):
        lines.append(f"[{'n/a ' if passed is None else 'PASS' if passed else 'FAIL'}] {text}")

    n, limit = READ_RATIO_TARGET
    r = by_n.get(n)
    add(None if r is None else r["read1_s"] <= limit * r["sim_s"],
        f"first read of one variable of the {n}-stage ladder <= {limit:g}x simulate"
        + (f": {r['read1_s'] * 1e3:.1f} ms / {r['sim_s'] * 1e3:.1f} ms = {r['read1_s'] / r['sim_s']:.3f}x"
           if r else ": not run"))
    n, limit = READ_TIME_TARGET
    r = by_n.get(n)
    add(None if r is None else r["read1_s"] <= limit,
        f"first read of one variable of the {n}-stage ladder <= {limit:g} s"
        + (f": {r['read1_s']:.3f} s" if r else ": not run"))
    worst = max((r["diff"] for r in by_n.values()), default=None)
    add(None if worst is None else worst <= AGREEMENT,
        f"read values agree with Ohm's law on the states (max rel. diff <= {AGREEMENT:g})"
        + (f": worst {worst:.1e}" if worst is not None else ""))
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="N = 10 and 100 only, a few seconds (tests)")
    parser.add_argument("--sizes", type=int, nargs="+", help="override the ladder sizes")
    args = parser.parse_args(argv)

    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    print(f"bench_reads ({'quick' if args.quick else 'full'})")
    print(machine())
    warm_up()
    rows = []
    for n in sorted(sizes):
        try:
            rows.append(run_case(n))
        except Exception as err:     # report, keep going, exit 1 at the end
            rows.append({"n": n, "error": f"{type(err).__name__}: {err}"})
    print_table(rows)

    print("\ntargets (informative; they do not change the exit code)")
    for line in check_targets(rows):
        print("  " + line)
    crashed = [r for r in rows if "error" in r]
    print(f"\nbench_reads: done ({len(crashed)} case(s) failed to run)")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
