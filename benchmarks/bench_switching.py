"""Switching benchmark: buck converters in physlib against ngspice on the same netlist.

Cases (solver "idas", default tolerances rtol = 1e-6, atol = 1e-8, default output grid):

* ``buck`` -- ``examples/buck_converter.py``: 48 V, 50 kHz PWM at duty 0.3, L = 47 µH,
  C = 220 µF, 2 Ω, the catalog's Switch and IdealDiode at their defaults (Ron = 1e-5 Ω,
  Goff = 1e-5 S); 30 ms (3 ms with ``--quick``). Checks: average output over the last
  period within 1.5 % of D·Vin = 14.4 V, inductor ripple within 2 % of (1 − D)·Vout/(L·f), every
  switch event a time event.
* ``buck_shockley`` -- 24 V, 20 kHz, duty 0.5, L = 100 µH, C = 100 µF, 5 Ω, Switch with
  Ron = 10 mΩ, Goff = 1 µS, a Shockley Diode (Is = 1e-14 A, N = 1, Rs = 10 mΩ); 10 ms (2 ms with
  ``--quick``). Check: average output over the last period against ngspice's (when installed).

Measured (wall clock): ``compile_ms`` (``m.compile()``, first in the process, so including the
one-time derivation of the component classes' equations or their reading from the disk cache;
the compiler's and simulator's modules are imported before, and that time printed apart), ``sim_ms`` (the first ``simulate``),
``ms/event`` = sim_ms / events, and, when ``ngspice`` is on the PATH, ``ngspice_ms``: the whole
``ngspice -b`` process on the same circuit (voltage-controlled switch with the same Ron/Roff;
for the ideal diode a diode with N = 0.01, Rs = 1e-5 Ω; ``.tran 1u`` with ``uic``; its
``.meas`` of the average output over the last period). ``ratio`` = (compile_ms + sim_ms) /
ngspice_ms. ``warm_ms``: a second simulate (best of 2, and of up to 7 runs within 1 s);
``10001pts_ms``: the same with 10,001 evenly spaced output points, and their ratio (the
model's row and event functions run as C once built, kept in physlib's cache folder);
``first_10001_ms``: the first such run of a freshly compiled model (its solver functions
built then), and ``cold_10001_ms`` the same with physlib's cache folder empty: its rows run in
CasADi's virtual machine while their C translation builds in the background (a machine's first
dense run of a model). Targets (issue "[engine]"): ratio <= 3,
ms/event <= 0.3 for ``buck``, 10,001 output points <= 1.3x the default grid (also on
``rectifier``, the half-wave rectifier of the issue, 50 ms / 5 ms with ``--quick``, no ngspice
run).

Run from the repository root: ``python benchmarks/bench_switching.py [--quick]``. Exits 0
whatever the targets say (1 only if a case crashed).
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchlib import machine, ms

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DENSE_POINTS = 10_001          # the dense output grid compared with the default one
SHOCKLEY = dict(vin=24.0, f=20e3, duty=0.5, L=100e-6, C=100e-6, R=5.0, ron=10e-3, goff=1e-6,
                Is=1e-14, N=1.0, Rs=10e-3)


def load_example():
    spec = importlib.util.spec_from_file_location("buck_converter", ROOT / "examples" / "buck_converter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_shockley():
    from physlib import Model
    from physlib.components.electrical import (Capacitor, Diode, Ground, Inductor, Resistor, Switch,
                                               VoltageSource)
    from physlib.components.signals import PWM
    c = SHOCKLEY
    m = Model("buck_shockley")
    src = m.add(VoltageSource("Vin", V=c["vin"]))
    switch = m.add(Switch("S1", control=PWM(f=c["f"], duty=c["duty"]), Ron=c["ron"], Goff=c["goff"]))
    diode = m.add(Diode("D1", Is=c["Is"], N=c["N"], Rs=c["Rs"]))
    choke, cap, load = (m.add(Inductor("L1", L=c["L"])), m.add(Capacitor("C1", C=c["C"])),
                        m.add(Resistor("Rload", R=c["R"])))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m


def build_rectifier():
    """The half-wave rectifier of the engine issue: 10 V, 1 kHz sine, IdealDiode at its
    defaults, 1 kOhm parallel 1 uF."""
    from physlib import Model
    from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
    from physlib.components.signals import Sine
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=1e3)))
    d, r = m.add(IdealDiode("D1")), m.add(Resistor("R1", R=1e3))
    c, gnd = m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    return m


def netlist(case: str, t_end: float) -> str:
    """The same circuit for ngspice, measuring the average output over the last period."""
    if case == "buck":
        vin, f, duty, L, C, R, ron, roff = 48.0, 50e3, 0.3, 47e-6, 220e-6, 2.0, 1e-5, 1e5
        diode = "D(IS=1e-14 N=0.01 RS=1e-5)"
    else:
        c = SHOCKLEY
        vin, f, duty, L, C, R, ron, roff = c["vin"], c["f"], c["duty"], c["L"], c["C"], c["R"], c["ron"], 1 / c["goff"]
        diode = f"D(IS={c['Is']} N={c['N']} RS={c['Rs']})"
    period = 1 / f
    return f"""{case}
