"""FastFunction (physlib.analysis.common.fast_call): a buffered CasADi function gives what the
function itself gives, and ``iterate`` what calling it again and again gives, stopping where
the repeated calls would."""
import casadi as cs
import numpy as np
import pytest

from physlib.analysis.common.fast_call import FastFunction


def newton_sqrt() -> cs.Function:
    """(z, a) -> (two Newton steps on z² = a, 1 if the second was below 1e-12 of z): the shape
    of the unrolled Newton solve of the algebraic equations."""
    z, a = cs.SX.sym("z"), cs.SX.sym("a")
    first = z - (z * z - a) / (2 * z)
    second = first - (first * first - a) / (2 * first)
    return cs.Function("newton_sqrt", [z, a], [second, cs.fabs(second - first) <= 1e-12 * cs.fabs(second)])


def repeated(function, times, z, a, calls=None):
    """The loop iterate stands for: call, stop on done or a value that is not finite."""
    for _ in range(times):
        z, done = (np.asarray(v, dtype=float).ravel() for v in function(z, a))
        if calls is not None:
            calls.append(1)
        if done[0] or not np.isfinite(z).all():
            break
    return z, done


@pytest.mark.parametrize("a, start, times", [(2.0, 1.0, 10), (1e6, 1.0, 10), (1e6, 1.0, 2), (4.0, 0.0, 10)],
                         ids=["converges", "slowly", "stops at the limit", "divides by zero"])
def test_iterate_gives_what_calling_again_and_again_gives(a, start, times):
    function = newton_sqrt()
    fast = FastFunction(function)
    z, done = fast.iterate(times, np.array([start]), a)
    z_ref, done_ref = repeated(function, times, np.array([start]), a)
    np.testing.assert_array_equal(z, z_ref)
    np.testing.assert_array_equal(done, done_ref)
    # and the function still serves ordinary calls afterwards, from its own inputs
    np.testing.assert_array_equal(fast(np.array([start]), a)[0], np.asarray(function(start, a)[0]).ravel())


def test_iterate_counts_every_evaluation():
    # the C twin is asked for after a number of evaluations, however they were made
    fast, calls = FastFunction(newton_sqrt()), []
    fast.iterate(10, np.array([1.0]), 1e6)
    repeated(newton_sqrt(), 10, np.array([1.0]), 1e6, calls)
    assert fast._calls == len(calls) > 3
