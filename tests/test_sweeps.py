"""Pickling of compiled models and results, parameter sweeps and Monte Carlo (issue 12).

Results computed in other processes are compared with the parent's bit for bit
(``np.array_equal``, no tolerance): the same CasADi functions (serialized and deserialized)
evaluated by the same SUNDIALS code on the same inputs must give the same floating-point
numbers, so any difference would be a bug, not round-off.
"""
import multiprocessing
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import physlib
from physlib import Model, Parameter
from physlib.analysis.common.options import OptionError
from physlib.components.electrical import Capacitor, Ground, OnePort, Resistor, VoltageSource
from physlib.components.signals import Step

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))


def rc_model() -> Model:
    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=1e-3)))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    return m


def _simulate_in_child(payload: bytes, t_end: float, options: dict) -> bytes:
    """Runs in a spawned process: unpickle the compiled model, simulate, pickle the result."""
    sim = pickle.loads(payload)
    return pickle.dumps(sim.simulate(t_end, **options))


def _same_result(a, b):
    return (np.array_equal(a.t, b.t) and np.array_equal(a.x, b.x) and np.array_equal(a.z, b.z)
            and np.array_equal(a.p, b.p)
            and [(e.t, e.component, e.before, e.after) for e in a.events]
            == [(e.t, e.component, e.before, e.after) for e in b.events])


# --- 1. pickling ------------------------------------------------------------------------------

def test_a_compiled_model_simulates_in_a_spawned_process_bit_for_bit():
    """Acceptance 1: an RC circuit with a time event and CoupledClutches (7 mode changes) are
    pickled, unpickled in a fresh ``spawn`` process and simulated there; the results (sent
    back pickled) equal the parent's exactly."""
    import coupled_clutches

    cases = [(rc_model().compile(), 5e-3, {"params": {"R1.R": 2e3}}, "R1.i"),
             (coupled_clutches.build().compile(), 1.0, {"rtol": 1e-8, "atol": 1e-10}, "clutch1.tau")]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        for sim, t_end, options, read in cases:
            here = sim.simulate(t_end, **options)
            there = pickle.loads(pool.apply(_simulate_in_child, (pickle.dumps(sim), t_end, options)))
            assert _same_result(here, there)
            assert np.array_equal(here[read], there[read])      # an output-map row, not a state
    assert len(here.events) == 7


def test_after_unpickling_every_analysis_gives_the_same_numbers():
    """operating_point, linearize, noise and the result's own methods (at, reads, energy)
    after a pickle round trip equal the originals exactly; the cache (integrators, lock) is
    rebuilt, not carried."""
    import cart_on_beam

    sim = rc_model().compile()
    res = sim.simulate(5e-3)
    sim2 = pickle.loads(pickle.dumps(sim))
    assert "lock" not in sim2.system.cache and sim.system.cache
    assert _same_result(res, sim2.simulate(5e-3))
    res2 = pickle.loads(pickle.dumps(res))
    assert np.array_equal(res2["R1.i"], res["R1.i"])
    assert res2.at(2.5e-3)["C1.v"] == res.at(2.5e-3)["C1.v"]
    assert np.array_equal(res2.stored_energy(), res.stored_energy())
    f = np.geomspace(1, 1e6, 7)
    assert np.array_equal(sim2.noise("C1.v", f=f).psd, sim.noise("C1.v", f=f).psd)

    beam = cart_on_beam.build().compile()
    beam2 = pickle.loads(pickle.dumps(beam))
    lin = beam.linearize(["tau1.tau"], ["cart.z"], at=beam.operating_point())
    lin2 = beam2.linearize(["tau1.tau"], ["cart.z"], at=beam2.operating_point())
    assert np.array_equal(lin.A, lin2.A) and np.array_equal(lin.B, lin2.B)
    assert lin2.states == lin.states


def test_a_deck_pickled_for_a_worker_runs_with_new_param_values():
    """A compiled deck travels to a sweep's worker pickled, and there its element values are
    made again for the run's .param values: a resistor's value among them, whose component
    also reads the deck's physical constants (it crashed on them)."""
    import physlib.spice as spice

    sim = spice.read("rc\n.param rr=1k\nV1 a 0 1\nR1 a b {rr}\nC1 b 0 1n\n.end\n").compile()
    loaded = pickle.loads(pickle.dumps(sim))
    res = loaded.simulate(1e-6, params={"rr": 2e3})
    assert np.array_equal(res["c1.v"], sim.simulate(1e-6, params={"rr": 2e3})["c1.v"])
    # RC = 2 us: 1 - exp(-1/2), within the default tolerances
    assert res["c1.v"][-1] == pytest.approx(1.0 - np.exp(-0.5), abs=1e-5)


