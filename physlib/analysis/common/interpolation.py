"""Cubic Hermite interpolation between two solution points.

Between two points of a trajectory where both the states and their derivatives x' = f(x, z,
p, t) are known, the cubic through the values and derivatives at both ends has a local error
O(h⁴) in the interval h, against O(h²) for linear interpolation. rk4's output between steps,
``SimulationResult.at(t)`` after an rk4 run and the location of state events on the solver's
dense output use it. Its values need not lie between the two end values: where the
derivatives are large against the change over the interval (a stiff state across an implicit
step), it overshoots by about h·|x'|. The other fixed-step methods interpolate linearly
(:func:`linear`), which never leaves the range of the two end values.
"""
from __future__ import annotations

import numpy as np


def hermite(s, xa, dxa, xb, dxb):
    """The cubic Hermite interpolant at s ∈ [0, 1] through ``xa`` (s = 0) and ``xb`` (s = 1)
    with derivatives with respect to s ``dxa`` and ``dxb`` (the time derivatives multiplied
    by the interval's length)."""
    s2 = s * s
    s3 = s2 * s
    return ((2 * s3 - 3 * s2 + 1) * xa + (s3 - 2 * s2 + s) * dxa
            + (-2 * s3 + 3 * s2) * xb + (s3 - s2) * dxb)


def linear(s, xa, xb):
    """Linear interpolation at s ∈ [0, 1] between ``xa`` (s = 0) and ``xb`` (s = 1), each
    component kept in the range of its two end values (also through rounding)."""
    xa, xb = np.asarray(xa, dtype=float), np.asarray(xb, dtype=float)
    return np.clip(xa + s * (xb - xa), np.minimum(xa, xb), np.maximum(xa, xb))
