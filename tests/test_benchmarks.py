"""The scaling benchmark keeps running: ``benchmarks/bench_scale.py --quick`` exits 0 and prints its
table. Timings are never asserted here; the benchmark prints its targets itself."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


def test_bench_scale_quick_runs_and_prints_its_table():
    proc = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True,
                          timeout=300, cwd=BENCH.parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout

    parts = ["rc_ladder"]
    if importlib.util.find_spec("physlib.components.rotational") is not None:
        parts.append("chain")
    for part in parts:
        for n in (10, 100):
            # part, N, then the measured columns (numbers) up to the correctness column.
            assert re.search(rf"^{part}\s+{n}\s+\d+\s+[\d.]+\s", out, re.MULTILINE), out
    assert "ERROR" not in out
    assert re.search(r"^\s+\[PASS\] physlib final states agree with the hand-written model",
                     out, re.MULTILINE), out
    assert "targets" in out and "bench_scale: done (0 case(s) failed to run)" in out