def test_a_model_pickled_before_any_run_carries_the_values_of_its_variables():
    """The compile leaves the function of every variable's value unbuilt (built beside the
    compiler's intermediate forms, it set a large model's peak memory): it is built on first
    use, and a model pickled before any run takes it along, since the loaded copy has no
    cache to build it from. There the resistor's current obeys Ohm's law between the source
    and the capacitor, to the rounding of the values (rtol 1e-12)."""
    sim = rc_model().compile()
    assert sim.system.output_function is None
    loaded = pickle.loads(pickle.dumps(sim))
    res = loaded.simulate(5e-3)
    source = np.where(res.t >= 1e-3, 1.0, 0.0)
    np.testing.assert_allclose(res["R1.i"], (res["src.v"] - res["C1.v"]) / 1e3, rtol=1e-12, atol=1e-18)
    assert res["C1.v"][-1] > 0.98 and np.all(res["src.v"][res.t > 1e-3] == source[res.t > 1e-3])


def test_a_model_whose_classes_cannot_be_imported_names_the_reason():
    from physlib import PhyslibError

    class LocalResistor(Resistor):      # defined inside a function: pickle cannot find it by name
        pass

    m = Model("local")
    src, r, gnd = m.add(VoltageSource("src", V=1.0)), m.add(LocalResistor("R1", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, src.n, gnd.p)
    with pytest.raises(PhyslibError, match="importable"):
        pickle.dumps(m.compile())


# --- 2.-4. sweeps, Monte Carlo, executors -------------------------------------------------------
#
# The runs below simulate an RC circuit driven by a 1 V step at T_STEP: independently of physlib,
# C1.v(t_end) = 1 − exp(−(t_end − T_STEP)/(R·C)) and the largest current is 1/R, just after the step.
# Summary and analysis functions are defined at the top level so that spawned processes find them.

T_STEP, T_END = 1e-3, 5e-3
RUN = {"t_end": T_END, "t_eval": [0.0, T_STEP, T_END]}     # three output times keep runs ~1 ms


def final_values(res) -> dict:
    return {"v_end": res["C1.v"][-1], "i_max": res["R1.i"].max()}


def closed_form_v_end(R, C):
    return 1.0 - np.exp(-(T_END - T_STEP) / (np.asarray(R) * np.asarray(C)))


class Linear(OnePort):
    """v = k·i with any k: a negative k can cancel a resistor, which makes the loop singular."""

    k = Parameter(1e3, unit="Ohm")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.k * self.i)]


def loop_model():
    """1 V source, R1 = 1 kΩ and N1 (v = k·i) in series: i = 1/(1e3 + k), singular at k = −1e3."""
    m = Model("loop")
    src, r, n, gnd = (m.add(VoltageSource("src", V=1.0)), m.add(Resistor("R1", R=1e3)),
                      m.add(Linear("N1")), m.add(Ground("gnd")))
    m.connect(src.p, r.p)
    m.connect(r.n, n.p)
    m.connect(src.n, n.n, gnd.p)
    return m.compile()


def loop_current(res):
    return res["R1.i"][-1]


def die_in_a_worker(sim, params, **options):
    """An analysis that kills the worker process running it at k = 777 (never in the parent)."""
    if params["N1.k"] == 777.0 and multiprocessing.parent_process() is not None:
        os._exit(3)
    return sim.simulate(params=params, **options)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(params=["processes", "dask Client", "dask address"])
def parallel(request) -> dict:
    """The executor options of each parallel executor, two workers each: local processes, the
    module's dask LocalCluster through its Client and through its scheduler's address."""
    if request.param == "processes":
        return {"executor": "processes", "workers": 2}
    client = request.getfixturevalue("dask_client")
    return {"executor": client if request.param == "dask Client" else client.scheduler.address}


def _rows(table):
    return [(row.index, row.params, row.values, row.error) for row in table]


