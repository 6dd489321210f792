"""Piecewise-linear tables: in time (:class:`Table`, a waveform, SPICE's PWL) and on a signal
(:class:`Table1D`), as the Modelica Standard Library's CombiTimeTable and CombiTable1Ds."""
import math

from ...core import Component, Input, Output, Parameter
from ...core import symbols
from ...core.component import as_real
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import minimum
from ...core.tables import EXTRAPOLATIONS, interpolate, table_points
from .edges import cycle, first_after, next_periodic, periods
from .sources import Waveform

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Table", "Table1D"]


class Table(Waveform):
    """Piecewise-linear interpolation in a table of (time, value) points; constant outside it,
    or, with ``repeat``, repeating after its last point the part from the point at time
    ``repeat`` on (SPICE's PWL with ``r=``): after the last point (time t_end) the value jumps
    to the one at ``repeat`` and the points from there to t_end follow again, every
    t_end − repeat seconds.

    ``Table(points=[(0, 0), (1e-3, 1), (2e-3, 0)])``. The points and ``repeat`` are part of the
    model's structure: changing them means compiling again.
    """

    points = Parameter(description="(time [s], value) pairs, times increasing", structural=True)
    repeat = Parameter(None, unit="s", description="time of the point the table repeats from "
                       "after its last one (None: no repeat)", structural=True)

    def validate(self):
        try:
            pts = tuple((float(a), float(b)) for a, b in self.points)
        except (TypeError, ValueError):
            raise ParameterError(f"Table {self.name!r}: points must be (time, value) pairs") from None
        if len(pts) < 1 or any(b[0] <= a[0] for a, b in zip(pts, pts[1:])) or \
                not all(math.isfinite(v) for pair in pts for v in pair):
            raise ParameterError(f"Table {self.name!r}: give finite points with strictly increasing times")
        self._values["points"] = pts
        if self.repeat is not None:
            times = [p[0] for p in pts[:-1]]
            if as_real(self.repeat) not in times:
                raise ParameterError(f"Table {self.name!r}: repeat ({self.repeat!r}) must be the "
                                     f"time of a point before the last one ({times})")
            self._values["repeat"] = float(self.repeat)

    def _interpolate(self, x):
        pts = self.points
        pieces = [(pts[0][1], x < pts[0][0])]
        for (t0, y0), (t1, y1) in zip(pts, pts[1:]):
            pieces.append((y0 + (y1 - y0) * (x - t0) / (t1 - t0), x < t1))
        pieces.append((pts[-1][1], True))
        return sp.Piecewise(*pieces)

    def value(self):
        t = symbols.t
        if self.repeat is None:
            return self._interpolate(t)
        end = self.points[-1][0]
        tau, eps = cycle(end, end - self.repeat)
        return sp.Piecewise((self._interpolate(t), t < end - eps),
                            (self._interpolate(self.repeat + tau), True))

    def time_events(self, values, t_start, t_stop):
        times = [p[0] for p in self.points]
        start = self.repeat
        if start is None:
            return times
        end = times[-1]
        again = [tk - start for tk in times if tk >= start and tk < end]
        return times + [end + k * (end - start) + d
                        for k in periods(self, end, end - start, t_start, t_stop) for d in again]

    def next_time_event(self, values, t):
        # The points and repeat are structural: plain numbers, so ordinary Python here.
        times = [p[0] for p in self.points]
        if self.repeat is None:
            return first_after(t, *times)
        end = times[-1]
        again = [tk - self.repeat for tk in times if self.repeat <= tk < end]
        return minimum(first_after(t, *times), next_periodic(t, end, end - self.repeat, again))


class Table1D(Component):
    """Lookup table on a signal: y = piecewise-linear interpolation of the points (u_i, y_i) at
    the input u (for a table in time, see :class:`Table`).

    ``Table1D("map", points=[(0, 0), (1, 2), (3, 2.5)])``. Beyond the ends ``extrapolate="hold"``
    (the default) keeps the end values; ``"linear"`` continues the first and last segments.
    Parameters (structural: part of the compiled model; changing them means compiling again):
    points, at least two (u, y) pairs with strictly increasing u; extrapolate.
    The output is continuous in u; the solver steps over its kinks at the breakpoints, and
    linearization at a breakpoint takes the slope of the segment above it.
    """

    u = Input(description="input at which the table is read")
    y = Output(description="interpolated value")
    points = Parameter(description="(u, y) pairs, u strictly increasing, at least two", structural=True)
    extrapolate = Parameter("hold", description='beyond the ends: "hold" the end values or '
                            'continue the end segments ("linear")', structural=True)

    def validate(self):
        pts = table_points(self.points, f"Table1D {self.name!r}")
        if self.extrapolate not in EXTRAPOLATIONS:
            raise ParameterError(f'Table1D {self.name!r}: extrapolate must be "hold" or "linear", '
                                 f"got {self.extrapolate!r}")
        self._values["points"] = pts

    def equations(self):
        return [sp.Eq(self.y, interpolate(self.points, self.u, self.extrapolate))]
