"""Piecewise-linear tables on a variable, shared by every component whose law is a table of
points (a lookup block, a conductance over temperature, a cell's open-circuit voltage over its
state of charge)."""
import math

from .errors import ParameterError
from .lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

EXTRAPOLATIONS = ("hold", "linear")


def table_points(points, owner: str, what: str = "(u, y)") -> tuple:
    """``points`` as a tuple of float pairs, checked: at least two, finite, the first
    coordinate strictly increasing. ``owner`` names the component in the error."""
    try:
        pts = tuple((float(a), float(b)) for a, b in points)
    except (TypeError, ValueError):
        raise ParameterError(f"{owner}: points must be {what} pairs of numbers, "
                             f"got {points!r:.60}") from None
    if len(pts) < 2 or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or \
            not all(math.isfinite(v) for pair in pts for v in pair):
        raise ParameterError(f"{owner}: give at least two finite {what} points with the first "
                             f"strictly increasing, got {pts!r:.80}")
    return pts


def interpolate(points: tuple, u, extrapolate: str = "hold"):
    """The SymPy expression of the piecewise-linear interpolation of ``points`` (checked by
    :func:`table_points`) at ``u``. Beyond the ends ``"hold"`` keeps the end values,
    ``"linear"`` continues the end segments. Continuous in u; at a breakpoint its slope is the
    one of the segment above it."""
    segments = [(y0 + (y1 - y0) * (u - u0) / (u1 - u0), u < u1)
                for (u0, y0), (u1, y1) in zip(points, points[1:])]
    if extrapolate == "linear":
        segments[-1] = (segments[-1][0], True)
        return sp.Piecewise(*segments)
    return sp.Piecewise((points[0][1], u < points[0][0]), *segments, (points[-1][1], True))
