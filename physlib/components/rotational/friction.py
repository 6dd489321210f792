"""Dry friction with stick-slip (Clutch, Brake, on the shared StickSlip model) and the
freewheel (OneWayClutch): the rotational elements with modes."""
from ...core import Component, Input, Mode, Parameter, Variable, der
from ...core.lazy import lazy_module
from ...core.logic import absolute, all_of, any_of, negate, where
from ..thermal.interfaces import ConditionalHeatPort
from .interfaces import Compliant, Supported, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["SlipFriction", "StickSlip", "HousingSlip", "Clutch", "Brake", "OneWayClutch"]


class SlipFriction(ConditionalHeatPort):
    """Stick-slip of a dry friction (the Modelica Standard Library's model: M. Otter,
    H. Elmqvist, S. E. Mattsson, "Hybrid modeling in Modelica based on the synchronous data flow
    principle", CACSD 1999): the modes, guards and transition that :class:`StickSlip` (Clutch,
    Brake), BearingFriction and LossyGear share.

    Sliding, the friction torque follows the sliding law of the slip's direction; stuck, the
    relative acceleration is zero as long as the torque needed stays within the break-away
    limits (lower <= tau <= upper); disengaged (an engagement <= 0), the friction is free.

    A subclass supplies the variables ``w_rel`` (sliding speed) and ``tau`` (friction torque,
    positive when it opposes a positive ``w_rel``), :meth:`relative_acceleration` (the time
    derivative of ``w_rel``), :meth:`sides`, :meth:`sliding_torques` and
    :meth:`breakaway_limits` (and :meth:`engagement` if it can be disengaged); it adds
    :meth:`friction_law` to its equations.

    Modes: mode = −1 sliding backward (w_rel < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates tau·w_rel [W] in every mode (through ``heat_port`` with use_heat_port=True,
    added to the equations by :meth:`slip_heat`). A lock is entered at w_rel = 0 and loses nothing;
    one seen late (a fixed-step overshoot) is projected as a plastic impact, whose loss at the
    event is no power.
    """

    FREE, STUCK, FORWARD, BACKWARD = 2, 0, 1, -1

    mode = Mode({"backward": -1, "stuck": 0, "forward": 1, "free": 2}, start="free",
                description="friction state")

    REL_TOL = 1e-9
    """A slip speed within REL_TOL of the speeds on either side (plus SPEED_FLOOR) is zero up to
    rounding, and so is a relative acceleration within REL_TOL of the accelerations."""

    SPEED_FLOOR = 1e-12
    """[rad/s] rounding of speeds that are themselves zero (a shaft stopped by a brake)."""

    def relative_acceleration(self):
        """d(w_rel)/dt, in terms of the ports' ``der(...)``."""
        raise NotImplementedError

    def sides(self, v) -> tuple:
        """((speed, acceleration) of the side w_rel is measured from, (speed, acceleration) of
        the other side), from a transition's values ``v``."""
        raise NotImplementedError

    def sliding_torques(self) -> tuple:
        """(forward, backward): the friction torque ``tau`` sliding forward and backward."""
        raise NotImplementedError

    def breakaway_limits(self, v=None) -> tuple:
        """(upper, lower): stuck, it holds while lower <= tau <= upper; symbols, or numbers
        from a transition's values ``v``."""
        raise NotImplementedError

    def engagement(self, v=None):
        """Engaged while this is > 0 (a normal force); symbols, or a number from ``v``.
        None: always engaged."""
        return None

    def friction_law(self):
        """The friction torque of each mode (one equation)."""
        forward, backward = self.sliding_torques()
        return sp.Piecewise((self.relative_acceleration(), sp.Eq(self.mode, self.STUCK)),
                            (self.tau - forward, sp.Eq(self.mode, self.FORWARD)),
                            (self.tau - backward, sp.Eq(self.mode, self.BACKWARD)),
                            (self.tau, True))

    def guards(self):
        sliding = sp.Or(sp.Eq(self.mode, self.FORWARD), sp.Eq(self.mode, self.BACKWARD))
        upper, lower = self.breakaway_limits()
        engagement = self.engagement()
        return [sp.Piecewise((self.w_rel, sliding), (1, True)),                   # sticks
                sp.Piecewise((sp.Min(upper - self.tau, self.tau - lower),
                              sp.Eq(self.mode, self.STUCK)), (1, True)),          # breaks away
                *([] if engagement is None else [engagement])]                    # engages/frees

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        mode, pre, w, tau = v["mode"], v["pre(mode)"], v["w_rel"], v["tau"]
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
        # the torque that broke it away is no longer there (another element changed mode in
        # the same event), and sliding on would have the friction drive the slip. It sticks
        # again (unless its own break guard fired: a root located a hair before the static
        # limit leaves a vanishing wrong-way acceleration, which the slip outgrows).
        cannot_slide = all_of(at_zero, against, negate(fired[1]))
        slides_on = where(any_of(all_of(fired[0], pre == mode, crossed_back), cannot_slide),
                          self.STUCK, mode)
        # Stuck: break away towards the nearer limit when the torque passes one of them (a
        # fired break guard counts even if the located root lies a hair before the limit),
        # but not straight back into the slip it just ended.
        upper, lower = self.breakaway_limits(v)
        direction = where(tau > (upper + lower) / 2, self.FORWARD, self.BACKWARD)
        breaks_away = all_of(any_of(tau > upper, tau < lower, fired[1]), direction != pre)
        stays_stuck = where(breaks_away, direction, mode)
        sliding = any_of(mode == self.FORWARD, mode == self.BACKWARD)
        rolls = where(mode == self.FREE, engaged, where(sliding, slides_on, stays_stuck))
        engagement = self.engagement(v)
        return {"mode": rolls if engagement is None else where(engagement <= 0, self.FREE, rolls)}

    def slip_heat(self):
        """The slip power tau·w_rel leaving through the heat port (none without one)."""
        return self.heat_loss(self.tau * self.w_rel)

    def constraints(self):
        return [(sp.Eq(self.mode, self.STUCK), self.w_rel)]

    def dissipation(self):
        # Slip power tau·w_rel >= 0: the friction torque opposes the sliding speed; stuck or
        # free, one of the two is zero.
        return self.tau, self.w_rel


