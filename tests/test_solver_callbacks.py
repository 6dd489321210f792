"""SUNDIALS' callbacks in C (physlib.analysis.simulation.callbacks): built once with the
system C compiler, the same arithmetic as the Python callbacks (runs equal bit for bit), and
the Python callbacks whenever C is unavailable."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from physlib import Model
from physlib.analysis.simulation import callbacks
from physlib.analysis.simulation.sundials import Stepper
from physlib.components.signals import Integrator, Relay

from hybrid_circuits import assert_identical_runs, python_stepping_loop
from test_event_iteration_compiled import F_SW, buck, rectifier


def relay_oscillator() -> Model:
    """An integrator fed back through a relay with hysteresis (y = +1 below −1, −1 above +1):
    an ODE with modes, a triangle wave of period 8 s."""
    m = Model("relay_oscillator")
    integrator = m.add(Integrator("I", y0=0.0))
    relay = m.add(Relay("R", u_on=1.0, u_off=-1.0, y_on=-1.0, y_off=1.0))
    m.connect(integrator.y, relay.u)
    m.connect(relay.y, integrator.u)
    return m


def python_callbacks(monkeypatch):
    monkeypatch.setenv("PHYSLIB_PYTHON_CALLBACKS", "1")
    monkeypatch.setattr(callbacks, "_loaded", {})


def uses_compiled(sim, solver) -> bool:
    stepper = Stepper(sim.system, solver, 1e-6, 1e-8, None)
    try:
        return stepper.compiled_callbacks
    finally:
        stepper.close()


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
@pytest.mark.parametrize("build, solver, t_end", [(buck, "idas", 40 / F_SW), (rectifier, "idas", 5e-3),
                                                   (relay_oscillator, "cvodes", 20.0)])
def test_compiled_and_python_callbacks_give_the_same_run_bit_for_bit(build, solver, t_end, monkeypatch):
    sim = build().compile()
    assert uses_compiled(sim, solver)
    compiled = sim.simulate(t_end, solver=solver)
    python_callbacks(monkeypatch)
    assert not uses_compiled(sim, solver)
    assert_identical_runs(compiled, sim.simulate(t_end, solver=solver))
    assert len(compiled.events) >= 4         # every case switches: events restart the solver


def test_without_a_compiler_the_python_callbacks_serve(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(callbacks, "_loaded", {})
    assert callbacks.library() is None
    sim = rectifier().compile()
    assert not uses_compiled(sim, "idas")
    res = sim.simulate(5e-3)
    # Five periods of a 10 V peak into 1 uF || 1 kOhm: the capacitor peaks near 10 V.
    assert 9.0 < res["C1.v"].max() <= 10.0


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_the_callbacks_are_built_once_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(callbacks, "_loaded", {})
    assert callbacks.library() is not None
    built = list((tmp_path / "callbacks").glob("sundials_callbacks-*.so"))
    assert len(built) == 1
    inode = built[0].stat().st_ino
    monkeypatch.setattr(callbacks, "_loaded", {})           # a new process, as it were
    assert callbacks.library() is not None
    assert built[0].stat().st_ino == inode                  # loaded, not rebuilt (a build renames a new file in)
    assert [p.name for p in (tmp_path / "callbacks").iterdir()] == [built[0].name]   # no leftovers


def shockley_buck() -> Model:
    from physlib.components.electrical import Diode
    return buck(vin=24.0, f=20e3, duty=0.5, L=100e-6, C=100e-6, R=5.0,
                switch_options={"Ron": 10e-3, "Goff": 1e-6}, diode=Diode("D1", Is=1e-14, N=1.0, Rs=10e-3))


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
@pytest.mark.parametrize("build, t_end, points", [(buck, 40 / F_SW, None), (buck, 40 / F_SW, 3001),
                                                  (rectifier, 5e-3, None), (rectifier, 5e-3, 777),
                                                  (shockley_buck, 1e-3, 2001)])
def test_the_stepping_loop_in_c_gives_the_python_loop_bit_for_bit(build, t_end, points):
    # The C loop (compiled_stepping) takes the same steps, checks the same guards against the
    # same references and interpolates the same rows as the Python loop of _run_to. A first
    # version left the run's guard references stale at a crossing: a diode's event moved by
    # 1e-13 s and the rest of the run by as much.
    sim = build().compile()
    t_eval = None if points is None else np.linspace(0.0, t_end, points)
    in_c = sim.simulate(t_end, t_eval=t_eval)
    with python_stepping_loop():
        assert_identical_runs(in_c, sim.simulate(t_end, t_eval=t_eval))
    assert len(in_c.events) >= 4


def test_rows_completed_in_blocks_keep_the_modes_they_were_interpolated_in():
    # A block of interpolated rows spans many diode switchings before its row function runs:
    # every row must be completed in its own modes. Each row's mode must be the one the events
    # give at its time, and the diode's law must hold in it: on, v = Ron·i; off, i = Goff·v,
    # to 1e-9 of the row's scale plus 1e-10 (rows at a solver step carry IDA's corrector
    # tolerance, 3e-11 measured).
    sim = rectifier().compile()
    times = np.linspace(0.0, 10e-3, 20001)
    res = sim.simulate(10e-3, t_eval=times)
    switches = [(e.t, e.after["on"]) for e in res.events if e.component == "D1"]
    assert len(switches) >= 18
    edges = np.array([t for t, _ in switches])
    after = np.array([mode for _, mode in switches])
    expected = after[np.searchsorted(edges, res.t, side="right") - 1]
    clear = np.min(np.abs(res.t[:, None] - edges[None, :]), axis=1) > 1e-9   # not at an event
    on = res["D1.on"]
    assert np.array_equal(on[clear], expected[clear])
    ron, goff = sim.parameters["D1.Ron"], sim.parameters["D1.Goff"]
    v, i = res["D1.v"], res["D1.i"]
    law = np.where(on == 1, v - ron * i, i - goff * v)
    scale = np.where(on == 1, np.abs(v) + ron * np.abs(i), np.abs(i) + goff * np.abs(v))
    assert np.all(np.abs(law) <= 1e-9 * scale + 1e-10)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_with_the_cache_off_the_callbacks_are_built_in_a_folder_that_goes(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setenv("PHYSLIB_NO_CACHE", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(callbacks, "_loaded", {})
    assert callbacks.library() is not None
    assert list(tmp_path.iterdir()) == []          # built, loaded, and the folder removed
    sim = rectifier().compile()
    assert uses_compiled(sim, "idas")


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_an_unwritable_cache_folder_still_gives_the_compiled_callbacks(tmp_path, monkeypatch):
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(blocked))
    monkeypatch.setattr(callbacks, "_loaded", {})
    assert callbacks.library() is not None
