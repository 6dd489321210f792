"""Dry friction with stick-slip, the Modelica Standard Library's model (M. Otter, H. Elmqvist,
S. E. Mattsson, "Hybrid modeling in Modelica based on the synchronous data flow principle",
CACSD 1999), written once for both mechanical domains: the rotational Clutch and Brake, the
translational Brake, SupportFriction and MassWithStopAndFriction take their modes, guards and
transition rule from :class:`StickSlipFriction` and say only how large their friction is.

:func:`friction_table` reads the MSL's friction tables (mu_pos, f_pos) as its
``LinearSegments`` interpolation with ``LastTwoPoints`` extrapolation does.
"""
import math

from ..constants import Constant
from ..core import Mode
from ..core.errors import ParameterError
from ..core.lazy import lazy_module
from ..core.logic import absolute, all_of, any_of, negate, where
from .thermal.interfaces import ConditionalHeatPort

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


def friction_table(rows: tuple, speed, unit: str = "1", speed_unit: str = "rad/s", column: int = 1):
    """Column ``column`` of the table's rows at ``speed`` >= 0 (the first column): linear
    between rows, continued through the last two rows beyond the last one (one row: constant).
    The numbers enter the equations with their units (the column's ``unit``, speeds in
    ``speed_unit``), which a structural table's bare floats would lose (the slope between two
    rows was a unit check's warning)."""
    def value(x):
        return Constant(x, unit) if unit != "1" else sp.Float(x)
    if len(rows) == 1:
        return value(rows[0][column])
    slope = f"{unit}/({speed_unit})"
    segments = [(value(a[column]) + Constant((b[column] - a[column]) / (b[0] - a[0]), slope)
                 * (speed - Constant(a[0], speed_unit)), speed < Constant(b[0], speed_unit))
                for a, b in zip(rows, rows[1:])]
    return sp.Piecewise(*segments[:-1], (segments[-1][0], True))