class StickSlip(SlipFriction):
    """Dry friction with stick-slip under a normal force, shared by :class:`Clutch` and
    :class:`Brake` (the :class:`SlipFriction` modes).

    The normal force is fn = fn_max·f_normalized. Sliding, the friction torque is ±mu·cgeo·fn
    against the sliding speed; stuck, the relative acceleration is zero as long as the torque
    needed stays within peak·mu·cgeo·fn; with fn <= 0 the friction is free (no torque).

    Parameters: mu [1] kinetic friction coefficient; peak [1] static/kinetic ratio (>= 1);
    cgeo [m] geometry constant (torque per normal force); fn_max [N] largest normal force.
    Inputs: f_normalized [1] normalized normal force.
    Modes: mode = −1 sliding backward (w_rel < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates tau·w_rel [W] in every mode: mu·cgeo·fn·|w_rel| sliding, 0 stuck (w_rel = 0) or
    free (tau = 0).
    """

    mu = Parameter(0.5, unit="1", description="kinetic friction coefficient", nonnegative=True)
    peak = Parameter(1.0, unit="1", description="static/kinetic friction ratio",
                     check=(lambda v: v >= 1.0, "must be >= 1"))
    cgeo = Parameter(1.0, unit="m", description="geometry constant: torque per normal force",
                     positive=True)
    fn_max = Parameter(unit="N", description="maximum normal force", nonnegative=True)
    f_normalized = Input("1", "normalized normal force (0..1)")

    def sliding_torques(self):
        slide = self.mu * self.cgeo * self.fn_max * self.f_normalized
        return slide, -slide

    def breakaway_limits(self, v=None):
        if v is None:
            limit = self.peak * self.mu * self.cgeo * self.fn_max * self.f_normalized
        else:
            limit = v["peak"] * v["mu"] * v["cgeo"] * v["fn_max"] * v["f_normalized"]
        return limit, -limit

    def engagement(self, v=None):
        return self.f_normalized if v is None else v["fn_max"] * v["f_normalized"]


