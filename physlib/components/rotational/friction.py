"""Dry friction with stick-slip (Clutch, Brake, on the shared stick-slip model of
:mod:`physlib.components.stick_slip`) and the
freewheel (OneWayClutch): the rotational elements with modes."""
from ...core import Input, Mode, Parameter, Variable, der
from ...core.lazy import lazy_module
from ...core.logic import absolute, all_of, any_of, where
from ..stick_slip import StickSlipFriction
from .interfaces import Compliant, Supported, TwoFlange

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["StickSlip", "HousingSlip", "Clutch", "Brake", "OneWayClutch"]


class StickSlip(StickSlipFriction):
    """Dry friction with stick-slip under a normal force, shared by :class:`Clutch` and
    :class:`Brake` (the :class:`~physlib.components.stick_slip.StickSlipFriction` modes).

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

    def sliding_frictions(self):
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
    :meth:`relative_acceleration` and :meth:`sides` as :class:`~physlib.components.stick_slip.StickSlipFriction` asks them."""

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
