"""Scaling benchmark: how physlib's model construction, compile and simulation grow with model size,
and how its simulation compares with the same equations written by hand in CasADi.

Models (all values SI):

* ``rc_ladder`` -- N stages driven by a 1 V step (``VoltageSource(V=Step(height=1.0))``); stage k is
  a Resistor ``R{k}`` (1 kOhm) from node k-1 to node k and a Capacitor ``C{k}`` (1 mF) from node k to
  ground, so every stage has a time constant R*C = 1 s. Horizon t_end = 10 s for every N: the first
  ~10 nodes have visibly responded (C1.v is about 0.82 V, C10.v about 0.04 V with N = 10), deeper
  nodes stay near 0 V. N in {10, 100, 1000, 10000, 100000}; the 100,000-stage ladder is only built
  and compiled (a compile-only case: no simulation, no hand-written model). The ladder compiles to
  a pure ODE (N states, the capacitor voltages).
* ``chain`` -- N inertia-spring-damper units driven by a 1 N.m torque step (``Torque(tau=Step())``)
  on the first inertia; unit k is an ``Inertia`` ``J{k}`` (J = 1 kg.m2) and a ``SpringDamper``
  ``SD{k}`` (c = 1 N.m/rad, d = 0.5 N.m.s/rad) from J{k} to J{k+1}; the last spring-damper ends at a
  ``Fixed`` flange. The torque travels about one unit per second, so with t_end = 10 s the ten-unit
  chain has fully responded and longer chains have a moving front. N in {10, 100, 1000}. Also a
  pure ODE: 2N states (SD{k}.phi_rel, J{k}.w): the spring-dampers' deflections are integrated
  (as the Modelica library prefers) and the inertias' angles follow from them, not states.

Measured for each N (wall clock, ``time.perf_counter``):

* ``build``   constructing the Model (``m.add`` / ``m.connect``).
* ``compile`` ``m.compile()``. Each process first compiles a one-stage model of the same classes,
  so the one-time SymPy derivation of each class's template is not in these numbers; that cold cost
  is printed in each part's header. ``growth`` = compile(N) / compile(previous N).
* ``sim1``    first ``sim.simulate(t_end, solver="cvodes", rtol, atol, t_eval)``: includes building
  the CasADi integrator, which the compiled model then caches.
* ``sim``     the same call again (cached integrator, same parameters): the steady cost of a run.
  Timed alternately with ``hand_sim`` so that both see the same machine load.
* ``resim``   ``simulate`` with one parameter changed through ``params=`` (``R1.R`` = 2 kOhm,
  ``J1.J`` = 2 kg.m2), no recompile. ``speedup`` = (compile + sim1) / resim.
* ``idas``    warm ``simulate`` with the default solver ``"idas"`` (for reference).
* ``hand_build`` / ``hand_sim``: the same ODE written directly in CasADi SX (vectorized, parameters
  as the integrator's ``p``), ``casadi.integrator(..., "cvodes", ...)`` with the same tolerances,
  options (``max_num_steps``) and output grid as physlib uses; build = SX expressions + integrator
  creation, sim = one integrator call including conversion of the output to NumPy.
  ``sim/hand`` = sim / hand_sim.
* ``peak`` / ``dpeak``: peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``,
  process-wide, so each (model, N) runs in a fresh subprocess) taken after all physlib steps
  including reading the results, before the hand-written model is built; ``dpeak`` is the growth
  over the same process after imports and the template warm-up. With ``--in-process`` (the default
  of ``--quick``) all cases share one process and the memory columns are only indicative.
* ``read``    the first ``res[name]`` of one variable that is neither a state nor an algebraic
  variable (``R1.i``, ``SD1.tau``: a row of the output map) on a fresh result; ``read/sim`` = read /
  sim; ``read_MB`` the growth of the resident set (``/proc/self/statm``, Linux; "-" elsewhere)
  during that read. Reading evaluates only the requested row, so both stay flat as N grows.
* ``maxdiff`` correctness: max over states of |x_physlib - x_hand| / max(1, |x_hand|) at t_end
  (the capacitor voltages are below 1 V, so there it is the absolute difference), over both
  physlib solvers (cvodes and idas) against the hand-written cvodes run. Must be < 1e-5.

Every timing except ``sim1`` (and the cold template compile) is the best of several runs: 7
simulations for N <= 1000 and 5 above; 5 builds and compiles of the same model for N <= 1000 and 3
above (compiling a model again does the whole work again; nothing is cached on the Model; the
100,000-stage ladder is built once). The first compile of a process also pays for fresh memory
pages; for the 100,000-stage ladder it is printed after the targets. The
``sim`` and ``hand_sim`` numbers both include copying the CasADi output matrix into NumPy
(``np.array(DM)``), which at N >= 1000 costs about as much as the integration itself.
Tolerances rtol = 1e-6, atol = 1e-8; output grid: 101 points on [0, t_end].

Targets (issue "[compiler]", which tightened those of "[scale]"): compile of the 1000-stage RC
ladder <= 50 ms, of the 10,000-stage one <= 0.5 s and of the 100,000-stage one <= 6 s; compile
growth <= 11x per 10x more stages (every consecutive pair of N, both models); model construction
(``build``) of the 10,000-stage ladder <= 0.2 s; peak memory of the 100,000-stage ladder printed;
simulate <= 1.2x hand-written (checked at N >= 1000, where integration dominates fixed overheads of a
few tenths of a millisecond); re-simulate speedup >= 50x at N = 1000; peak memory (absolute
``peak``) of the 10,000-stage ladder <= 2 GB; first read of one variable of the 10,000-stage ladder
< 0.1 s and < 50 MB; maxdiff < 1e-5 everywhere. They are printed as
PASS/FAIL after the tables; the script exits 0 whatever they say (it exits 1 only if a case
crashed). The ladder against ngspice (issue 40): the RC ladder deck of ``bench_spice.py`` (``V1 n0 0 DC 0
AC 1 PULSE(0 1 0 1u 1u 1 2)``, then N/2 stages ``Rk n(k-1) nk 1k``, ``Ck nk 0 1n``) with N =
10,000, 100,000 and 1,000,000 elements (``--quick``: up to 100,000; ``--ladder-sizes`` sets
them, none skips the part), ``.tran 0.5u 1u`` and ``.ac dec 5 1k 1meg`` (16 frequencies, every
node voltage). Each run is a fresh process (best of 3 at 10,000, of 2 at 100,000, one run at
1,000,000, on each side), on two physlib paths:

* ``python``: the same circuit built with ``Model.add``/``connect`` (``V1`` a 1 V ``Ramp`` over
  1 us: the PULSE's rise, which the run does not leave), ``build`` = construction, ``compile``,
  ``tran`` = the first ``simulate`` with the options the deck's ``.tran`` gets (rtol 1e-6, atol
  1e-8, max_step 20 ns; its solver functions included), ``ac`` = operating point, ``linearize``
  to every capacitor voltage and ``frequency_response``; ``grid_s`` (``grid_sys`` its kernel's
  share) the same transient again on ``simulate``'s default grid, 501 rows of every state (2 GB
  at a million elements: its rows once went through fresh memory four times, 22.6 s).
* ``deck``: ``physlib.spice.read`` of the deck's file, written before the clock starts as the
  file ngspice reads is (``build``), ``deck.compile()``, ``deck.run()`` (``tran``:
  operating point and transient), ``ac`` = the deck's ``.ac`` path (``physlib.spice.runs.run_ac``)
  on the deck read.

against the whole ``ngspice -b deck.cir`` process on the same deck (``ngspice_s``, its peak
``ngspice_MB`` from GNU ``time -f %M``), one process for ``.tran`` and one for ``.ac``.
``ratio`` = (build + compile + tran) / ngspice; ``sys_s`` the kernel's share of those three (the
process's system CPU time: mostly first touches of fresh pages, whose cost varies from machine
to machine several times over), ``ngspice_sys`` the same of the ngspice process (GNU ``time -f
%S``); ``peak_MB`` is physlib's peak resident memory
(Linux's VmHWM) after the transient (imports included; ``kB/elem`` its growth over the warmed-up process, per
element); ``tran_diff`` = |v(n2) at 1 us - ngspice's| [V], ``ac_diff`` the relative difference
of Re v(n2) at 100 kHz (from the ``.meas`` card of the deck, which also has ``.save v(n2)``:
``ngspice -b`` runs no analysis of a deck that asks for no output, and keeps every vector of
one whose ``.meas`` is not told what to save, 55 s instead of 18 s at a million elements;
physlib keeps every vector whatever the deck says). Targets: at 1,000,000
elements build + compile + transient <= the ngspice process and peak memory <= 2x ngspice's;
time and memory per element at the largest N no worse than at 10,000.

Run from the repository root:

    python benchmarks/bench_scale.py            # full run (N up to 100000, the ladder up to 1e6)
    python benchmarks/bench_scale.py --quick    # N <= 100, the ladder to 100,000 elements
    python benchmarks/bench_scale.py --quick --ladder-sizes 200    # seconds (the test suite)
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

import casadi as cs
import numpy as np

from benchlib import machine, ms, timed

T_END = 10.0          # s, for every model and N
N_POINTS = 101        # output grid: np.linspace(0, T_END, N_POINTS)
RTOL, ATOL = 1e-6, 1e-8
MAX_NUM_STEPS = 1_000_000     # what physlib passes to the SUNDIALS integrators
DIFF_LIMIT = 1e-5

RC_R, RC_C, RC_V = 1e3, 1e-3, 1.0           # Ohm, F, V
CHAIN_J, CHAIN_C, CHAIN_D, CHAIN_TAU = 1.0, 1.0, 0.5, 1.0   # kg.m2, N.m/rad, N.m.s/rad, N.m

FULL_SIZES = {"rc_ladder": [10, 100, 1000, 10000, 100000], "chain": [10, 100, 1000]}
COMPILE_ONLY_ABOVE = 10000    # larger models are built and compiled only (no simulation)
QUICK_SIZES = {"rc_ladder": [10, 100], "chain": [10, 100]}


# --- the models -------------------------------------------------------------------------------

def build_rc_ladder(n: int):
    """The N-stage RC ladder as a physlib Model."""
    from physlib.components.electrical import VoltageSource
    from physlib.components.signals import Step
    return rc_stages(f"rc_ladder_{n}", VoltageSource("src", V=Step(height=RC_V, t0=0.0)), n, RC_R, RC_C)


def rc_stages(name: str, source, n: int, resistance: float, capacitance: float):
    """A Model of ``source`` (a voltage source, its n pin grounded) driving n stages: ``R{k}``
    from node k-1 to node k, ``C{k}`` (from 0 V) from node k to ground."""
    from physlib import Model
    from physlib.components.electrical import Capacitor, Ground, Resistor

    m = Model(name)
    src = m.add(source)
    gnd = m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, n + 1):
        r = m.add(Resistor(f"R{k}", R=resistance))
        c = m.add(Capacitor(f"C{k}", C=capacitance, v0=0.0))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def hand_rc_ladder(n: int):
    """The same ladder as an explicit ODE in CasADi SX:
    C_k v_k' = i_k - i_{k+1}, i_k = (v_{k-1} - v_k) / R_k, v_0 = 1 V, i_{N+1} = 0."""
    v = cs.SX.sym("v", n)
    R = cs.SX.sym("R", n)
    C = cs.SX.sym("C", n)
    t = cs.SX.sym("t")
    upstream = cs.vertcat(RC_V, v[:-1]) if n > 1 else cs.SX(RC_V)    # the step is 1 V for t >= 0
    i = (upstream - v) / R
    downstream = cs.vertcat(i[1:], 0) if n > 1 else cs.SX(0)
    dae = {"x": v, "p": cs.vertcat(R, C), "t": t, "ode": (i - downstream) / C}
    x0 = np.zeros(n)
    p = np.concatenate([np.full(n, RC_R), np.full(n, RC_C)])
    names = [f"C{k}.v" for k in range(1, n + 1)]
    return dae, x0, p, names