Vin in 0 DC {vin}
Vpwm ctl 0 PULSE(0 1 0 1n 1n {duty * period - 2e-9} {period})
S1 in sw ctl 0 swmod
D1 0 sw dmod
L1 sw out {L}
C1 out 0 {C}
R1 out 0 {R}
.model swmod SW(VT=0.5 VH=0 RON={ron} ROFF={roff})
.model dmod {diode}
.tran 1u {t_end} uic
.control
run
meas tran vavg AVG v(out) from={t_end - period} to={t_end}
quit
.endc
.end
"""


def run_ngspice(case: str, t_end: float):
    """(wall time of the whole ngspice process [s], its average output [V]) or (None, None)."""
    if shutil.which("ngspice") is None:
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{case}.cir"
        path.write_text(netlist(case, t_end))
        started = time.perf_counter()
        proc = subprocess.run(["ngspice", "-b", str(path)], capture_output=True, text=True, cwd=tmp)
        elapsed = time.perf_counter() - started
    found = re.search(r"vavg\s*=\s*([-+0-9.eE]+)", proc.stdout)
    return elapsed, float(found.group(1)) if found else None


def last_period_average(res, name, period):
    keep = res.t >= res.t[-1] - period
    return float(np.trapezoid(res[name][keep], res.t[keep]) / period)


def _best(run, repeats: int = 2, budget: float = 1.0, max_repeats: int = 7) -> float:
    """Best wall time of ``repeats`` runs, and of more (up to ``max_repeats``) while they take
    less than ``budget`` seconds together: short runs wander most on a shared machine."""
    best, spent, done = float("inf"), 0.0, 0
    while done < repeats or (done < max_repeats and spent < budget):
        started = time.perf_counter()
        run()
        elapsed = time.perf_counter() - started
        best, spent, done = min(best, elapsed), spent + elapsed, done + 1
    return best


def _first_dense(model, t_end: float, empty_cache: bool = False) -> float:
    """The first 10,001-output run of a freshly compiled ``model``; with ``empty_cache``, with
    physlib's cache folder empty (set after compiling: only the C twins of its functions are
    missing)."""
    import os
    sim = model.compile()
    before = os.environ.get("PHYSLIB_CACHE_DIR")
    with tempfile.TemporaryDirectory() as empty:
        if empty_cache:
            os.environ["PHYSLIB_CACHE_DIR"] = empty
        try:
            started = time.perf_counter()
            sim.simulate(t_end, t_eval=np.linspace(0.0, t_end, DENSE_POINTS))
            return time.perf_counter() - started
        finally:
            if before is None:
                os.environ.pop("PHYSLIB_CACHE_DIR", None)
            else:
                os.environ["PHYSLIB_CACHE_DIR"] = before


def run_case(case: str, t_end: float) -> dict:
    if case == "buck":
        example = load_example()
        model, period = example.build(), 1 / example.F_SW
    elif case == "rectifier":
        model, period = build_rectifier(), 1e-3
    else:
        model, period = build_shockley(), 1 / SHOCKLEY["f"]
    started = time.perf_counter()
    sim = model.compile()
    compiled = time.perf_counter()
    res = sim.simulate(t_end)
    done = time.perf_counter()
    warm = _best(lambda: sim.simulate(t_end))
    dense = _best(lambda: sim.simulate(t_end, t_eval=np.linspace(0.0, t_end, DENSE_POINTS)))
    first, cold = _first_dense(model, t_end), _first_dense(model, t_end, empty_cache=True)
    events = [e for e in res.events if e.cause != "initial"]
    row = {"case": case, "t_end": t_end, "compile": compiled - started, "sim": done - compiled,
           "warm": warm, "dense": dense, "first": first, "cold": cold,
           "events": len(events), "time": sum(e.cause == "time" for e in events),
           "state": sum(e.cause == "state" for e in events),
           "switch_state": sum(e.cause == "state" and e.component == "S1" for e in events),
           "v_avg": last_period_average(res, "C1.v", period)}
    if case == "buck":
        keep = res.t >= res.t[-1] - period
        row["ripple"] = float(np.ptp(res["L1.i"][keep]))
        row["ripple_theory"] = (1 - example.DUTY) * row["v_avg"] / (example.L * example.F_SW)
        row["v_theory"] = example.DUTY * example.VIN
    row["ngspice"], row["ngspice_v_avg"] = run_ngspice(case, t_end) if case != "rectifier" else (None, None)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short horizons (3 ms and 2 ms)")
    args = parser.parse_args(argv)
    print(machine())
    started = time.perf_counter()
    # physlib imports its compiler and simulator on first use; that is import time, as in
    # bench_events (bench_startup measures whole processes), not the first compile's.
    import physlib.assembly.compile  # noqa: F401
    import physlib.analysis.simulation.simulate  # noqa: F401
    print(f"import physlib with its compiler and simulator: {ms(time.perf_counter() - started)} ms")
    horizons = {"buck": 3e-3 if args.quick else 30e-3, "buck_shockley": 2e-3 if args.quick else 10e-3,
                "rectifier": 5e-3 if args.quick else 50e-3}
    rows, crashed = [], 0
    for case, t_end in horizons.items():
        try:
            rows.append(run_case(case, t_end))
        except Exception as err:            # report and go on: one case must not hide the others
            crashed += 1
            print(f"ERROR {case}: {type(err).__name__}: {err}")
    header = ["case", "t_end_ms", "events", "time", "state", "compile_ms", "sim_ms", "ms/event",
              "ngspice_ms", "ratio", "v_avg", "ngspice_v", "warm_ms", "10001pts_ms", "10001/default",
              "first_10001_ms", "cold_10001_ms"]
    print("  ".join(f"{h:>13}" for h in header))
    for r in rows:
        total = r["compile"] + r["sim"]
        ratio = total / r["ngspice"] if r["ngspice"] else None
        r["ratio"] = ratio
        cells = [r["case"], f"{r['t_end'] * 1e3:g}", r["events"], r["time"], r["state"], ms(r["compile"]),
                 ms(r["sim"]), f"{r['sim'] / max(r['events'], 1) * 1e3:.3f}", ms(r["ngspice"]),
                 "-" if ratio is None else f"{ratio:.1f}x", f"{r['v_avg']:.4f}",
                 "-" if r["ngspice_v_avg"] is None else f"{r['ngspice_v_avg']:.4f}",
                 ms(r["warm"]), ms(r["dense"]), f"{r['dense'] / r['warm']:.2f}x", ms(r["first"]), ms(r["cold"])]
        print("  ".join(f"{str(c):>13}" for c in cells))
    print("targets" + (" (on the full horizons; with --quick the default output grid is 10x "
                       "denser per switching period, so these are informative)" if args.quick else ""))

    def verdict(passed):
        return "info" if args.quick else "PASS" if passed else "FAIL"

    for r in rows:
        print(f"  [{verdict(r['dense'] <= 1.3 * r['warm'])}] {r['case']}: {DENSE_POINTS} output points "
              f"{r['dense'] / r['warm']:.2f}x the default grid (target <= 1.3x)")
        if r["case"] == "rectifier":
            continue
        if r["ratio"] is not None:
            print(f"  [{verdict(r['ratio'] <= 3)}] {r['case']}: compile + simulate "
                  f"{r['ratio']:.1f}x ngspice (target <= 3x)")
        else:
            print(f"  [n/a ] {r['case']}: ngspice not installed (apt-get install ngspice)")
        if r["case"] == "buck":
            per_event = r["sim"] / max(r["events"], 1) * 1e3
            print(f"  [{verdict(per_event <= 0.3)}] buck: {per_event:.3f} ms per event, first simulate "
                  f"({r['warm'] / max(r['events'], 1) * 1e3:.3f} warm; target <= 0.3)")
            ok = abs(r["v_avg"] / r["v_theory"] - 1) <= 0.015 and abs(r["ripple"] / r["ripple_theory"] - 1) <= 0.02
            print(f"  [{'PASS' if ok else 'FAIL'}] buck: average {r['v_avg']:.4f} V (D·Vin "
                  f"{r['v_theory']:.1f} V, 1.5 %), ripple {r['ripple']:.4f} A (theory "
                  f"{r['ripple_theory']:.4f} A, 2 %)")
            print(f"  [{'PASS' if r['switch_state'] == 0 else 'FAIL'}] buck: every switch event a time "
                  f"event ({r['switch_state']} located as state events)")
        elif r["ngspice_v_avg"] is not None:
            print(f"  [info] buck_shockley: average output {r['v_avg']:.4f} V, ngspice "
                  f"{r['ngspice_v_avg']:.4f} V ({abs(r['v_avg'] / r['ngspice_v_avg'] - 1) * 100:.2f} %; "
                  "ngspice's pulse has 1 ns edges and reltol 1e-3)")
    print(f"bench_switching: done ({crashed} case(s) failed to run)")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
