"""Losses in bearings and gear meshes over speed tables, with stick-slip (the StickSlipFriction
modes): BearingFriction and LossyGear, as the Modelica Standard Library's."""
import math

from ...core import Parameter, Variable
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import where
from ..stick_slip import StickSlipFriction, friction_table
from .friction import HousingSlip

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["BearingFriction", "LossyGear"]


def speed_table(rows, columns: int, what: str) -> tuple:
    """``rows`` as a tuple of float tuples of ``columns`` entries, speeds (first column) >= 0 and
    strictly increasing, or a ParameterError naming ``what``."""
    try:
        table = tuple(tuple(float(x) for x in row) for row in rows)
    except (TypeError, ValueError):
        table = ()
    speeds = [row[0] for row in table]
    if not table or any(len(row) != columns for row in table) or speeds[0] < 0 or \
            any(b <= a for a, b in zip(speeds, speeds[1:])) or \
            not all(math.isfinite(x) for row in table for x in row):
        raise ParameterError(f"{what}: give rows of {columns} finite numbers, the speeds (first "
                             f"column) >= 0 and strictly increasing")
    return table


def interpolate_at_zero(table: tuple, column: int) -> float:
    """Column ``column`` of ``table`` at speed 0, as :func:`~..stick_slip.friction_table` (a number)."""
    if len(table) == 1:
        return table[0][column]
    (w0, *a), (w1, *b) = table[0], table[1]
    return a[column - 1] - (b[column - 1] - a[column - 1]) * w0 / (w1 - w0)


class BearingFriction(HousingSlip, StickSlipFriction):
    """Coulomb friction in a bearing, with stick-slip (the MSL's BearingFriction).

    The shaft runs through: flange_a and flange_b turn together, w_rel = flange_a.w − housing
    speed. The friction torque tau = flange_a.tau + flange_b.tau (taken by the housing) is
    tau_pos(w_rel) sliding forward and −tau_pos(−w_rel) backward, tau_pos interpolated linearly
    in its table (extended by its first and last segments); stuck, the shaft holds still
    relative to the housing while |tau| <= peak·tau_pos(0).

    Parameters: tau_pos (structural) rows (w [rad/s] >= 0, friction torque [N.m]), speeds
    increasing; peak [1] static/kinetic ratio at w = 0 (>= 1); use_support (structural)
    housing flange; use_heat_port (structural) heat port the loss leaves by.
    Modes: as :class:`StickSlipFriction` (never free). Dissipates tau·w_rel.
    Simscape counterpart: Rotational Friction (without its viscous part).
    """

    rigid_ports = (("flange_a", "flange_b"),)     # the shaft runs through

    tau_pos = Parameter(((0.0, 1.0),), description="rows (w [rad/s], friction torque [N.m]) for "
                        "w >= 0", structural=True)
    peak = Parameter(1.0, unit="1", description="peak friction torque at w = 0 over tau_pos(0)",
                     check=(lambda v: v >= 1.0, "must be >= 1"))
    w_rel = Variable("rad/s", "shaft speed relative to the housing")
    tau = Variable("N.m", "friction torque, flange_a.tau + flange_b.tau")

    def validate(self):
        self._values["tau_pos"] = speed_table(self.tau_pos, 2, f"BearingFriction {self.name!r}: tau_pos")

    def sliding_frictions(self):
        return friction_table(self.tau_pos, self.w_rel, "N.m"), -friction_table(self.tau_pos, -self.w_rel, "N.m")

    def breakaway_limits(self, v=None):
        limit = (self.peak if v is None else v["peak"]) * interpolate_at_zero(self.tau_pos, 1)
        return limit, -limit

    def equations(self):
        return [sp.Eq(self.flange_b.w, self.flange_a.w),
                sp.Eq(self.w_rel, self.flange_a.w - self.support_w()),
                sp.Eq(self.tau, self.flange_a.tau + self.flange_b.tau),
                *self.support_reaction(-self.tau),
                *self.slip_heat(),
                self.friction_law()]


