"""Standalone C export: the program's CSV equals simulate(solver="trapezoidal", dt=...).

Both run the same step equations with the same Newton iteration to the same tolerance (1e-12
of the unknowns), so they agree to rounding; 1e-6 of a signal's range separates a wrong
equation, grid or event handling (errors of order 1e-3..1) with room to spare. A signal that
is zero up to rounding (the ground's current, ~1e-20 A) gets an absolute floor instead.
"""
import io
import shutil
import subprocess

import numpy as np
import pytest

from physlib import ExportError, Model
from physlib.components.electrical import (Capacitor, Diode, Ground, IdealDiode, Resistor,
                                           VoltageSource)
from physlib.components.signals import Pulse, Sine, Step

RANGE_TOL = 1e-6
ZERO_FLOOR = 1e-18      # absolute floor for signals that are zero up to rounding

pytestmark = pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
                                reason="no C compiler")


def rc_ladder(stages: int, V=1.0) -> Model:
    m = Model(f"ladder{stages}")
    src, gnd = m.add(VoltageSource("src", V=V)), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(stages):
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-6))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    return m


def diode_rc() -> Model:
    """A half-wave rectifier: diode (nonlinear algebraic loop with its series resistance) into
    a smoothing capacitor and a load."""
    m = Model("diode_rc")
    src = m.add(VoltageSource("src", V=Sine(amplitude=5.0, f=1e3)))
    d, c = m.add(Diode("D1", Rs=10.0)), m.add(Capacitor("C1", C=1e-6))
    load, gnd = m.add(Resistor("RL", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, c.p, load.p)
    m.connect(c.n, load.n, src.n, gnd.p)
    return m


def diode_clipper() -> Model:
    """A sine through a resistor into a diode: no state, one algebraic unknown (the loop current)."""
    m = Model("clipper")
    src = m.add(VoltageSource("src", V=Sine(amplitude=5.0, f=1e3)))
    d, r, gnd = m.add(Diode("D1", Rs=10.0)), m.add(Resistor("R1", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    return m


def run(program) -> tuple[list[str], np.ndarray]:
    out = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout
    header, _, rows = out.partition("\n")
    return header.split(","), np.loadtxt(io.StringIO(rows), delimiter=",", ndmin=2)


def assert_equals_simulation(sim, program, t_end, dt):
    names, data = run(program)
    res = sim.simulate(t_end, solver="trapezoidal", dt=dt)
    assert names == ["time", *sim.variables]
    assert data.shape[0] == len(res.t)
    np.testing.assert_allclose(data[:, 0], res.t, rtol=1e-15, atol=1e-15 * t_end)
    for j, name in enumerate(sim.variables, 1):
        reference = res[name]
        tol = RANGE_TOL * np.ptp(reference) + ZERO_FLOOR
        assert np.max(np.abs(data[:, j] - reference)) <= tol, name


def test_rc_ladder_with_a_step_between_grid_points_equals_the_simulation(tmp_path):
    # The step at 0.3 ms + 37 µs falls inside a step: it is split there, with two rows.
    sim = rc_ladder(20, V=Step(height=1.0, t0=3.37e-4)).compile()
    program = sim.export_c(tmp_path / "ladder", t_end=2e-3, dt=1e-5)
    assert program.parent == tmp_path / "ladder"
    assert_equals_simulation(sim, program, 2e-3, 1e-5)


def test_a_pulse_edge_at_t_end_is_left_for_after_the_run(tmp_path):
    """A pulse whose period divides t_end rises at t_end itself: the capacitor's last step must
    see the source low up to there (its left limit), as the simulation's does; the program took
    the high value into the step's end and was 5e-3 V (1.2 % of the range) off in its last row."""
    sim = rc_ladder(1, V=Pulse(amplitude=1.0, width=3e-4, period=1e-3)).compile()
    program = sim.export_c(tmp_path / "pulse", t_end=5e-3, dt=1e-5)
    assert_equals_simulation(sim, program, 5e-3, 1e-5)


def test_a_diode_rc_with_a_nonlinear_loop_equals_the_simulation(tmp_path):
    sim = diode_rc().compile()
    assert sim.algebraic           # the diode's junction: solved by Newton in C
    program = sim.export_c(tmp_path / "rectifier", t_end=3e-3, dt=2e-6)
    assert_equals_simulation(sim, program, 3e-3, 2e-6)


def test_a_model_without_states_and_one_algebraic_unknown_equals_the_simulation(tmp_path):
    sim = diode_clipper().compile()        # the step's unknowns are the one loop current
    assert not sim.states and len(sim.algebraic) == 1
    program = sim.export_c(tmp_path / "clipper", t_end=2e-3, dt=1e-5)
    assert_equals_simulation(sim, program, 2e-3, 1e-5)


def test_defaults_and_the_makefile(tmp_path):
    sim = rc_ladder(1).compile()
    program = sim.export_c(tmp_path / "rc")
    _, data = run(program)
    assert data.shape[0] == 1001 and data[-1, 0] == pytest.approx(1.0)     # t_end 1 s, dt = t_end/1000
    if shutil.which("make"):
        program.unlink()
        subprocess.run(["make", "-s"], cwd=program.parent, check=True, capture_output=True)
        np.testing.assert_array_equal(run(program)[1], data)


@pytest.mark.parametrize("options", [{"t_end": 0.0}, {"t_end": -1.0}, {"t_end": float("nan")},
                                     {"dt": float("inf")}, {"dt": 0}, {"dt": "1e-3"}, {"dt": True}])
def test_bad_times_are_export_errors(tmp_path, options):
    with pytest.raises(ExportError, match="positive, finite"):
        rc_ladder(1).compile().export_c(tmp_path / "bad", **options)
    assert not (tmp_path / "bad").exists()


def test_the_data_header_names_each_parameter_and_column_with_its_unit(tmp_path):
    sim = rc_ladder(1).compile()
    program = sim.export_c(tmp_path / "rc", t_end=1e-3)
    header = (program.parent / "model_data.h").read_text()
    for name in sim.parameters:
        assert f"{sim.parameter_slot(name):5d}  {name} = {sim.parameters[name]!r} [{sim.unit(name)}]" in header
    assert "R0.R = 1000.0 [Ohm]" in header and "C0.C = 1e-06 [F]" in header
    assert " *   der(C0.v) [V/s]\n" in header


def test_a_path_that_is_no_folder_is_an_export_error(tmp_path):
    """A file where the folder should go, or below it, or no path: an ExportError naming it,
    not Python's FileExistsError, NotADirectoryError or TypeError."""
    sim = rc_ladder(1).compile()
    (tmp_path / "taken").write_text("a file")
    with pytest.raises(ExportError, match="where there is a file"):
        sim.export_c(tmp_path / "taken")
    with pytest.raises(ExportError, match="cannot be made there"):
        sim.export_c(tmp_path / "taken" / "below")
    with pytest.raises(ExportError, match="path of a folder"):
        sim.export_c(None)


def test_no_compiler_is_an_export_error_before_anything_is_written(tmp_path, monkeypatch):
    sim = rc_ladder(1).compile()
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ExportError, match="no C compiler"):
        sim.export_c(tmp_path / "nothing")
    monkeypatch.setenv("CC", "no-such-compiler")
    with pytest.raises(ExportError, match="no-such-compiler"):
        sim.export_c(tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()


def test_models_with_modes_are_export_errors(tmp_path):
    m = Model("ideal_rectifier")
    src, d = m.add(VoltageSource("src", V=1.0)), m.add(IdealDiode("D1"))
    r, gnd = m.add(Resistor("R1", R=1e3)), m.add(Ground("gnd"))
    m.connect(src.p, d.p)
    m.connect(d.n, r.p)
    m.connect(r.n, src.n, gnd.p)
    with pytest.raises(ExportError, match="continuous models"):
        m.compile().export_c(tmp_path / "modes")