def test_a_grid_sweep_runs_every_combination_and_matches_the_closed_form():
    sim = rc_model().compile()
    R, C = [500.0, 1e3, 2e3], [1e-6, 3e-6]
    table = physlib.sweep(sim, {"R1.R": R, "C1.C": C}, summary=final_values, **RUN)
    assert len(table) == 6 and not table.failed
    assert [row.params for row in table] == [{"R1.R": r, "C1.C": c} for r in R for c in C]
    assert table.columns == ["R1.R", "C1.C", "v_end", "i_max"]
    # IDAS at rtol 1e-6, atol 1e-8: the global error of a 0.08..8-time-constant decay stays
    # below 1e-5 V (measured 2e-7); the current just after the step is algebraic: exact.
    np.testing.assert_allclose(table["v_end"], closed_form_v_end(table["R1.R"], table["C1.C"]), atol=1e-5)
    np.testing.assert_allclose(table["i_max"], 1.0 / table["R1.R"], rtol=1e-12)
    assert table[0].result is None and table.seed is None and table.timing["executor"] == "serial"
    frame = table.to_pandas()
    assert list(frame.columns) == ["R1.R", "C1.C", "v_end", "i_max", "error"] and len(frame) == 6


def test_a_table_of_parameter_sets_keeps_full_results_without_a_summary():
    sim = rc_model().compile()
    table = physlib.sweep(sim, [{"R1.R": 2e3}, {"C1.C": 2e-6}, {"R1.R": 4e3, "C1.C": 0.5e-6}], **RUN)
    assert table.param_names == ["R1.R", "C1.C"]
    assert table["C1.C"].tolist() == [1e-6, 2e-6, 0.5e-6] and table["R1.R"].tolist() == [2e3, 1e3, 4e3]
    for row, (R, C) in zip(table, [(2e3, 1e-6), (1e3, 2e-6), (4e3, 0.5e-6)]):
        assert row.result.model is sim
        assert row.result["C1.v"][-1] == pytest.approx(float(closed_form_v_end(R, C)), abs=1e-5)
    # One value instead of a dict is the column "value"; results kept alongside on request.
    table = physlib.sweep(sim, {"R1.R": [1e3]}, summary=lambda res: res["C1.v"][-1], keep_results=True, **RUN)
    assert table.value_names == ["value"] and table["value"][0] == table[0].result["C1.v"][-1]


def test_operating_point_and_linearize_sweeps():
    sim = loop_model()
    table = physlib.sweep(sim, {"N1.k": [0.0, 1e3, 3e3]}, analysis="operating_point",
                          summary=lambda op: op["R1.i"])
    np.testing.assert_allclose(table["value"], 1.0 / (1e3 + np.array([0.0, 1e3, 3e3])), rtol=1e-12)
    rc = rc_model().compile()
    table = physlib.sweep(rc, {"R1.R": [1e3, 2e3]}, analysis="linearize", inputs=["src.V.height"],
                          outputs=["C1.v"], summary=lambda lin: float(lin.poles()[0].real))
    np.testing.assert_allclose(table["value"], [-1e3, -500.0], rtol=1e-12)     # pole −1/(RC) [1/s]


GRID = {"R1.R": list(np.linspace(500.0, 5e3, 20)), "C1.C": list(np.linspace(0.5e-6, 5e-6, 10))}
DISTRIBUTIONS = {"R1.R": physlib.normal(1e3, 0.05, relative=True),
                 "C1.C": physlib.uniform(1e-6, 0.1, relative=True),
                 "src.V.height": physlib.lognormal(2.0, 0.2)}


@pytest.fixture(scope="module")
def serial_sweep():
    """The 200-run grid sweep (20 × 10) and the seed-7, 1000-run Monte Carlo study, serially."""
    sim = rc_model().compile()
    return (sim, physlib.sweep(sim, GRID, summary=final_values, **RUN),
            physlib.monte_carlo(sim, DISTRIBUTIONS, n=1000, seed=7, summary=final_values, **RUN))


def test_the_serial_200_run_sweep_matches_the_closed_form(serial_sweep):
    _, table, _ = serial_sweep
    assert len(table) == 200 and not table.failed
    np.testing.assert_allclose(table["v_end"], closed_form_v_end(table["R1.R"], table["C1.C"]), atol=1e-5)