class LossyGear(HousingSlip, StickSlipFriction):
    """Gear with mesh efficiency and bearing friction, stuck or rolling (the MSL's LossyGear,
    after Pelchen, Schweiger, Otter, "Modeling and simulating the efficiency of gearboxes and of
    planetary gearboxes", Modelica 2002).

    Kinematics as :class:`IdealGear`: w_a = flange_a.w − w_support = ratio·(flange_b.w −
    w_support), here ``w_rel``. Torques: flange_b.tau + ratio·(flange_a.tau − tau) = 0, tau the
    torque loss seen at flange_a; the housing takes the rest. lossTable rows
    (|w_a|, eta_mf1, eta_mf2, tau_bf1, tau_bf2) give, over speed, the mesh efficiency when
    flange_a drives (eta_mf1) and when flange_b drives (eta_mf2), and the bearing friction
    torques at flange_a in the two cases; the part on flange_a's side is tau_bf_a =
    (tau_bf1 − tau_bf2)/(eta_mf1 − 1/eta_mf2) (tau_bf1/2 with both efficiencies 1). Rolling
    forward (w_a > 0), with tau_a = flange_a.tau::

        tau = (1 − eta_mf1)·tau_a + tau_bf1        if tau_a − tau_bf_a > 0 (flange_a drives)
        tau = (1 − 1/eta_mf2)·tau_a + tau_bf2      otherwise (flange_b drives)

    and backward (w_a < 0) the same with −tau_bf1, −tau_bf2, flange_a driving if
    tau_a + tau_bf_a < 0 (continuous in tau_a: the two branches meet where the driving side
    changes). Stuck (w_a held at 0), tau is what holds it, within the losses at w = 0 for the
    present tau_a; beyond them it starts rolling. A table without losses is the ideal gear.

    Parameters: ratio [1] flange_a.w/flange_b.w (!= 0); lossTable (structural) rows of
    five numbers, speeds increasing, efficiencies in (0, 1], both 1 in every row or in none
    (where both are 1 the bearing friction cannot be split between the sides; the MSL splits
    it in half there, physlib where the whole table has them 1) (default [(0, 1, 1, 0, 0)]: no
    losses); use_support, use_heat_port (structural).
    Variables: w_rel [rad/s] the MSL's w_a; tau [N.m] the MSL's tauLoss.
    Modes: as :class:`StickSlipFriction` (1 rolling forward, 0 stuck, −1 backward; never free).
    Dissipates tau·w_rel, the power flanges and housing lose into the gear.
    Simscape counterpart: Simple Gear with Meshing Losses.
    """

    ratio = Parameter(1.0, unit="1", description="transmission ratio flange_a.w/flange_b.w",
                      nonzero=True)
    lossTable = Parameter(((0.0, 1.0, 1.0, 0.0, 0.0),), description="rows (w [rad/s], eta_mf1, "
                          "eta_mf2, tau_bf1 [N.m], tau_bf2 [N.m])", structural=True)
    w_rel = Variable("rad/s", "speed of flange_a relative to the housing (w_a)")
    tau = Variable("N.m", "torque loss at flange_a (tauLoss)")

    def validate(self):
        table = speed_table(self.lossTable, 5, f"LossyGear {self.name!r}: lossTable")
        if any(not 0 < row[k] <= 1 for row in table for k in (1, 2)):
            raise ParameterError(f"LossyGear {self.name!r}: lossTable's efficiencies (columns 2 "
                                 f"and 3) must be in (0, 1]")
        ideal_mesh = [row[1] == 1 and row[2] == 1 for row in table]
        if any(ideal_mesh) and not all(ideal_mesh):
            raise ParameterError(f"LossyGear {self.name!r}: lossTable has both efficiencies 1 in "
                                 f"some rows but not in all; give them below 1 in every row, or 1 "
                                 f"in every row")
        self._values["lossTable"] = table

    def losses(self, w_abs):
        """(eta_mf1, eta_mf2, tau_bf1, tau_bf2, tau_bf_a) at speed |w_a| = ``w_abs``: symbols,
        or numbers for ``w_abs`` = 0."""
        at = (lambda k: interpolate_at_zero(self.lossTable, k)) if w_abs == 0 else \
            (lambda k: friction_table(self.lossTable, w_abs, "1" if k < 3 else "N.m", column=k))
        eta1, eta2, bf1, bf2 = at(1), at(2), abs(at(3)), abs(at(4))
        lossless = all(row[1] == 1 and row[2] == 1 for row in self.lossTable)
        return eta1, eta2, bf1, bf2, bf1 / 2 if lossless else (bf1 - bf2) / (eta1 - 1 / eta2)

    @staticmethod
    def quadrant_loss(tau_a, losses, direction):
        """(loss with flange_a driving, loss with flange_b driving, whether flange_a drives)
        rolling in ``direction`` (+1 forward, −1 backward) with the ``losses`` of a speed:
        flange_a drives when the torque at it net of its bearing friction turns the gear the
        way it rolls."""
        eta1, eta2, bf1, bf2, bf_a = losses
        a_drives = (1 - eta1) * tau_a + direction * bf1
        b_drives = (1 - 1 / eta2) * tau_a + direction * bf2
        return a_drives, b_drives, direction * (tau_a - direction * bf_a) > 0

    def sliding_frictions(self):
        losses = self.losses(sp.Abs(self.w_rel))
        laws = []
        for direction in (1, -1):
            a_drives, b_drives, a_driving = self.quadrant_loss(self.flange_a.tau, losses, direction)
            laws.append(sp.Piecewise((a_drives, a_driving), (b_drives, True)))
        return tuple(laws)

    def breakaway_limits(self, v=None):
        tau_a = self.flange_a.tau if v is None else v["flange_a.tau"]
        select = sp.Piecewise if v is None else (lambda a, b: where(a[1], a[0], b[0]))
        limits = []
        for direction in (1, -1):
            a_drives, b_drives, a_driving = self.quadrant_loss(tau_a, self.losses(0), direction)
            limits.append(select((a_drives, a_driving), (b_drives, True)))
        return tuple(limits)

    def engagement(self, v=None):
        # A lossless table makes it an ideal gear: always free (no loss, no sticking).
        lossless = all(row[1] == 1 and row[2] == 1 and row[3] == 0 and row[4] == 0
                       for row in self.lossTable)
        return -1.0 if v is not None and lossless else None

    def equations(self):
        w_s = self.support_w()
        return [sp.Eq(self.w_rel, self.flange_a.w - w_s),
                sp.Eq(self.w_rel, self.ratio * (self.flange_b.w - w_s)),
                sp.Eq(self.flange_b.tau + self.ratio * (self.flange_a.tau - self.tau), 0),
                *self.support_reaction(-self.flange_a.tau - self.flange_b.tau),
                *self.slip_heat(),
                self.friction_law()]
