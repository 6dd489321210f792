"""``physlib.fit``: parameters recovered from data made by the model at known values (noise-free:
to the fit's own tolerance; with Gaussian noise: within 3 of the reported standard errors), the
combinations the data cannot determine named as the closed form says, and bad input named.

The data are simulated at rtol 1e-10 and fitted at rtol 1e-8 (the fit's default): the runs' error
(~1e-8 relative) is then far below the 1e-6 asked of a noise-free recovery.
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.linalg as sla

import physlib
from physlib import Experiment, FitError
from test_electrical_transients import rc_model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import clutch_sweep  # noqa: E402
import dc_motor  # noqa: E402

EXACT = {"rtol": 1e-10, "atol": 1e-12}
T_RC = np.linspace(1e-4, 5e-3, 50)


def rc_data(seed=None):
    """The RC step's capacitor voltage and current at T_RC, with 1 % noise (10 mV, 10 µA) if seeded."""
    run = rc_model().compile().simulate(5e-3, t_eval=T_RC, **EXACT)
    v, i = run["C1.v"], run["R1.i"]
    if seed is not None:
        rng = np.random.default_rng(seed)
        v, i = v + 0.01 * rng.standard_normal(T_RC.size), i + 1e-5 * rng.standard_normal(T_RC.size)
    return v, i


RC_PARAMS = {"R1.R": (2e3, 10.0, 1e6), "C1.C": (0.5e-6, 1e-9, 1e-3)}


def test_an_rc_measured_at_its_capacitor_determines_only_r_times_c():
    # v = 1 − exp(−t/(R·C)): R and C enter only as their product
    v, _ = rc_data(seed=1)
    result = physlib.fit(rc_model().compile(), Experiment(data=(T_RC, {"C1.v": v}), sigma=0.01), params=RC_PARAMS)
    identifiability = result.identifiability()
    assert identifiability.undetermined == [{"R1.R": -1.0, "C1.C": 1.0}]
    assert identifiability.determined == [{"R1.R": 1.0, "C1.C": 1.0}]
    assert "do not determine C1.C/R1.R" in repr(identifiability)
    assert np.isinf(result.stderr["R1.R"]) and np.isinf(result.stderr["C1.C"])
    # the product itself is recovered: τ = 1 ms within the noise (10 mV on a 1 V charge)
    assert result.params["R1.R"] * result.params["C1.C"] == pytest.approx(1e-3, rel=1e-2)


def test_a_second_experiment_measuring_the_current_determines_both():
    v, i = rc_data(seed=2)
    sim = rc_model().compile()
    experiments = [Experiment(data=(T_RC, {"C1.v": v}), sigma=0.01), Experiment(data=(T_RC, {"R1.i": i}), sigma=1e-5)]
    result = physlib.fit(sim, experiments, params=RC_PARAMS)
    assert result.success and result.identifiability().identifiable
    for name, truth in (("R1.R", 1e3), ("C1.C", 1e-6)):
        assert abs(result.params[name] - truth) < 3 * result.stderr[name]
        low, high = result.confidence_intervals(0.95)[name]
        assert low < result.params[name] < high
    assert result.correlation[0, 1] == pytest.approx(result.covariance[0, 1] / np.prod(list(result.stderr.values())))
    # noise-free data: recovered to the fit's tolerance
    v, i = rc_data()
    exact = physlib.fit(sim, [Experiment(data=(T_RC, {"C1.v": v})), Experiment(data=(T_RC, {"R1.i": i}))],
                        params=RC_PARAMS)
    assert exact.params["R1.R"] == pytest.approx(1e3, rel=1e-6)
    assert exact.params["C1.C"] == pytest.approx(1e-6, rel=1e-6)


def test_experiments_run_side_by_side_on_processes_give_the_serial_fit():
    # each evaluation's two runs go to a pool of two processes, each keeping its own solvers:
    # the same CasADi functions and solver settings, so the same estimates to the fit's tolerance
    v, i = rc_data(seed=2)
    sim = rc_model().compile()
    experiments = [Experiment(data=(T_RC, {"C1.v": v}), sigma=0.01), Experiment(data=(T_RC, {"R1.i": i}), sigma=1e-5)]
    serial = physlib.fit(sim, experiments, params=RC_PARAMS)
    spread = physlib.fit(sim, experiments, params=RC_PARAMS, executor="processes", workers=2)
    for name in RC_PARAMS:
        assert spread.params[name] == pytest.approx(serial.params[name], rel=1e-9), name
        assert spread.stderr[name] == pytest.approx(serial.stderr[name], rel=1e-6), name
    with pytest.raises(FitError, match=r"fit: unknown executor 'threads'"):
        physlib.fit(sim, experiments, params=RC_PARAMS, executor="threads")