class Clutch(Compliant, StickSlip):
    """Dry-friction clutch between two flanges, with stick-slip (as the Modelica library's).

    The friction model is :class:`StickSlip`'s with sliding speed w_rel = flange_b.w −
    flange_a.w and transmitted torque tau = flange_b.tau = −flange_a.tau: sliding, ±mu·cgeo·fn
    against the relative motion; stuck, the flanges turn together (relative acceleration zero)
    as long as the torque needed stays within peak·mu·cgeo·fn; with fn <= 0 it is free.

    Parameters: mu [1] kinetic friction coefficient; peak [1] static/kinetic ratio (>= 1);
    cgeo [m] geometry constant (torque per normal force); fn_max [N] largest normal force;
    phi_rel_start [rad] initial relative angle; use_heat_port (structural) heat port the slip
    power leaves by.
    Inputs: f_normalized [1] normalized normal force (fn = fn_max·f_normalized).
    Modes: mode = −1 sliding backward (w_rel < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates tau·w_rel [W]: the slip power mu·cgeo·fn·|w_rel| sliding, 0 stuck or free.
    """

    def relative_acceleration(self):
        return der(self.flange_b.w) - der(self.flange_a.w)

    def sides(self, v):
        return ((v["flange_a.w"], v["der(flange_a.w)"]), (v["flange_b.w"], v["der(flange_b.w)"]))

    def equations(self):
        return super().equations() + [self.friction_law(), *self.slip_heat()]


class HousingSlip(TwoFlange, Supported):
    """The slip of flange_a against the housing (the ``support`` flange, or a fixed one), for the
    frictions between a shaft and its housing (Brake, BearingFriction, LossyGear): its
    :meth:`relative_acceleration` and :meth:`sides` as :class:`SlipFriction` asks them."""

    def relative_acceleration(self):
        return der(self.flange_a.w - self.support_w())

    def sides(self, v):
        housing = (v["support.w"], v["der(support.w)"]) if self.use_support else (0.0, 0.0)
        return housing, (v["flange_a.w"], v["der(flange_a.w)"])


class Brake(HousingSlip, StickSlip):
    """Dry-friction brake between a shaft and its housing, with stick-slip (as the Modelica
    library's Brake; the same friction model and mode codes as :class:`Clutch`).

    The shaft runs through the brake: flange_a and flange_b turn together at the shaft speed,
    and w_rel = flange_a.w − housing speed. The housing is fixed unless ``use_support=True``
    gives it a ``support`` flange, which takes the reaction torque. The friction torque
    tau = flange_a.tau + flange_b.tau (the torque the shaft loses into the brake) is
    ±mu·cgeo·fn sliding; stuck, the shaft holds still relative to the housing as long as the
    torque needed stays within peak·mu·cgeo·fn; with fn <= 0 the brake is free.

    Parameters: mu [1] kinetic friction coefficient; peak [1] static/kinetic ratio (>= 1);
    cgeo [m] geometry constant (torque per normal force); fn_max [N] largest normal force;
    use_support (structural) housing flange; use_heat_port (structural) heat port the slip
    power leaves by.
    Inputs: f_normalized [1] normalized normal force.
    Variables: w_rel [rad/s] shaft speed relative to the housing; tau [N.m] friction torque.
    Modes: mode = −1 sliding backward (w_rel < 0), 0 stuck, +1 sliding forward, 2 free.
    Dissipates tau·w_rel [W] (the power flanges and housing lose into it): mu·cgeo·fn·|w_rel|
    sliding, 0 stuck or free.
    """

    rigid_ports = (("flange_a", "flange_b"),)     # the shaft runs through

    w_rel = Variable("rad/s", "shaft speed relative to the housing")
    tau = Variable("N.m", "friction torque, flange_a.tau + flange_b.tau")

    def equations(self):
        return [sp.Eq(self.flange_b.w, self.flange_a.w),
                sp.Eq(self.w_rel, self.flange_a.w - self.support_w()),
                sp.Eq(self.tau, self.flange_a.tau + self.flange_b.tau),
                *self.support_reaction(-self.tau),
                *self.slip_heat(),
                self.friction_law()]


