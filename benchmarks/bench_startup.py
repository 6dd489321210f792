"""Start-up: whole processes as a user runs them, each in a fresh process, best of 5 (3 with
``--quick``), all in the same run, with this checkout first on the path and Python's bytecode
cache on (``PYTHONDONTWRITEBYTECODE`` removed from the children's environment):

* ``import numpy, casadi`` (the floor: physlib's two compiled dependencies);
* ``import physlib`` and its difference to the floor;
* a process that builds, compiles and simulates the README's RC circuit with a warm template
  cache (the component classes' equations derived by an earlier process), and its difference
  to the floor; and the same with a cold cache (each run in a new, empty cache folder);
* a script that builds, compiles and simulates the Modelica Standard Library's CoupledClutches
  (``examples/coupled_clutches.py``'s model, 1.5 s at rtol 1e-8, 9 events), warm cache;
* a script that builds, compiles and simulates the Shockley-diode buck converter of
  ``bench_switching.py`` for 10 ms (399 events), warm cache (the C builds its first run started
  in the background finished), against the whole ``ngspice -b`` process on the same circuit
  (bench_switching's netlist);
* ``python -m physlib.spice`` on a three-element deck (a pulse into R and C, ``.tran`` with 501
  rows printed), against ``ngspice -b`` on the same deck.

Each figure is the best wall time of the runs (the whole process: interpreter start, imports,
work, exit) and, in brackets, the best CPU time (user + system of the child), which wanders
less on a shared machine. Targets (issue "[speed]"): CoupledClutches script <= 0.35 s; buck
script <= 3x the ngspice process; the deck command line <= 0.3 s. They are printed as PASS/FAIL
(wall time); the script exits 0 whatever they say.

Run: ``python3 benchmarks/bench_startup.py [--quick]``.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_switching import SHOCKLEY, netlist
from benchlib import machine

ROOT = Path(__file__).resolve().parents[1]

RC = """
from physlib import Model
from physlib.components.electrical import VoltageSource, Resistor, Capacitor, Ground
from physlib.components.signals import Step

m = Model("rc")
src = m.add(VoltageSource("src", V=Step(height=1.0, t0=0.0)))
r = m.add(Resistor("R1", R=1e3))
c = m.add(Capacitor("C1", C=1e-6))
gnd = m.add(Ground("gnd"))
m.connect(src.p, r.p)
m.connect(r.n, c.p)
m.connect(c.n, src.n, gnd.p)
res = m.compile().simulate(5e-3)
assert abs(res["C1.v"][-1] - 0.99326) < 1e-4
"""

CLUTCHES = f"""
import sys
sys.path.insert(0, {str(ROOT / "examples")!r})
from coupled_clutches import build

res = build().compile().simulate(1.5, rtol=1e-8, atol=1e-10)
assert sum(e.cause != "initial" for e in res.events) == 9, res.events
"""

BUCK_T_END = 10e-3
BUCK = """
from physlib import Model
from physlib.components.electrical import Capacitor, Diode, Ground, Inductor, Resistor, Switch, VoltageSource
from physlib.components.signals import PWM

