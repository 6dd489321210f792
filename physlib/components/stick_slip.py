"""Dry friction with stick-slip, the Modelica Standard Library's model (M. Otter, H. Elmqvist,
S. E. Mattsson, "Hybrid modeling in Modelica based on the synchronous data flow principle",
CACSD 1999), written once for both mechanical domains: the rotational Clutch and Brake, the
translational Brake and SupportFriction take their modes, guards and transition rule from
:class:`StickSlipFriction` and say only how large their friction is.

:func:`friction_table` reads the MSL's friction tables (mu_pos, f_pos) as its
``LinearSegments`` interpolation with ``LastTwoPoints`` extrapolation does.
"""
import math

from ..core import Component, Mode, Parameter
from ..core.errors import ParameterError
from ..core.lazy import lazy_module
from ..core.logic import absolute, all_of, any_of, negate, where

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["StickSlipFriction", "friction_table", "table_points"]


def table_points(component, name: str, table) -> tuple:
    """The rows (speed, value) of the friction table ``name`` of ``component``, checked: at
    least one row, speeds starting at 0 and strictly increasing, values finite and >= 0."""
    try:
        rows = tuple((float(a), float(b)) for a, b in table)
    except (TypeError, ValueError):
        raise ParameterError(f"parameter {name} of {type(component).__name__} {component.name!r} "
                             f"must be (speed, value) rows, got {table!r:.60}") from None
    if not rows or rows[0][0] != 0.0 or any(b[0] <= a[0] for a, b in zip(rows, rows[1:])) or \
            not all(math.isfinite(x) for row in rows for x in row) or min(r[1] for r in rows) < 0:
        raise ParameterError(f"parameter {name} of {type(component).__name__} {component.name!r}: "
                             f"give (speed, value) rows with speeds from 0 strictly increasing and "
                             f"values >= 0, got {rows!r:.80}")
    return rows


def friction_table(rows: tuple, speed):
    """The table's value at ``speed`` >= 0: linear between rows, continued through the last two
    rows beyond the last one (one row: constant)."""
    if len(rows) == 1:
        return sp.Float(rows[0][1])
    segments = [(y0 + (y1 - y0) * (speed - v0) / (v1 - v0), speed < v1)
                for (v0, y0), (v1, y1) in zip(rows, rows[1:])]
    return sp.Piecewise(*segments[:-1], (segments[-1][0], True))


