"""Compiling is repeatable and parameters change without recompiling."""
import numpy as np
import pytest

import physlib.assembly.compile as compile_module
import physlib.assembly.templates as templates
from physlib import ParameterError

from test_electrical_transients import rc_model


def test_compiling_twice_gives_identical_results():
    model = rc_model()
    a = model.compile().simulate(5e-3)
    b = model.compile().simulate(5e-3)
    assert np.array_equal(a.t, b.t)
    assert np.array_equal(a["C1.v"], b["C1.v"])


def test_new_parameters_change_the_result_without_recompiling(monkeypatch):
    sim = rc_model().compile()
    dae = sim.system.dae
    base = sim.simulate(5e-3, rtol=1e-10, atol=1e-12)

    def no_recompile(*args, **kwargs):
        raise AssertionError("simulate must not derive or emit equations again")

    monkeypatch.setattr(compile_module, "build_system", no_recompile)
    monkeypatch.setattr(templates, "_derive", no_recompile)
    slow = sim.simulate(5e-3, params={"R1.R": 2e3}, rtol=1e-10, atol=1e-12)
    assert sim.system.dae is dae
    # τ = R·C doubles to 2 ms.
    np.testing.assert_allclose(slow["C1.v"], 1 - np.exp(-slow.t / 2e-3), atol=1e-8)
    assert not np.allclose(slow["C1.v"], base["C1.v"])
    again = sim.simulate(5e-3, rtol=1e-10, atol=1e-12)        # defaults come back
    np.testing.assert_array_equal(again["C1.v"], base["C1.v"])


def test_waveform_parameters_are_addressed_through_the_input():
    sim = rc_model().compile()
    res = sim.simulate(5e-3, params={"src.V.height": 2.0, "src.V.t0": 1e-3}, rtol=1e-10, atol=1e-12)
    expected = np.where(res.t < 1e-3, 0.0, 2.0 * (1 - np.exp(-(res.t - 1e-3) / 1e-3)))
    after = res.t > 1e-3
    np.testing.assert_allclose(res["C1.v"][after], expected[after], atol=1e-8)
    assert np.all(res["C1.v"][res.t < 1e-3] == 0.0)


def test_changed_parameters_are_validated():
    sim = rc_model().compile()
    with pytest.raises(ParameterError, match="R1"):
        sim.simulate(1e-3, params={"R1.R": -5.0})
    with pytest.raises(ParameterError, match="did you mean R1.R"):
        sim.simulate(1e-3, params={"R1.r": 5.0})