def test_dc_motor_speed_alone_leaves_the_two_combinations_the_transfer_function_leaves():
    # w/V = k/(L·J·s² + (R·J + L·d)·s + R·d + k²): the speed determines a = L·J/k,
    # b = (R·J + L·d)/k, c = (R·d + k²)/k; the undetermined directions of log(R, L, k, J, d) are
    # the null space of ∂log(a, b, c)/∂log θ
    R, L, k, J, d = dc_motor.R, dc_motor.L, dc_motor.K, dc_motor.J, dc_motor.B
    t = np.linspace(0.01, 0.5, 50)
    sim = dc_motor.build().compile()
    speed = sim.simulate(0.5, t_eval=t, **EXACT)["rotor.w"]
    names = ["R1.R", "L1.L", "emf.k", "rotor.J", "load.d"]
    truth = dict(zip(names, (R, L, k, J, d)))
    result = physlib.fit(sim, Experiment(data=(t, {"rotor.w": speed})),
                         params={n: (v, v / 10, v * 10) for n, v in truth.items()})
    undetermined = result.identifiability().undetermined
    assert len(undetermined) == 2
    rows = np.array([[0, 1, -1, 1, 0],
                     [R * J, L * d, -(R * J + L * d), R * J, L * d],
                     [R * d, 0, k * k - R * d, 0, R * d]], dtype=float)
    null = sla.null_space(rows / np.linalg.norm(rows, axis=1, keepdims=True))
    found = np.array([[combination.get(n, 0.0) for n in names] for combination in undetermined]).T
    angles = sla.subspace_angles(found, null)
    assert np.max(angles) < 1e-2        # the exponents are printed to 3 decimals


def test_dc_motor_five_parameters_recovered_from_current_and_speed_from_half_to_twice_the_truth():
    t = np.linspace(0.01, 0.5, 50)
    sim = dc_motor.build().compile()
    run = sim.simulate(0.5, t_eval=t, **EXACT)
    truth = {"R1.R": dc_motor.R, "L1.L": dc_motor.L, "emf.k": dc_motor.K, "rotor.J": dc_motor.J,
             "load.d": dc_motor.B}
    start = dict(zip(truth, (2.0, 0.5, 2.0, 0.5, 2.0)))
    data = pd.DataFrame({"t": t, "L1.i": run["L1.i"], "rotor.w": run["rotor.w"]})
    result = physlib.fit(sim, Experiment(data=data),
                         params={n: (v * start[n], v / 100, v * 100) for n, v in truth.items()})
    assert result.success
    for name, value in truth.items():
        assert result.params[name] == pytest.approx(value, rel=1e-6), name


def test_clutch_normal_force_and_driven_inertia_recovered_from_traces_through_the_lock():
    # the lock (at 1.52 s) moves with both parameters: the Jacobian carries the event's time
    # sensitivity, and the speeds after the lock depend on J2 only
    sim = clutch_sweep.build().compile()
    t = np.linspace(0.05, 2.0, 60)
    run = sim.simulate(2.0, t_eval=t, **EXACT)
    data = (t, {"J1.w": run["J1.w"], "J2.w": run["J2.w"]})
    result = physlib.fit(sim, Experiment(data=data, options={"max_step": 0.05}),
                         params={"clutch.fn_max": (1500.0, 100.0, 1e4), "J2.J": (1.0, 0.1, 10.0)})
    assert result.params["clutch.fn_max"] == pytest.approx(1000.0, rel=1e-6)
    assert result.params["J2.J"] == pytest.approx(2.0, rel=1e-6)


def test_a_resistance_is_recovered_from_a_circuit_without_states():
    # A sine through R into a diode: no state, its current solved at each sample. Its
    # sensitivities were once zero there, and the fit stayed at its start (1000 Ω) as converged.
    from test_export_c import diode_clipper

    sim = diode_clipper().compile()
    t = np.linspace(0.0, 1e-3, 21)
    truth = sim.simulate(1e-3, t_eval=t, params={"R1.R": 1500.0}, **EXACT)["R1.i"]
    result = physlib.fit(sim, [Experiment((t, {"R1.i": truth}), t_end=1e-3)], {"R1.R": 1000.0})
    assert result.params["R1.R"] == pytest.approx(1500.0, rel=1e-6)


