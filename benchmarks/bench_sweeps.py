"""Sweep benchmark: the same parameter sweep serially, in 2 local processes and on 2 dask workers.

Model: ``bench_scale.build_rc_ladder(100)`` (100 RC stages, 1 V step), simulated for 10 s with
the default solver (IDAS, rtol 1e-6, atol 1e-8, 501 output points): about 5 ms a run. Sweep: a
20 × 20 grid of R1.R (0.5..2 kΩ) and C1.C (0.5..2 mF), 400 runs; each run's summary is the
final voltage of C1, C10 and C100, so only three numbers per run travel back.

Executors (see :mod:`physlib.analysis.sweeps`): ``serial``; ``processes`` with 2 workers (a
fresh spawn pool per sweep, the model loaded once per worker by the pool's initializer); dask
with 2 single-threaded worker processes of a ``LocalCluster`` started before the timing and
warmed up by one small sweep (so its workers have imported physlib), the model scattered once
per worker per sweep. The cluster is started without dask's ``MALLOC_TRIM_THRESHOLD_=65536``
(which makes every run about 1.6× slower, see ``restore_malloc_thresholds``); the full run
then repeats the dask case on a cluster with dask's default environment, for comparison
(``dask-default``, last: that cluster also sets the variable in this process).

Measured for each executor (wall clock, ``time.perf_counter``; one sweep each after a serial
warm-up run):

* ``wall``     the whole ``sweep`` call.
* ``startup``  from the start of the parallel phase until every worker had begun its first
  chunk (``table.timing["startup"]``): starting the pool (spawn + importing physlib, about 1.5
  s per process, in parallel), loading the model; for dask the scatter and the first task.
* ``busy``     summed over the workers, the time from the start of a worker's first chunk to the
  end of its last (``table.timing["worker_seconds"]``): the worker time the runs took once
  the workers were up, whenever each of them came up.
* ``speedup``  serial wall / wall (all costs included), and ``steady``: workers × the serial
  time of the runs made in the workers / busy, the speedup of a sweep long enough that
  startup does not count.
* ``overhead`` per run [ms]: (busy − the runs' own times in the workers) / their number: the
  worker time spent outside the runs (receiving chunks, pickling results, waiting for the
  next task), the executor's cost per run; ``idle`` [ms] is the same per task (chunk).
* ``slower``   per run [ms]: (the runs' own times in the workers − their serial time) / their
  number: how much longer the same run takes while the other worker runs too (two processes
  sharing caches, memory bandwidth and the clock boost of a 2-core VM), not an executor cost.

Targets (issue 12): steady speedup ≥ 1.7× with processes and ≥ 1.5× with dask, overhead per
run ≤ 0.5 ms; the results of every executor identical to the serial ones, bit for bit. Then a
projection to 100 dask workers (on machines of their own: without the ``slower`` of two
workers sharing one VM) from the measured per-run overhead and per-task cost (printed with
its formula). Run from the repository root: ``python benchmarks/bench_sweeps.py
[--quick]`` (``--quick``: a 10-stage ladder, 40 runs, a few seconds plus the pool and cluster
starts; run by the test suite). Exits 0 whatever the targets say (1 only if a case crashed).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from bench_scale import build_rc_ladder
from benchlib import machine

import physlib
from physlib.analysis.sweeps.executors import MIN_CHUNK_SECONDS, chunk_sizes

T_END = 10.0


class FinalVoltages:
    """Summary of one run: the final voltages [V] of the first, tenth and last capacitors."""

    def __init__(self, stages: int):
        self.names = ["C1.v", f"C{min(10, stages)}.v", f"C{stages}.v"]

    def __call__(self, res) -> dict:
        return {name: res[name][-1] for name in self.names}


def measure(sim, params, summary, executor, workers, serial_run: float | None) -> dict:
    started = time.perf_counter()
    table = physlib.sweep(sim, params, summary=summary, executor=executor, workers=workers, t_end=T_END)
    wall = time.perf_counter() - started
    timing = table.timing
    out = {"table": table, "wall": wall, "startup": timing["startup"], "busy": timing["worker_seconds"],
           "workers": timing["workers"], "chunks": timing["chunks"]}
    if timing["executor"] == "serial":
        out["busy"] = wall
    else:
        parallel_runs, busy = len(table) - 2, timing["worker_seconds"]
        in_workers = sum(row.seconds for row in table.rows[2:])
        out["overhead"] = (busy - in_workers) / parallel_runs
        out["idle"] = (busy - in_workers) / len(timing["chunks"])
        out["slower"] = (in_workers - parallel_runs * serial_run) / parallel_runs
        out["steady"] = timing["workers"] * parallel_runs * serial_run / busy
    return out


def measure_on_dask(sim, params, summary, serial_run, config, distributed, dask) -> dict:
    """``measure`` on a 2-worker LocalCluster started with the dask ``config`` and warmed up by
    a 4-run sweep (workers import physlib); the start is printed, not counted."""
    started = time.perf_counter()
    with dask.config.set(config):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    with cluster, distributed.Client(cluster) as client:
        physlib.sweep(sim, {"R1.R": [1e3] * 4}, summary=summary, executor=client, t_end=T_END)
        print(f"dask LocalCluster ({'without' if config else 'with'} MALLOC_TRIM_THRESHOLD_): 2 workers "
              f"started and warmed up in {time.perf_counter() - started:.1f} s (not in the numbers below)")
        return measure(sim, params, summary, client, None, serial_run)


def same_rows(a, b) -> bool:
    return [(r.params, r.values, r.error) for r in a] == [(r.params, r.values, r.error) for r in b]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10-stage ladder, 40 runs")
    args = parser.parse_args(argv)
    stages, r_points, c_points = (10, 20, 2) if args.quick else (100, 20, 20)
    params = {"R1.R": list(np.linspace(500.0, 2e3, r_points)), "C1.C": list(np.linspace(0.5e-3, 2e-3, c_points))}
    n_runs = r_points * c_points
    summary = FinalVoltages(stages)
    print(machine())
    load_before = os.getloadavg()[0]
    sim = build_rc_ladder(stages).compile()
    sim.simulate(T_END)                               # builds the integrator once
    print(f"bench_sweeps: {n_runs} runs of the {stages}-stage RC ladder (simulate {T_END:g} s, idas, "
          "501 points), 2 workers")
    rows, crashed = {}, 0
    try:
        serial = measure(sim, params, summary, "serial", None, None)
        serial["steady"] = 1.0
        rows["serial"] = serial
    except Exception as err:            # without the serial baseline nothing can be compared
        print(f"ERROR serial: {type(err).__name__}: {err}")
        return 1
    serial_run = serial["wall"] / n_runs
    print(f"one run serially: {serial_run * 1e3:.2f} ms")
    try:
        rows["processes"] = measure(sim, params, summary, "processes", 2, serial_run)
    except Exception as err:            # report and go on
        crashed += 1
        print(f"ERROR processes: {type(err).__name__}: {err}")
    try:
        import dask
        import distributed
    except ImportError:
        print("dask: not installed (pip install physlib[dask]); its case is left out")
    else:
        clusters = [("dask", {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})]
        if not args.quick:
            clusters.append(("dask-default", {}))
        for label, config in clusters:
            try:
                rows[label] = measure_on_dask(sim, params, summary, serial_run, config, distributed, dask)
            except Exception as err:    # report and go on
                crashed += 1
                print(f"ERROR {label}: {type(err).__name__}: {err}")

    print(f"{'executor':<12} {'workers':>7} {'wall_s':>7} {'startup_s':>9} {'busy_s':>7} {'speedup':>8} "
          f"{'steady':>7} {'overhead_ms/run':>16} {'idle_ms/task':>13} {'slower_ms/run':>14} {'chunks':>7}")
    for label, r in rows.items():
        extra = (f"{r['overhead'] * 1e3:>16.3f} {r['idle'] * 1e3:>13.2f} {r['slower'] * 1e3:>14.2f} "
                 f"{len(r['chunks']):>7}" if "overhead" in r else f"{'-':>16} {'-':>13} {'-':>14} {'-':>7}")
        print(f"{label:<12} {r['workers']:>7} {r['wall']:>7.2f} {r['startup']:>9.2f} {r['busy']:>7.2f} "
              f"{serial['wall'] / r['wall']:>7.2f}x {r['steady']:>6.2f}x {extra}")

    print("targets:")
    for label, target in (("processes", 1.7), ("dask", 1.5)):
        if label in rows:
            r = rows[label]
            print(f"  [{'PASS' if r['steady'] >= target else 'FAIL'}] {label}: steady speedup "
                  f"{r['steady']:.2f}x (target >= {target}x; {serial['wall'] / r['wall']:.2f}x with the "
                  f"{r['startup']:.2f} s startup)")
            print(f"  [{'PASS' if r['overhead'] <= 0.5e-3 else 'FAIL'}] {label}: overhead per run "
                  f"{r['overhead'] * 1e3:.3f} ms (target <= 0.5 ms)")
    identical = all(same_rows(r["table"], serial["table"]) for r in rows.values())
    print(f"  [{'PASS' if identical else 'FAIL'}] results identical to the serial ones on every "
          f"executor ({', '.join(rows)})")

    if "dask" in rows:
        r = rows["dask"]
        print()
        print("projection to 100 dask workers, one per machine, with t = t_run + overhead per run:")
        print("  T = startup + max(N·t/min(W, tasks), largest chunk·t, tasks·idle); chunks from the "
              "chunking rule; the last term bounds a scheduler that handles tasks one at a time")
        t = serial_run + max(r["overhead"], 0.0)
        for n in (n_runs, 100_000):
            sizes = chunk_sizes(n, serial_run, 100, MIN_CHUNK_SECONDS["dask"])
            tasks = len(sizes)
            total = r["startup"] + max(n * t / min(100, tasks), max(sizes) * t, tasks * max(r["idle"], 0.0))
            speedup = n * serial_run / total
            print(f"  N = {n:>7}: {tasks:>4} tasks, {total:8.2f} s against {n * serial_run:9.1f} s serially: "
                  f"{speedup:6.1f}x ({speedup:.0f}% of the ideal 100x)")
    print(f"load average (1 min) at the start {load_before:.2f}, at the end {os.getloadavg()[0]:.2f}: other "
          "processes on the machine make the parallel runs slower (column slower_ms/run)")
    print(f"bench_sweeps: done ({crashed} case(s) failed to run)")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
