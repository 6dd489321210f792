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


def akima(points: tuple, u):
    """The SymPy expression of the Akima spline through ``points`` (checked by
    :func:`table_points`) at ``u``, holding the end values beyond the ends: cubic Hermite
    segments whose knot slopes are Akima's weighted mean of the neighbouring secants, the
    secants extrapolated linearly past the ends (the Modelica Standard Library's tables with
    smoothness ContinuousDerivative, ModelicaStandardTables.c's akimaSpline1DInit).
    Continuously differentiable inside the table."""
    x = [p[0] for p in points]
    y = [p[1] for p in points]
    n = len(points)
    d = [0.0, 0.0] + [(y[i + 1] - y[i]) / (x[i + 1] - x[i]) for i in range(n - 1)] + [0.0, 0.0]
    if n == 2:          # one secant: the extrapolation needs two; a straight line
        d[3] = d[2]
    d[0], d[1] = 3 * d[2] - 2 * d[3], 2 * d[2] - d[3]
    d[n + 1], d[n + 2] = 2 * d[n] - d[n - 1], 3 * d[n] - 2 * d[n - 1]

    def slope(k):       # the knot slope from the secants d[k-2] ... d[k+1]
        w = abs(d[k + 1] - d[k]) + abs(d[k - 1] - d[k - 2])
        if w > 0:
            a = abs(d[k - 1] - d[k - 2]) / w
            return (1 - a) * d[k - 1] + a * d[k]
        return 0.5 * d[k - 1] + 0.5 * d[k]

    segments = []
    for i in range(n - 1):
        dx, s0, s1 = x[i + 1] - x[i], slope(i + 2), slope(i + 3)
        c1, c0 = (3 * d[i + 2] - 2 * s0 - s1) / dx, (s0 + s1 - 2 * d[i + 2]) / dx**2
        h = u - x[i]
        segments.append((y[i] + h * (s0 + h * (c1 + h * c0)), u < x[i + 1]))
    return sp.Piecewise((y[0], u < x[0]), *segments, (y[-1], True))
