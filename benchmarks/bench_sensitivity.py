"""Sensitivities and fitting: their cost in plain simulations of the same model in the same run.

Printed, each against ``sim.simulate`` with the same options (best of a few warm calls; the
ratio is the cost in simulations, issue 38's measure):

* forward sensitivities (``sim.sensitivity``) of an RC ladder of 100 stages (R{k} = 1 kΩ,
  C{k} = 1 µF, charged from rest by 1 V; 100 outputs over 10 ms) by Np = 1, 2, 5, 10, 20 of its
  resistors, and of the DC motor of examples/dc_motor.py by one (R) and by all five of its
  parameters (100 outputs over 1 s, rtol 1e-8): target ≤ 1 + 0.5·Np;
* the adjoint gradient (``sim.gradient`` of a sum of squares of C9.v at 100 samples) of a 1,000-stage
  ladder by Np = 10, 50, 200 of its resistors (``--quick``: 200 stages): target ≤ 25 whatever Np;
* forward sensitivities of the ideal buck of examples/buck_converter.py (a PWM switch and an
  ideal diode: two mode changes per 20 µs period) over 10 ms, by its choke, capacitor and duty:
  target ≤ 4;
* the DC-motor fit of benchmarks/bench_fit.py (five parameters, 1 % noise, seed 0, start 0.5× to
  2× off): its time per fit and in simulations; target ≤ 0.1 s.

The machine is shared: wall times move with its load (a 100-stage ladder's plain run took 4.5
ms in one run and 11.7 ms in the next), so the ratios are of processor times (best of a few
calls; the runs are single-threaded), the wall times printed beside them; the fit's processor
time likewise (it was 44 ms where the wall time was 96 ms under a load of 7 on 2 cores).
Run: python benchmarks/bench_sensitivity.py [--quick]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from bench_export_c import ladder     # R{k} = 1 kΩ, C{k} = 1 µF, a 1 V source, from rest
from benchlib import machine, ms, timed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def row(label, fn, plain, target, repeat=2):
    """One line: ``fn``'s wall and processor time, and the latter in plain simulations
    (``plain``: their processor time)."""
    seconds, _ = timed(fn, repeat=repeat)
    ratio = best_processor_time(fn, repeat) / plain
    verdict = "ok" if ratio <= target else "OVER"
    print(f"  {label:<34}{ms(seconds):>9} ms {ratio:8.2f} sims   target ≤ {target:<5g} {verdict}")


def plain_run(label, fn, repeat=3):
    """The processor time of the plain simulation ``fn`` (best of ``repeat``), printed; and its result."""
    seconds, result = timed(fn, repeat=repeat)
    cpu = best_processor_time(fn, repeat)
    print(f"{label}: plain simulation {ms(seconds)} ms ({ms(cpu)} ms of processor time)")
    return cpu, result


def best_processor_time(fn, repeat) -> float:
    return min(processor_time(fn) for _ in range(repeat))


def forward(label, sim, t_end, names_by_count, **options):
    plain, _ = plain_run(label, lambda: sim.simulate(t_end, **options))
    for names in names_by_count:
        sim.sensitivity(t_end, params=names, **options)                 # its functions built
        row(f"forward, Np = {len(names)}", lambda: sim.sensitivity(t_end, params=names, **options), plain,
            1 + 0.5 * len(names))


def adjoint(n, counts):
    from physlib.analysis.sensitivity import sum_of_squares
    sim = ladder(n).compile()
    t = np.linspace(1e-4, 1e-2, 100)
    plain, run = plain_run(f"ladder of {n} stages, adjoint gradient", lambda: sim.simulate(1e-2, t_eval=t))
    objective = sum_of_squares({"C9.v": 1.1 * run["C9.v"]})      # the tenth stage: a signal within 10 ms
    for count in counts:
        names = [f"R{k}.R" for k in range(count)]
        sim.gradient(objective, names, 1e-2, t_eval=t)
        row(f"adjoint, Np = {count}", lambda: sim.gradient(objective, names, 1e-2, t_eval=t), plain, 25)


def buck():
    import buck_converter
    sim = buck_converter.build().compile()
    options = {"t_eval": np.linspace(1e-4, 1e-2, 100), "max_events": 10_000}
    plain, run = plain_run("ideal buck over 10 ms", lambda: sim.simulate(1e-2, **options), repeat=2)
    names = ["L1.L", "C1.C", "S1.control.duty"]
    sim.sensitivity(1e-2, params=names, **options)
    row(f"forward, Np = 3 ({len(run.events)} events)", lambda: sim.sensitivity(1e-2, params=names, **options), plain, 4)


def motor_fit():
    import bench_fit
    import dc_motor
    import physlib
    sim = dc_motor.build().compile()
    t = np.linspace(0.01, 1.0, 100)
    _, run = timed(lambda: sim.simulate(1.0, t_eval=t, rtol=1e-8, atol=1e-10), repeat=3)
    plain = best_processor_time(lambda: sim.simulate(1.0, t_eval=t, rtol=1e-8, atol=1e-10), 3)
    clean = {"L1.i": run["L1.i"], "rotor.w": run["rotor.w"]}
    sigma = {path: 0.01 * np.max(np.abs(y)) for path, y in clean.items()}
    rng = np.random.default_rng(0)
    data = {path: y + sigma[path] * rng.standard_normal(t.size) for path, y in clean.items()}
    start = np.exp(np.random.default_rng(10_000).uniform(np.log(0.5), np.log(2.0), len(bench_fit.TRUTH)))
    params = {n: (v * f, v / 100, v * 100) for (n, v), f in zip(bench_fit.TRUTH.items(), start)}
    experiment = physlib.Experiment(data=(t, data), sigma=sigma)
    physlib.fit(sim, experiment, params=params)
    seconds, result = timed(lambda: physlib.fit(sim, experiment, params=params), repeat=3)
    cpu = best_processor_time(lambda: physlib.fit(sim, experiment, params=params), 3)
    print(f"DC-motor fit (5 parameters, {result.nfev} runs): {ms(seconds)} ms ({ms(cpu)} ms of processor time), "
          f"{cpu / plain:.1f} plain simulations of {ms(plain)} ms of processor time; target ≤ 100 ms "
          f"{'ok' if cpu <= 0.1 else 'OVER'} (processor time; wall time {'ok' if seconds <= 0.1 else 'OVER'})")


def processor_time(fn) -> float:
    """The processor time of one call [s]: what the call itself costs when other processes
    share the cores (its wall time then waits for them)."""
    started = time.process_time()
    fn()
    return time.process_time() - started


def main(quick: bool = False):
    import dc_motor
    print(machine())
    t = np.linspace(1e-4, 1e-2, 100)
    forward("ladder of 100 stages", ladder(100).compile(), 1e-2,
            [[f"R{k}.R" for k in range(count)] for count in (1, 2, 5, 10, 20)], t_eval=t)
    forward("DC motor", dc_motor.build().compile(), 1.0, [["R1.R"], ["R1.R", "L1.L", "emf.k", "rotor.J", "load.d"]],
            t_eval=np.linspace(0.01, 1.0, 100), rtol=1e-8, atol=1e-10)
    adjoint(200 if quick else 1000, (10, 50, 200))
    buck()
    motor_fit()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
