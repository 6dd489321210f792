"""Stick-slip clutches against the Modelica Standard Library's CoupledClutches reference."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from reference import assert_in_tube, load_msl

# tests/data/README.md: the reference's events (time events at 0.4 and 0.9 s).
REFERENCE_EVENTS = [
    (0.4, "clutch2"), (0.7096214638, "clutch2"), (0.7916582843, "clutch1"),
    (0.8311085061, "clutch1"), (0.9, "clutch3"), (0.9068491375, "clutch1"),
    (1.0002958599, "clutch1"), (1.1439696304, "clutch3"), (1.25, "clutch1"),
]


def coupled_clutches():
    path = Path(__file__).resolve().parents[1] / "examples" / "coupled_clutches.py"
    spec = importlib.util.spec_from_file_location("coupled_clutches", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build()


@pytest.fixture(scope="module")
def run():
    ref = load_msl("CoupledClutches")
    sim = coupled_clutches().compile()
    dense = sim.simulate(1.5, rtol=1e-8, atol=1e-10)
    sampled = sim.simulate(1.5, rtol=1e-8, atol=1e-10, t_eval=np.unique(ref["time"]))
    return ref, dense, sampled


def test_events_occur_in_reference_order_within_1e_5_s(run):
    _, res, _ = run
    events = [(e.t, e.component) for e in res.events if e.cause != "initial"]
    assert [c for _, c in events] == [c for _, c in REFERENCE_EVENTS]
    # The reference itself carries ~4e-6 s of integration error (an independent simulator
    # matched its event times to within 4.1e-6 s).
    for (t, _), (t_ref, comp) in zip(events, REFERENCE_EVENTS):
        assert abs(t - t_ref) < 1e-5, (comp, t, t_ref)
    time_events = [e.t for e in res.events if e.cause == "time"]
    assert time_events == [0.4, 0.9]


def test_trajectories_stay_in_the_msl_tube(run):
    ref, _, res = run
    t_ref = ref["time"]
    for name in ("J1.w", "J1.phi", "clutch1.w_rel", "clutch1.phi_rel", "clutch2.w_rel",
                 "clutch2.phi_rel", "clutch3.w_rel", "clutch3.phi_rel"):
        assert_in_tube(name, t_ref, ref[name], np.interp(t_ref, res.t, res[name]))
    # End values given in tests/data/README.md.
    assert res["J1.phi"][-1] == pytest.approx(7.486092184, rel=2e-3)
    assert res["J1.w"][-1] == pytest.approx(3.247034565, rel=2e-3)


def test_modes_equal_the_reference_between_events(run):
    ref, _, res = run
    t_ref = ref["time"]
    near_event = np.zeros(len(t_ref), bool)
    for t_event, _ in REFERENCE_EVENTS:
        near_event |= np.abs(t_ref - t_event) < 2e-3
    for k in (1, 2, 3):
        ours = np.interp(t_ref, res.t, res[f"clutch{k}.mode"])
        np.testing.assert_array_equal(ours[~near_event], ref[f"clutch{k}.mode"][~near_event])


def test_events_record_values_just_before_and_after(run):
    _, res, _ = run
    t_lock = next(e.t for e in res.events if e.component == "clutch2" and e.after == {"mode": 0})
    at = np.flatnonzero(res.t == t_lock)
    assert len(at) == 2
    before, after = at
    assert res["clutch2.mode"][before] == -1 and res["clutch2.mode"][after] == 0
    assert abs(res["clutch2.w_rel"][after]) < 1e-9        # locked: slip speed zero


def test_unconnected_normal_force_is_named():
    from physlib import Model, UnconnectedPortError
    from physlib.components.rotational import Clutch, Inertia

    m = Model("m")
    a, b = m.add(Inertia("A", J=1.0)), m.add(Inertia("B", J=1.0))
    c = m.add(Clutch("c1", fn_max=10.0))
    m.connect(a.flange_b, c.flange_a)
    m.connect(c.flange_b, b.flange_a)
    with pytest.raises(UnconnectedPortError, match=r"c1\.f_normalized"):
        m.compile()


def test_energy_books_balance_with_a_slipping_clutch():
    """Torque source on J1 (spinning), a slipping clutch to J2 (at rest) that locks at
    t = 50/(4.5/1.35 + 12.5) ≈ 3.16 s: the source's work equals the change of stored energy
    plus the clutch's slip losses (its dissipation), which are 97 % of the books here."""
    from scipy.integrate import simpson

    from physlib import Model
    from physlib.components.rotational import Clutch, Inertia, Torque

    m = Model("slip")
    drive = m.add(Torque("drive", tau=2.0))
    j1 = m.add(Inertia("J1", J=0.2, w0=50.0))
    clutch = m.add(Clutch("clutch", mu=0.3, cgeo=0.15, fn_max=100.0, f_normalized=1.0))
    j2 = m.add(Inertia("J2", J=1.35))
    m.connect(drive.flange, j1.flange_a)
    m.connect(j1.flange_b, clutch.flange_a)
    m.connect(clutch.flange_b, j2.flange_a)
    t = np.linspace(0.0, 4.0, 4001)
    res = m.compile().simulate(4.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert [e.after for e in res.events if e.component == "clutch"][-1] == {"mode": 0}   # locked
    work = simpson(2.0 * res["J1.w"], x=t)
    losses = simpson(res.dissipated_power("clutch"), x=t)
    stored = res.stored_energy()
    # Simpson on a 1e-3 s grid across the kink at the lock: O(h²·|dP/dt|) ≈ 7e-5 J of 250 J.
    assert stored[-1] - stored[0] + losses == pytest.approx(work, rel=1e-6)
    assert losses > 0.9 * (stored[0] - stored[-1] + work)


def test_a_clutch_stuck_beside_a_locked_freewheel_is_an_error_naming_both():
    # Two locks on one relative motion leave the torque between them undetermined (the MSL's
    # OneWayClutch is one element, freewheel and clutch together): an error naming the two
    # components, not numpy's LinAlgError from the projection.
    from physlib import Model, PhyslibError
    from physlib.components.rotational import Clutch, Inertia, OneWayClutch, Torque
    from physlib.components.signals import Pulse, Sine

    m = Model("parallel_locks")
    drive = m.add(Torque("drive", tau=Sine(amplitude=10.0, f=3.0)))
    a, b = m.add(Inertia("a", J=1.0, w0=-0.5)), m.add(Inertia("b", J=1.0))
    clutch = m.add(Clutch("clutch", peak=25.0, fn_max=3.0,
                          f_normalized=Pulse(width=0.65, period=1.3, t0=0.3)))
    freewheel = m.add(OneWayClutch("freewheel"))
    m.connect(drive.flange, a.flange_a)
    m.connect(a.flange_b, clutch.flange_a, freewheel.flange_a)
    m.connect(clutch.flange_b, freewheel.flange_b, b.flange_a)
    with pytest.raises(PhyslibError, match=r"Constraints active: clutch, freewheel"):
        m.compile().simulate(2.0)


def test_a_clutch_locked_with_another_at_once_slides_on_where_it_cannot_hold():
    """J1 −A− J2 −B− J3 with 10 N·m on J3: A slides forward at 1 N·m (static capacity 1.1),
    B backward at 10 N·m (capacity 11), and both slips reach zero at t = 1 s, 5 rad/s. Held
    together, A would carry J1·10/(J1 + J2 + J3) = 6.67 N·m: it slides on while B holds
    (5.5 N·m of its 11). Closed form at 2 s: w1 = 4.5 + 1/2·2 = 5.5, w2 = w3 = 5 + 9·1 = 14.
    A once stayed stuck at six times its capacity (the rule that a stick does not break
    straight back into its slip) and all three ended at 8.33 rad/s. 1e-6 asked (rtol 1e-10)."""
    from physlib import Model
    from physlib.components.rotational import Clutch, Inertia, Torque
    m = Model("two_locks")
    j1 = m.add(Inertia("J1", J=2.0, w0=4.5))
    j2 = m.add(Inertia("J2", J=0.5, w0=27.0))
    j3 = m.add(Inertia("J3", J=0.5, w0=-35.0))
    a = m.add(Clutch("A", mu=0.5, peak=1.1, fn_max=2.0, f_normalized=1.0))
    b = m.add(Clutch("B", mu=0.5, peak=1.1, fn_max=20.0, f_normalized=1.0))
    drive = m.add(Torque("t", tau=10.0))
    m.connect(j1.flange_b, a.flange_a)
    m.connect(a.flange_b, j2.flange_a)
    m.connect(j2.flange_b, b.flange_a)
    m.connect(b.flange_b, j3.flange_a)
    m.connect(drive.flange, j3.flange_b)
    res = m.compile().simulate(2.0, rtol=1e-10, atol=1e-12)
    assert [res[f"J{k}.w"][-1] for k in (1, 2, 3)] == pytest.approx([5.5, 14.0, 14.0], abs=1e-6)
    stuck = res["A.mode"] == 0
    assert not stuck.any() or np.abs(res["A.tau"][stuck]).max() <= 1.1 + 1e-9
