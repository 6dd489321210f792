"""Events benchmark: what stick-slip clutches (modes, state and time events) cost in physlib's
hybrid simulation, against the same drivetrains with the clutches replaced by rigid connections or
spring-dampers (plain simulation, no events).

Models (all values SI, all J = 1 kg.m2, solver "idas" (the default) throughout):

* ``CoupledClutches`` -- the Modelica Standard Library's CoupledClutches, exactly
  ``examples/coupled_clutches.py``'s ``build()``: a 10 sin(2 pi 5 t) N.m torque drives J1
  (w0 = 10 rad/s); clutches 1-3 (mu = 0.5, peak = 1.1, cgeo = 1, fn_max = 20 N) join J1-J2-J3-J4,
  pressed with cos(0.4 pi t), a step at 0.4 s and a step at 0.9 s. t_end = 1.5 s. 9 events
  (7 state events, 2 time events) plus the initial mode change at t = 0.
* ``chain`` -- N inertias J1..JN joined by N-1 clutches ``clutch1..clutch{N-1}`` (mu = 0.5,
  peak = 1.1, cgeo = 1, fn_max = 40 N: sliding torque S = 20 N.m); a constant T = 10 N.m torque
  drives J1 from rest. Clutch k is pressed by ``Step(t0=k*dt)``, dt = 0.02 s; t_end = N*dt (1 s for
  N = 50). At k*dt the locked group J1..Jk (momentum T k dt, so speed T dt) meets Jk+1 at rest; the
  clutch slides (a time event), and since S > T its slip closes after T k dt / (S (k+1) - T) < dt/2
  (a state event: it sticks), before the next clutch engages; stuck clutches carry at most S < peak*S and
  never break away. So 2 (N-1) events, lock times known in closed form, and at t_end the whole chain
  turns at T t_end / N. N = 50 (49 clutches) in the full run, also N = 10; N = 6 (5 clutches)
  with ``--quick``.

Variants of each model (``variant`` column):

* ``clutches`` -- the model above, with events.
* ``idle``     -- the same components, clutches never pressed (f_normalized = 0): the hybrid
  simulator runs (guards sampled every max_step, default (t_end - t0)/1000) but no event happens.
* ``rigid``    -- every clutch replaced by a direct connection of the two flanges (the inertias
  become one body by index reduction; CoupledClutches then starts all at J1's w0); plain simulate.
* ``springs``  -- every clutch replaced by a SpringDamper (c = 1e4 N.m/rad, d = 100 N.m.s/rad);
  plain simulate, a pure ODE of the same size as the clutch model.

Measured (wall clock, ``time.perf_counter``), by default each (model, N, variant) in a fresh Python
process so that the first compile is really cold (``--in-process``, the default of ``--quick``: one
process, and ``cold_ms`` is cold only for component classes not compiled before in it):

* ``import_ms``  ``import physlib``, its rotational and signal components, and the compiler and
  simulator modules a first compile and simulate import on first use (scipy.sparse, SUNDIALS)
  (header line); ``benchmarks/bench_startup.py`` measures a whole process.
* ``build_ms``   constructing the Model, best of 5.
* ``cold_ms``    the first ``m.compile()`` in the process: includes the one-time SymPy derivation of
  the component classes' templates.
* ``compile_ms`` ``m.compile()`` of a freshly built model again, best of 5 (templates derived).
* ``sim1_ms``    first ``sim.simulate(t_end, rtol, atol)`` at these tolerances: includes building
  the CasADi integrator (cached on the compiled model per solver and tolerances).
* ``sim_ms``     the same call again, best of ``--repeat`` runs (3; 1 with ``--quick``), and of
  more runs (up to 10) while the runs together take less than 2 s (not with ``--quick``).
  Tolerances: ``tight`` rtol = 1e-8, atol = 1e-10 (as the MSL reference / the example) and
  ``default`` rtol = 1e-6, atol = 1e-8 (``simulate``'s defaults); ``--quick`` runs ``tight`` only.
  Default output grid (501 points), event_tol (1e-10 s) and max_step.
* ``events``     mode changes that interrupted the integration: ``res.events`` without the
  ``initial`` ones (cause ``state``: a guard crossing located by bisection; ``time``: a scheduled
  time, here a Step). ``state`` and ``time`` split it.
* ``ms/event``   = sim_ms / events: the whole run spread over its events (an upper bound).
* ``dms/event``  = (sim_ms - sim_ms of ``idle``) / events: the extra cost of the events themselves
  (location, event iteration, projection, restart) over the hybrid run of the same model without
  events.
* ``sim/rigid``  = sim_ms / sim_ms of ``rigid`` at the same tolerances: the total overhead of the
  clutch model with hybrid simulation against a plain physlib run of the same drivetrain.

Timings vary with the machine's load: event handling does dense NumPy linear algebra on matrices
of the model's size (projection, energy matrix, Newton steps), and OpenBLAS's threads make those
calls many times slower while another process keeps the CPUs busy. The header prints the BLAS
thread setting; ``--blas-threads 1`` pins it for the run.

Targets and checks (issues "[events]" and "[engine]"), printed as PASS/FAIL after the tables:
CoupledClutches compile + simulate <= 0.1 s on this machine, taken as cold compile + first simulate at
the tight tolerances (the warm sum is printed too; import time, ``import_ms``, is not included);
CoupledClutches
events equal the MSL reference's (same clutches in the same order, times within 1e-5 s, tight
tolerances); chain: 2 (N-1) events, lock times within 1e-6 s of the closed form and final speeds
within 1e-6 rad/s of T t_end / N (tight tolerances). The script exits 0 whatever they say (1 only if
a case crashed). ``--profile`` also prints a cProfile of one warm CoupledClutches simulate.
After the tables, the switching circuits of ``bench_switching.py`` (buck converters with ideal
and Shockley diodes, timed against ngspice on the same netlist when it is installed).

Run from the repository root:

    python benchmarks/bench_events.py            # full run (about a minute)
    python benchmarks/bench_events.py --quick    # CoupledClutches + 5-clutch chain, in-process
"""
from __future__ import annotations

