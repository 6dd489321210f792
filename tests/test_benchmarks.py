"""The scaling benchmark keeps running: ``benchmarks/bench_scale.py --quick`` exits 0 and prints its
table. Timings are never asserted here; the benchmark prints its targets itself."""
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


def run_quick(script: str, *more: str) -> str:
    """``benchmarks/<script> --quick [more]`` run from the checkout: its standard output, once it
    has exited 0."""
    bench = BENCH.parent / script
    proc = subprocess.run([sys.executable, str(bench), "--quick", *more], capture_output=True,
                          text=True, timeout=300, cwd=bench.parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_bench_scale_quick_runs_and_prints_its_table():
    # The ladder against ngspice at 200 elements: --quick alone runs it at 100,000.
    out = run_quick("bench_scale.py", "--ladder-sizes", "200")

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
    for path in ("python", "deck"):
        # path, N, build, compile, transient, total and the kernel's share of it (seconds)
        assert re.search(rf"^{path}\s+200\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s", out, re.MULTILINE), out
    assert re.search(r"^path\s+N\s+build_s\s+compile_s\s+tran_s\s+total_s\s+sys_s\s+ngspice_s\s+ngspice_sys\s",
                     out, re.MULTILINE), out
    # the Python path's default-grid run (501 rows of every state) and its kernel's share, last
    assert re.search(r"\sgrid_s\s+grid_sys$", out, re.MULTILINE), out
    assert re.search(r"^python\s+200\s.*\s[\d.]+\s+[\d.]+$", out, re.MULTILINE), out
    assert re.search(r"^deck\s+200\s.*\s-\s+-$", out, re.MULTILINE), out
    if shutil.which("ngspice"):
        # both paths' v(n2) against ngspice's on the same deck (transient and .ac)
        assert re.search(r"^\s+\[PASS\] v\(n2\) at 1 us agrees with ngspice's", out, re.MULTILINE), out
        assert re.search(r"^\s+\[PASS\] Re v\(n2\) at 100000 Hz agrees with ngspice's", out, re.MULTILINE), out
    assert "targets" in out and "bench_scale: done (0 case(s) failed to run)" in out


def test_bench_events_quick_runs_and_prints_its_tables():
    out = run_quick("bench_events.py")

    for model, n in (("CoupledClutches", 4), ("chain", 6)):
        for variant in ("clutches", "idle", "rigid", "springs"):
            # compile table: model, J, variant, states, alg, then the measured times.
            assert re.search(rf"^{model}\s+{n}\s+{variant}\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+$",
                             out, re.MULTILINE), out
            # simulate table: ..., tol, sim1_ms, sim_ms, then the event counts.
            assert re.search(rf"^{model}\s+{n}\s+{variant}\s+tight\s+[\d.]+\s+[\d.]+\s+\d+\s", out,
                             re.MULTILINE), out
    # Event counts are structural, not timings: 9 for CoupledClutches (7 state, 2 time), 2 per
    # clutch of the chain, none without clutches engaged.
    assert re.search(r"^CoupledClutches\s+4\s+clutches\s+tight\s+[\d.]+\s+[\d.]+\s+9\s+7\s+2\s",
                     out, re.MULTILINE), out
    assert re.search(r"^chain\s+6\s+clutches\s+tight\s+[\d.]+\s+[\d.]+\s+10\s+5\s+5\s", out,
                     re.MULTILINE), out
    assert re.search(r"^chain\s+6\s+idle\s+tight\s+[\d.]+\s+[\d.]+\s+0\s+0\s+0\s", out, re.MULTILINE), out
    assert "ERROR" not in out
    assert re.search(r"^\s+\[(PASS|FAIL)\] CoupledClutches compile \+ simulate <= 0.1 s on this machine",
                     out, re.MULTILINE), out
    assert re.search(r"^\s+\[PASS\] CoupledClutches events match the MSL reference", out, re.MULTILINE), out
    assert re.search(r"^\s+\[PASS\] chain J = 6: 10 events", out, re.MULTILINE), out
    assert "bench_events: done (0 case(s) failed to run)" in out


def test_bench_switching_quick_runs_and_prints_its_checks():
    out = run_quick("bench_switching.py")
    for case in ("buck", "buck_shockley"):
        assert re.search(rf"^\s*{case}\s+\d+\s+\d+\s+\d+\s+\d+\s", out, re.MULTILINE), out
    assert "[PASS] buck: every switch event a time event" in out
    assert "bench_switching: done (0 case(s) failed to run)" in out


def test_bench_noise_quick_runs_and_its_spectra_agree_with_the_dense_baseline():
    out = run_quick("bench_noise.py")
    assert re.search(r"^\s+100\s+[\d.]+\s+[\d.]+\s+[\d.]+", out, re.MULTILINE), out
    assert "[PASS] N = 100: spectra agree with the baseline" in out
    assert "bench_noise: done (0 case(s) failed to run)" in out


def test_bench_spice_quick_runs_and_prints_its_targets():
    out = run_quick("bench_spice.py")
    assert re.search(r"^\s+read\s+10000\s+[\d.]+$", out, re.MULTILINE), out
    assert "ERROR" not in out and "bench_spice: done (0 case(s) failed to run)" in out


def test_bench_units_quick_runs_and_prints_its_targets():
    out = run_quick("bench_units.py")
    assert re.search(r"^check cold\s+[\d.]+ ms", out, re.MULTILINE), out
    # structural, not timings: a compile with cached templates runs no check, and quantities
    # give the resistances floats give
    assert "[PASS] no check with cached templates: 0 checks" in out
    assert "[PASS] resistances from quantities equal those from floats bit for bit" in out
    assert re.search(r"^pint quantities\s+[\d.]+ ms", out, re.MULTILINE), out
    assert "ERROR" not in out and "bench_units: done (0 case(s) failed to run)" in out


def test_bench_nonlinear_chain_quick_runs_and_prints_both_forms():
    out = run_quick("bench_nonlinear_chain.py")
    assert "== dc:" in out and "== tran:" in out
    # D1's forward voltage at the operating point: ~0.69 V at 4 mA through 1 kOhm, the same
    # whether the junctions have capacitance or not (DC), to the Newton solutions' rounding
    values = [float(v) for v in re.findall(r"^\s+50\s+\d+ .*\s(0\.\d{12})$", out, re.MULTILINE)]
    assert len(values) == 2 and all(0.6 < v < 0.75 for v in values) and abs(values[0] - values[1]) < 1e-10, out
    assert "ERROR" not in out and "bench_nonlinear_chain: done (0 case(s) failed to run)" in out