def build_chain(n: int):
    """N inertia + spring-damper units driven by a torque step, ending at a fixed flange."""
    from physlib import Model
    from physlib.components.rotational import Fixed, Inertia, SpringDamper, Torque
    from physlib.components.signals import Step

    m = Model(f"chain_{n}")
    drive = m.add(Torque("drive", tau=Step(height=CHAIN_TAU, t0=0.0)))
    flange = drive.flange
    for k in range(1, n + 1):
        inertia = m.add(Inertia(f"J{k}", J=CHAIN_J))
        coupling = m.add(SpringDamper(f"SD{k}", c=CHAIN_C, d=CHAIN_D))
        m.connect(flange, inertia.flange_a)
        m.connect(inertia.flange_b, coupling.flange_a)
        flange = coupling.flange_b
    m.connect(flange, m.add(Fixed("fixed")).flange)
    return m


def hand_chain(n: int):
    """The same chain as an explicit ODE: phi_rel_k' = w_{k+1} - w_k (w_{N+1} = 0, the fixed
    end), J_k w_k' = u_k + tau_k with tau_k = c_k phi_rel_k + d_k (w_{k+1} - w_k), u_1 = torque,
    u_k = -tau_{k-1}."""
    phi_rel, w = cs.SX.sym("phi_rel", n), cs.SX.sym("w", n)
    J, c, d = cs.SX.sym("J", n), cs.SX.sym("c", n), cs.SX.sym("d", n)
    t = cs.SX.sym("t")
    w_next = cs.vertcat(w[1:], 0) if n > 1 else cs.SX(0)
    w_rel = w_next - w
    tau = c * phi_rel + d * w_rel
    drive = cs.vertcat(CHAIN_TAU, -tau[:-1]) if n > 1 else cs.SX(CHAIN_TAU)
    dae = {"x": cs.vertcat(phi_rel, w), "p": cs.vertcat(J, c, d), "t": t,
           "ode": cs.vertcat(w_rel, (drive + tau) / J)}
    x0 = np.zeros(2 * n)
    p = np.concatenate([np.full(n, CHAIN_J), np.full(n, CHAIN_C), np.full(n, CHAIN_D)])
    ks = range(1, n + 1)
    names = [f"SD{k}.phi_rel" for k in ks] + [f"J{k}.w" for k in ks]
    return dae, x0, p, names


