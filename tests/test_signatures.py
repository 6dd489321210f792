"""The analysis methods of a compiled model show their options: ``inspect.signature``,
``help()`` and an editor list every keyword the analysis function takes, with its default (the
methods spell them out; these tests keep them equal to the functions'), and a misspelt option is
still an OptionError naming the valid ones, not a bare TypeError."""
import inspect

import pytest

import physlib
from physlib import CompiledModel
from physlib.analysis.common.options import OptionError
from physlib.analysis.linear.linearize import linearize
from physlib.analysis.linear.operating_point import operating_point, trim
from physlib.analysis.noise.multiport import multiport_noise
from physlib.analysis.noise.portions import portion_noise
from physlib.analysis.noise.small_signal import noise
from physlib.analysis.sensitivity.sensitivity import gradient, sensitivity
from physlib.analysis.simulation.simulate import simulate
from test_electrical_transients import rc_model

METHODS = {"simulate": simulate, "operating_point": operating_point, "trim": trim,
           "linearize": linearize, "noise": noise, "multiport_noise": multiport_noise,
           "portion_noise": portion_noise, "sensitivity": sensitivity, "gradient": gradient}


def rc():
    return rc_model(V=1.0).compile()


def test_simulate_lists_its_options():
    sim = rc()
    parameters = inspect.signature(sim.simulate).parameters
    for name in ["t_end", "t0", "solver", "dt", "rtol", "atol", "t_eval", "params", "x0", "projection",
                 "noise", "noise_T", "max_step", "event_tol", "max_events", "invariants", "initial"]:
        assert name in parameters, name
    assert parameters["rtol"].default == 1e-6 and parameters["atol"].default == 1e-8
    assert parameters["solver"].default == "idas"
    # the catch-all that turns a misspelt option into an OptionError is not shown
    assert not any(p.kind == p.VAR_KEYWORD for p in parameters.values())


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_option_of_the_analysis_is_in_the_method_with_its_default(method):
    function = METHODS[method]
    theirs = inspect.signature(function).parameters
    ours = inspect.signature(getattr(CompiledModel, method)).parameters
    # positional arguments: the same after the model (self)
    positional = [n for n, p in theirs.items() if p.kind == p.POSITIONAL_OR_KEYWORD][1:]
    assert [n for n, p in ours.items() if p.kind == p.POSITIONAL_OR_KEYWORD][1:] == positional
    for name in positional:
        assert ours[name].default == theirs[name].default, name
    keyword = {n: p.default for n, p in theirs.items() if p.kind == p.KEYWORD_ONLY}
    assert {n: p.default for n, p in ours.items() if p.kind == p.KEYWORD_ONLY} == keyword
    assert keyword, f"{function.__name__} has no keyword options?"


@pytest.mark.parametrize("method", sorted(METHODS))
def test_help_shows_the_analysis_docstring(method):
    doc = getattr(CompiledModel, method).__doc__
    assert inspect.cleandoc(METHODS[method].__doc__) in doc


def test_a_misspelt_option_is_an_option_error_naming_the_valid_ones():
    sim = rc()
    with pytest.raises(OptionError, match=r"rtoll.*did you mean 'rtol'.*max_step"):
        sim.simulate(1e-3, rtoll=1e-6)
    with pytest.raises(OptionError, match="tol"):
        sim.operating_point(toll=1e-9)
    with pytest.raises(OptionError, match="descriptor"):
        sim.linearize(["src.V"], ["C1.v"], t_op=0.0)


def test_options_reach_the_analysis():
    sim = rc()
    res = sim.simulate(1e-3, t_eval=[0.0, 5e-4, 1e-3], params={"R1.R": 2e3}, x0={"C1.v": 0.5})
    assert list(res.t) == [0.0, 5e-4, 1e-3]
    assert res["C1.v"][0] == pytest.approx(0.5)
    assert sim.operating_point(params={"R1.R": 5e2}, inputs={"src.V": 2.0})["C1.v"] == pytest.approx(2.0)
    lin = sim.linearize(["src.V"], ["C1.v"], params={"R1.R": 2e3})
    assert lin.A[0, 0] == pytest.approx(-1 / (2e3 * 1e-6))


@pytest.mark.parametrize("function, options", [
    (physlib.sweep, ["analysis", "summary", "keep_results", "executor", "workers", "progress"]),
    (physlib.monte_carlo, ["n", "seed", "analysis", "summary", "keep_results", "executor", "workers",
                           "progress"]),
])
def test_sweep_functions_list_their_own_options(function, options):
    # the rest are the analysis's options, passed through (and checked by it)
    parameters = inspect.signature(function).parameters
    for name in options:
        assert parameters[name].kind == inspect.Parameter.KEYWORD_ONLY, name