def test_bad_fit_input_is_named():
    sim = rc_model().compile()
    v, _ = rc_data()
    good = Experiment(data=(T_RC, {"C1.v": v}))
    with pytest.raises(FitError, match=r"unknown parameter 'R1.RR'.*R1.R"):
        physlib.fit(sim, good, params={"R1.RR": 1e3})
    with pytest.raises(FitError, match=r"'R1.R'.*-5 is not a valid value.*must be > 0"):
        physlib.fit(sim, good, params={"R1.R": (1e3, -5.0, 1e4)}, log=False)
    # a guess of 0 has no logarithm: it was the run's own "R of R1 must be > 0", not the fit's
    with pytest.raises(FitError, match=r"'R1.R': log=True .* a guess > 0, got 0 in \[0, 1e\+06\]"):
        physlib.fit(sim, good, params={"R1.R": (0.0, 0.0, 1e6)})
    with pytest.raises(FitError, match=r"experiment 0: the model has no variable 'C1.vv'.*C1.v"):
        physlib.fit(sim, Experiment(data=(T_RC, {"C1.vv": v})), params={"R1.R": 1e3})
    with pytest.raises(FitError, match=r"experiment late: measurements .* outside the experiment's span"):
        physlib.fit(sim, Experiment(data=(T_RC, {"C1.v": v}), t_end=1e-3, name="late"), params={"R1.R": 1e3})
    broken = v.copy()
    broken[7] = np.nan
    with pytest.raises(FitError, match=r"'C1.v' has 1 values that are NaN.*t = 0.0008"):
        physlib.fit(sim, Experiment(data=(T_RC, {"C1.v": broken})), params={"R1.R": 1e3})


def test_clutch_parameters_from_noisy_traces_through_the_lock_lie_within_three_sigma():
    # 1 % of each speed's peak as Gaussian noise (seeded): the estimates must scatter as their
    # reported standard errors say, the lock's time sensitivity in the Jacobian included
    sim = clutch_sweep.build().compile()
    t = np.linspace(0.05, 2.0, 60)
    run = sim.simulate(2.0, t_eval=t, **EXACT)
    rng = np.random.default_rng(4)
    sigma = {path: 0.01 * np.max(np.abs(run[path])) for path in ("J1.w", "J2.w")}
    data = (t, {path: run[path] + s * rng.standard_normal(t.size) for path, s in sigma.items()})
    result = physlib.fit(sim, Experiment(data=data, sigma=sigma, options={"max_step": 0.05}),
                         params={"clutch.fn_max": (1500.0, 100.0, 1e4), "J2.J": (1.0, 0.1, 10.0)})
    assert result.success
    for name, truth in (("clutch.fn_max", 1000.0), ("J2.J", 2.0)):
        assert abs(result.params[name] - truth) < 3 * result.stderr[name], name
        assert 1e-4 < result.stderr[name] / truth < 0.05, name      # the noise is seen, and it is small


def test_an_unknown_start_voltage_is_recovered_with_the_resistance():
    # v = 1 − (1 − v0)·exp(−t/RC) from an unknown v0 = 0.3 V: v0 and R (C known) both shape the
    # curve; the guess for v0 is the model's own start value, 0 V
    sim = rc_model().compile()
    run = sim.simulate(5e-3, t_eval=T_RC, x0={"C1.v": 0.3}, **EXACT)
    start = Experiment(data=(T_RC, {"C1.v": run["C1.v"]}), x0_free=["C1.v"])
    exact = physlib.fit(sim, start, params={"R1.R": (2e3, 10.0, 1e6)})
    assert exact.names == ["R1.R", "C1.v(t0)"]
    assert exact.params["C1.v(t0)"] == pytest.approx(0.3, rel=1e-6)
    assert exact.params["R1.R"] == pytest.approx(1e3, rel=1e-6)
    assert exact.identifiability().identifiable
    # with 10 mV of noise: within 3 σ̂, the covariance of an additive parameter judged at its value
    rng = np.random.default_rng(5)
    noisy = Experiment(data=(T_RC, {"C1.v": run["C1.v"] + 0.01 * rng.standard_normal(T_RC.size)}), sigma=0.01,
                       x0_free={"C1.v": (0.0, -1.0, 1.0)})
    result = physlib.fit(sim, noisy, params={"R1.R": (2e3, 10.0, 1e6)})
    for name, truth in (("R1.R", 1e3), ("C1.v(t0)", 0.3)):
        assert abs(result.params[name] - truth) < 3 * result.stderr[name], name
        assert 0 < result.stderr[name] < 0.05 * truth, name
    # two experiments free the same state: each its own, named by the experiment
    other = sim.simulate(5e-3, t_eval=T_RC, x0={"C1.v": -0.5}, **EXACT)
    both = physlib.fit(sim, [Experiment(data=(T_RC, {"C1.v": run["C1.v"]}), x0_free=["C1.v"], name="a"),
                             Experiment(data=(T_RC, {"C1.v": other["C1.v"]}), x0_free=["C1.v"], name="b")],
                       params={"R1.R": (2e3, 10.0, 1e6)})
    assert both.params["C1.v(t0)@a"] == pytest.approx(0.3, rel=1e-6)
    assert both.params["C1.v(t0)@b"] == pytest.approx(-0.5, rel=1e-6)
    with pytest.raises(FitError, match=r"x0_free names 'C1.vv', which is not a state.*C1.v"):
        physlib.fit(sim, Experiment(data=(T_RC, {"C1.v": run["C1.v"]}), x0_free=["C1.vv"]), params={"R1.R": 1e3})


