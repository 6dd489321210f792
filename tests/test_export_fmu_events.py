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
from physlib import Model  # noqa: E402
from physlib.components.rotational import Clutch, Inertia, Torque  # noqa: E402
from physlib.components.signals import Sine, Step  # noqa: E402

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


def _mode_changes(times, modes):
    changes = np.flatnonzero(np.diff(modes) != 0)
    return [(times[i + 1], modes[i], modes[i + 1]) for i in changes]


def test_clutch_fmu_has_the_independent_solutions_events(clutch_runs):
    _, fmu, reference = clutch_runs
    ours = _mode_changes(fmu["time"], fmu["clutch.mode"])
    theirs = [(t, before, after) for t, _, before, after in reference.events if t > 0]
    assert len(theirs) == 13
    assert [e[1:] for e in ours] == [e[1:] for e in theirs]
    np.testing.assert_allclose([e[0] for e in ours], [e[0] for e in theirs], rtol=0, atol=1e-6)


def test_clutch_fmu_and_simulate_follow_the_independent_solution(clutch_runs):
    sim, fmu, reference = clutch_runs
    times, counts = np.unique(fmu["time"], return_counts=True)
    single = np.isin(fmu["time"], times[counts == 1])       # rows away from the event instants
    t = fmu["time"][single]
    _, w = reference.at(t)
    res = sim.simulate(T_END, t_eval=t, rtol=1e-10, atol=1e-12)
    for k, name in enumerate(("J1.w", "J2.w")):
        scale = np.ptp(w[k])
        assert np.max(np.abs(fmu[name][single] - w[k])) < 1e-6 * scale, f"FMU {name}"
        assert np.max(np.abs(res[name] - w[k])) < 1e-6 * scale, f"simulate {name}"
