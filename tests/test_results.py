"""SimulationResult: values around time events, interpolation, CSV, pandas, plots, lazy reads."""
import csv
import io
import subprocess
import sys
from pathlib import Path

import casadi as cs
import numpy as np
import pytest
import sympy as sp
from scipy.special import lambertw

from physlib import Model, PhyslibError
from physlib.components.electrical import (Capacitor, Diode, Ground, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import Expression, Step, t

BENCH_READS = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_reads.py"


def stepped_rc():
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=1.234e-3)))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m.compile()


@pytest.mark.parametrize("solver, options", [("idas", {}), ("rk4", {"dt": 1e-4})])
def test_rows_just_before_and_after_a_time_event(solver, options):
    res = stepped_rc().simulate(3e-3, solver=solver, **options)
    before, after = np.flatnonzero(res.t == 1.234e-3)
    # The source has not switched in the row before the step and has in the row after it.
    assert res["src.V"][before] == 0.0 and res["R1.i"][before] == 0.0
    assert res["src.V"][after] == 1.0 and res["R1.i"][after] == pytest.approx(1e-3)


def series_resonance():
    """The MSL SeriesResonance (tests/data/README.md): two L-C-R series circuits, driven
    by sin and cos of a chirp whose frequency rises from 0 to 200 Hz over 1 s; 100 Hz
    resonance. A pure ODE: four states, no algebraic variables."""
    L, C, R = 0.1 / (2 * np.pi), 0.001 / (2 * np.pi), 0.5
    phase = 2 * sp.pi * 100 * t**2            # phi = ∫ 2π·200·t dt
    m = Model("SeriesResonance")
    gnd = m.add(Ground("ground"))
    for k, wave in ((1, sp.sin(phase)), (2, sp.cos(phase))):
        src = m.add(VoltageSource(f"source{k}", V=Expression(wave)))
        ind = m.add(Inductor(f"inductor{k}", L=L))
        cap = m.add(Capacitor(f"capacitor{k}", C=C))
        res_ = m.add(Resistor(f"resistor{k}", R=R))
        m.connect(src.p, ind.p)
        m.connect(ind.n, cap.p)
        m.connect(cap.n, res_.p)
        m.connect(res_.n, src.n, gnd.p)
    return m.compile()


def test_at_on_the_default_grid_equals_a_run_with_those_output_times():
    # Acceptance: at(t) on the default grid (501 rows over 1 s: 2.5 rows per period at the final
    # 200 Hz) against a second run whose t_eval holds the ten times. Both at rtol 1e-10, so the
    # difference is what at() adds. No interpolation between rows can do this (Hermite: 1.6e-3
    # of the range, linear 7e-2): at() continues the solution from the row before t with the
    # run's solver. Measured: below 1e-8 of each range.
    sim = series_resonance()
    res = sim.simulate(1.0, rtol=1e-10, atol=1e-12)
    times = np.sort(np.random.default_rng(1).uniform(0.0, 1.0, 10))
    exact = sim.simulate(1.0, t_eval=times, rtol=1e-10, atol=1e-12)
    assert sim.algebraic == [] and len(res.t) == 501
    # The states, and outputs computed from them: resistor1.v = R·i, source2.i = −i and
    # inductor1.v = L·di/dt (a derivative: right only if the operating point is consistent).
    points = [res.at(tt) for tt in times]
    for name in sim.states + ["resistor1.v", "source2.i", "inductor1.v"]:
        got = np.array([op[name] for op in points])
        error = np.max(np.abs(got - exact[name])) / np.ptp(res[name])
        assert error < 1e-6, f"{name}: {error:.2e} of its range"


def test_at_is_hermite_accurate_for_a_fixed_step_result():
    # A fixed-step result has no solver to continue: at() interpolates the states by cubic
    # Hermite (values and derivatives at both rows). rk4 with rows every 50 µs (100 per period
    # at 200 Hz) against a variable-step run at rtol 1e-10 with the ten times in t_eval. rk4's
    # own error is below 1e-7 of the range here (O(dt⁴)), Hermite's about 1e-9, linear
    # interpolation's about 2e-5 (O(h²)): 1e-6 passes only with Hermite.
    sim = series_resonance()
    res = sim.simulate(1.0, solver="rk4", dt=5e-5)
    times = np.sort(np.random.default_rng(1).uniform(0.0, 1.0, 10))
    reference = sim.simulate(1.0, rtol=1e-10, atol=1e-12, t_eval=times)
    for k, tt in enumerate(times):
        op = res.at(tt)
        for name in sim.states:
            assert abs(op[name] - reference[name][k]) <= 1e-6 * np.ptp(res[name]), name