class StickSlipFriction(ConditionalHeatPort):
    """Dry friction with stick-slip between two surfaces, either domain.

    Sliding, the friction (force or torque) follows the sliding law of the slip's direction;
    stuck, the relative acceleration is zero as long as the friction needed stays within the
    break-away limits (lower <= friction <= upper); disengaged (an engagement <= 0, a normal
    force gone), the friction is free (zero).

    A subclass names its sliding speed and friction variables (``SLIP``, ``FRICTION``; the
    friction positive when it opposes a positive slip) and supplies
    :meth:`relative_acceleration`, :meth:`sides`, :meth:`sliding_frictions` and
    :meth:`breakaway_limits` (and :meth:`engagement` if it can be disengaged); it adds
    :meth:`friction_law` and :meth:`slip_heat` to its equations.

    Modes: mode = −1 sliding backward (slip < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates friction·slip [W] in every mode (through ``heat_port`` with use_heat_port=True):
    the sliding friction times |slip| sliding, 0 stuck (slip = 0) or free (friction 0). A lock
    is entered at slip = 0 and loses nothing; one seen late (a fixed-step overshoot) is
    projected as a plastic impact, whose loss at the event is no power.
    """

    FREE, STUCK, FORWARD, BACKWARD = 2, 0, 1, -1
    SLIP, FRICTION = "w_rel", "tau"

    mode = Mode({"backward": -1, "stuck": 0, "forward": 1, "free": 2}, start="free",
                description="friction state")

    REL_TOL = 1e-9
    """A slip speed within REL_TOL of the speeds on either side (plus SPEED_FLOOR) is zero up to
    rounding, and so is a relative acceleration within REL_TOL of the accelerations."""

    SPEED_FLOOR = 1e-12
    """[m/s or rad/s] rounding of speeds that are themselves zero (a body stopped by a brake)."""

    noise_kind = None
    """Dry friction is no thermal noise source: sliding, its force is mu·cgeo·fn whatever the
    slip speed (no small-signal conductance for the fluctuation–dissipation theorem to give
    a noise), and stuck it dissipates nothing. The noise analyses leave it out, saying so."""

    BACK_MARGIN = 1e-3
    """A friction this fraction of the static capacity past the limit the element just slid
    at breaks it away again in that direction (less is rounding of the friction that stopped
    it; see :meth:`transition`)."""

    def relative_acceleration(self):
        """d(slip)/dt, in terms of the ports' ``der(...)``."""
        raise NotImplementedError

    def sides(self, v) -> tuple:
        """((speed, acceleration) of the side the slip is measured from, (speed, acceleration)
        of the other side), from a transition's values ``v``."""
        raise NotImplementedError

    def sliding_frictions(self) -> tuple:
        """(forward, backward): the friction sliding forward and backward (SymPy)."""
        raise NotImplementedError

    def breakaway_limits(self, v=None) -> tuple:
        """(upper, lower): stuck, it holds while lower <= friction <= upper; symbols, or numbers
        (CasADi symbols in an export) from a transition's values ``v``."""
        raise NotImplementedError

    def engagement(self, v=None):
        """Engaged while this is > 0 (a normal force); symbols, or a number from ``v``.
        None: always engaged."""
        return None

    def _slip(self):
        return getattr(self, self.SLIP)

    def _friction(self):
        return getattr(self, self.FRICTION)

    def friction_law(self):
        """The friction of each mode (one equation)."""
        forward, backward = self.sliding_frictions()
        friction = self._friction()
        return sp.Piecewise((self.relative_acceleration(), sp.Eq(self.mode, self.STUCK)),
                            (friction - forward, sp.Eq(self.mode, self.FORWARD)),
                            (friction - backward, sp.Eq(self.mode, self.BACKWARD)),
                            (friction, True))

    def guards(self):
        sliding = sp.Or(sp.Eq(self.mode, self.FORWARD), sp.Eq(self.mode, self.BACKWARD))
        upper, lower = self.breakaway_limits()
        engagement, friction = self.engagement(), self._friction()
        return [sp.Piecewise((self._slip(), sliding), (1, True)),                       # sticks
                sp.Piecewise((sp.Min(upper - friction, friction - lower),
                              sp.Eq(self.mode, self.STUCK)), (1, True)),                # breaks away
                *([] if engagement is None else [engagement])]                          # engages/frees

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        mode, pre, w, friction = v["mode"], v["pre(mode)"], v[self.SLIP], v[self.FRICTION]
        (w_from, a_from), (w_to, a_to) = self.sides(v)
        at_zero = absolute(w) <= self.REL_TOL * (absolute(w_from) + absolute(w_to)) + self.SPEED_FLOOR
        # Free with a normal force: engage in the direction of the slip, stuck if there is none
        # (a slip of rounding's size is none: a brake pressed on a disc at rest at -4e-25 rad/s
        # slid backward for no time before it stuck, an event of its own).
        engaged = where(at_zero, self.STUCK, where(w > 0, self.FORWARD, self.BACKWARD))
        # Sliding: stick when the slip speed crossed zero from the side of the slip the event
        # started in, so that it now stands at zero or past it. A slip that has just begun
        # (break-away at a located root a hair before the static limit, or from a stuck speed
        # that drifted a hair the other way) may first creep the wrong way and then cross
        # zero into its own direction: that crossing is no stick. Past the crossing it stands
        # on its own side; located exactly at zero (the speed's rounding), the acceleration
        # tells the two apart: a stick's crossing comes against the slip's direction, the
        # creep's along it.
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
        # Stuck: break away towards the nearer limit when the friction passes one of them (a
        # fired break guard counts even if the located root lies a hair before the limit),
        # but not straight back into the slip it just ended: the friction that ended it was
        # enough to stop the slip, so holding needs less, and a friction past that limit is
        # rounding (sliding on would chatter). Unless clearly past it: another element that
        # locked or freed in the same event moved the load (two clutches locking at once can
        # leave one six times its capacity; it stayed stuck).
        upper, lower = self.breakaway_limits(v)
        middle = (upper + lower) / 2
        direction = where(friction > middle, self.FORWARD, self.BACKWARD)
        margin = self.BACK_MARGIN * (upper - middle)
        clearly_past = any_of(friction > upper + margin, friction < lower - margin)
        breaks_away = all_of(any_of(friction > upper, friction < lower, fired[1]),
                             any_of(direction != pre, clearly_past))
        stays_stuck = where(breaks_away, direction, mode)
        sliding = any_of(mode == self.FORWARD, mode == self.BACKWARD)
        rolls = where(mode == self.FREE, engaged, where(sliding, slides_on, stays_stuck))
        engagement = self.engagement(v)
        return {"mode": rolls if engagement is None else where(engagement <= 0, self.FREE, rolls)}

    def slip_heat(self):
        """The slip power friction·slip leaving through the heat port (none without one)."""
        return self.heat_loss(self._friction() * self._slip())

    def constraints(self):
        return [(sp.Eq(self.mode, self.STUCK), self._slip())]

    def dissipation(self):
        # Slip power friction·slip >= 0: the friction opposes the sliding speed; stuck or
        # free, one of the two is zero.
        return self._friction(), self._slip()
