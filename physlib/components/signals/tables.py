"""Piecewise-linear tables: in time (:class:`Table`, a waveform, SPICE's PWL), on a signal
(:class:`Table1D`) and on two signals (:class:`Table2D`), as the Modelica Standard Library's
CombiTimeTable, CombiTable1Ds and CombiTable2Ds."""
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

__all__ = ["Table", "Table1D", "Table2D"]


class Table(Waveform):
    """Piecewise-linear interpolation in a table of (time, value) points; constant outside it,
    or, with ``repeat``, repeating after its last point the part from the point at time
    ``repeat`` on (SPICE's PWL with ``r=``): after the last point (time t_end) the value jumps
    to the one at ``repeat`` and the points from there to t_end follow again, every
    t_end − repeat seconds.

    ``Table(points=[(0, 0), (1e-3, 1), (2e-3, 0)])``. Two points at one time are a jump there
    (the value from that time on is the second's), as in ngspice's PWL. The points and
    ``repeat`` are part of the model's structure: changing them means compiling again.
    """

    points = Parameter(description="(time [s], value) pairs, times increasing (two at a time: a jump)",
                       structural=True)
    repeat = Parameter(None, unit="s", description="time of the point the table repeats from "
                       "after its last one (None: no repeat)", structural=True)

    def validate(self):
        try:
            pts = tuple((float(a), float(b)) for a, b in self.points)
        except (TypeError, ValueError):
            raise ParameterError(f"Table {self.name!r}: points must be (time, value) pairs") from None
        if len(pts) < 1 or any(b[0] < a[0] for a, b in zip(pts, pts[1:])) or \
                any(a[0] == c[0] for a, c in zip(pts, pts[2:])) or \
                not all(math.isfinite(v) for pair in pts for v in pair):
            raise ParameterError(f"Table {self.name!r}: give finite points with increasing times, "
                                 "at most two at one time (a jump)")
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
            if t1 > t0:                 # two points at one time: a jump, no segment
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


class Table2D(Component):
    """Lookup table on two signals (MSL Blocks.Tables.CombiTable2Ds with smoothness =
    LinearSegments; Simscape: 2-D Lookup Table): y = bilinear interpolation of the values
    y_ij at grid points (u1_i, u2_j), at the inputs (u1, u2).

    ``Table2D("map", table=[[0, 0, 1], [0, 0, 2], [1, 1, 4]])`` in the MSL's layout: the first
    row is 0 then the u2 grid, the first column (below it) the u1 grid, the rest y_ij. Beyond
    the grid ``extrapolate="hold"`` (the default, the MSL's HoldLastPoint) keeps the border
    values, ``"linear"`` (LastTwoPoints) continues the border cells bilinearly.
    Parameters (structural): table, at least 2 × 2 grid points with strictly increasing u1 and
    u2; extrapolate. The output is continuous; the solver steps over its kinks at the grid lines.
    """

    u1 = Input(description="first input (rows of the table)")
    u2 = Input(description="second input (columns of the table)")
    y = Output(description="interpolated value")
    table = Parameter(description="[[0, u2 grid...], [u1_1, y_11, ...], ...]", structural=True)
    extrapolate = Parameter("hold", description='beyond the grid: "hold" the border values or '
                            'continue the border cells ("linear")', structural=True)

    def validate(self):
        where = f"Table2D {self.name!r}"
        try:
            rows = tuple(tuple(float(v) for v in row) for row in self.table)
        except (TypeError, ValueError):
            raise ParameterError(f"{where}: table must be a matrix of numbers, got {self.table!r:.60}") from None
        if len(rows) < 3 or len({len(r) for r in rows}) != 1 or len(rows[0]) < 3:
            raise ParameterError(f"{where}: table must be a matrix of at least 3 × 3 (a header row and "
                                 "column, then at least 2 × 2 values), all rows of one length")
        u1, u2 = [r[0] for r in rows[1:]], rows[0][1:]
        if any(b <= a for grid in (u1, u2) for a, b in zip(grid, grid[1:])) or \
                not all(math.isfinite(v) for r in rows for v in r):
            raise ParameterError(f"{where}: the u1 grid (first column) and the u2 grid (first row) must "
                                 "increase strictly, and every entry be finite")
        if self.extrapolate not in ("hold", "linear"):
            raise ParameterError(f'{where}: extrapolate must be "hold" or "linear", got {self.extrapolate!r}')
        self._values["table"] = rows

    def equations(self):
        rows = self.table
        u1_grid, u2_grid = [r[0] for r in rows[1:]], rows[0][1:]
        # Interpolate each row over u2, then these over u1: bilinear within a cell.
        along_u2 = [interpolate(tuple(zip(u2_grid, r[1:])), self.u2, self.extrapolate) for r in rows[1:]]
        return [sp.Eq(self.y, interpolate(tuple(zip(u1_grid, along_u2)), self.u1, self.extrapolate))]
