"""Hydraulic valves: the check valve (a mode that opens at its cracking pressure)."""
from ...core import Mode, Parameter
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, where
from .interfaces import TwoPort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["CheckValve"]


class CheckValve(TwoPort):
    """Ideal check (non-return) valve, the hydraulic ideal diode: it lets the liquid flow from
    port_a to port_b only.

    Open: dp = p_crack + R_open·q; closed: q = G_closed·dp. A closed valve opens when dp rises
    above the cracking pressure p_crack; an open one closes when its flow would reverse
    (q < 0, i.e. dp falls below p_crack).

    Parameters: R_open [Pa.s/m3] open resistance (>= 0; 0 is ideal); G_closed [m3/(s.Pa)]
    closed leakage conductance (>= 0); p_crack [Pa] cracking pressure (>= 0).
    Modes: open = 1 open, 0 closed. Dissipates dp·q.
    """

    CLOSED, OPEN = 0, 1

    R_open = Parameter(0.0, unit="Pa.s/m3", description="open resistance", nonnegative=True)
    G_closed = Parameter(0.0, unit="m3/(s.Pa)", description="closed leakage conductance",
                         nonnegative=True)
    p_crack = Parameter(0.0, unit="Pa", description="cracking pressure", nonnegative=True)
    open = Mode({"closed": 0, "open": 1}, start="closed", description="valve state")

    def equations(self):
        open_law = self.dp - self.p_crack - self.R_open * self.q
        law = sp.Piecewise((open_law, sp.Eq(self.open, self.OPEN)),
                           (self.q - self.G_closed * self.dp, True))
        return super().equations() + [law]

    def guards(self):
        return [sp.Piecewise((self.q, sp.Eq(self.open, self.OPEN)), (self.dp - self.p_crack, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A guard that fired counts even when the located point sits exactly on zero, but only
        # in the mode the event started in (so that a valve never flips back and forth).
        state, pre, q, dp, crack = v["open"], v["pre(open)"], v["q"], v["dp"], v["p_crack"]
        closes = any_of(q < 0, all_of(fired[0], pre == self.OPEN, q <= 0))
        opens = any_of(dp > crack, all_of(fired[0], pre == self.CLOSED, dp >= crack))
        return {"open": where(state == self.OPEN, where(closes, self.CLOSED, state),
                              where(opens, self.OPEN, state))}

    def dissipation(self):
        return self.dp, self.q