@dataclass(frozen=True)
class Part:
    name: str
    title: str
    build: Callable[[int], object]
    hand: Callable[[int], tuple]
    new_params: dict            # the re-simulation's parameter change
    read: str                   # a variable computed from the output map (not a state)


PARTS = {
    "rc_ladder": Part(
        "rc_ladder",
        f"RC ladder: N x (R = {RC_R:g} Ohm, C = {RC_C:g} F), 1 V step",
        build_rc_ladder, hand_rc_ladder, {"R1.R": 2 * RC_R}, "R1.i"),
    "chain": Part(
        "chain",
        f"rotational chain: N x (Inertia J = {CHAIN_J:g} kg.m2, SpringDamper c = {CHAIN_C:g} N.m/rad, "
        f"d = {CHAIN_D:g} N.m.s/rad), {CHAIN_TAU:g} N.m torque step, fixed end",
        build_chain, hand_chain, {"J1.J": 2 * CHAIN_J}, "SD1.tau"),
}


# --- measurement ------------------------------------------------------------------------------

def _peak_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10     # bytes on macOS, KiB on Linux


def _rss_mb() -> float | None:
    """Current resident set [MB] (Linux), None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def _timed_pair(first, second, repeat: int):
    """Like :func:`_timed` for two functions called alternately."""
    times, results = [float("inf"), float("inf")], [None, None]
    for _ in range(repeat):
        for i, fn in enumerate((first, second)):
            results[i] = None
            started = time.perf_counter()
            results[i] = fn()
            times[i] = min(times[i], time.perf_counter() - started)
    return (times[0], results[0]), (times[1], results[1])


_warm: dict[str, float] = {}


def warm_up(part: Part) -> float:
    """Compile a one-stage model once per process so that the classes' templates are derived;
    returns the time of that cold compile."""
    if part.name not in _warm:
        _warm[part.name], _ = timed(lambda: part.build(1).compile())
    return _warm[part.name]


def run_case(part: Part, n: int) -> dict:
    """All measurements of one model size, in the current process."""
    repeat = 7 if n <= 1000 else 5                           # runs of the cheap, repeatable steps
    rebuild = 5 if n <= 1000 else 3                          # builds and compiles
    grid = np.linspace(0.0, T_END, N_POINTS)
    opts = dict(rtol=RTOL, atol=ATOL, t_eval=grid)
    row = {"part": part.name, "n": n, "template_s": warm_up(part)}
    gc.collect()      # once per case: a full collection costs ~50 ms with SymPy loaded
    base_mb = _peak_mb()

    row["build_s"], model = timed(lambda: part.build(n), 1 if n > COMPILE_ONLY_ABOVE else rebuild)
    # The first compile of a process also pays for fresh memory pages (page faults); the
    # figure is the best of all, as for every other size, and the first one is kept too.
    row["compile_first_s"] = timed(model.compile)[0]     # its model goes before the next compile
    best, sim = timed(model.compile, rebuild - 1)
    row["compile_s"] = min(best, row["compile_first_s"])
    row["states"] = len(sim.states)
    row["algebraic"] = len(sim.algebraic)
    if n > COMPILE_ONLY_ABOVE:
        row["peak_mb"] = _peak_mb()
        row["dpeak_mb"] = row["peak_mb"] - base_mb
        return row

    def simulate(**options):
        return sim.simulate(T_END, solver="cvodes", **opts, **options)

    row["sim1_s"], _ = timed(simulate)
    row["resim_s"], _ = timed(lambda: simulate(params=part.new_params), repeat)
    row["idas1_s"], _ = timed(lambda: sim.simulate(T_END, solver="idas", **opts))
    row["idas_s"], res_idas = timed(lambda: sim.simulate(T_END, solver="idas", **opts), repeat)
    res_cvodes = simulate()
    rss_before = _rss_mb()
    row["read_s"], _ = timed(lambda: res_cvodes[part.read])     # once: the first read is the figure
    rss_after = _rss_mb()
    row["read_mb"] = None if rss_before is None else rss_after - rss_before

    _, x0, p, names = part.hand(n)
    final = {label: np.array([res[name][-1] for name in names])
             for label, res in (("cvodes", res_cvodes), ("idas", res_idas))}
    row["peak_mb"] = _peak_mb()
    row["dpeak_mb"] = row["peak_mb"] - base_mb
    del res_cvodes, res_idas

    def hand_build():
        d, _, _, _ = part.hand(n)
        options = {"abstol": ATOL, "reltol": RTOL, "max_num_steps": MAX_NUM_STEPS}
        return cs.integrator("hand", "cvodes", d, 0.0, grid[1:].tolist(), options)

    def hand_simulate():
        return np.array(integrator(x0=x0, p=p)["xf"]).reshape(len(x0), len(grid) - 1)

    row["hand_build_s"], integrator = timed(hand_build, rebuild)
    # Alternate the two so that both see the same machine load.
    (row["sim_s"], _), (row["hand_sim_s"], xf) = _timed_pair(simulate, hand_simulate, repeat)
    hand_final = xf[:, -1]
    scale = np.maximum(1.0, np.abs(hand_final))
    row["diff_cvodes"] = float(np.max(np.abs(final["cvodes"] - hand_final) / scale))
    row["diff_idas"] = float(np.max(np.abs(final["idas"] - hand_final) / scale))
    row["maxdiff"] = max(row["diff_cvodes"], row["diff_idas"])
    return row


def run_isolated(part: Part, n: int) -> dict:
    """run_case in a fresh Python process, so that ru_maxrss is this case's own peak."""
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", part.name, str(n)],
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"part": part.name, "n": n, "error": f"worker exited {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


