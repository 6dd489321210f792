"""Hydraulic valves: the check valve (a mode that opens at its cracking pressure), the
signal-controlled orifice, the pressure-relief valve and the 4/3 directional spool valve (their
openings are sharp-edged orifices, :func:`~physlib.components.hydraulic.interfaces.orifice_flow`)."""
from ...core import Component, Input, Mode, Parameter, ParameterError, Port, Variable
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, where
from ...domains import hydraulic
from .interfaces import InternalNoise, TwoPort, orifice_conductance, orifice_flow

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["CheckValve", "VariableOrifice", "ReliefValve", "SpoolValve"]


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


def _ramp(x):
    """min(max(x, 0), 1): an opening's fraction of its full travel."""
    return sp.Min(sp.Max(x, 0), 1)


class _Orifices:
    """The parameters of a valve's sharp-edged openings (see :class:`VariableOrifice`)."""

    Cd = Parameter(0.7, unit="1", description="discharge coefficient", positive=True)
    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    dp_tr = Parameter(1e3, unit="Pa", description="laminar/turbulent transition pressure",
                      positive=True)
    A_leak = Parameter(1e-12, unit="m2", description="leakage area of a closed opening",
                       positive=True)


class _OrificeValve(_Orifices, TwoPort):
    """A two-port whose flow is the orifice law through an opening area ``area()`` [m2]."""

    A_open = Variable("m2", "opening area")

    def area(self):
        raise NotImplementedError

    def equations(self):
        k = self.Cd * self.A_open * sp.sqrt(2 / self.rho)
        return super().equations() + [sp.Eq(self.A_open, self.area()),
                                      sp.Eq(self.q, orifice_flow(self.dp, k, self.dp_tr))]

    def dissipation(self):
        return self.dp, self.q


class VariableOrifice(_OrificeValve):
    """Sharp-edged orifice whose opening area is a signal (Simscape: Orifice (IL) with variable
    area; OpenHydraulics: VariableRestriction):
    q = Cd·A_open·√(2·|dp|/rho)·sign(dp), A_open = A_leak + max(A, 0).

    Below |dp| = dp_tr the flow is the odd cubic of :class:`Orifice` (same value and slope at
    ±dp_tr, finite slope 1.25·Cd·A_open·√(2/rho)/√dp_tr at dp = 0): the orifice linearizes at
    zero pressure drop. The leakage area keeps a closed orifice (A <= 0) from cutting its
    network in two.

    Inputs: A [m2] commanded opening area. Parameters: Cd [1]; rho [kg/m3]; dp_tr [Pa];
    A_leak [m2] (> 0). Variables: A_open [m2]. Dissipates dp·q.
    """

    A = Input("m2", "commanded opening area")

    def area(self):
        return self.A_leak + sp.Max(self.A, 0)


class ReliefValve(_OrificeValve):
    """Direct-acting pressure-relief valve (Simscape: Pressure Relief Valve (IL); OpenHydraulics:
    ReliefValve): an orifice from port_a (the protected line) to port_b (tank) whose area opens
    linearly with the pressure drop between the cracking pressure and the end of the regulation
    range: A_open = A_leak + (A_max − A_leak)·min(max((dp − p_crack)/p_range, 0), 1); the flow is
    the orifice law of :class:`VariableOrifice` through that area.

    Parameters: p_crack [Pa] cracking pressure; p_range [Pa] regulation range (> 0: the valve
    is fully open at p_crack + p_range); A_max [m2] fully open area (> A_leak); Cd, rho, dp_tr,
    A_leak as :class:`VariableOrifice`. Variables: A_open [m2]. Dissipates dp·q.
    """

    p_crack = Parameter(unit="Pa", description="cracking pressure", positive=True)
    p_range = Parameter(unit="Pa", description="regulation range (open at p_crack + p_range)",
                        positive=True)
    A_max = Parameter(unit="m2", description="fully open area", positive=True)

    def validate(self):
        if self.A_max <= self.A_leak:
            raise ParameterError(f"ReliefValve {self.name!r}: A_max = {self.A_max:g} m2 must exceed "
                                 f"A_leak = {self.A_leak:g} m2 (the closed valve's leakage area)")

    def area(self):
        opening = _ramp((self.dp - self.p_crack) / self.p_range)
        return self.A_leak + (self.A_max - self.A_leak) * opening


