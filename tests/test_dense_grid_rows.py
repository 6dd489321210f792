"""A dense output grid gives the rows the default grid gives, at the times both hold.

10,001 evenly spaced outputs on three switching circuits: the half-wave rectifier of
tests/half_wave_rectifier.py (IdealDiode), the ideal buck of examples/buck_converter.py
(Switch and IdealDiode) and a buck with a Shockley diode, whose algebraic variables are
nonlinear in the states (its rows take the two Gauss–Newton and two projection steps of the
row reconstruction, :func:`physlib.analysis.simulation.dae_points.row_between_steps`). The
output times never change the solver's steps (only an output in the settling window after an
event restarts the solver there), and a row between steps is the solver's interpolating
polynomial completed onto the model's equations, so every variable, states and algebraic ones,
must agree with the default grid's at the shared times away from events within the run's
tolerances: rtol·max|v| + atol per variable (rtol, atol: simulate's defaults). Measured: equal
to rounding (1e-13 of each variable's range)."""
import sys
from pathlib import Path

import numpy as np
import pytest

from physlib import Model
from physlib.components.electrical import (Capacitor, Diode, Ground, Inductor, Resistor, Switch,
                                           VoltageSource)
from physlib.components.signals import PWM

from half_wave_rectifier import rectifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import buck_converter  # noqa: E402

RTOL, ATOL = 1e-6, 1e-8         # simulate's defaults, which the runs use
DENSE = 10_001


def shockley_buck():
    """24 V, 20 kHz at duty 0.5, L = 100 µH, C = 100 µF, 5 Ω; Switch Ron = 10 mΩ, Goff = 1 µS; a
    Shockley diode Is = 1e-14 A, N = 1, Rs = 10 mΩ (the buck of benchmarks/bench_switching.py)."""
    m = Model("buck_shockley")
    src = m.add(VoltageSource("Vin", V=24.0))
    switch = m.add(Switch("S1", control=PWM(f=20e3, duty=0.5), Ron=10e-3, Goff=1e-6))
    diode = m.add(Diode("D1", Is=1e-14, N=1.0, Rs=10e-3))
    choke, cap = m.add(Inductor("L1", L=100e-6)), m.add(Capacitor("C1", C=100e-6))
    load, gnd = m.add(Resistor("Rload", R=5.0)), m.add(Ground("gnd"))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    return m.compile()


CIRCUITS = {  # name: (compiled model, horizon [s]): a few dozen events each
    "half-wave rectifier": (lambda: rectifier(10.0, 1e3, 1e3, 1e-6), 10e-3),
    "ideal buck": (lambda: buck_converter.build().compile(), 1e-3),
    "Shockley buck": (shockley_buck, 2e-3),
}


@pytest.mark.parametrize("name", CIRCUITS)
def test_dense_rows_equal_the_default_grid_s_rows(name):
    build, t_end = CIRCUITS[name]
    sim = build()
    default = sim.simulate(t_end)
    grid = np.linspace(0.0, t_end, DENSE)
    dense = sim.simulate(t_end, t_eval=grid)
    # outputs a rounding away from an event time are moved onto it (the PWM's edges)
    np.testing.assert_allclose(dense.t, grid, rtol=0, atol=1e-12 * t_end)
    assert [(e.t, e.component, e.after) for e in dense.events] == \
        [(e.t, e.component, e.after) for e in default.events]
    plain = ~np.isin(default.t, [e.t for e in default.events])
    shared, mine, theirs = np.intersect1d(dense.t, default.t[plain], return_indices=True)
    assert len(shared) >= 50, len(shared)
    for variable in default.names:
        ours, reference = dense[variable][mine], default[variable][plain][theirs]
        tolerance = RTOL * np.max(np.abs(default[variable])) + ATOL
        assert np.max(np.abs(ours - reference)) <= tolerance, (variable, np.max(np.abs(ours - reference)))


def test_a_model_s_later_runs_reuse_its_mapped_row_functions(monkeypatch):
    # Mapping the row function over a chunk of columns and buffering it cost a few milliseconds
    # a run, a third of a short run's time: a small model keeps them for its later runs in the
    # thread (runs of one model in several threads: test_solver_robustness's thread test).
    from physlib.analysis.simulation import output_rows
    sim = shockley_buck()
    grid = np.linspace(0.0, 1e-3, 1001)
    first = sim.simulate(1e-3, t_eval=grid)
    made = []
    buffered = output_rows.buffered
    monkeypatch.setattr(output_rows, "buffered", lambda function: made.append(function) or buffered(function))
    again = sim.simulate(1e-3, t_eval=grid)
    assert made == []
    np.testing.assert_array_equal(again["C1.v"], first["C1.v"])


