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
from physlib.components.electrical import Capacitor, Ground, IdealDiode, Resistor, VoltageSource
from physlib.components.signals import Integrator, Relay, Sine

from test_event_iteration_compiled import F_SW, buck


def rectifier() -> Model:
    m = Model("rectifier")
    src = m.add(VoltageSource("src", V=Sine(amplitude=10.0, f=1e3)))
    d, r = m.add(IdealDiode("D1")), m.add(Resistor("R1", R=1e3))
    c, gnd = m.add(Capacitor("C1", C=1e-6)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p, c.p)
    m.connect(r.n, c.n, src.n, gnd.p)
    return m


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
    python = sim.simulate(t_end, solver=solver)
    assert np.array_equal(compiled.t, python.t)
    for name in compiled.names:
        assert np.array_equal(compiled[name], python[name]), name
    assert compiled.stats["steps"] == python.stats["steps"]
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
    stamp = built[0].stat().st_mtime_ns
    monkeypatch.setattr(callbacks, "_loaded", {})           # a new process, as it were
    assert callbacks.library() is not None
    assert built[0].stat().st_mtime_ns == stamp             # loaded, not rebuilt
    assert [p.name for p in (tmp_path / "callbacks").iterdir()] == [built[0].name]   # no leftovers
