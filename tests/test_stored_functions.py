"""Functions a run derives from a model's own, kept on disk for the next process
(physlib.analysis.common.stored_functions): read back, they are the function that would have
been made, bit for bit; a different model, different code or a damaged entry makes it again,
and with the cache off nothing is kept."""
import casadi as cs
import numpy as np
import pytest

from physlib.analysis.common import stored_functions
from physlib.analysis.common.stored_functions import stored
from physlib.analysis.simulation import dae_points

from test_dense_grid_rows import shockley_buck


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PHYSLIB_NO_CACHE", raising=False)
    return tmp_path


class Equations:
    """What stored reads of a compiled model's system: its equations and its cache."""

    def __init__(self, dae: cs.Function):
        self.dae, self.cache = dae, {}


def model_function(gain: float) -> Equations:
    x = cs.SX.sym("x", 2)
    return Equations(cs.Function("model", [x], [cs.vertcat(gain * x[0] * x[1], cs.exp(x[1]))]))


def derived(source: Equations):
    """A function made from ``source``'s equations (their Jacobian), counting how often it is
    made."""
    made = []

    def make():
        made.append(1)
        x = cs.SX.sym("x", 2)
        return cs.Function("derived", [x], [cs.jacobian(source.dae(x), x)])
    return make, made


def test_a_stored_function_is_read_back_not_made_again(cache):
    source = model_function(3.0)
    make, made = derived(source)
    first = stored("derived", source, make, [__file__])
    again = stored("derived", model_function(3.0), make, [__file__])   # the same model, rebuilt
    assert len(made) == 1 and len(list((cache / "stored-v1").iterdir())) == 1
    point = [0.3, -1.7]
    np.testing.assert_array_equal(np.asarray(again(point)), np.asarray(first(point)))


def test_another_model_or_other_code_makes_it_again(cache, tmp_path_factory):
    make, made = derived(model_function(3.0))
    stored("derived", model_function(3.0), make, [__file__])
    stored("derived", model_function(3.0 + 1e-15), make, [__file__])      # another number
    other_code = tmp_path_factory.mktemp("code") / "maker.py"
    other_code.write_text("# another version of the code that makes it\n")
    stored("derived", model_function(3.0), make, [str(other_code)])
    assert len(made) == 3


@pytest.mark.parametrize("content", ["", "not a function", "s" * 1000], ids=["empty", "garbage", "truncated"])
def test_a_damaged_entry_is_made_and_written_again(cache, content):
    make, made = derived(model_function(2.0))
    stored("derived", model_function(2.0), make, [__file__])
    (entry,) = (cache / "stored-v1").iterdir()
    entry.write_text(content)
    function = stored("derived", model_function(2.0), make, [__file__])
    assert len(made) == 2 and not function.is_null()
    assert cs.Function.deserialize(entry.read_text()).name() == "derived"


def test_with_the_cache_off_nothing_is_kept(cache, monkeypatch):
    monkeypatch.setenv("PHYSLIB_NO_CACHE", "1")
    make, made = derived(model_function(2.0))
    stored("derived", model_function(2.0), make, [__file__])
    stored("derived", model_function(2.0), make, [__file__])
    assert len(made) == 2 and not (cache / "stored-v1").exists()


def test_a_model_s_row_function_read_back_completes_the_same_rows(cache, monkeypatch):
    # The Shockley buck's row function (Gauss-Newton and projection steps, 822 operations)
    # stored by one compiled model and read by another of the same circuit: its dense-grid
    # rows bit for bit, without making the function again.
    grid = np.linspace(0.0, 2e-4, 401)
    made = shockley_buck().simulate(2e-4, t_eval=grid)
    monkeypatch.setattr(dae_points, "_row_function", lambda system: pytest.fail("made again"))
    read = shockley_buck().simulate(2e-4, t_eval=grid)
    for name in ("C1.v", "L1.i", "D1.v"):
        np.testing.assert_array_equal(read[name], made[name], err_msg=name)
    assert {p.name.split("-")[0] for p in (cache / "stored-v1").iterdir()} >= {"row_between_steps", "rates",
                                                                              "g_newton_unrolled"}


def test_a_large_model_s_functions_are_not_stored(cache, monkeypatch):
    monkeypatch.setattr(stored_functions, "MAX_INSTRUCTIONS", 3)
    make, made = derived(model_function(2.0))
    stored("derived", model_function(2.0), make, [__file__])
    stored("derived", model_function(2.0), make, [__file__])
    assert len(made) == 2
