"""Exported FMUs at events, run in FMPy, against an independent solution and against simulate.

A user's clutch FMU disagreed with ``simulate`` by 5.8e-4 of J1.w's range, FMPy seeing 7
events physlib did not: the FMU was the wrong one (its clutch, broken away at a root a hair
before the static limit, slipped through zero into its own direction and took that for a
stick). The clutch's transition is one definition for both (physlib.core.logic, compiled to C
for the FMU), so it is checked here in both, against tests/stick_slip_reference.py.

Tolerances: FMPy's CVODE at rtol 1e-10 and physlib at 1e-10 agree to about 1e-8 of a signal's
range, the independent solution (DOP853 at 1e-11) likewise; 1e-6 of the range separates a
wrong mode (a slip that runs on is off by its whole range within a period) from integration
error. Event times: both locate crossings to ~1e-9 s; FMPy reports an event at the step that
detected it, so 1e-6 s.
"""
import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")

import stick_slip_reference as ssr  # noqa: E402
from fmu_runs import away_from_events, mode_changes  # noqa: E402
from physlib import Model  # noqa: E402
from physlib.components.rotational import Clutch, Inertia, Torque  # noqa: E402
from physlib.components.signals import Ramp, Sine, Step  # noqa: E402

T_END = 3.0


def clutch_model() -> Model:
    """J1 (0.3 kg·m², 60 rad/s) driven by 40·sin(2π·1.5·t) N·m, a clutch (µ 0.4, peak 1.2,
    cgeo 0.1 m, fn_max 500 N, pressed from 0.05 s) to J2 (0.9 kg·m², at rest): it slips,
    locks and breaks away again and again."""
    m = Model("clutch_fmu")
    drive = m.add(Torque("drive", tau=Sine(amplitude=40.0, f=1.5)))
    J1 = m.add(Inertia("J1", J=0.3, w0=60.0))
    clutch = m.add(Clutch("clutch", mu=0.4, peak=1.2, cgeo=0.1, fn_max=500.0, f_normalized=Step(t0=0.05)))
    J2 = m.add(Inertia("J2", J=0.9))
    m.connect(drive.flange, J1.flange_a)
    m.connect(J1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, J2.flange_a)
    return m


def clutch_reference() -> ssr.Solution:
    chain = ssr.Chain(J=[0.3, 0.9], torques={0: lambda t: 40.0 * np.sin(2 * np.pi * 1.5 * t)},
                      frictions=[ssr.Friction("clutch", 0, 1, 0.4, 1.2, 0.1, 500.0, lambda t: float(t >= 0.05))],
                      time_events=[0.05])
    return ssr.solve(chain, T_END, [0.0, 0.0], [60.0, 0.0])


@pytest.fixture(scope="module")
def clutch_runs(tmp_path_factory):
    sim = clutch_model().compile()
    path = sim.export_fmu(tmp_path_factory.mktemp("clutch") / "clutch", outputs=["J1.w"])
    fmu = fmpy.simulate_fmu(str(path), stop_time=T_END, relative_tolerance=1e-10, solver="CVode",
                            output=["J1.w", "J2.w", "clutch.mode"], output_interval=T_END / 600,
                            record_events=True)
    return sim, fmu, clutch_reference()


def test_clutch_fmu_has_the_independent_solutions_events(clutch_runs):
    _, fmu, reference = clutch_runs
    ours = mode_changes(fmu["time"], fmu["clutch.mode"])
    theirs = [(t, before, after) for t, _, before, after in reference.events if t > 0]
    assert len(theirs) == 13
    assert [e[1:] for e in ours] == [e[1:] for e in theirs]
    np.testing.assert_allclose([e[0] for e in ours], [e[0] for e in theirs], rtol=0, atol=1e-6)


def test_clutch_fmu_and_simulate_follow_the_independent_solution(clutch_runs):
    sim, fmu, reference = clutch_runs
    single = away_from_events(fmu["time"])
    t = fmu["time"][single]
    _, w = reference.at(t)
    res = sim.simulate(T_END, t_eval=t, rtol=1e-10, atol=1e-12)
    for k, name in enumerate(("J1.w", "J2.w")):
        scale = np.ptp(w[k])
        assert np.max(np.abs(fmu[name][single] - w[k])) < 1e-6 * scale, f"FMU {name}"
        assert np.max(np.abs(res[name] - w[k])) < 1e-6 * scale, f"simulate {name}"


def ramped_clutch() -> Model:
    """J1 (0.5 kg·m², 10 rad/s) and J2 (1.5 kg·m², at rest), free, joined by a clutch (µ 0.4,
    cgeo 0.1 m, fn_max 500 N: 20 N·m at full force) whose normal force ramps from zero at 0.1 s
    to full at 1.1 s."""
    m = Model("ramped_clutch")
    J1 = m.add(Inertia("J1", J=0.5, w0=10.0))
    clutch = m.add(Clutch("clutch", mu=0.4, peak=1.0, cgeo=0.1, fn_max=500.0,
                          f_normalized=Ramp(height=1.0, duration=1.0, t0=0.1)))
    J2 = m.add(Inertia("J2", J=1.5))
    m.connect(J1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, J2.flange_a)
    return m


def test_clutch_engaging_as_its_force_leaves_zero_engages_at_once_in_the_fmu(tmp_path):
    """The ramp starts at a time event with the clutch's normal force at zero, so the clutch
    stays free there; its force then leaves zero, which is no crossing. The FMU looks again a
    moment after the event (as simulate's settling does) and engages the clutch there. Before,
    it engaged at the end of the importer's next step (FMPy's output interval): 5e-3 s late,
    the speeds 6e-5 of their range off.

    Closed form while slipping (s = t − 0.1 s, torque 20·s N·m): w1 = 10 − 20·s² (J1 = 0.5),
    w2 = 20·s²/3 (J2 = 1.5); they meet at s² = 0.375 (w = 2.5 rad/s, the momentum-conserving
    speed) and turn together from then on."""
    sim = ramped_clutch().compile()
    path = sim.export_fmu(tmp_path / "ramped_clutch", outputs=["J1.w", "J2.w"])
    fmu = fmpy.simulate_fmu(str(path), stop_time=1.0, relative_tolerance=1e-10, solver="CVode",
                            output=["J1.w", "J2.w", "clutch.mode"], output_interval=1.0 / 200,
                            record_events=True)
    t_lock = 0.1 + np.sqrt(0.375)
    expected = [(0.1, 2, -1), (t_lock, -1, 0)]
    ours = mode_changes(fmu["time"], fmu["clutch.mode"])
    assert [e[1:] for e in ours] == [e[1:] for e in expected]
    np.testing.assert_allclose([e[0] for e in ours], [e[0] for e in expected], rtol=0, atol=1e-6)
    single = away_from_events(fmu["time"])
    t = fmu["time"][single]
    s = np.clip(t - 0.1, 0.0, t_lock - 0.1)
    exact = {"J1.w": 10.0 - 20.0 * s ** 2, "J2.w": 20.0 * s ** 2 / 3}
    res = sim.simulate(1.0, t_eval=t, rtol=1e-10, atol=1e-12)
    for name, w in exact.items():
        assert np.max(np.abs(fmu[name][single] - w)) < 1e-6 * np.ptp(w), f"FMU {name}"
        assert np.max(np.abs(res[name] - w)) < 1e-6 * np.ptp(w), f"simulate {name}"