class SpoolValve(InternalNoise, _Orifices, Component):
    """4/3 directional spool valve, closed or open centre by its overlap (Simscape: 4-Way
    Directional Valve (IL); OpenHydraulics: FourWayValve). Ports: P (supply), T (tank), A, B.

    A spool at x > 0 opens P→A and B→T, at x < 0 P→B and A→T; each path is a sharp-edged
    orifice (:class:`VariableOrifice`'s law) of area
    A_path = A_leak + A_max·min(max((±x − overlap)/x_max, 0), 1) (+x for P–A and B–T, −x for
    P–B and A–T). overlap > 0 is a closed centre (every path shut, leaking only, while
    |x| <= overlap); overlap < 0 an underlapped, open centre (all four paths open at x = 0).

    Inputs: x [m] spool position. Parameters: A_max [m2] path area at full opening;
    x_max [m] opening travel to A_max (> 0); overlap [m]; A_leak [m2]; Cd, rho, dp_tr as
    :class:`VariableOrifice`; T [K] for the paths' thermal noise.
    Variables: q_PA, q_PB, q_AT, q_BT [m3/s] the path flows (P→A, P→B, A→T, B→T).
    Dissipates the sum of the paths' Δp·q; each path is a noise source (4kT·∂q/∂Δp).
    """

    PATHS = {"PA": ("P", "A", 1), "PB": ("P", "B", -1), "AT": ("A", "T", -1), "BT": ("B", "T", 1)}
    NOISE_PARTS = {path: "thermal" for path in PATHS}
    NOISE_UNITS = {path: "m3/s" for path in PATHS}

    port_P = Port(hydraulic, "supply port P")
    port_T = Port(hydraulic, "tank port T")
    port_A = Port(hydraulic, "working port A")
    port_B = Port(hydraulic, "working port B")
    x = Input("m", "spool position")
    A_max = Parameter(unit="m2", description="path area at full opening", positive=True)
    x_max = Parameter(unit="m", description="opening travel to full area", positive=True)
    overlap = Parameter(0.0, unit="m", description="overlap (> 0 closed centre, < 0 underlap)")
    q_PA = Variable("m3/s", "flow P to A")
    q_PB = Variable("m3/s", "flow P to B")
    q_AT = Variable("m3/s", "flow A to T")
    q_BT = Variable("m3/s", "flow B to T")

    def path_area(self, sign):
        """Opening area [m2] of a path that the spool opens on the ``sign`` side of centre."""
        return self.A_leak + self.A_max * _ramp((sign * self.x - self.overlap) / self.x_max)

    def equations(self):
        ports = {"P": self.port_P, "T": self.port_T, "A": self.port_A, "B": self.port_B}
        into = {name: 0 for name in ports}
        laws = []
        for path, (src, dst, sign) in self.PATHS.items():
            q = self.var("q_" + path)
            k = self.Cd * self.path_area(sign) * sp.sqrt(2 / self.rho)
            dp = ports[src].p - ports[dst].p
            laws.append(sp.Eq(q, orifice_flow(dp, k, self.dp_tr) + self._noise(path)))
            into[src] += q
            into[dst] -= q
        return laws + [sp.Eq(ports[name].q, into[name]) for name in ports]

    def dissipation(self):
        """Σ Δp·q over the four paths [W], as (power, 1): the paths share no flow."""
        ports = {"P": self.port_P, "T": self.port_T, "A": self.port_A, "B": self.port_B}
        power = sum((ports[src].p - ports[dst].p) * self.var("q_" + path)
                    for path, (src, dst, _) in self.PATHS.items())
        return power, sp.Integer(1)

    def part_conductance(self, part, values, params):
        src, dst, sign = self.PATHS[part]
        opening = min(max((sign * values["x"] - params["overlap"]) / params["x_max"], 0.0), 1.0)
        k = params["Cd"] * (params["A_leak"] + params["A_max"] * opening) * (2 / params["rho"])**0.5
        return orifice_conductance(values[f"port_{src}.p"] - values[f"port_{dst}.p"], k, params["dp_tr"])
