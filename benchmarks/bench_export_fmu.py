"""FMU export of large models: build time and memory against the limits of the FMU issue.

Model: an N-stage RC ladder (stage k: R{k} = 1 kOhm from node k-1 to node k, C{k} = 1 uF from node
k to ground, a 1 V source), N in {100, 1000} (``--quick``: 100 only). For each N, in a fresh
process (peak memory is process-wide):

* ``compile``  ``m.compile()`` [s];
* ``export``   ``sim.export_fmu(path)``, C generation and the shared library's build [s];
* ``C size``   the generated C of the model's functions [MB];
* ``cc peak``  the C compiler's peak resident memory (``RUSAGE_CHILDREN``) [GB];
* ``py peak``  this process's peak resident memory [GB];
* ``fmpy``     one FMPy run of the FMU (CVode, rtol 1e-6, 1 s) [s], beside ``simulate`` on the
  same horizon [s] (``ratio`` = fmpy / simulate: FMPy steps CVODE from Python through ctypes,
  with finite-difference Jacobians, so it is not a measure of the FMU's own speed).

Target (issue [fmu], build item 5): the 1,000-stage ladder's FMU builds in under 60 s with less
than 2 GB. Run: python benchmarks/bench_export_fmu.py [--quick]
"""
from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_export_c import ladder   # the same ladder as the standalone-C benchmark

TARGET_SECONDS, TARGET_GB = 60.0, 2.0


def measure(n: int) -> dict:
    import fmpy
    model = ladder(n)
    start = time.perf_counter()
    sim = model.compile()
    compiled = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = sim.export_fmu(Path(folder) / f"ladder{n}", outputs=[f"C{n - 1}.v"])
        exported = time.perf_counter()
        import zipfile
        with zipfile.ZipFile(path) as archive:
            c_size = archive.getinfo("sources/physlib_functions.c").file_size
        t0 = time.perf_counter()
        fmpy.simulate_fmu(str(path), stop_time=1.0, relative_tolerance=1e-6, output=[f"C{n - 1}.v"])
        t_fmpy = time.perf_counter() - t0
    t0 = time.perf_counter()
    sim.simulate(1.0, rtol=1e-6)
    t_sim = time.perf_counter() - t0
    kb = 1024 ** 2
    return {"n": n, "compile": compiled - start, "export": exported - compiled, "c_mb": c_size / 1e6,
            "cc_gb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / kb,
            "py_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / kb,
            "fmpy": t_fmpy, "simulate": t_sim}


def main(quick: bool = False) -> int:
    sizes = [100] if quick else [100, 1000]
    print(f"{'N':>6} {'compile':>8} {'export':>8} {'C size':>8} {'cc peak':>8} {'py peak':>8} "
          f"{'fmpy':>7} {'simulate':>8} {'ratio':>6}")
    failed = 0
    for n in sizes:
        run = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True)
        if run.returncode != 0:
            failed += 1
            print(f"{n:>6} failed: {run.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{n:>6} {r['compile']:>7.2f}s {r['export']:>7.1f}s {r['c_mb']:>6.2f}MB {r['cc_gb']:>6.2f}GB "
              f"{r['py_gb']:>6.2f}GB {r['fmpy']:>6.2f}s {r['simulate']:>7.2f}s {r['fmpy'] / r['simulate']:>6.1f}")
        if n == 1000:
            ok = r["export"] < TARGET_SECONDS and max(r["cc_gb"], r["py_gb"]) < TARGET_GB
            print(f"target: 1,000-stage FMU builds in < {TARGET_SECONDS:g} s with < {TARGET_GB:g} GB: "
                  f"{'met' if ok else 'NOT met'}")
    print(f"bench_export_fmu: done ({failed} case(s) failed to run)")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(measure(int(sys.argv[2]))))
    else:
        sys.exit(main(quick="--quick" in sys.argv))