m = Model("buck_shockley")
src = m.add(VoltageSource("Vin", V={vin}))
switch = m.add(Switch("S1", control=PWM(f={f}, duty={duty}), Ron={ron}, Goff={goff}))
diode = m.add(Diode("D1", Is={Is}, N={N}, Rs={Rs}))
choke, cap, load = m.add(Inductor("L1", L={L})), m.add(Capacitor("C1", C={C})), m.add(Resistor("Rload", R={R}))
gnd = m.add(Ground("gnd"))
m.connect(src.p, switch.p)
m.connect(switch.n, diode.n, choke.p)
m.connect(choke.n, cap.p, load.p)
m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
res = m.compile().simulate({t_end})
assert len(res.events) > 390, len(res.events)
""".format(t_end=BUCK_T_END, **SHOCKLEY)

DECK = """three elements: a pulse into R and C
V1 in 0 DC 0 PULSE(0 1 0 1n 1n 1 2)
R1 in out 1k
C1 out 0 1u
.tran 10u 5m
.print tran v(out)
.end
"""

TARGET_CLUTCHES_S = 0.35
TARGET_BUCK_RATIO = 3.0
TARGET_DECK_S = 0.3


def environment(cache: str) -> dict:
    """The children's environment: this checkout first on the path, the template cache in
    ``cache``, bytecode caching on."""
    env = dict(os.environ, PHYSLIB_CACHE_DIR=cache)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    for name in ("PHYSLIB_NO_CACHE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    return env


def best_of(command: list[str], env: dict, repeats: int, fresh_cache: bool = False,
            cwd: str | None = None) -> tuple[float, float]:
    """(best wall time, best CPU time) of ``repeats`` runs of ``command`` as whole processes."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            run_env = dict(env, PHYSLIB_CACHE_DIR=folder) if fresh_cache else env
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, env=run_env, check=True, cwd=cwd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            wall = min(wall, time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = min(cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def builds_done(cache: Path, timeout: float = 300.0) -> None:
    """Wait until the C builds the warming runs started in the background (the functions a
    hot run evaluates at every step or event, built at the lowest priority) are done: a warm
    cache is the one a user's next run finds, seconds after the first, with them in it. The
    timed runs would otherwise find some of them missing and share the two cores with their
    compilers."""
    deadline = time.monotonic() + timeout
    while any(cache.rglob(".*.building")) and time.monotonic() < deadline:
        time.sleep(0.1)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def line(label: str, figure: tuple[float, float], extra: str = "") -> str:
    return f"{label:<44}{figure[0]:7.3f} s  ({figure[1]:.3f} s CPU){extra}"


def ratios(ours: tuple[float, float], theirs: tuple[float, float]) -> str:
    """physlib's figure over ngspice's, wall and CPU."""
    return f"{ours[0] / theirs[0]:.1f}x wall, {ours[1] / theirs[1]:.1f}x CPU"


def verdict(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="best of 3 instead of 5")
    repeats = 3 if parser.parse_args(argv).quick else 5
    print(machine())
    ngspice = shutil.which("ngspice")
    with tempfile.TemporaryDirectory() as cache:
        env = environment(cache)
        for code in (RC, CLUTCHES, BUCK):                                   # warm the caches
            subprocess.run(python(code), env=env, check=True)
        builds_done(Path(cache))
        deck = Path(cache) / "three_elements.cir"
        deck.write_text(DECK)
        buck_deck = Path(cache) / "buck_shockley.cir"
        buck_deck.write_text(netlist("buck_shockley", BUCK_T_END))
        spice_cli = [sys.executable, "-m", "physlib.spice", str(deck)]
        subprocess.run(spice_cli, env=env, check=True, stdout=subprocess.DEVNULL)
        floor = best_of(python("import numpy, casadi"), env, repeats)
        package = best_of(python("import physlib"), env, repeats)
        warm = best_of(python(RC), env, repeats)
        cold = best_of(python(RC), env, repeats, fresh_cache=True)
        clutches = best_of(python(CLUTCHES), env, repeats)
        buck = best_of(python(BUCK), env, repeats)
        cli = best_of(spice_cli, env, repeats)
        if ngspice:
            buck_ngspice = best_of([ngspice, "-b", str(buck_deck)], env, repeats, cwd=cache)
            deck_ngspice = best_of([ngspice, "-b", str(deck)], env, repeats, cwd=cache)
    print(line("import numpy, casadi", floor))
    print(line("import physlib", package, f"   (+{package[0] - floor[0]:.3f} s)"))
    print(line("RC circuit process, warm cache", warm, f"   (+{warm[0] - floor[0]:.3f} s)"))
    print(line("RC circuit process, cold cache", cold, f"   (+{cold[0] - floor[0]:.3f} s)"))
    print(line("CoupledClutches script, warm cache", clutches))
    print(line("Shockley buck 10 ms script, warm cache", buck))
    if ngspice:
        print(line("  ngspice -b, same circuit", buck_ngspice, f"   (ratio {ratios(buck, buck_ngspice)})"))
    print(line("python -m physlib.spice, three-element deck", cli))
    if ngspice:
        print(line("  ngspice -b, same deck", deck_ngspice, f"   (ratio {ratios(cli, deck_ngspice)})"))
    print("targets (wall time; informative, they do not change the exit code)")
    print(f"  [{verdict(clutches[0] <= TARGET_CLUTCHES_S)}] CoupledClutches script {clutches[0]:.3f} s "
          f"<= {TARGET_CLUTCHES_S} s")
    if ngspice:
        ratio = buck[0] / buck_ngspice[0]
        print(f"  [{verdict(ratio <= TARGET_BUCK_RATIO)}] buck script {ratio:.1f}x the ngspice process "
              f"<= {TARGET_BUCK_RATIO:g}x")
    else:
        print("  [n/a ] buck script against ngspice: ngspice not installed")
    print(f"  [{verdict(cli[0] <= TARGET_DECK_S)}] python -m physlib.spice on three elements {cli[0]:.3f} s "
          f"<= {TARGET_DECK_S} s")


if __name__ == "__main__":
    main()