def noise_at_1_hz(sim, params):
    """Noise of C1.v at 1 Hz at the operating point of ``params`` (T = 300.15 K)."""
    return sim.noise("C1.v", f=[1.0], at=sim.operating_point(params=params))


def first_psd(result) -> float:
    return float(result.psd[0])


def test_noise_sweeps_run_in_worker_processes():
    """The noise analysis needs the model's source_model, which travels with the pickled model:
    in worker processes the Johnson noise of R1 filtered by C1, 4kTR/(1 + (2πfRC)²) [V²/Hz],
    comes out as serially, bit for bit, and as the formula (to rounding)."""
    sim = rc_model().compile()
    grid = {"R1.R": [1e3, 4e3, 1.6e4, 6.4e4]}
    serial = physlib.sweep(sim, grid, analysis=noise_at_1_hz, summary=first_psd)
    R = serial["R1.R"]
    expected = 4 * 1.380649e-23 * 300.15 * R / (1 + (2 * np.pi * 1.0 * R * 1e-6) ** 2)
    np.testing.assert_allclose(serial["value"], expected, rtol=1e-9)
    table = physlib.sweep(sim, grid, analysis=noise_at_1_hz, summary=first_psd, executor="processes", workers=1)
    assert _rows(table) == _rows(serial)


def test_a_200_run_sweep_is_identical_serially_and_in_parallel(serial_sweep, parallel):
    """Acceptance 2: the 200-run sweep with 2 local processes, on the 2-worker LocalCluster
    (Client) and through its scheduler address: the same rows as serially, bit for bit."""
    sim, serial, _ = serial_sweep
    table = physlib.sweep(sim, GRID, summary=final_values, **parallel, **RUN)
    assert _rows(table) == _rows(serial)
    assert table.timing["workers"] == 2 and sum(table.timing["chunks"]) == 198   # 2 runs timed here


def test_monte_carlo_samples_have_the_distributions_moments(serial_sweep):
    """Acceptance 3 (moments): in the seed-7, n = 1000 study the sample mean and standard
    deviation of each parameter agree with its distribution within 3 standard errors:
    SE(mean) = σ/√n, SE(sd) = √((μ4 − σ⁴)/n)/(2σ) with μ4 the fourth central moment (3σ⁴ for
    a normal distribution, 9σ⁴/5 for a uniform one, see _lognormal_mu4)."""
    sim, _, one = serial_sweep
    assert one.seed == 7 and not one.failed
    n = len(one)
    sd_uniform = 1e-7 / np.sqrt(3)
    for name, mean, sd, mu4 in [("R1.R", 1e3, 50.0, 3 * 50.0**4), ("C1.C", 1e-6, sd_uniform, 1.8 * sd_uniform**4),
                                ("src.V.height", 2.0, 0.2, _lognormal_mu4(2.0, 0.2))]:
        x = one[name]
        assert abs(x.mean() - mean) < 3 * sd / np.sqrt(n), name
        assert abs(x.std(ddof=1) - sd) < 3 * np.sqrt((mu4 - sd**4) / n) / (2 * sd), name
    assert np.all(np.abs(one["C1.C"] - 1e-6) <= 1e-7) and np.all(one["src.V.height"] > 0)
    # Each run against the closed form with its own R, C and step height; the solver's
    # absolute error grows with the height (at most ~3 V here): 4e-5 V.
    np.testing.assert_allclose(one["v_end"], one["src.V.height"] * closed_form_v_end(one["R1.R"], one["C1.C"]),
                               atol=4e-5)
    # Run i's sample depends on (seed, i, name) only: a shorter study and an extra
    # distribution leave it unchanged, another seed changes it.
    short = physlib.monte_carlo(sim, DISTRIBUTIONS, n=5, seed=7, summary=final_values, **RUN)
    assert _rows(short) == _rows(one)[:5]
    more = physlib.monte_carlo(sim, {"C1.v0": physlib.normal(sd=0.01), **DISTRIBUTIONS}, n=5, seed=7, **RUN)
    assert [{k: r.params[k] for k in DISTRIBUTIONS} for r in more] == [r.params for r in one][:5]
    other = physlib.monte_carlo(sim, DISTRIBUTIONS, n=5, seed=8, **RUN)
    assert all(a.params["R1.R"] != b.params["R1.R"] for a, b in zip(other, one))


