"""Cubic Hermite interpolation between two solution points.

Between two points of a trajectory where both the states and their derivatives x' = f(x, z,
p, t) are known, the cubic through the values and derivatives at both ends has a local error
O(h⁴) in the interval h, against O(h²) for linear interpolation. Fixed-step output between
steps, ``SimulationResult.at(t)`` after a fixed-step run and the location of state events on
the solver's dense output all use it.
"""
from __future__ import annotations


def hermite(s, xa, dxa, xb, dxb):
    """The cubic Hermite interpolant at s ∈ [0, 1] through ``xa`` (s = 0) and ``xb`` (s = 1)
    with derivatives with respect to s ``dxa`` and ``dxb`` (the time derivatives multiplied
    by the interval's length)."""
    s2 = s * s
    s3 = s2 * s
    return ((2 * s3 - 3 * s2 + 1) * xa + (s3 - 2 * s2 + s) * dxa
            + (-2 * s3 + 3 * s2) * xb + (s3 - s2) * dxb)
