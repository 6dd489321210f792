"""Start-up time, each measured in fresh processes, best of 5, all in the same run:

* ``import numpy, casadi`` (the floor: physlib's two compiled dependencies);
* ``import physlib`` and its difference to the floor;
* a process that builds, compiles and simulates the README's RC circuit with a warm template
  cache (the component classes' equations derived by an earlier process), and its difference
  to the floor; and the same with a cold cache (each run in a new, empty cache folder).

Run: ``python3 benchmarks/bench_startup.py``.
"""
import os
import subprocess
import sys
import tempfile
import time

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


def best_of(code: str, env: dict, repeats: int = 5, fresh_cache: bool = False) -> float:
    best = float("inf")
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            run_env = dict(env, PHYSLIB_CACHE_DIR=folder) if fresh_cache else env
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=run_env, check=True)
            best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PHYSLIB_CACHE_DIR=cache)
        env.pop("PHYSLIB_NO_CACHE", None)
        subprocess.run([sys.executable, "-c", RC], env=env, check=True)       # warm the cache
        floor = best_of("import numpy, casadi", env)
        package = best_of("import physlib", env)
        warm = best_of(RC, env)
        cold = best_of(RC, env, fresh_cache=True)
    print(f"import numpy, casadi            {floor:6.3f} s")
    print(f"import physlib                  {package:6.3f} s   (+{package - floor:.3f} s)")
    print(f"RC circuit process, warm cache  {warm:6.3f} s   (+{warm - floor:.3f} s)")
    print(f"RC circuit process, cold cache  {cold:6.3f} s   (+{cold - floor:.3f} s)")


if __name__ == "__main__":
    main()