import argparse
import functools
import gc
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchlib import machine, ms, timed

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "coupled_clutches.py"

CC_T_END = 1.5                                   # s
TOLERANCES = {"tight": (1e-8, 1e-10), "default": (1e-6, 1e-8)}   # (rtol, atol)
VARIANTS = ("clutches", "idle", "rigid", "springs")
SPRING_C, SPRING_D = 1e4, 100.0                  # N.m/rad, N.m.s/rad
CHAIN_T, CHAIN_DT = 10.0, 0.02                   # N.m drive torque, s between engagements
CHAIN_MU, CHAIN_PEAK, CHAIN_FN = 0.5, 1.1, 40.0  # sliding torque S = mu * fn_max = 20 N.m
CHAIN_S = CHAIN_MU * CHAIN_FN
CC_MU, CC_PEAK, CC_FN = 0.5, 1.1, 20.0           # as examples/coupled_clutches.py
FULL_CHAIN = [10, 50]
QUICK_CHAIN = [6]
TARGET_S = 0.1                                   # CoupledClutches compile + first simulate
WARM_BUDGET_S, MAX_RUNS = 2.0, 10                # cheap runs are repeated more (see timed)
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

# The MSL reference's events (tests/test_clutches.py, tests/data/README.md).
REFERENCE_EVENTS = [
    (0.4, "clutch2"), (0.7096214638, "clutch2"), (0.7916582843, "clutch1"),
    (0.8311085061, "clutch1"), (0.9, "clutch3"), (0.9068491375, "clutch1"),
    (1.0002958599, "clutch1"), (1.1439696304, "clutch3"), (1.25, "clutch1"),
]


