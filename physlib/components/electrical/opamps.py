"""The operational amplifier with finite gain, clipped at its supplies: the Modelica Standard
Library's Analog.Ideal.IdealizedOpAmpLimited, with its optional supply pins."""
from ...core import Component, Mode, Parameter, Port, Variable
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, where
from ...domains import electrical

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["OpAmp"]


class OpAmp(Component):
    """Operational amplifier with finite no-load gain V0, its output clipped to its supplies
    (the MSL's Ideal.IdealizedOpAmpLimited; Simscape's Band-Limited Op-Amp without its pole)::

        in_p.i = in_n.i = 0,   v_in = in_p.v − in_n.v,
        v_out = out.v = vps     if V0·v_in ≥ vps        (mode upper)
                        V0·v_in  between                  (mode linear)
                        vns     if V0·v_in ≤ vns        (mode lower)

    The output is referred to ground: its current ``out.i`` comes from an implicit supply. The
    supply voltages are the parameters Vps, Vns, or with ``use_supply`` the pins s_p, s_n
    (vps = s_p.v, vns = s_n.v), which then draw the supply current i_s = p_s/(vps − vns) of
    the power p_s = −(in_p.v·in_p.i + in_n.v·in_n.i + out.v·out.i) the op-amp delivers
    (s_p.i = i_s, s_n.i = −i_s), as the MSL has it.

    Parameters: V0 [1] no-load gain (> 0, default 15000); Vps, Vns [V] positive and negative
    supply voltage (Vps > Vns, defaults ±15 V; unused with use_supply); use_supply
    (structural) the supply pins s_p, s_n instead of Vps, Vns; homotopy_type (structural) the
    MSL's homotopyType, which mode the start settles from: 'lower_limit' or 'upper_limit'
    starts clipped (a circuit with positive feedback, whose linear solution at the start is
    an unstable equilibrium, picks its supply so), 'no_homotopy' (default) and 'linear' begin
    with the mode V0·v_in gives.
    Variables: v_in [V], v_out [V], vps, vns [V]. Modes: mode = −1 lower, 0 linear, 1 upper
    clipped (−2 only until the start decides it). The clipping points are state events
    (the MSL's strict = false).

    At an event the mode follows V0·v_in: out of a clipped mode into the linear one when it
    falls inside the supplies, into a clipped one when it leaves them. A linear solution that
    is thrown back past the supply it came from (positive feedback: a comparator with
    hysteresis at its switching point, where the linear branch is the unstable one) switches
    on to the opposite supply, the only consistent mode, as the MSL's solver finds it.
    """

    in_p = Port(electrical, "non-inverting input")
    in_n = Port(electrical, "inverting input")
    out = Port(electrical, "output (referred to ground)")
    use_supply = Parameter(False, description="use the supply pins s_p, s_n (otherwise Vps, Vns)",
                           structural=True)
    s_p = Port(electrical, "positive supply pin", condition="use_supply")
    s_n = Port(electrical, "negative supply pin", condition="use_supply")
    V0 = Parameter(15000.0, unit="1", description="no-load gain", positive=True)
    Vps = Parameter(15.0, unit="V", description="positive supply voltage (without supply pins)")
    Vns = Parameter(-15.0, unit="V", description="negative supply voltage (without supply pins)")
    v_in = Variable("V", "input voltage in_p.v - in_n.v")
    v_out = Variable("V", "output voltage to ground")
    vps = Variable("V", "positive supply voltage")
    vns = Variable("V", "negative supply voltage")
    homotopy_type = Parameter("no_homotopy", description="the mode the start begins from: 'lower_limit', "
                              "'upper_limit', or the one V0·v_in gives ('no_homotopy', 'linear')",
                              structural=True)
    mode = Mode({"unset": -2, "lower": -1, "linear": 0, "upper": 1}, start="unset",
                description="output clipped at vns (−1), linear (0), clipped at vps (1)")
    HOMOTOPY_TYPES = ("no_homotopy", "linear", "upper_limit", "lower_limit")

    def equations(self):
        clipped = sp.Piecewise((self.vps, sp.Eq(self.mode, 1)), (self.vns, sp.Eq(self.mode, -1)),
                               (self.V0 * self.v_in, True))
        eqs = [sp.Eq(self.in_p.i, 0), sp.Eq(self.in_n.i, 0),
               sp.Eq(self.v_in, self.in_p.v - self.in_n.v), sp.Eq(self.v_out, self.out.v),
               sp.Eq(self.v_out, clipped)]
        if not self.use_supply:
            return eqs + [sp.Eq(self.vps, self.Vps), sp.Eq(self.vns, self.Vns)]
        supply_current = -(self.out.v * self.out.i) / (self.vps - self.vns)    # input power is 0
        return eqs + [sp.Eq(self.vps, self.s_p.v), sp.Eq(self.vns, self.s_n.v),
                      sp.Eq(self.s_p.i, supply_current), sp.Eq(self.s_n.i, -supply_current)]

    def guards(self):
        return [self.V0 * self.v_in - self.vps, self.V0 * self.v_in - self.vns]

    def validate(self):
        if self.homotopy_type not in self.HOMOTOPY_TYPES:
            raise ParameterError(f"OpAmp {self.name!r}: homotopy_type {self.homotopy_type!r} is not one of "
                                 f"{', '.join(map(repr, self.HOMOTOPY_TYPES))}")
        # With Vps <= Vns the clipping (the MSL's if-chain, which asserts nothing) puts out
        # Vps for every large input, both signs: swapped supplies would pass unnoticed.
        if not self.use_supply and not self.Vps > self.Vns:
            raise ParameterError(f"OpAmp {self.name!r}: the positive supply Vps ({self.Vps:g} V) must be "
                                 f"above the negative one Vns ({self.Vns:g} V); swap them")

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # x is the unclipped output, solved in the mode of this round; pre the mode before the
        # event ("unset" at the start). The first round leaves a clipped mode for the linear
        # one (or enters a clipped one from the linear mode) where x says so; later rounds
        # check that the mode entered is consistent and otherwise go on to the one that is,
        # never back.
        x, mode, pre = v["V0"] * v["v_in"], v["mode"], v["pre(mode)"]
        above, below = x > v["vps"], x < v["vns"]
        follows = where(above, 1, where(below, -1, 0))
        initial = {"lower_limit": -1, "upper_limit": 1}.get(self.homotopy_type, follows)
        first = where(pre == 1, where(x < v["vps"], 0, 1),
                      where(pre == -1, where(x > v["vns"], 0, -1), where(pre == 0, follows, initial)))
        thrown_out = where(pre == 1, -1, where(pre == -1, 1, follows))   # of the band, linear
        later = where(mode == 0, where(any_of(above, below), thrown_out, 0),
                      where(mode == 1, where(all_of(pre != -1, x < v["vps"]), -1, 1),
                            where(all_of(pre != 1, x > v["vns"]), 1, -1)))
        return {"mode": where(mode == pre, first, later)}