def rectifier():
    """A 5 V, 50 Hz source charging C1 (100 µF, R2 = 1 kΩ across it) through R1 (100 Ω) and a
    diode: the diode's current is implicit (i = Is·(exp((v_src − R1·i − v_C)/Vt) − 1)), so the
    model keeps an algebraic variable next to its state C1.v."""
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Expression(5 * sp.sin(2 * sp.pi * 50 * t))))
    r1, d, c = m.add(Resistor("R1", R=100.0)), m.add(Diode("D1")), m.add(Capacitor("C1", C=1e-4))
    r2, gnd = m.add(Resistor("R2", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, r1.p)
    m.connect(r1.n, d.p)
    m.connect(d.n, c.p, r2.p)
    m.connect(c.n, r2.n, src.n, gnd.p)
    return m.compile()


def test_at_solves_the_algebraic_variables_at_the_interpolated_state():
    sim = rectifier()
    assert sim.states == ["C1.v"] and len(sim.algebraic) == 1
    res = sim.simulate(0.1, rtol=1e-10, atol=1e-12)          # default grid: rows every 0.2 ms
    times = np.sort(np.random.default_rng(3).uniform(0.0, 0.1, 10))
    exact = sim.simulate(0.1, t_eval=times, rtol=1e-10, atol=1e-12)
    points = [res.at(tt) for tt in times]
    # The diode turns on within ~20 µs (Vt over dv/dt), less than the 0.2 ms row spacing, so
    # even Hermite is off by up to 2.2e-6 of the range there (linear: 1.1e-4 for C1.v, 5.2e-3
    # for the current); 1e-5 passes only with Hermite.
    for name in sim.states + sim.algebraic + ["D1.v", "R1.i"]:
        got = np.array([op[name] for op in points])
        error = np.max(np.abs(got - exact[name])) / np.ptp(res[name])
        assert error < 1e-5, f"{name}: {error:.2e} of its range"
    # The algebraic equations hold at every point to the Newton tolerance (linearly
    # interpolated rows leave residuals of 1e-3 and more).
    for op in points:
        residual = np.asarray(sim.system.dae(op.x, op.z, op.p, op.t)[1]).ravel()
        assert np.max(np.abs(residual)) < 1e-9


@pytest.mark.parametrize("solver, options", [("idas", {}), ("rk4", {"dt": 1e-4})])
def test_at_never_interpolates_across_a_time_event(solver, options):
    res = stepped_rc().simulate(3e-3, solver=solver, rtol=1e-10, atol=1e-12, **options)
    t_step, tau = 1.234e-3, 1e-3                  # s: the source steps 0 -> 1 V; R·C
    # At the event time: the values just after the step (the capacitor has not moved yet).
    op = res.at(t_step)
    assert op["src.V"] == 1.0 and op["C1.v"] == 0.0 and op["R1.i"] == pytest.approx(1e-3, rel=1e-12)
    # Just before it everything is exactly zero: the last interval before the step ends at the
    # row just before the event, whose derivative is taken at the left limit (no current yet).
    before = res.at(t_step - 1e-6)
    assert before["C1.v"] == 0.0 and before["R1.i"] == 0.0 and before["src.V"] == 0.0
    # Just after it, the interval starts at the row after the event: the closed form
    # 1 − exp(−(t − t_step)/τ) V. Tolerance: solver error (rtol 1e-10) for idas; rk4 at
    # dt = 0.1 ms is off by (dt/τ)⁵/120 ≈ 1e-7 per step (4e-8 V here, 3e-7 V by 3 ms).
    after = t_step + 0.5 * (res.t[res.t > t_step][0] - t_step)
    tol = 1e-9 if solver == "idas" else 1e-6
    assert res.at(after)["C1.v"] == pytest.approx(1 - np.exp(-(after - t_step) / tau), abs=tol)


def test_at_uses_the_modes_of_the_interval_after_a_switching_event():
    # A switch closing at 1 ms connects 1 V to R1 (10 Ω) and C1 (100 µF), τ = 1 ms. The rows
    # before the event hold the open mode, those after it the closed one (p per row).
    m = Model("switched_rc")
    src, sw = m.add(VoltageSource("src", V=1.0)), m.add(Switch("S1", Goff=0.0, control=Step(t0=1e-3)))
    r, c, gnd = m.add(Resistor("R1", R=10.0)), m.add(Capacitor("C1", C=1e-4)), m.add(Ground("gnd"))
    m.connect(src.p, sw.p)
    m.connect(sw.n, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    sim = m.compile()
    res = sim.simulate(3e-3, rtol=1e-10, atol=1e-12)
    assert res.p.ndim == 2
    tau = (10.0 + 1e-5) * 1e-4             # s: R1 plus the switch's default Ron = 1e-5 Ω
    slot = sim.mode_slot("S1.closed")
    # Times between rows (every 6 µs): Hermite is off by at most (h/τ)⁴/384 ≈ 3e-12 V, linear
    # interpolation by up to (h/τ)²/8 ≈ 4e-6 V (1.5e-6 V at 1.517 ms).
    open_, closed = res.at(0.913e-3), res.at(1.517e-3)
    assert open_.p[slot] == 0 and open_["C1.v"] == 0.0 and open_["R1.i"] == 0.0
    v = 1 - np.exp(-0.517e-3 / tau)
    assert closed.p[slot] == 1 and closed["C1.v"] == pytest.approx(v, abs=1e-9)
    # R1's current is an algebraic consequence of the closed mode: (1 V − v_C)/(R1 + Ron).
    assert closed["R1.i"] == pytest.approx((1 - v) / (10.0 + 1e-5), rel=1e-7)


def test_at_without_states_solves_the_algebraic_variables_at_t():
    # A diode across a 50 Hz, 5 V source through R1 = 100 Ω: no states, so at(t) is Newton's
    # solution at t itself. Against the closed form of the loop V = R·i + vd with
    # i = Is·(exp(vd/Vt) − 1): vd = V + Is·R − Vt·W(Is·R/Vt·exp((V + Is·R)/Vt)).
    Is, R, T = 1e-14, 100.0, 300.15
    m = Model("diode_sine")
    src = m.add(VoltageSource("src", V=Expression(5 * sp.sin(2 * sp.pi * 50 * t))))
    r, d, gnd = m.add(Resistor("R1", R=R)), m.add(Diode("D1", Is=Is, T=T)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    sim = m.compile()
    assert sim.states == [] and sim.algebraic
    res = sim.simulate(0.02)
    vt = 1.380649e-23 * T / 1.602176634e-19
    for tt in np.random.default_rng(0).uniform(0.0, 0.02, 5):
        V = 5 * np.sin(2 * np.pi * 50 * tt)
        vd = V + Is * R - vt * np.real(lambertw(Is * R / vt * np.exp((V + Is * R) / vt)))
        op = res.at(tt)
        # Newton's tolerance is 1e-12 relative; 1e-9 leaves room for the rounding of W and
        # exp at vd/Vt ≈ 27. Linear interpolation of the rows 40 µs apart is off by 5e-5.
        assert op["D1.v"] == pytest.approx(vd, rel=1e-9, abs=1e-12)
        assert op["R1.i"] == pytest.approx((V - vd) / R, rel=1e-9, abs=1e-15)


def test_csv_round_trips_through_a_path_and_an_open_file(tmp_path):
    res = stepped_rc().simulate(3e-3)
    names = ["C1.v", "R1.i", "src.V"]
    expected = np.column_stack([res.t] + [res[n] for n in names])

    def check(rows):
        assert rows[0] == ["time"] + names and len(rows) == len(res.t) + 2
        assert rows[1] == ["s", "V", "A", "V"]            # the units row
        # repr() of a float round-trips exactly.
        np.testing.assert_array_equal(np.array(rows[2:], dtype=float), expected)

    for path in (tmp_path / "rc.csv", str(tmp_path / "rc_str.csv")):    # os.PathLike and str
        res.to_csv(path, names=names)
        with open(path, newline="") as fh:
            check(list(csv.reader(fh)))
    buffer = io.StringIO()
    buffer.write("# header of the caller\n")
    res.to_csv(buffer, names=names)            # written at the current position, left open
    assert not buffer.closed
    check(list(csv.reader(io.StringIO(buffer.getvalue().split("\n", 1)[1]))))
    with pytest.raises(PhyslibError, match="file name or an open text file"):
        res.to_csv(3)                           # not a file descriptor: that would close it


def test_to_pandas_matches_the_result():
    pandas = pytest.importorskip("pandas")
    res = stepped_rc().simulate(3e-3)
    frame = res.to_pandas(["C1.v", "R1.i"])
    assert isinstance(frame, pandas.DataFrame) and list(frame.columns) == ["C1.v", "R1.i"]
    assert frame.index.name == "time"
    np.testing.assert_array_equal(frame.index.to_numpy(), res.t)
    np.testing.assert_array_equal(frame["R1.i"].to_numpy(), res["R1.i"])
    everything = res.to_pandas()                # like to_csv: every variable, then the modes
    assert list(everything.columns) == res.names


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)       # makes "import pandas" fail
    res = stepped_rc().simulate(1e-3)
    with pytest.raises(PhyslibError, match="pip install pandas"):
        res.to_pandas()


def test_plot_returns_a_figure_with_units():
    fig = stepped_rc().simulate(3e-3).plot("C1.v", "R1.i")
    assert [ax.get_ylabel() for ax in fig.axes] == ["C1.v [V]", "R1.i [A]"]


def test_unknown_name_suggests_close_ones():
    res = stepped_rc().simulate(1e-3)
    with pytest.raises(KeyError, match="C1.v"):
        res["C1.V"]


def test_modes_are_listed_and_readable_like_variables():
    from physlib.components.electrical import Switch
    m = Model("sw")
    src, sw = m.add(VoltageSource("src", V=1.0)), m.add(Switch("S1", Goff=1e-9, control=Step(t0=1e-3)))
    r, gnd = m.add(Resistor("R1", R=10.0)), m.add(Ground("gnd"))
    m.connect(src.p, sw.p)
    m.connect(sw.n, r.p)
    m.connect(r.n, src.n, gnd.p)
    res = m.compile().simulate(2e-3)
    assert "S1.closed" in res and "S1.closed" in res.names
    assert res["S1.closed"][0] == 0 and res["S1.closed"][-1] == 1
    assert "S1.closed" not in res.model.parameters          # a mode is not a parameter


def test_connection_graph_has_ports_as_nodes():
    from test_electrical_transients import rc_model
    g = rc_model().graph
    assert {"R1.p", "R1.n", "C1.p", "src.p", "gnd.p"} <= set(g.nodes)
    assert g.has_edge("src.p", "R1.p") and g.nodes["R1.p"]["domain"] == "electrical"


def rc_ladder(n, V=1.0):
    """n stages of R = 1 kΩ, C = 1 mF (τ = 1 s) behind a source of V volts (a number or a
    waveform); states C1.v .. Cn.v."""
    m = Model("ladder")
    src, gnd = m.add(VoltageSource("src", V=V)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, n + 1):
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-3))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def test_reading_a_variable_evaluates_only_its_own_row():
    # A 200-stage RC ladder. Reading one resistor current must compute that row alone: states
    # come straight from the solution, and nothing else of the output map is evaluated (reading
    # all rows at once costs seconds and GB at 10,000 stages).
    sim = rc_ladder(200).compile()
    res = sim.simulate(2.0, t_eval=np.linspace(0.0, 2.0, 11))
    assert res._evaluated == {}
    i5 = res["R5.i"]
    assert list(res._evaluated) == [sim.variable("R5.i")[0]]
    # Ohm's law between the two capacitor voltages (states, read without evaluating anything);
    # the row is the resistor's own equation, so it holds to rounding.
    np.testing.assert_allclose(i5, (res["C4.v"] - res["C5.v"]) / 1e3, rtol=1e-9, atol=1e-15)
    assert len(res._evaluated) == 1
    # The source delivers R1's current: the current into its p pin is the negative of it.
    np.testing.assert_allclose(res["src.p.i"], -res["R1.i"], rtol=1e-12, atol=1e-18)
    assert len(res._evaluated) <= 3