def test_rows_completed_beside_the_run_are_the_run_s_own(monkeypatch):
    # On two or more processors a small model's full blocks of rows are completed in the row
    # thread while the solver steps on: the same function on the same inputs, so the same
    # numbers bit for bit as completing them in the run's thread, the held rows (at the PWM's
    # edges) in the same places.
    from physlib.analysis.simulation import output_rows
    monkeypatch.setattr(output_rows, "_cores", lambda: 2)
    sim = shockley_buck()
    grid = np.linspace(0.0, 2e-3, 3 * output_rows.BLOCK + output_rows.BLOCK // 2)    # three full blocks and a part
    submitted = []
    row_thread = output_rows._row_thread
    monkeypatch.setattr(output_rows, "_row_thread", lambda: submitted.append(1) or row_thread())
    beside = sim.simulate(2e-3, t_eval=grid)
    assert len(submitted) == 3
    monkeypatch.setattr(output_rows, "ROW_THREAD", False)
    own = sim.simulate(2e-3, t_eval=grid)
    assert len(submitted) == 3
    np.testing.assert_array_equal(beside.t, own.t)
    for variable in own.names:
        np.testing.assert_array_equal(beside[variable], own[variable], err_msg=variable)


def test_one_processor_completes_the_rows_in_the_run_s_thread(monkeypatch):
    from physlib.analysis.simulation import output_rows
    monkeypatch.setattr(output_rows, "_cores", lambda: 1)
    monkeypatch.setattr(output_rows, "_row_thread", lambda: pytest.fail("the row thread was asked for"))
    res = shockley_buck().simulate(1e-3, t_eval=np.linspace(0.0, 1e-3, 1001))
    assert len(res.t) == 1001


def test_rows_the_row_thread_cannot_complete_are_solved_in_the_run_s_thread(monkeypatch):
    # A row the row function could not complete (not converged) is solved again by Newton
    # from its interpolated values; that solve may make CasADi functions, which only the
    # run's thread does. Every fifth row of each full block is reported failed here.
    import threading
    from physlib.analysis.simulation import output_rows
    monkeypatch.setattr(output_rows, "_cores", lambda: 2)
    sim = shockley_buck()
    grid = np.linspace(0.0, 1e-3, output_rows.BLOCK + output_rows.BLOCK // 2)      # one full block
    reference = sim.simulate(1e-3, t_eval=grid)
    complete, solved_row, solved_in = output_rows._complete, output_rows.solved_row, []

    def failing(mapped, rows, start, size, solves):
        X, failed = complete(mapped, rows, start, size, solves)
        return X, np.union1d(failed, np.arange(0, size, 5)) if size == output_rows.BLOCK else failed

    def solved(*args):
        solved_in.append(threading.current_thread())
        return solved_row(*args)

    monkeypatch.setattr(output_rows, "_complete", failing)
    monkeypatch.setattr(output_rows, "solved_row", solved)
    res = sim.simulate(1e-3, t_eval=grid)
    assert len(solved_in) == output_rows.BLOCK // 5 + 1
    assert set(solved_in) == {threading.current_thread()}
    # Newton's rows satisfy the same equations: within the run's tolerances of the row function's
    for variable in reference.names:
        tolerance = RTOL * np.max(np.abs(reference[variable])) + ATOL
        np.testing.assert_allclose(res[variable], reference[variable], rtol=0, atol=tolerance, err_msg=variable)


def test_an_error_in_the_row_thread_reaches_the_caller(monkeypatch):
    from physlib.analysis.simulation import output_rows
    monkeypatch.setattr(output_rows, "_cores", lambda: 2)

    def broken(*args):
        raise ZeroDivisionError("row function")

    monkeypatch.setattr(output_rows, "_complete", broken)
    with pytest.raises(ZeroDivisionError, match="row function"):
        shockley_buck().simulate(1e-3, t_eval=np.linspace(0.0, 1e-3, 1001))


def test_short_row_functions_stay_in_the_run_s_thread(monkeypatch):
    # Handing a block to the row thread costs more than completing a block of rows whose
    # function is short (a half-wave rectifier's ideal diode: linear rows, one step each).
    from physlib.analysis.simulation import output_rows
    from physlib.analysis.simulation.dae_points import row_between_steps
    monkeypatch.setattr(output_rows, "_cores", lambda: 2)
    monkeypatch.setattr(output_rows, "_row_thread", lambda: pytest.fail("the row thread was asked for"))
    build, t_end = CIRCUITS["half-wave rectifier"]
    sim = build()
    assert row_between_steps(sim.system).n_instructions() < output_rows.ROW_THREAD_INSTRUCTIONS
    assert len(sim.simulate(t_end, t_eval=np.linspace(0.0, t_end, 2001)).t) == 2001


def test_two_models_in_two_threads_share_the_row_thread(monkeypatch):
    # Runs of two compiled models in two threads at once hand their blocks to the one row
    # thread: each gets its own rows, the same bit for bit as when it runs alone.
    from concurrent.futures import ThreadPoolExecutor
    from physlib.analysis.simulation import output_rows
    monkeypatch.setattr(output_rows, "_cores", lambda: 2)
    models = [shockley_buck(), shockley_buck()]
    grid = np.linspace(0.0, 2e-3, 2001)
    params = [{"Rload.R": 5.0}, {"Rload.R": 2.5}]

    def run(k):
        return models[k].simulate(2e-3, t_eval=grid, params=params[k])

    alone = [run(0), run(1)]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(run, [0, 1, 0, 1]))
    for k, res in enumerate(together):
        for variable in ("C1.v", "L1.i", "D1.i", "S1.i"):
            np.testing.assert_array_equal(res[variable], alone[k % 2][variable], err_msg=variable)