def test_monte_carlo_seed_7_is_the_same_on_1_and_2_workers(serial_sweep, parallel):
    """Acceptance 3 (reproducibility): n = 1000, seed 7 on two workers gives the same samples
    and results as serially (one worker)."""
    sim, _, one = serial_sweep
    table = physlib.monte_carlo(sim, DISTRIBUTIONS, n=1000, seed=7, summary=final_values, **parallel, **RUN)
    assert _rows(table) == _rows(one)


def _lognormal_mu4(mean, sd):
    """Fourth central moment of the lognormal distribution with that mean and sd:
    σ⁴·(e^{4s²} + 2e^{3s²} + 3e^{2s²} − 3), s² = ln(1 + (sd/mean)²)."""
    s2 = np.log1p((sd / mean) ** 2)
    return sd**4 * (np.exp(4 * s2) + 2 * np.exp(3 * s2) + 3 * np.exp(2 * s2) - 3)


def test_a_failing_run_is_reported_with_its_parameters_and_the_others_complete(parallel):
    """Acceptance 4: k = −1 kΩ cancels R1 (the loop current 1/0): those runs' rows hold the
    InitializationError naming N1 and R1; every other run gives 1/(1e3 + k). Serially and with
    each parallel executor."""
    sim = loop_model()
    ks = [0.0, 500.0, -1e3, 2e3, 4e3, -1e3, 8e3]
    for options in [{"executor": "serial"}, parallel]:
        table = physlib.sweep(sim, {"N1.k": ks}, summary=loop_current, t_end=1e-3, t_eval=[0.0, 1e-3],
                              **options)
        failed = table.failed
        assert [row.params for row in failed] == [{"N1.k": -1e3}, {"N1.k": -1e3}]
        assert all(row.error.startswith("InitializationError") and "N1" in row.error and "R1" in row.error
                   for row in failed)
        good = [row for row in table if row.ok]
        assert len(good) == 5
        np.testing.assert_allclose([row.values["value"] for row in good],
                                   [1.0 / (1e3 + row.params["N1.k"]) for row in good], rtol=1e-12)
        assert np.isnan(table["value"][2])


def test_a_worker_that_dies_loses_only_the_runs_it_was_given():
    sim = loop_model()
    ks = [float(k) for k in range(1, 41)] + [777.0]
    table = physlib.sweep(sim, {"N1.k": ks}, analysis=die_in_a_worker, summary=loop_current,
                          executor="processes", workers=2, t_end=1e-3, t_eval=[0.0, 1e-3])
    assert table[-1].error.startswith("processes executor: BrokenProcessPool")
    assert table[0].ok and table[1].ok          # timed in this process
    finished = [row for row in table if row.ok]
    np.testing.assert_allclose([row.values["value"] for row in finished],
                               [1.0 / (1e3 + row.params["N1.k"]) for row in finished], rtol=1e-12)


# --- 5. bad input -------------------------------------------------------------------------------

def test_an_unknown_parameter_name_lists_the_near_names():
    sim = rc_model().compile()
    with pytest.raises(physlib.ParameterError, match=r"unknown parameter of rc 'R1\.r'; did you mean R1\.R"):
        physlib.sweep(sim, {"R1.r": [1.0]}, t_end=1e-3)
    with pytest.raises(physlib.ParameterError, match="did you mean C1.C"):
        physlib.monte_carlo(sim, {"C1.c": physlib.normal(1e-6, 0.1)}, n=3, seed=1, t_end=1e-3)
    with pytest.raises(physlib.ParameterError, match="its names are"):
        physlib.sweep(sim, [{"zzz": 1.0}], t_end=1e-3)


def test_a_structural_parameter_is_named_as_such_by_every_analysis():
    # an Expression's expr chose the compiled equations and has no entry in the parameter vector:
    # "unknown parameter 'src.V.expr'; its names are R1.R, ..." sent the user looking for a typo
    from physlib.components.signals import Expression, t

    m = Model("rc")
    src = m.add(VoltageSource("src", V=Expression(t)))
    r, c, gnd = m.add(Resistor("R1", R=1e3)), m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    sim = m.compile()
    data = physlib.Experiment(data=(np.array([0.0, 1e-3]), {"C1.v": np.zeros(2)}))
    attempts = [lambda: sim.simulate(1e-3, params={"src.V.expr": 2 * t}),
                lambda: physlib.sweep(sim, {"src.V.expr": [2 * t]}, t_end=1e-3),
                lambda: physlib.monte_carlo(sim, {"src.V.expr": physlib.normal(1.0, 0.1)}, n=2, t_end=1e-3),
                lambda: sim.sensitivity(1e-3, params=["src.V.expr"]),
                lambda: physlib.fit(sim, data, params={"src.V.expr": 1.0}),
                lambda: sim.linearize(["src.V.expr"], ["C1.v"])]
    for attempt in attempts:
        with pytest.raises(physlib.StructureChangeError,
                           match=r"src\.V\.expr is a structural parameter of Expression src\.V.*compile again"):
            attempt()