def test_the_output_map_is_expanded_once_per_compiled_model(monkeypatch):
    # Reading a variable that is neither a state nor an algebraic variable needs the model's
    # output map as one symbolic expression (the expensive step: the whole model). The compiler
    # keeps the one it emitted; a model without it (loaded from a pickle) builds it on the first
    # read, and every later read of any result of the same compiled model reuses it.
    sim = rc_ladder(50).compile()
    expansions = []

    class Counting:                 # an output function, counting its symbolic evaluations
        def __init__(self, function):
            self.function = function

        def __getattr__(self, name):
            return getattr(self.function, name)

        def __call__(self, *args):
            if any(isinstance(a, (cs.SX, cs.MX)) for a in args):
                expansions.append(args)
            return self.function(*args)

    monkeypatch.setattr(sim.system, "output_function", Counting(sim.system.outputs))
    first, second = sim.simulate(2.0), sim.simulate(2.0, params={"R1.R": 2e3})
    i5, v7 = first["R5.i"], second["R7.v"]
    assert len(expansions) == 0
    second.to_csv(io.StringIO(), names=["R3.i", "R9.v"])    # several rows at once
    assert len(expansions) == 0
    sim.system.cache.clear()                                  # as a model loaded from a pickle
    third = sim.simulate(2.0)
    assert np.allclose(third["R5.i"], i5) and len(expansions) == 1
    third.to_csv(io.StringIO(), names=["R3.i", "R9.v"])
    assert len(expansions) == 1
    # The rows are the resistors' own equations: Ohm's law between the capacitor voltages.
    np.testing.assert_allclose(i5, (first["C4.v"] - first["C5.v"]) / 1e3, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(v7, second["C6.v"] - second["C7.v"], rtol=1e-9, atol=1e-12)
    # A new compile is a new model with its own expressions, kept by its compile.
    other = rc_ladder(50).compile()
    monkeypatch.setattr(other.system, "output_function", Counting(other.system.outputs))
    other.simulate(2.0)["R5.i"]
    assert len(expansions) == 1
    assert other.system.output_expressions() is not sim.system.output_expressions()


def test_bench_reads_quick_runs_and_prints_its_targets():
    # The benchmark keeps running; its timings are printed, never asserted.
    proc = subprocess.run([sys.executable, str(BENCH_READS), "--quick"], capture_output=True,
                          text=True, timeout=300, cwd=BENCH_READS.parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ERROR" not in proc.stdout and "bench_reads: done" in proc.stdout, proc.stdout
    assert "[PASS] read values agree with Ohm's law" in proc.stdout, proc.stdout


def test_at_refuses_to_bridge_a_mode_change_a_t_eval_left_out():
    # With a t_eval that leaves out an event, the rows around a mode change do not show it and
    # at() between them would return values of the old mode: an error saying what to do.
    from physlib.components.electrical import Switch
    from physlib.components.signals import Step

    m = Model("switched")
    src, switch = m.add(VoltageSource("V", V=1.0)), m.add(Switch("S", control=Step(t0=0.5)))
    r, c, gnd = m.add(Resistor("R", R=1.0)), m.add(Capacitor("C", C=0.1)), m.add(Ground("g"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    sim = m.compile()
    sparse = sim.simulate(1.0, t_eval=[0.0, 0.4, 0.8, 1.0])
    with pytest.raises(PhyslibError, match="S at t = 0.5 s lies between the output times 0.4 and 0.8"):
        sparse.at(0.6)
    full = sim.simulate(1.0)
    # C charges through R from 0.5 s on: v = 1 − e^(−(t − 0.5)/0.1) (Ron = 1e-5 Ω: 1e-5 relative).
    assert full.at(0.6)["C.v"] == pytest.approx(1 - np.exp(-1.0), rel=1e-4)