# --- report -----------------------------------------------------------------------------------

COLUMNS = [  # header, width, row -> text
    ("part", 9, lambda r: r["part"]),
    ("N", 6, lambda r: str(r["n"])),
    ("states", 6, lambda r: str(r["states"])),
    ("build_ms", 8, lambda r: ms(r["build_s"])),
    ("compile_ms", 10, lambda r: ms(r["compile_s"])),
    ("growth", 6, lambda r: f"{r['growth']:.1f}x" if r.get("growth") else "-"),
    ("sim1_ms", 8, lambda r: ms(r["sim1_s"])),
    ("sim_ms", 8, lambda r: ms(r["sim_s"])),
    ("resim_ms", 8, lambda r: ms(r["resim_s"])),
    ("speedup", 7, lambda r: f"{r['speedup']:.0f}x"),
    ("idas_ms", 8, lambda r: ms(r["idas_s"])),
    ("hand_build_ms", 13, lambda r: ms(r["hand_build_s"])),
    ("hand_sim_ms", 11, lambda r: ms(r["hand_sim_s"])),
    ("sim/hand", 8, lambda r: f"{r['ratio']:.2f}x"),
    ("read_ms", 7, lambda r: ms(r["read_s"])),
    ("read/sim", 8, lambda r: f"{r['read_s'] / r['sim_s']:.3f}x"),
    ("read_MB", 7, lambda r: "-" if r["read_mb"] is None else f"{r['read_mb']:.0f}"),
    ("peak_MB", 7, lambda r: f"{r['peak_mb']:.0f}"),
    ("dpeak_MB", 8, lambda r: f"{r['dpeak_mb']:.0f}"),
    ("maxdiff", 8, lambda r: f"{r['maxdiff']:.1e}"),
]


def add_ratios(rows: list[dict]) -> None:
    previous = None
    for row in rows:
        if "error" in row:
            continue
        if "sim_s" in row:
            row["speedup"] = (row["compile_s"] + row["sim1_s"]) / row["resim_s"]
            row["ratio"] = row["sim_s"] / row["hand_sim_s"]
        if previous is not None:
            row["growth"] = row["compile_s"] / previous["compile_s"]
            row["growth_n"] = row["n"] / previous["n"]
        previous = row


