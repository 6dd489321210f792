"""The rows of a dense output grid, the functions called often at events and the solver's
residual and Jacobian come from their C twins once built (physlib.analysis.common.native_functions): CasADi's C translation of the
same SX function, built in the background into the cache folder. A twin must give the virtual
machine's numbers bit for bit (the same operations in the same order, no fused multiply-add,
no fast-math), so a run never depends on whether a build had finished: compared here on the
Shockley buck, whose rows take exp, log and pow through two Gauss–Newton and two projection
steps, and whose events solve the diode's junction by unrolled Newton steps. Where no twin can
be made, or its build fails, the virtual machine serves."""
import os
import shutil
import time

import casadi as cs
import numpy as np
import pytest

from physlib.analysis.common import fast_call, native_functions
from physlib.analysis.common.native_functions import native_twin
from physlib.analysis.simulation import output_rows, stepping_functions

from test_dense_grid_rows import shockley_buck

needs_compiler = pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
                                    reason="no C compiler")


@pytest.fixture(autouse=True)
def twins_on(tmp_path, monkeypatch):
    """C twins on (the suite's conftest switches them off elsewhere), kept in a fresh cache
    folder, built at normal priority: at the lowest, a build beside the suite's busy workers
    would wait for them."""
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PHYSLIB_NATIVE_FUNCTIONS", "1")
    monkeypatch.delenv("PHYSLIB_NO_CACHE", raising=False)
    monkeypatch.delenv("PHYSLIB_PYTHON_CALLBACKS", raising=False)
    monkeypatch.setattr(native_functions, "BUILD_NICENESS", 0)


def _assert_same_results(ours, theirs):
    assert np.array_equal(ours.t, theirs.t)
    for name in theirs.names:
        assert np.array_equal(ours[name], theirs[name]), name