def test_monte_carlo_without_n_and_bad_distributions_are_errors():
    sim = rc_model().compile()
    dists = {"R1.R": physlib.normal(1e3, 0.01, relative=True)}
    with pytest.raises(physlib.SweepError, match="needs the number of runs: n="):
        physlib.monte_carlo(sim, dists, seed=7, t_end=1e-3)
    with pytest.raises(physlib.SweepError, match="n must be a positive integer"):
        physlib.monte_carlo(sim, dists, n=0, seed=7, t_end=1e-3)
    with pytest.raises(physlib.SweepError, match="normal\\(\\), uniform\\(\\) or lognormal\\(\\)"):
        physlib.monte_carlo(sim, {"R1.R": 1e3}, n=2, seed=7, t_end=1e-3)
    with pytest.raises(physlib.SweepError, match="spread must be >= 0"):
        physlib.normal(1e3, -1.0)
    with pytest.raises(physlib.SweepError, match="positive values only"):
        physlib.monte_carlo(sim, {"R1.R": physlib.lognormal(-1.0, 0.1)}, n=2, seed=7, t_end=1e-3)
    # A draw the declaration refuses (R < 0) fails that run only.
    table = physlib.monte_carlo(sim, {"R1.R": physlib.normal(1.0, 2.0)}, n=20, seed=7, summary=final_values, **RUN)
    assert {row.params["R1.R"] < 0 for row in table.failed} == {True}
    assert 0 < len(table.failed) < 20 and all("must be > 0" in row.error for row in table.failed)


def test_executor_and_option_errors_say_what_to_do(monkeypatch):
    sim = rc_model().compile()
    grid = {"R1.R": [1e3]}
    with pytest.raises(physlib.SweepError, match=r"give it model.compile\(\), got Model"):
        physlib.sweep(rc_model(), grid, t_end=1e-3)
    with pytest.raises(physlib.SweepError, match="unknown executor 'threads'"):
        physlib.sweep(sim, grid, executor="threads", t_end=1e-3)
    with pytest.raises(physlib.SweepError, match="t_end="):
        physlib.sweep(sim, grid)
    with pytest.raises(physlib.SweepError, match="empty"):
        physlib.sweep(sim, {"R1.R": []}, t_end=1e-3)
    with pytest.raises(OptionError, match="rtol"):
        physlib.sweep(sim, grid, t_end=1e-3, rtol=-1.0)
    with pytest.raises(physlib.SweepError, match="top level"):
        physlib.sweep(sim, {"R1.R": [1e3, 2e3, 3e3]}, summary=lambda res: 1.0, executor="processes", **RUN)
    monkeypatch.setitem(sys.modules, "distributed", None)       # as if dask were not installed
    for executor in ("dask", "tcp://127.0.0.1:8786"):
        with pytest.raises(physlib.SweepError, match=r"pip install physlib\[dask\]"):
            physlib.sweep(sim, grid, executor=executor, t_end=1e-3)


def test_malloc_thresholds_are_restored_only_where_dask_changed_them():
    import subprocess

    code = "from physlib.analysis.sweeps import restore_malloc_thresholds as r; print(r())"
    env = {key: value for key, value in os.environ.items() if key != "MALLOC_TRIM_THRESHOLD_"}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    dask_like = subprocess.run([sys.executable, "-c", code], env={**env, "MALLOC_TRIM_THRESHOLD_": "65536"},
                               capture_output=True, text=True)
    assert plain.stdout.strip() == "False"
    assert dask_like.stdout.strip() == ("True" if sys.platform.startswith("linux") else "False")