# --- the models -------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _example_build():
    """examples/coupled_clutches.py's build (the module is loaded once)."""
    spec = importlib.util.spec_from_file_location("coupled_clutches_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build


def _coupling(m, variant, name, k, pressure, mu, peak, fn_max):
    """The element between two inertias, or None for a rigid connection."""
    from physlib.components.rotational import Clutch, SpringDamper

    if variant == "rigid":
        return None
    if variant == "springs":
        return m.add(SpringDamper(f"spring{k}", c=SPRING_C, d=SPRING_D))
    return m.add(Clutch(name, mu=mu, peak=peak, cgeo=1.0, fn_max=fn_max,
                        f_normalized=pressure if variant == "clutches" else 0.0))


def _join(m, left, right, coupling):
    if coupling is None:
        m.connect(left.flange_b, right.flange_a)
    else:
        m.connect(left.flange_b, coupling.flange_a)
        m.connect(coupling.flange_b, right.flange_a)


def build_coupled(variant: str):
    """CoupledClutches; ``clutches`` is the example's own build()."""
    if variant == "clutches":
        return _example_build()()
    from physlib import Model
    from physlib.components.rotational import Fixed, Inertia, Torque
    from physlib.components.signals import Sine

    m = Model(f"CoupledClutches_{variant}")
    drive = m.add(Torque("torque", tau=Sine(amplitude=10.0, f=5.0), use_support=True))
    fixed = m.add(Fixed("fixed"))
    # Rigidly joined inertias share one speed: only J1's start value is given there.
    inertias = [m.add(Inertia(f"J{k}", J=1.0, **({"w0": 10.0} if k == 1 else {} if variant == "rigid"
                                                 else {"w0": 0.0}))) for k in range(1, 5)]
    m.connect(drive.support, fixed.flange)
    m.connect(drive.flange, inertias[0].flange_a)
    for k, (left, right) in enumerate(zip(inertias, inertias[1:]), start=1):
        _join(m, left, right, _coupling(m, variant, f"clutch{k}", k, 0.0, CC_MU, CC_PEAK, CC_FN))
    return m


def build_chain(n: int, variant: str):
    """N inertias, N-1 clutches engaged one after another (see the module docstring)."""
    from physlib import Model
    from physlib.components.rotational import Inertia, Torque
    from physlib.components.signals import Step

    m = Model(f"chain_{n}_{variant}")
    drive = m.add(Torque("torque", tau=CHAIN_T))
    inertias = [m.add(Inertia(f"J{k}", J=1.0)) for k in range(1, n + 1)]
    m.connect(drive.flange, inertias[0].flange_a)
    for k, (left, right) in enumerate(zip(inertias, inertias[1:]), start=1):
        coupling = _coupling(m, variant, f"clutch{k}", k, Step(t0=k * CHAIN_DT),
                             CHAIN_MU, CHAIN_PEAK, CHAIN_FN)
        _join(m, left, right, coupling)
    return m


def chain_t_end(n: int) -> float:
    return n * CHAIN_DT


def chain_lock_time(k: int) -> float:
    """When clutch k sticks: engaged at k dt, slip closes after T k dt / (S (k+1) - T)."""
    return k * CHAIN_DT + CHAIN_T * k * CHAIN_DT / (CHAIN_S * (k + 1) - CHAIN_T)


def case_spec(model: str, n: int):
    """(builder(variant), t_end) of one model."""
    if model == "CoupledClutches":
        return build_coupled, CC_T_END
    return (lambda variant: build_chain(n, variant)), chain_t_end(n)


# --- measurement ------------------------------------------------------------------------------

_import_s: list[float] = []


def import_physlib() -> float:
    """Import physlib and the components used here; the time of the first call in the process."""
    if not _import_s:
        started = time.perf_counter()
        import physlib  # noqa: F401
        import physlib.components.rotational  # noqa: F401
        import physlib.components.signals  # noqa: F401
        # What the first compile and simulate load on first use (physlib imports them lazily):
        # the compiler with scipy.sparse, the simulator with the SUNDIALS libraries.
        import physlib.assembly.compile  # noqa: F401
        import physlib.analysis.simulation.simulate  # noqa: F401
        _import_s.append(time.perf_counter() - started)
    return _import_s[0]


def run_case(model: str, n: int, variant: str, repeat: int, tolerances: list[str]) -> dict:
    """Compile and simulate one (model, N, variant) in the current process."""
    row = {"model": model, "n": n, "variant": variant, "import_s": import_physlib()}
    build, t_end = case_spec(model, n)
    gc.collect()
    row["build_s"], m = timed(lambda: build(variant))
    row["cold_s"], sim = timed(m.compile)
    row["build_s"] = min(row["build_s"], timed(lambda: build(variant), 4)[0])
    row["compile_s"], sim = timed(lambda: build(variant).compile(), 5)
    row["states"], row["algebraic"] = len(sim.states), len(sim.algebraic)
    row["t_end"] = t_end
    row["sims"] = {}
    for tol in tolerances:
        rtol, atol = TOLERANCES[tol]
        gc.collect()

        def simulate():
            return sim.simulate(t_end, rtol=rtol, atol=atol)

        sim1_s, res = timed(simulate)
        sim_s, res = timed(simulate, repeat, budget=WARM_BUDGET_S, max_runs=MAX_RUNS)
        events = [e for e in res.events if e.cause != "initial"]
        out = {"sim1_s": sim1_s, "sim_s": sim_s, "events": len(events),
               "state": sum(e.cause == "state" for e in events),
               "time": sum(e.cause == "time" for e in events),
               "event_list": [(e.t, e.component, e.cause, e.after) for e in events]}
        if model == "chain":
            speeds = [float(res[f"J{k}.w"][-1]) for k in range(1, n + 1)]
            out["final_w"] = [min(speeds), max(speeds)]
        row["sims"][tol] = out
    return row


def run_isolated(model: str, n: int, variant: str, repeat: int, tolerances: list[str]) -> dict:
    """run_case in a fresh Python process (a really cold first compile)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", model, str(n), variant,
           "--repeat", str(repeat), "--tolerances", *tolerances]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"model": model, "n": n, "variant": variant,
                "error": f"worker exited {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def run_guarded(model, n, variant, repeat, tolerances, in_process):
    if not in_process:
        return run_isolated(model, n, variant, repeat, tolerances)
    try:
        return run_case(model, n, variant, repeat, tolerances)
    except Exception as err:     # report, keep going, exit 1 at the end
        return {"model": model, "n": n, "variant": variant, "error": f"{type(err).__name__}: {err}"}


# --- report -----------------------------------------------------------------------------------

COMPILE_COLUMNS = [  # header, width, row -> text
    ("model", 15, lambda r: r["model"]),
    ("J", 3, lambda r: str(r["n"])),
    ("variant", 8, lambda r: r["variant"]),
    ("states", 6, lambda r: str(r["states"])),
    ("alg", 4, lambda r: str(r["algebraic"])),
    ("build_ms", 8, lambda r: ms(r["build_s"])),
    ("cold_ms", 8, lambda r: ms(r["cold_s"])),
    ("compile_ms", 10, lambda r: ms(r["compile_s"])),
]

SIM_COLUMNS = [
    ("model", 15, lambda r, s: r["model"]),
    ("J", 3, lambda r, s: str(r["n"])),
    ("variant", 8, lambda r, s: r["variant"]),
    ("tol", 7, lambda r, s: s["tol"]),
    ("sim1_ms", 8, lambda r, s: ms(s["sim1_s"])),
    ("sim_ms", 8, lambda r, s: ms(s["sim_s"])),
    ("events", 6, lambda r, s: str(s["events"])),
    ("state", 5, lambda r, s: str(s["state"])),
    ("time", 4, lambda r, s: str(s["time"])),
    ("ms/event", 8, lambda r, s: ms(s.get("per_event_s"))),
    ("dms/event", 9, lambda r, s: ms(s.get("delta_event_s"))),
    ("sim/rigid", 9, lambda r, s: f"{s['vs_rigid']:.1f}x" if s.get("vs_rigid") else "-"),
]


def _line(columns, values):
    return "  ".join(v.rjust(w) if i else v.ljust(w) for i, ((_, w, _), v) in enumerate(zip(columns, values)))


def add_ratios(rows: list[dict]) -> None:
    """per-event times against ``idle`` and ratios against ``rigid`` of the same model and N."""
    by_variant = {r["variant"]: r for r in rows if "error" not in r}
    for row in by_variant.values():
        for tol, s in row["sims"].items():
            s["tol"] = tol
            if s["events"]:
                s["per_event_s"] = s["sim_s"] / s["events"]
                idle = by_variant.get("idle")
                if idle and tol in idle["sims"]:
                    s["delta_event_s"] = (s["sim_s"] - idle["sims"][tol]["sim_s"]) / s["events"]
            rigid = by_variant.get("rigid")
            if rigid and tol in rigid["sims"]:
                s["vs_rigid"] = s["sim_s"] / rigid["sims"][tol]["sim_s"]


def print_tables(title: str, rows: list[dict]) -> None:
    print(f"\n== {title}")
    ok = [r for r in rows if "error" not in r]
    if ok:
        print(f"   import physlib (+ rotational, signals): {ok[0]['import_s'] * 1e3:.0f} ms "
              f"(in the first case's process); solver idas")
    print(_line(COMPILE_COLUMNS, [h for h, _, _ in COMPILE_COLUMNS]))
    for row in rows:
        if "error" in row:
            print(f"{row['model']:<15}  {row['n']:>3}  {row['variant']:<8}  ERROR {row['error']}")
            continue
        print(_line(COMPILE_COLUMNS, [fmt(row) for _, _, fmt in COMPILE_COLUMNS]))
    print()
    print(_line(SIM_COLUMNS, [h for h, _, _ in SIM_COLUMNS]))
    for row in ok:
        for s in row["sims"].values():
            print(_line(SIM_COLUMNS, [fmt(row, s) for _, _, fmt in SIM_COLUMNS]))


def check_targets(results: dict) -> list[str]:
    """One line per target or check: [PASS], [FAIL] or [n/a ] (not run)."""
    lines = []

    def add(passed, text):
        lines.append(f"[{'n/a ' if passed is None else 'PASS' if passed else 'FAIL'}] {text}")

    def find(model, n, variant):
        for r in results.get((model, n), []):
            if r["variant"] == variant and "error" not in r:
                return r
        return None

    cc = find("CoupledClutches", 4, "clutches")
    tight = cc["sims"].get("tight") if cc else None
    if tight:
        total = cc["cold_s"] + tight["sim1_s"]
        warm = cc["compile_s"] + tight["sim_s"]
        add(total <= TARGET_S,
            f"CoupledClutches compile + simulate <= {TARGET_S:g} s on this machine: cold compile "
            f"{cc['cold_s'] * 1e3:.0f} ms + first simulate (rtol 1e-8) {tight['sim1_s'] * 1e3:.0f} ms "
            f"= {total:.3f} s (warm: {cc['compile_s'] * 1e3:.0f} + {tight['sim_s'] * 1e3:.0f} ms "
            f"= {warm:.3f} s)")
        got = [(t, comp) for t, comp, _, _ in tight["event_list"]]
        same_order = [c for _, c in got] == [c for _, c in REFERENCE_EVENTS]
        worst = max((abs(t - t_ref) for (t, _), (t_ref, _) in zip(got, REFERENCE_EVENTS)), default=0.0)
        add(same_order and worst < 1e-5,
            f"CoupledClutches events match the MSL reference (rtol 1e-8): {len(got)} events "
            f"(reference {len(REFERENCE_EVENTS)}), " + (f"worst time error {worst:.1e} s"
                                                        if same_order else "different clutches/order"))
    else:
        add(None, f"CoupledClutches compile + simulate <= {TARGET_S:g} s on this machine: not run")

    for (model, n) in results:
        if model != "chain":
            continue
        r = find("chain", n, "clutches")
        s = r["sims"].get("tight") if r else None
        if s is None:
            add(None, f"chain J = {n}: events and lock times: not run")
            continue
        locks = [(t, comp) for t, comp, cause, after in s["event_list"] if after == {"mode": 0}]
        expected = {f"clutch{k}": chain_lock_time(k) for k in range(1, n)}
        worst = max((abs(t - expected.get(comp, float("inf"))) for t, comp in locks), default=float("inf"))
        w_end = CHAIN_T * chain_t_end(n) / n
        w_err = max(abs(w - w_end) for w in s["final_w"])
        add(s["events"] == 2 * (n - 1) and len(locks) == n - 1 and worst < 1e-6 and w_err < 1e-6,
            f"chain J = {n}: {s['events']} events (expected {2 * (n - 1)}), lock times within "
            f"{worst:.1e} s of the closed form (< 1e-6), final speeds within {w_err:.1e} rad/s "
            f"of T t_end / N = {w_end:g} (< 1e-6)")
    return lines


def profile_coupled(top: int = 20) -> None:
    """cProfile of one warm CoupledClutches simulate (tight tolerances)."""
    import cProfile
    import pstats

    rtol, atol = TOLERANCES["tight"]
    sim = build_coupled("clutches").compile()
    sim.simulate(CC_T_END, rtol=rtol, atol=atol)          # builds and caches the integrator
    profiler = cProfile.Profile()
    profiler.enable()
    sim.simulate(CC_T_END, rtol=rtol, atol=atol)
    profiler.disable()
    print(f"\n== cProfile: one warm CoupledClutches simulate (rtol {rtol:g}, atol {atol:g})")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


# --- entry point ------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="CoupledClutches and a 5-clutch chain, in-process, a few seconds (test suite)")
    parser.add_argument("--chain-sizes", type=int, nargs="+", metavar="N",
                        help="numbers of inertias of the chain (default 10 50; --quick 6)")
    parser.add_argument("--repeat", type=int, help="warm simulations per case (default 3; --quick 1)")
    parser.add_argument("--tolerances", nargs="+", choices=list(TOLERANCES),
                        help="tolerance settings to run (default both; --quick tight)")
    parser.add_argument("--in-process", action="store_true",
                        help="run every case in this process (cold_ms then only for the first)")
    parser.add_argument("--profile", action="store_true",
                        help="also print a cProfile of one warm CoupledClutches simulate")
    parser.add_argument("--blas-threads", type=int, metavar="N",
                        help="set OPENBLAS/OMP/MKL_NUM_THREADS to N for the run (default: unchanged)")
    parser.add_argument("--json", metavar="PATH", help="also write the raw measurements to PATH")
    parser.add_argument("--worker", nargs=3, metavar=("MODEL", "N", "VARIANT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 3)
    tolerances = args.tolerances or (["tight"] if args.quick else list(TOLERANCES))

    global WARM_BUDGET_S
    if args.quick:
        WARM_BUDGET_S = 0.0
    if args.blas_threads:
        # Before NumPy is imported here; the worker processes inherit it.
        for var in BLAS_THREAD_VARS:
            os.environ[var] = str(args.blas_threads)

    if args.worker:
        model, n, variant = args.worker
        print(json.dumps(run_case(model, int(n), variant, repeat, tolerances)))
        return 0

    chain_sizes = args.chain_sizes or (QUICK_CHAIN if args.quick else FULL_CHAIN)
    in_process = args.in_process or args.quick
    print(f"bench_events ({'quick' if args.quick else 'full'}; "
          f"{'in-process' if in_process else 'one fresh process per case'}; sim_ms best of {repeat} warm runs"
          f"{'' if args.quick else f', up to {MAX_RUNS} while under {WARM_BUDGET_S:g} s'})")
    print(machine())
    blas = ", ".join(f"{var}={os.environ[var]}" for var in BLAS_THREAD_VARS if var in os.environ)
    print(f"BLAS threads: {blas or 'not set (NumPy/OpenBLAS default: one per CPU)'}")

    groups = [("CoupledClutches", 4, f"CoupledClutches (MSL): 4 inertias, 3 clutches, sine torque; "
               f"t_end = {CC_T_END:g} s")]
    groups += [("chain", n, f"chain: {n} inertias, {n - 1} clutches engaged every {CHAIN_DT:g} s, "
                f"{CHAIN_T:g} N.m torque; t_end = {chain_t_end(n):g} s") for n in sorted(chain_sizes)]
    results: dict = {}
    for model, n, title in groups:
        rows = [run_guarded(model, n, variant, repeat, tolerances, in_process) for variant in VARIANTS]
        add_ratios(rows)
        results[(model, n)] = rows
        print_tables(title, rows)

    print("\ntargets and checks (informative; they do not change the exit code)")
    for line in check_targets(results):
        print("  " + line)
    if args.profile:
        profile_coupled()
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r for rows in results.values() for r in rows], f, indent=1)
    crashed = [r for rows in results.values() for r in rows if "error" in r]
    # Switching circuits (buck converters) against ngspice: see bench_switching.py.
    print("\nswitching circuits (benchmarks/bench_switching.py)")
    import bench_switching
    switching_failed = bench_switching.main(["--quick"] if args.quick else [])
    print(f"\nbench_events: done ({len(crashed) + switching_failed} case(s) failed to run)")
    return 1 if crashed or switching_failed else 0


if __name__ == "__main__":
    sys.exit(main())