def _wait_for(predicate, seconds=120.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "the background build did not finish"
        time.sleep(0.05)


@needs_compiler
def test_the_c_twin_gives_the_virtual_machine_s_rows_bit_for_bit(tmp_path, monkeypatch):
    t_end = 1e-3
    blocks = output_rows.TWIN_BLOCKS + 1                      # full blocks: the twin is asked for
    grid = np.linspace(0.0, t_end, blocks * output_rows.BLOCK + 1)
    served = []
    function = native_functions.NativeTwin.function
    monkeypatch.setattr(native_functions.NativeTwin, "function",
                        lambda self: served.append(function(self)) or served[-1])

    sim = shockley_buck()
    sim.simulate(t_end, t_eval=grid)                          # asks for the twin: built meanwhile
    _wait_for(lambda: list((tmp_path / "rows").glob("*.so")))
    native = sim.simulate(t_end, t_eval=grid)
    assert served and served[-1] is not None, "the second run's rows did not come from C"

    with monkeypatch.context() as m:
        m.setattr(output_rows, "native_twin", lambda function, folder: None)
        virtual = shockley_buck().simulate(t_end, t_eval=grid)
    _assert_same_results(native, virtual)


def test_no_twin_where_none_may_or_can_be_built(tmp_path, monkeypatch):
    x = cs.SX.sym("x")
    doubled = cs.Function("doubled", [x], [2 * x])
    with monkeypatch.context() as m:
        m.setenv("PHYSLIB_NO_CACHE", "1")
        assert native_twin(doubled, "rows") is None           # nowhere to keep it
    with monkeypatch.context() as m:
        m.setenv("PHYSLIB_PYTHON_CALLBACKS", "1")
        assert native_twin(doubled, "rows") is None           # native helpers switched off
    with monkeypatch.context() as m:
        m.setattr(native_functions, "NATIVE_LIMIT", 0)
        assert native_twin(doubled, "rows") is None           # too long to build
    with monkeypatch.context() as m:
        m.setenv("PHYSLIB_NATIVE_FUNCTIONS", "0")
        assert native_twin(doubled, "rows") is None           # switched off
    y = cs.MX.sym("y")
    assert native_twin(cs.Function("mx", [y], [2 * y]), "rows") is None   # MX: not translated
    assert not (tmp_path / "rows").exists()


@needs_compiler
def test_a_failed_build_leaves_the_virtual_machine_serving(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "false")                         # a "compiler" that always fails
    x = cs.SX.sym("x")
    twin = native_twin(cs.Function("doubled", [x], [2 * x]), "rows")
    assert twin is not None
    _wait_for(lambda: not list((tmp_path / "rows").glob(".*")))   # the build's files removed
    assert twin.function() is None and not list((tmp_path / "rows").iterdir())

    t_end = 1e-3
    grid = np.linspace(0.0, t_end, 1_001)
    res = shockley_buck().simulate(t_end, t_eval=grid)
    with monkeypatch.context() as m:
        m.setattr(output_rows, "native_twin", lambda function, folder: None)
        virtual = shockley_buck().simulate(t_end, t_eval=grid)
    _assert_same_results(res, virtual)


@needs_compiler
def test_functions_called_at_every_event_give_the_virtual_machine_s_numbers_from_c(tmp_path, monkeypatch):
    t_end = 6e-3                                   # 240 events: the event-time functions get hot
    sim = shockley_buck()
    sim.simulate(t_end)                            # asks for the twins: built meanwhile
    _wait_for(lambda: list((tmp_path / "functions").glob("g_newton_unrolled-*.so")))  # the junction's solve
    served = []
    function = native_functions.NativeTwin.function
    monkeypatch.setattr(native_functions.NativeTwin, "function",
                        lambda self: served.append(function(self)) or served[-1])
    native = sim.simulate(t_end)
    assert any(f is not None for f in served), "the second run's event functions were not C"
    with monkeypatch.context() as m:
        m.setattr(fast_call.FastFunction, "_look_for_twin", lambda self: None)
        virtual = shockley_buck().simulate(t_end)
    assert [(e.t, e.component, e.after) for e in native.events] == \
        [(e.t, e.component, e.after) for e in virtual.events]
    _assert_same_results(native, virtual)


@needs_compiler
def test_a_build_another_process_started_is_left_to_it(tmp_path, monkeypatch):
    x = cs.SX.sym("x")
    doubled = cs.Function("doubled", [x], [2 * x])
    (tmp_path / "rows").mkdir()
    twin = native_twin(doubled, "rows")
    lock = twin.path.parent / f".{twin.path.name}.building"
    _wait_for(lambda: twin.path.exists() and not lock.exists())     # that build wholly done
    twin.path.unlink()
    lock.touch()                                              # a build under way elsewhere
    assert native_twin(doubled, "rows") is not None
    assert sorted(p.name for p in (tmp_path / "rows").iterdir()) == [lock.name]   # none started here
    old = time.time() - native_functions.BUILD_SECONDS - 1
    os.utime(lock, (old, old))                                # ... or one that died
    native_twin(doubled, "rows")
    _wait_for(lambda: twin.path.exists() and not lock.exists())
    assert twin.function() is not None


@needs_compiler
def test_the_solver_s_residual_and_jacobian_in_c_take_the_virtual_machine_s_steps(tmp_path, monkeypatch):
    t_end = 2e-3                                   # about 5,600 residual evaluations a run
    sim = shockley_buck()
    sim.simulate(t_end)                            # asks for the twins: built meanwhile
    _wait_for(lambda: all(list((tmp_path / "functions").glob(f"{name}-*.so"))
                          for name in ("ida_residual", "ida_jacobian")))
    served = []
    native = stepping_functions.SteppingFunctions.native
    monkeypatch.setattr(stepping_functions.SteppingFunctions, "native",
                        lambda self, n: served.append(native(self, n)) or served[-1])
    in_c = sim.simulate(t_end)
    assert served and served[0] is not None, "the second run did not step with the C twins"
    with monkeypatch.context() as m:
        m.setattr(stepping_functions.SteppingFunctions, "native", lambda self, n: None)
        virtual = shockley_buck().simulate(t_end)
    assert in_c.stats["steps"] == virtual.stats["steps"]
    assert in_c.stats["residual_evaluations"] == virtual.stats["residual_evaluations"]
    _assert_same_results(in_c, virtual)


@needs_compiler
def test_twins_an_earlier_process_built_serve_a_model_from_its_first_solver_start(tmp_path, monkeypatch):
    # A new process (a new compile of the model: its own count of evaluations) whose run is too
    # short to make the model hot steps with the twins an earlier one built, from its first
    # restart; where none were built, nothing is built for a short run.
    short = 1e-4                                    # a few hundred residual evaluations
    served = []
    native = stepping_functions.SteppingFunctions.native
    monkeypatch.setattr(stepping_functions.SteppingFunctions, "native",
                        lambda self, n: served.append(native(self, n)) or served[-1])
    shockley_buck().simulate(short)
    assert not any(served) and not (tmp_path / "functions").exists()
    shockley_buck().simulate(2e-3)                 # hot: the twins asked for and built
    _wait_for(lambda: all(list((tmp_path / "functions").glob(f"{name}-*.so"))
                          for name in ("ida_residual", "ida_jacobian")))
    served.clear()
    shockley_buck().simulate(short)
    assert served and served[0], "the short run did not step with the twins built before"


@needs_compiler
def test_a_twin_is_named_for_its_target_machine(monkeypatch):
    # A home folder (and its cache) shared by an x86-64 and an ARM machine: each builds and
    # loads its own library, never the other's.
    x = cs.SX.sym("x")
    doubled = cs.Function("doubled", [x], [2 * x])
    here = native_twin(doubled, "rows")
    monkeypatch.setattr(native_functions, "target", lambda: "linux-some_other_processor")
    there = native_twin(doubled, "rows")
    assert here is not None and there is not None and here.path != there.path


def test_a_model_without_twins_stops_counting_its_evaluations(monkeypatch):
    # Switched off (or no compiler, or too large): once the model is hot and none can come, a
    # run asks no more at each solver start (it read the solver's counters at every event).
    monkeypatch.setenv("PHYSLIB_NATIVE_FUNCTIONS", "0")
    answers = []
    native = stepping_functions.SteppingFunctions.native
    monkeypatch.setattr(stepping_functions.SteppingFunctions, "native",
                        lambda self, n: answers.append(native(self, n)) or answers[-1])
    sim = shockley_buck()
    sim.simulate(2e-3)                             # about 5,600 residual evaluations, 80 events
    assert answers[-1] is False and answers.count(False) == 1
    answers.clear()
    sim.simulate(2e-3)
    assert answers == [False]                      # asked once, at the first solver start