def test_long_sweeps_show_progress_on_stderr(capsys):
    sim = rc_model().compile()
    physlib.sweep(sim, {"R1.R": [1e3, 2e3, 3e3]}, summary=final_values, progress=True, **RUN)
    assert "sweep: 3/3 runs" in capsys.readouterr().err
    physlib.sweep(sim, {"R1.R": [1e3, 2e3, 3e3]}, summary=final_values, **RUN)    # ~3 ms: no line
    assert capsys.readouterr().err == ""


def test_bench_sweeps_quick_runs_and_prints_its_table():
    """benchmarks/bench_sweeps.py --quick (40 runs of a 10-stage ladder) exits 0, prints one row
    per executor and finds every executor's results identical to the serial ones. Timings are
    not asserted (the machine may be busy); the benchmark prints its targets itself."""
    import re
    import subprocess

    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_sweeps.py"
    proc = subprocess.run([sys.executable, str(bench), "--quick"], capture_output=True, text=True,
                          timeout=300, cwd=bench.parents[1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    executors = ["serial", "processes"] + (["dask"] if "dask: not installed" not in out else [])
    for executor in executors:
        assert re.search(rf"^{executor}\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+x", out, re.MULTILINE), out
    assert re.search(r"\[PASS\] results identical to the serial ones on every executor", out), out
    assert "bench_sweeps: done (0 case(s) failed to run)" in out


def test_the_guide_sweep_example_runs_and_matches_the_closed_form(monkeypatch):
    """The user guide's sweep block, on the quickstart's RC circuit (1 V step at t = 0)."""
    from doc_pages import ROOT, code_block

    monkeypatch.syspath_prepend(str(ROOT))
    namespace = {}
    exec(code_block("docs/guide/sweeps.md", "physlib.sweep("), namespace)
    table, mc = namespace["table"], namespace["mc"]
    np.testing.assert_allclose(table["v_end"], 1 - np.exp(-5e-3 / (table["R1.R"] * table["C1.C"])), atol=1e-5)
    assert len(mc) == 200 and mc.seed == 7 and not mc.failed
    # 1 % of 1 kΩ: sd 10 Ω, its standard error 10/√(2·199) Ω; 3 of them.
    assert abs(mc["R1.R"].std(ddof=1) - 10.0) < 3 * 10.0 / np.sqrt(2 * 199)
    assert np.all(np.abs(mc["C1.C"] - 1e-6) <= 0.05e-6)


def test_a_column_holds_the_value_each_run_used_also_where_its_row_did_not_set_it():
    """Rows of a sweep given as a list of dicts may set different names: each column is the
    value the run used (the compiled-in one, or one computed from the model parameters the row
    set), read back from the final voltage of an RC divider, v = V·R2/(R1 + R2); NaN is left
    to failed runs' summary values."""
    m = Model("divider")
    rload = m.parameter("rload", 1e3, unit="Ohm")
    rtop = m.parameter("rtop", 2 * rload, unit="Ohm")
    src = m.add(VoltageSource("src", V=1.0))
    top, bottom, gnd = m.add(Resistor("R1", R=rtop)), m.add(Resistor("R2", R=rload)), m.add(Ground("gnd"))
    m.connect(src.p, top.p)
    m.connect(top.n, bottom.p)
    m.connect(bottom.n, src.n, gnd.p)
    sim = m.compile()
    runs = [{"rload": 3e3}, {"R1.R": 1e3}, {"rtop": 5e3, "R2.R": 4e3}]
    table = physlib.sweep(sim, runs, analysis="operating_point", summary=lambda op: op["R2.v"])
    used = {"rload": [3e3, 1e3, 1e3], "R1.R": [6e3, 1e3, 5e3], "rtop": [6e3, 2e3, 5e3], "R2.R": [3e3, 1e3, 4e3]}
    for name, values in used.items():
        assert table[name].tolist() == values, name
    divider = table["R2.R"] / (table["R1.R"] + table["R2.R"])
    assert np.allclose(table["value"], divider, rtol=1e-12, atol=0)


def test_a_summary_value_named_as_a_swept_parameter_is_refused():
    sim = rc_model().compile()
    with pytest.raises(physlib.PhyslibError, match="summary value 'R1.R' has the name of a swept parameter"):
        physlib.sweep(sim, {"R1.R": [1e3, 2e3]}, summary=lambda res: {"R1.R": res["C1.v"][-1]}, **RUN)