def test_an_estimate_stopped_at_its_bound_is_named_in_the_result_and_the_report():
    # the data were made with R = 1 kΩ; an upper bound of 800 Ω keeps the search below it
    v, _ = rc_data()
    params = {"R1.R": (600.0, 100.0, 800.0)}
    result = physlib.fit(rc_model().compile(), Experiment(data=(T_RC, {"C1.v": v})), params=params)
    assert result.at_bound == {"R1.R": "upper"}
    assert result.params["R1.R"] == pytest.approx(800.0, rel=1e-6)
    assert "at its upper bound" in result.report() and "R1.R: stopped at a bound" in result.report()
    free = physlib.fit(rc_model().compile(), Experiment(data=(T_RC, {"C1.v": v})), params={"R1.R": (600.0, 100.0, 5e3)})
    assert free.at_bound == {} and "bound" not in free.report()
    assert free.params["R1.R"] == pytest.approx(1e3, rel=1e-6)


@pytest.mark.parametrize("x0_free", [False, True])
def test_a_start_voltage_estimated_near_zero_keeps_its_standard_error(x0_free):
    # noise-free data from v0 = 0: v = 1 − (1 − v0)·exp(−t/RC) determines v0 and R together, with
    # the covariance σ²·(JᵀJ)⁻¹ of the closed-form Jacobian ∂v/∂v0 = exp(−t/RC), ∂v/∂R =
    # −(1 − v0)·t/(R²C)·exp(−t/RC). The estimate of v0 ends at rounding level (~1e-9 V), and judged
    # at that size its column looked 1e-7 of R's: "the data do not determine C1.v0", an infinite
    # stderr, and R's error without the correlation (5.8 Ω for 7.4 Ω). Both the parameter C1.v0
    # (searched linearly) and the free initial value. Bound: 1e-5 relative (the covariance of a
    # noise-free fit at rtol 1e-8 runs)
    sim, sigma = rc_model().compile(), 0.01
    v, _ = rc_data()
    if x0_free:
        result = physlib.fit(sim, Experiment(data=(T_RC, {"C1.v": v}), sigma=sigma, x0_free={"C1.v": (0.1, -1.0, 1.0)}),
                             params={"R1.R": (2e3, 10.0, 1e6)})
        name = "C1.v(t0)"
    else:
        result = physlib.fit(sim, Experiment(data=(T_RC, {"C1.v": v}), sigma=sigma),
                             params={"R1.R": (2e3, 10.0, 1e6), "C1.v0": (0.1, -1.0, 1.0)}, log=False)
        name = "C1.v0"
    assert abs(result.params[name]) < 1e-6
    assert result.identifiability().identifiable
    R, C = 1e3, 1e-6
    decay = np.exp(-T_RC / (R * C))
    J = np.column_stack([-T_RC / (R * R * C) * decay, decay]) / sigma
    exact = np.sqrt(np.diag(np.linalg.inv(J.T @ J)))
    assert result.stderr["R1.R"] == pytest.approx(exact[0], rel=1e-5)
    assert result.stderr[name] == pytest.approx(exact[1], rel=1e-5)


def test_measurements_repeated_at_the_same_times_count_each():
    # two sensors read the capacitor at the same instants: 2 × 50 measurements at 50 times, the
    # runs' output times strictly increasing (it was "t_eval must be a ... strictly increasing
    # sequence", about a t_eval the user never gave). The standard error is the closed form's
    # σ/√(Σ (∂v/∂R)²) over all 100, ∂v/∂R = −t/(R²C)·exp(−t/RC); 1e-6 relative (noise-free data)
    v, _ = rc_data()
    twice = (np.concatenate([T_RC, T_RC]), {"C1.v": np.concatenate([v, v])})
    result = physlib.fit(rc_model().compile(), Experiment(data=twice, sigma=0.01), params={"R1.R": (2e3, 10.0, 1e6)})
    assert result.params["R1.R"] == pytest.approx(1e3, rel=1e-6)
    slope = -T_RC / (1e3 ** 2 * 1e-6) * np.exp(-T_RC / 1e-3)
    assert result.stderr["R1.R"] == pytest.approx(0.01 / np.sqrt(2 * np.sum(slope ** 2)), rel=1e-6)
    assert result.dof == 99