class StickSlipFriction(Component):
    """Dry friction with stick-slip between two surfaces, either domain.

    Sliding, the friction (force or torque) is the kinetic friction at the sliding speed
    against the slip; stuck, the relative acceleration is zero as long as the friction needed
    stays within the static friction; with no normal force the friction is free (zero).

    A subclass names its sliding speed and friction variables (``SLIP``, ``FRICTION``; the
    friction positive when it opposes a positive slip) and supplies
    :meth:`kinetic_friction`, :meth:`static_friction`, :meth:`relative_acceleration` and
    :meth:`sides`; one with a normal force also :meth:`normal_force`. It adds
    :meth:`friction_law` to its equations.

    Parameters: peak [1] static/kinetic ratio (>= 1).
    Modes: mode = −1 sliding backward (slip < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates friction·slip [W] in every mode: the kinetic friction times |slip| sliding, 0
    stuck (slip = 0) or free (friction 0). A lock is entered at slip = 0 and loses nothing; one
    seen late (a fixed-step overshoot) is projected as a plastic impact, whose loss at the
    event is no power.
    """

    FREE, STUCK, FORWARD, BACKWARD = 2, 0, 1, -1
    SLIP, FRICTION = "w_rel", "tau"
    HAS_NORMAL_FORCE = True
    """Whether the friction can be released (a normal force that may fall to zero): its
    guard then watches the normal force."""

    peak = Parameter(1.0, unit="1", description="static/kinetic friction ratio",
                     check=(lambda v: v >= 1.0, "must be >= 1"))
    mode = Mode({"backward": -1, "stuck": 0, "forward": 1, "free": 2}, start="free",
                description="friction state")

    REL_TOL = 1e-9
    """A slip speed within REL_TOL of the speeds on either side (plus SPEED_FLOOR) is zero up to
    rounding, and so is a relative acceleration within REL_TOL of the accelerations."""

    SPEED_FLOOR = 1e-12
    """[m/s or rad/s] rounding of speeds that are themselves zero (a body stopped by a brake)."""

    def kinetic_friction(self, speed):
        """The sliding friction at the sliding speed ``speed`` >= 0 (a SymPy expression)."""
        raise NotImplementedError

    def static_friction(self, value):
        """The largest friction held stuck, from ``value(name)`` (a symbol in the equations, a
        number or CasADi symbol in the transition)."""
        raise NotImplementedError

    def normal_force(self, value):
        """What presses the surfaces together; <= 0 frees them (from ``value(name)`` as in
        :meth:`static_friction`). Without a normal force, always pressed."""
        return 1.0

    def relative_acceleration(self):
        """d(slip)/dt, in terms of the ports' ``der(...)``."""
        raise NotImplementedError

    def sides(self, v) -> tuple:
        """((speed, acceleration) of the side the slip is measured from, (speed, acceleration)
        of the other side), from a transition's values ``v``."""
        raise NotImplementedError

    def _symbol(self, name):
        return getattr(self, name)

    def friction_law(self):
        """The friction of each mode (one equation)."""
        slip, friction = self._symbol(self.SLIP), self._symbol(self.FRICTION)
        return sp.Piecewise((self.relative_acceleration(), sp.Eq(self.mode, self.STUCK)),
                            (friction - self.kinetic_friction(slip), sp.Eq(self.mode, self.FORWARD)),
                            (friction + self.kinetic_friction(-slip), sp.Eq(self.mode, self.BACKWARD)),
                            (friction, True))

    def guards(self):
        sliding = sp.Or(sp.Eq(self.mode, self.FORWARD), sp.Eq(self.mode, self.BACKWARD))
        static_limit = self.static_friction(self._symbol)
        friction = self._symbol(self.FRICTION)
        return [sp.Piecewise((self._symbol(self.SLIP), sliding), (1, True)),                 # sticks
                sp.Piecewise((static_limit - sp.Abs(friction), sp.Eq(self.mode, self.STUCK)),
                             (1, True)),                                                    # breaks away
                *([self.normal_force(self._symbol)] if self.HAS_NORMAL_FORCE else [])]      # engages/frees

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        value = v.__getitem__
        mode, pre, w, friction = v["mode"], v["pre(mode)"], v[self.SLIP], v[self.FRICTION]
        # Free with a normal force: engage in the direction of the slip, stuck if there is none.
        engaged = where(w > 0, self.FORWARD, where(w < 0, self.BACKWARD, self.STUCK))
        # Sliding: stick when the slip speed crossed zero from the side of the slip the event
        # started in, so that it now stands at zero or past it. A slip that has just begun
        # (break-away at a located root a hair before the static limit, or from a stuck speed
        # that drifted a hair the other way) may first creep the wrong way and then cross
        # zero into its own direction: that crossing is no stick. Past the crossing it stands
        # on its own side; located exactly at zero (the speed's rounding), the acceleration
        # tells the two apart: a stick's crossing comes against the slip's direction, the
        # creep's along it.
        (w_from, a_from), (w_to, a_to) = self.sides(v)
        at_zero = absolute(w) <= self.REL_TOL * (absolute(w_from) + absolute(w_to)) + self.SPEED_FLOOR
        a_rel, a_tol = a_to - a_from, self.REL_TOL * (absolute(a_from) + absolute(a_to))
        against = where(mode == self.FORWARD, a_rel < -a_tol, a_rel > a_tol)
        along = where(mode == self.FORWARD, a_rel > a_tol, a_rel < -a_tol)
        crossed_back = all_of(where(mode == self.FORWARD, w <= 0, w >= 0), negate(all_of(at_zero, along)))
        # A slip that stands at zero and accelerates against its own direction cannot go on:
        # the friction that broke it away is no longer there (another element changed mode in
        # the same event), and sliding on would have the friction drive the slip. It sticks
        # again (unless its own break guard fired: a root located a hair before the static
        # limit leaves a vanishing wrong-way acceleration, which the slip outgrows).
        cannot_slide = all_of(at_zero, against, negate(fired[1]))
        slides_on = where(any_of(all_of(fired[0], pre == mode, crossed_back), cannot_slide),
                          self.STUCK, mode)
        # Stuck: break away in the direction of the friction when it exceeds the static limit
        # (a fired break guard counts even if the located root lies a hair before the limit),
        # but not straight back into the slip it just ended.
        direction = where(friction > 0, self.FORWARD, self.BACKWARD)
        breaks_away = all_of(any_of(absolute(friction) > self.static_friction(value), fired[1]),
                             direction != pre)
        stays_stuck = where(breaks_away, direction, mode)
        sliding = any_of(mode == self.FORWARD, mode == self.BACKWARD)
        return {"mode": where(self.normal_force(value) <= 0, self.FREE,
                              where(mode == self.FREE, engaged,
                                    where(sliding, slides_on, stays_stuck)))}

    def constraints(self):
        return [(sp.Eq(self.mode, self.STUCK), self._symbol(self.SLIP))]

    def dissipation(self):
        # Slip power friction·slip >= 0: the friction opposes the sliding speed; stuck or
        # free, one of the two is zero.
        return self._symbol(self.FRICTION), self._symbol(self.SLIP)