def print_table(part: Part, rows: list[dict]) -> None:
    print(f"\n== {part.title}; t_end = {T_END:g} s, {N_POINTS} output points, "
          f"rtol = {RTOL:g}, atol = {ATOL:g}, physlib solver cvodes")
    ok = [r for r in rows if "error" not in r]
    if ok:
        print(f"   one-time template derivation (cold compile of a 1-stage model): "
              f"{ok[0]['template_s'] * 1e3:.0f} ms")
    print("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w, _) in enumerate(COLUMNS)))
    for row in rows:
        if "error" in row:
            print(f"{row['part']:<9}  {row['n']:>6}  ERROR {row['error']}")
            continue
        print("  ".join(_cell(fmt, row).rjust(w) if i else _cell(fmt, row).ljust(w)
                        for i, (_, w, fmt) in enumerate(COLUMNS)))


def _cell(fmt, row) -> str:
    """A table cell; "-" for what a compile-only case did not measure."""
    try:
        return fmt(row)
    except (KeyError, TypeError):
        return "-"


def check_targets(results: dict[str, list[dict]]) -> list[str]:
    """One line per target: [PASS], [FAIL] or [n/a ] (size not run)."""
    rows = {(r["part"], r["n"]): r for rs in results.values() for r in rs if "error" not in r}
    lines = []

    def add(passed, text):
        lines.append(f"[{'n/a ' if passed is None else 'PASS' if passed else 'FAIL'}] {text}")

    for n, limit in ((1000, 0.05), (10000, 0.5), (100000, 6.0)):
        r = rows.get(("rc_ladder", n))
        add(None if r is None else r["compile_s"] <= limit,
            f"compile of the {n}-stage RC ladder <= {limit:g} s"
            + (f": {r['compile_s']:.3f} s" if r else ": not run"))
    ordered = [r for rs in results.values() for r in rs if "error" not in r]
    for r in ordered:
        part, n = r["part"], r["n"]
        if r.get("growth"):
            limit = 1.1 * r["growth_n"]
            add(r["growth"] <= limit, f"{part} compile growth N = {n // int(r['growth_n'])} -> {n}: "
                f"{r['growth']:.1f}x <= {limit:.0f}x")
    r = rows.get(("rc_ladder", 10000))
    add(None if r is None else r["build_s"] <= 0.2,
        "model construction (add/connect) of the 10000-stage RC ladder <= 0.2 s"
        + (f": {r['build_s']:.3f} s" if r else ": not run"))
    r = rows.get(("rc_ladder", 100000))
    lines.append("[info] peak memory of the 100000-stage RC ladder (build and compile): "
                 + (f"{r['peak_mb']:.0f} MB (ru_maxrss)" if r else "not run"))
    lines.append("[info] first compile of the 100000-stage RC ladder in its process: "
                 + (f"{r['compile_first_s']:.3f} s" if r else "not run"))
    big = [r for r in ordered if r["n"] >= 1000 and "ratio" in r]
    for r in big:
        part, n = r["part"], r["n"]
        add(r["ratio"] <= 1.2,
            f"{part} N = {n}: simulate / hand-written CasADi = {r['ratio']:.2f}x <= 1.2x")
    if not big:
        add(None, "simulate <= 1.2x hand-written CasADi (checked at N >= 1000): not run")
    for part in results:
        r = rows.get((part, 1000))
        add(None if r is None or "speedup" not in r else r["speedup"] >= 50,
            f"{part} N = 1000: (compile + first simulate) / re-simulate >= 50x"
            + (f": {r['speedup']:.0f}x" if r else ": not run"))
    r = rows.get(("rc_ladder", 10000))
    add(None if r is None else r["peak_mb"] <= 2048,
        "peak memory of the 10000-stage RC ladder <= 2 GB"
        + (f": {r['peak_mb']:.0f} MB (ru_maxrss)" if r else ": not run"))
    r = rows.get(("rc_ladder", 10000))
    add(None if r is None else r["read_s"] < 0.1 and (r["read_mb"] or 0.0) < 50,
        "first read of one variable of the 10000-stage RC ladder < 0.1 s and < 50 MB"
        + (f": {r['read_s'] * 1e3:.1f} ms, " + ("-" if r["read_mb"] is None else f"{r['read_mb']:.0f} MB")
           if r else ": not run"))
    worst = max((r["maxdiff"] for r in rows.values() if "maxdiff" in r), default=None)
    add(None if worst is None else worst < DIFF_LIMIT,
        f"physlib final states agree with the hand-written model (max rel. diff < {DIFF_LIMIT:g})"
        + (f": worst {worst:.1e}" if worst is not None else ""))
    return lines


# --- the million-element ladder against ngspice ----------------------------------------------

# The ladder of bench_spice.py at up to a million elements: V1 (0 -> 1 V in 1 us) drives N/2
# stages of 1 kOhm and 1 nF (N elements besides the source), so tau = 1 us per stage.
LADDER_SIZES = [10_000, 100_000, 1_000_000]     # elements
QUICK_LADDER_SIZES = [10_000, 100_000]
LADDER_R, LADDER_C, LADDER_RISE = 1e3, 1e-9, 1e-6          # Ohm, F, s
LADDER_TRAN = ".tran 0.5u 1u"
LADDER_TSTEP, LADDER_TSTOP = 0.5e-6, 1e-6
LADDER_AC = ".ac dec 5 1k 1meg"                 # 16 frequencies (_ac_frequencies), every node voltage
LADDER_AC_PROBE = 1e5                           # Hz, a frequency of the sweep
LADDER_REPEAT = {10_000: 3, 100_000: 2}         # fresh processes per side (best of); above: one


def ladder_deck(n: int, card: str) -> str:
    """The N-element ladder as a deck with one analysis card, ``.save v(n2)`` and the .meas
    of v(n2) that ngspice prints (its probe value). ``ngspice -b`` runs no analysis of a deck
    without an output request ("no simulations run"); with a .meas but no .save it keeps
    every vector of the run (55 s instead of 18 s at a million elements)."""
    lines = ["RC ladder", f"V1 n0 0 DC 0 AC 1 PULSE(0 1 0 {LADDER_RISE:g} {LADDER_RISE:g} 1 2)"]
    for k in range(1, n // 2 + 1):
        lines += [f"R{k} n{k - 1} n{k} 1k", f"C{k} n{k} 0 1n"]
    measure = (f".meas tran probe find v(n2) at={LADDER_TSTOP:g}" if card.startswith(".tran") else
               f".meas ac probe find v(n2) at={LADDER_AC_PROBE:g}")   # ngspice: the real part
    return "\n".join(lines + [card, ".save v(n2)", measure, ".end"]) + "\n"


def build_deck_ladder(n: int):
    """The same ladder built in Python: ``V1`` a ``Ramp`` (the PULSE's rise; the run ends
    where it does), ``R{k}`` from node k-1 to node k, ``C{k}`` from node k to ground."""
    from physlib.components.electrical import VoltageSource
    from physlib.components.signals import Ramp
    return rc_stages(f"ladder_{n}", VoltageSource("V1", V=Ramp(height=1.0, duration=LADDER_RISE)),
                     n // 2, LADDER_R, LADDER_C)


def _ac_frequencies():
    """The frequencies of LADDER_AC [Hz], as physlib.spice sweeps them."""
    from physlib.spice.analyses import ac_frequencies
    return ac_frequencies("dec", 5, 1e3, 1e6)


def _probe_index(freqs) -> int:
    """The sweep's frequency at LADDER_AC_PROBE (one of its points, to rounding)."""
    return int(np.argmin(np.abs(freqs - LADDER_AC_PROBE)))


def ladder_worker(path: str, n: int) -> dict:
    """One fresh process's run of the N-element ladder: ``path`` "python" (built with
    add/connect, simulated with the options the deck's .tran gets) or "deck" (read by
    physlib.spice and run as ngspice would). Stages: build (or read), compile, the 1 us
    transient (the first simulate: its solver functions included), then the .ac sweep (the
    operating point, the linear model and the response of every node voltage); ``peak_mb``
    after the transient, ``peak_ac_mb`` after the sweep, ``base_mb`` after the warm-up."""
    warm = 4                                   # derive the classes, import every module used
    row = {"path": path, "n": n}
    if path == "python":
        sim = build_deck_ladder(warm).compile()
        sim.simulate(LADDER_TSTOP, t_eval=[0.0, LADDER_TSTOP])
        sim.linearize(["V1.V"], ["C1.v"], at=sim.operating_point()).frequency_response([1e3])
    else:
        import physlib.spice as spice
        from physlib.spice.runs import run_ac
        deck = spice.read(ladder_deck(warm, LADDER_TRAN))
        deck.run()
        run_ac(deck, _ac_frequencies(), None)
        # the file, as ngspice is given one: making its text (0.3 s at a million elements) is
        # not reading it
        deck_file = os.path.join(tempfile.mkdtemp(), f"ladder_{n}.cir")
        with open(deck_file, "w") as f:
            f.write(ladder_deck(n, LADDER_TRAN))
    gc.collect()
    row["base_mb"] = _own_peak_mb()
    grid = np.array([0.0, LADDER_TSTEP, LADDER_TSTOP])
    freqs = _ac_frequencies()
    kernel = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    started = time.perf_counter()
    if path == "python":
        model = build_deck_ladder(n)
        row["build_s"] = time.perf_counter() - started
        started = time.perf_counter()
        sim = model.compile()
        row["compile_s"] = time.perf_counter() - started
        started = time.perf_counter()
        # the deck's .tran options (physlib.spice.runs.run_tran): rtol 1e-6, atol 1e-8,
        # max_step min(tstep, tstop/50)
        res = sim.simulate(LADDER_TSTOP, t_eval=grid, rtol=1e-6, atol=1e-8,
                           max_step=min(LADDER_TSTEP, LADDER_TSTOP / 50))
        row["tran_s"] = time.perf_counter() - started
        row["probe"] = float(res["C2.v"][-1])
        row["sys_s"] = resource.getrusage(resource.RUSAGE_SELF).ru_stime - kernel
        del res
        row["peak_mb"] = _own_peak_mb()
        started = time.perf_counter()
        nodes = [f"C{k}.v" for k in range(1, n // 2 + 1)]
        lin = sim.linearize(["V1.V"], nodes, at=sim.operating_point())
        response = lin.frequency_response(freqs)
        row["ac_s"] = time.perf_counter() - started
        row["ac_probe"] = float(response[1, 0, _probe_index(freqs)].real)
        del lin, response
        row["peak_ac_mb"] = _own_peak_mb()
        # the same transient on simulate's default grid: 501 rows of every state (the rows'
        # memory grows with the model: 2 GB at a million elements)
        kernel, started = resource.getrusage(resource.RUSAGE_SELF).ru_stime, time.perf_counter()
        res = sim.simulate(LADDER_TSTOP, rtol=1e-6, atol=1e-8, max_step=min(LADDER_TSTEP, LADDER_TSTOP / 50))
        row["grid_s"] = time.perf_counter() - started
        row["grid_sys_s"] = resource.getrusage(resource.RUSAGE_SELF).ru_stime - kernel
        row["grid_rows"] = len(res.t)
        return row
    else:
        import physlib.spice as spice
        from physlib.spice.runs import run_ac
        deck = spice.read(deck_file)
        row["build_s"] = time.perf_counter() - started
        shutil.rmtree(os.path.dirname(deck_file))
        started = time.perf_counter()
        deck.compile()
        row["compile_s"] = time.perf_counter() - started
        started = time.perf_counter()
        result = deck.run()
        row["tran_s"] = time.perf_counter() - started
        row["probe"] = float(result["meas"]["probe"])
        row["sys_s"] = resource.getrusage(resource.RUSAGE_SELF).ru_stime - kernel
        del result
        row["peak_mb"] = _own_peak_mb()
        started = time.perf_counter()
        ac = run_ac(deck, freqs, None)            # the deck's own .ac path, on the deck read
        response = ac["v(n2)"]
        row["ac_s"] = time.perf_counter() - started
        row["ac_probe"] = float(response[_probe_index(freqs)].real)
    row["peak_ac_mb"] = _own_peak_mb()
    return row


def _own_peak_mb() -> float:
    """This process's peak resident memory [MB]: Linux's VmHWM, which starts afresh with the
    program (``ru_maxrss`` of a process started by a larger one counts that one's pages
    until the exec); ``ru_maxrss`` elsewhere."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 2**10
    except (OSError, StopIteration, ValueError):
        return _peak_mb()


def run_ngspice(n: int, card: str, folder: str) -> dict:
    """The whole ``ngspice -b deck.cir`` process on the N-element ladder with ``card``: wall
    time, its peak resident memory and the .meas value; {} without ngspice. The peak is GNU
    time's (``time -f %M``; None without GNU time): a child forked from this process would
    count this process's pages in its ``ru_maxrss`` until it runs ngspice."""
    if shutil.which("ngspice") is None:
        return {}
    path = os.path.join(folder, f"ladder_{card.split()[0][1:]}_{n}.cir")
    with open(path, "w") as f:
        f.write(ladder_deck(n, card))
    gnu_time = _gnu_time()
    command = ([gnu_time, "-f", "peak_kib %M sys_s %S"] if gnu_time else []) + ["ngspice", "-b", path]
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=folder)
    elapsed = time.perf_counter() - started
    found = re.search(r"^probe\s*=\s*([-+0-9.eE]+)", proc.stdout, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"ngspice printed no probe value for the {n}-element deck: "
                           f"{proc.stdout[-400:]} {proc.stderr[-400:]}")
    peak = re.search(r"^peak_kib (\d+) sys_s ([0-9.]+)$", proc.stderr, re.MULTILINE)
    return {"s": elapsed, "mb": int(peak.group(1)) / 2**10 if peak else None,
            "sys_s": float(peak.group(2)) if peak else None, "probe": float(found.group(1))}


def _gnu_time() -> str | None:
    """The path of GNU time (whose ``-f %M`` prints a command's peak memory), or None."""
    found = shutil.which("time")
    if found and subprocess.run([found, "-f", "%M", sys.executable, "-c", ""],
                                capture_output=True).returncode == 0:
        return found
    return None


def _ladder_isolated(path: str, n: int) -> dict:
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--ladder-worker", path, str(n)],
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"path": path, "n": n, "error": f"worker exited {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def _best(runs: list[dict]) -> dict:
    """The best of repeated runs, stage by stage (each stage's least time, the least peaks)."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[0]
    best = dict(ok[0])
    for key in ("build_s", "compile_s", "tran_s", "ac_s", "peak_mb", "peak_ac_mb", "base_mb", "s", "mb", "sys_s",
                "grid_s", "grid_sys_s"):
        if key in best:
            best[key] = min(r[key] for r in ok)
    return best


def run_ladders(sizes: list[int]) -> list[dict]:
    """physlib (Python-built and deck) and ngspice on each ladder size, fresh processes each."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_scale_ladder_") as folder:
        for n in sizes:
            repeat = LADDER_REPEAT.get(n, 1)
            tran = _best([run_ngspice(n, LADDER_TRAN, folder) for _ in range(repeat)])
            ac = _best([run_ngspice(n, LADDER_AC, folder) for _ in range(repeat)])
            for path in ("python", "deck"):
                row = _best([_ladder_isolated(path, n) for _ in range(repeat)])
                row["ngspice"], row["ngspice_ac"] = tran, ac
                rows.append(row)
    return rows


def print_ladders(rows: list[dict]) -> None:
    print(f"\n== the RC ladder of N elements (N/2 stages of 1 kOhm and 1 nF, a 1 V ramp over 1 us) "
          f"against the ngspice-39 process on the same deck; {LADDER_TRAN}, {LADDER_AC} (every node "
          f"voltage); one fresh process per run, best of {LADDER_REPEAT} runs (one above); build = "
          f"add/connect (python) or physlib.spice.read of the deck's file (deck); peak = VmHWM after the transient")
    print(f"{'path':<6} {'N':>8} {'build_s':>8} {'compile_s':>9} {'tran_s':>7} {'total_s':>8} {'sys_s':>6} "
          f"{'ngspice_s':>9} {'ngspice_sys':>11} {'ratio':>6} {'us/elem':>7} {'peak_MB':>7} {'ngspice_MB':>10} {'ratio':>6} "
          f"{'kB/elem':>7} {'ac_s':>7} {'ngspice_ac_s':>12} {'tran_diff':>9} {'ac_diff':>8} {'grid_s':>7} "
          f"{'grid_sys':>8}")
    for r in rows:
        if "error" in r:
            print(f"{r['path']:<6} {r['n']:>8}  ERROR {r['error']}")
            continue
        r["total_s"] = r["build_s"] + r["compile_s"] + r["tran_s"]
        ng, ng_ac = r["ngspice"], r["ngspice_ac"]
        r["ratio"] = r["total_s"] / ng["s"] if ng else None
        r["mem_ratio"] = r["peak_mb"] / ng["mb"] if ng.get("mb") else None
        r["tran_diff"] = abs(r["probe"] - ng["probe"]) if ng else None
        r["ac_diff"] = abs(r["ac_probe"] - ng_ac["probe"]) / abs(ng_ac["probe"]) if ng_ac else None

        def cell(value, fmt):
            return "-" if value is None else format(value, fmt)
        print(f"{r['path']:<6} {r['n']:>8} {r['build_s']:>8.2f} {r['compile_s']:>9.2f} {r['tran_s']:>7.2f} "
              f"{r['total_s']:>8.2f} {r['sys_s']:>6.2f} {cell(ng.get('s'), '9.2f'):>9} "
              f"{cell(ng.get('sys_s'), '11.2f'):>11} {cell(r['ratio'], '5.2f') + 'x':>6} "
              f"{1e6 * r['total_s'] / r['n']:>7.1f} {r['peak_mb']:>7.0f} {cell(ng.get('mb'), '10.0f'):>10} "
              f"{cell(r['mem_ratio'], '5.2f') + 'x':>6} {1e3 * (r['peak_mb'] - r['base_mb']) / r['n']:>7.2f} "
              f"{r['ac_s']:>7.2f} {cell(ng_ac.get('s'), '12.2f'):>12} {cell(r['tran_diff'], '9.1e'):>9} "
              f"{cell(r['ac_diff'], '8.1e'):>8} {cell(r.get('grid_s'), '7.2f'):>7} {cell(r.get('grid_sys_s'), '8.2f'):>8}")


def ladder_targets(rows: list[dict]) -> list[str]:
    """The million-element targets (issue 40) and the per-element growth against 10,000."""
    lines = []
    ok = {(r["path"], r["n"]): r for r in rows if "error" not in r}

    def add(passed, text):
        lines.append(f"[{'n/a ' if passed is None else 'PASS' if passed else 'FAIL'}] {text}")

    for path in ("python", "deck"):
        r = ok.get((path, 1_000_000))
        if r is None or r["ratio"] is None:
            add(None, f"{path} N = 1,000,000: build + compile + 1 us transient <= the ngspice process, "
                "peak memory <= 2x ngspice's: not run")
        else:
            add(r["ratio"] <= 1.0, f"{path} N = 1,000,000: build + compile + 1 us transient "
                f"{r['total_s']:.1f} s <= the ngspice process {r['ngspice']['s']:.1f} s ({r['ratio']:.2f}x)")
            add(None if r["mem_ratio"] is None else r["mem_ratio"] <= 2.0,
                f"{path} N = 1,000,000: peak memory {r['peak_mb']:.0f} MB <= 2x ngspice's "
                + ("(not measured: no GNU time)" if r["mem_ratio"] is None else
                   f"{r['ngspice']['mb']:.0f} MB ({r['mem_ratio']:.2f}x)"))
        small = ok.get((path, 10_000))
        largest = max((r for r in ok.values() if r["path"] == path), key=lambda r: r["n"], default=None)
        if small is None or largest is None or largest is small:
            continue
        per = lambda r: r["total_s"] / r["n"]                                 # noqa: E731
        mem = lambda r: (r["peak_mb"] - r["base_mb"]) / r["n"]                # noqa: E731
        add(per(largest) <= per(small), f"{path}: time per element at N = {largest['n']:,} "
            f"{1e6 * per(largest):.1f} us <= at 10,000 ({1e6 * per(small):.1f} us)")
        add(mem(largest) <= mem(small), f"{path}: memory per element at N = {largest['n']:,} "
            f"{1e3 * mem(largest):.2f} kB <= at 10,000 ({1e3 * mem(small):.2f} kB)")
    grid = [r for r in (ok.get(("python", n)) for n in (10_000, max(n for _, n in ok) if ok else 0))
            if r is not None and r.get("grid_s") is not None]
    if len(grid) == 2 and grid[1]["n"] > grid[0]["n"]:
        lines.append(f"[info] python: the default grid's rows, time per element at N = {grid[1]['n']:,} "
                     f"{1e6 * grid[1]['grid_s'] / grid[1]['n']:.2f} us against "
                     f"{1e6 * grid[0]['grid_s'] / grid[0]['n']:.2f} us at 10,000")
    diffs = [r["tran_diff"] for r in ok.values() if r.get("tran_diff") is not None]
    add(None if not diffs else max(diffs) < 1e-3,
        "v(n2) at 1 us agrees with ngspice's within 1e-3 V" + (f": worst {max(diffs):.1e} V" if diffs else ""))
    diffs = [r["ac_diff"] for r in ok.values() if r.get("ac_diff") is not None]
    add(None if not diffs else max(diffs) < 1e-3,
        f"Re v(n2) at {LADDER_AC_PROBE:g} Hz agrees with ngspice's within 1e-3 (relative)"
        + (f": worst {max(diffs):.1e}" if diffs else ""))
    return lines


# --- entry point ------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="N <= 100 only, a few seconds (test suite)")
    parser.add_argument("--rc-sizes", type=int, nargs="+", help="override the RC ladder sizes")
    parser.add_argument("--chain-sizes", type=int, nargs="+", help="override the chain sizes")
    parser.add_argument("--in-process", action="store_true",
                        help="run every case in this process (faster; memory columns only indicative)")
    parser.add_argument("--json", metavar="PATH", help="also write the raw measurements to PATH")
    parser.add_argument("--ladder-sizes", type=int, nargs="*",
                        help="element counts of the ladder against ngspice (default 10000 100000 "
                             "1000000; --quick: 10000 100000; none: skip it)")
    parser.add_argument("--worker", nargs=2, metavar=("PART", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--ladder-worker", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        print(json.dumps(run_case(PARTS[args.worker[0]], int(args.worker[1]))))
        return 0
    if args.ladder_worker:
        print(json.dumps(ladder_worker(args.ladder_worker[0], int(args.ladder_worker[1]))))
        return 0

    sizes = dict(QUICK_SIZES if args.quick else FULL_SIZES)
    if args.rc_sizes:
        sizes["rc_ladder"] = args.rc_sizes
    if args.chain_sizes:
        sizes["chain"] = args.chain_sizes
    in_process = args.in_process or args.quick
    print(f"bench_scale ({'quick' if args.quick else 'full'}; "
          f"{'in-process' if in_process else 'one fresh process per case'})")
    print(machine())

    results: dict[str, list[dict]] = {}
    for name, ns in sizes.items():
        part = PARTS[name]
        rows = []
        for n in sorted(ns):
            if in_process:
                try:
                    rows.append(run_case(part, n))
                except Exception as err:     # report, keep going, exit 1 at the end
                    rows.append({"part": name, "n": n, "error": f"{type(err).__name__}: {err}"})
            else:
                rows.append(run_isolated(part, n))
        add_ratios(rows)
        results[name] = rows
        print_table(part, rows)

    ladder_sizes = args.ladder_sizes if args.ladder_sizes is not None else \
        QUICK_LADDER_SIZES if args.quick else LADDER_SIZES
    ladders = run_ladders(sorted(ladder_sizes))
    if ladders:
        print_ladders(ladders)

    print("\ntargets (informative; they do not change the exit code)")
    for line in check_targets(results) + (ladder_targets(ladders) if ladders else []):
        print("  " + line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**results, "ladder_vs_ngspice": ladders}, f, indent=1)
    crashed = [r for rs in [*results.values(), ladders] for r in rs if "error" in r]
    print(f"\nbench_scale: done ({len(crashed)} case(s) failed to run)")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