class OneWayClutch(Compliant):
    """Freewheel (overrunning clutch, as in a bicycle hub): flange_b may turn faster than
    flange_a but never slower, w_rel = flange_b.w − flange_a.w >= 0.

    Free (overrunning), it transmits no torque. When w_rel reaches zero from above it locks:
    the flanges turn together (relative acceleration zero), the lock being enforced on the
    state as the constraint w_rel = 0 (a plastic impact if w_rel was negative). Locked, it
    drives flange_b forward: the torque it transmits, tau = flange_b.tau = −flange_a.tau, is
    <= 0 (flange_b.tau is positive *into* the clutch, so flange_b receives −tau >= 0). It
    unlocks when the locking torque would change sign (tau rising through zero). At w_rel = 0
    it locks if flange_b is falling behind (relative acceleration < 0) and stays free
    otherwise, so a freewheel started at rest with no torque acting starts free.

    Parameters: phi_rel_start [rad] initial relative angle.
    Variables: w_rel [rad/s]; tau [N.m] as in :class:`Compliant`.
    Modes: mode = 0 free, 1 locked.
    Lossless, so it declares no dissipation: tau·w_rel = 0 free (tau = 0) and locked
    (w_rel = 0). A lock entered with w_rel < 0 (seen late, by a fixed-step solver) is a plastic
    impact that loses ½·J_a·J_b/(J_a + J_b)·w_rel² at the event (J_a, J_b the inertias on
    either side); that loss is instantaneous, not a power, and shows as a step in the stored
    energy only.
    """

    FREE, LOCKED = 0, 1
    REL_TOL = 1e-9
    """w_rel below −REL_TOL·(|flange_a.w| + |flange_b.w|) − SPEED_FLOOR is a real overrun the wrong
    way (it locks whatever the acceleration); closer to zero it is rounding of a speed that is
    zero."""

    SPEED_FLOOR = 1e-12
    """[rad/s] rounding of speeds that are themselves zero (both flanges held by a brake)."""

    TAU_TOL = 1e-9
    """A locking torque above this [N.m] unlocks it even without a located crossing."""

    mode = Mode({"free": 0, "locked": 1}, start="free", description="freewheel state")

    def equations(self):
        a_rel = der(self.flange_b.w) - der(self.flange_a.w)
        law = sp.Piecewise((a_rel, sp.Eq(self.mode, self.LOCKED)), (self.tau, True))
        return super().equations() + [law]

    def guards(self):
        return [sp.Piecewise((self.w_rel, sp.Eq(self.mode, self.FREE)), (1, True)),  # locks
                # unlocks; TAU_TOL keeps a lock with nothing acting on it (tau = 0 up to
                # rounding) from unlocking on noise
                sp.Piecewise((self.TAU_TOL - self.tau, sp.Eq(self.mode, self.LOCKED)), (1, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        mode, pre, w_rel = v["mode"], v["pre(mode)"], v["w_rel"]
        # Locked: unlock when the torque rose through zero (guard; the located root may lie a
        # hair below TAU_TOL, never on the holding side: a guard that left zero towards a
        # firmer hold is no unlock), or is plainly pulling; a torque of rounding size (a lock
        # with nothing acting on it) keeps it locked.
        unlocks = any_of(all_of(fired[1], v["tau"] >= 0), v["tau"] > self.TAU_TOL)
        # Free: lock when the flanges turn the wrong way, or when they turn together and
        # flange_b falls behind (a free clutch that has just unlocked in this event does not
        # lock again on rounding: it unlocked because flange_b pulls ahead).
        tol = self.REL_TOL * (absolute(v["flange_a.w"]) + absolute(v["flange_b.w"])) + self.SPEED_FLOOR
        a_rel = v["der(flange_b.w)"] - v["der(flange_a.w)"]
        locks = any_of(w_rel < -tol, all_of(w_rel <= tol, a_rel < 0, pre == self.FREE))
        return {"mode": where(mode == self.LOCKED, where(unlocks, self.FREE, mode),
                              where(locks, self.LOCKED, mode))}

    def constraints(self):
        return [(sp.Eq(self.mode, self.LOCKED), self.w_rel)]
