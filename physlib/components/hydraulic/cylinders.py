"""The double-acting hydraulic cylinder: two compressible chambers, a rod with friction and
end stops."""
import math

from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import hydraulic, translational
from .interfaces import InternalNoise

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["DoubleActingCylinder"]


class DoubleActingCylinder(InternalNoise, Component):
    """Double-acting cylinder with compressible chambers, internal leakage, rod friction and
    end stops, housing fixed (Simscape: Double-Acting Actuator (IL) with its hard stops and a
    Translational Friction; OpenHydraulics: DoubleActingCylinder). The MSL has no hydraulics.

    Pressure in chamber A (port_a, piston area A_a) pushes the rod out (s increasing), in
    chamber B (port_b, annulus area A_b) pulls it in; s = 0 is fully retracted, s = stroke fully
    extended. Each port is its chamber (its pressure is a state, as FluidCapacitance's):

        V_a = V_dead_a + A_a·s,        V_b = V_dead_b + A_b·(stroke − s),      ds/dt = v
        (V_a/beta)·dp_a/dt = port_a.q − q_leak − A_a·v·(1 + p_a/(2·beta))
        (V_b/beta)·dp_b/dt = port_b.q + q_leak + A_b·v·(1 + p_b/(2·beta))
        q_leak = G_leak·(p_a − p_b)
        F_friction = d·v + F_c·tanh(v/v_th)
        F = p_a·A_a − p_b·A_b − F_friction + F_stop,          flange.f = −F

    F [N] is the force the rod puts on the load. The p/(2·beta) terms (under 1 % at 300 bar
    of oil) are the compression work of the liquid the piston sweeps: with them the chambers
    store exactly V·p²/(2·beta) each in the energy books (the plain (V/beta)·dp/dt = q − dV/dt
    misses that work). Coulomb friction is smoothed over the velocity v_th (Simscape's
    breakaway velocity) so that the rod linearizes at rest. Past an end the stop pushes back
    as a spring and a damper whose damping grows over the first s_damp of penetration
    (Simscape's hard stop, stiffness and damping smoothed at the bounds), so that the force
    has no jump at contact: with the penetration δ = −s below 0, s − stroke above stroke,
    F_stop = ∓(c_stop·δ) − d_stop·min(δ/s_damp, 1)·v, the damping part counted in F_friction.

    Parameters: A_a, A_b [m2] piston and annulus areas (> 0); stroke [m] (> 0);
    V_dead_a, V_dead_b [m3] chamber volumes at the stroke's ends (> 0); beta [Pa] bulk modulus;
    G_leak [m3/(s.Pa)] internal leakage (>= 0); d [N.s/m] viscous friction (>= 0); F_c [N]
    Coulomb friction (>= 0); v_th [m/s] its smoothing velocity (> 0); c_stop [N/m], d_stop
    [N.s/m] end-stop stiffness and damping (>= 0); s_damp [m] penetration to full damping
    (> 0); s0 [m], p_a0, p_b0 [Pa] initial rod position and chamber pressures; T [K]
    temperature of the losses (thermal noise).
    States: s, p_a, p_b. Stores V_a·p_a²/(2·beta) + V_b·p_b²/(2·beta) + the stop's spring
    energy; dissipates q_leak·(p_a − p_b) + F_friction·v (the stop's damping included);
    "leakage" and "friction" (with the stop's damping) are its noise sources.
    """

    NOISE_PARTS = {"leakage": "thermal", "friction": "thermal"}
    NOISE_UNITS = {"leakage": "m3/s", "friction": "N"}

    port_a = Port(hydraulic, "chamber A (pushes the rod out)")
    port_b = Port(hydraulic, "chamber B (pulls the rod in)")
    flange = Port(translational, "rod")
    A_a = Parameter(unit="m2", description="piston area, chamber A", positive=True)
    A_b = Parameter(unit="m2", description="annulus area, chamber B", positive=True)
    stroke = Parameter(unit="m", description="stroke", positive=True)
    V_dead_a = Parameter(1e-5, unit="m3", description="chamber A volume at s = 0", positive=True)
    V_dead_b = Parameter(1e-5, unit="m3", description="chamber B volume at s = stroke", positive=True)
    beta = Parameter(1.5e9, unit="Pa", description="bulk modulus", positive=True)
    G_leak = Parameter(0.0, unit="m3/(s.Pa)", description="internal leakage conductance",
                       nonnegative=True)
    d = Parameter(0.0, unit="N.s/m", description="viscous friction", nonnegative=True)
    F_c = Parameter(0.0, unit="N", description="Coulomb friction", nonnegative=True)
    v_th = Parameter(1e-3, unit="m/s", description="Coulomb friction smoothing velocity", positive=True)
    c_stop = Parameter(1e8, unit="N/m", description="end-stop stiffness", nonnegative=True)
    d_stop = Parameter(1e5, unit="N.s/m", description="end-stop damping", nonnegative=True)
    s_damp = Parameter(1e-4, unit="m", description="end-stop penetration to full damping", positive=True)
    s0 = Parameter(0.0, unit="m", description="initial rod position")
    p_a0 = Parameter(0.0, unit="Pa", description="initial pressure, chamber A")
    p_b0 = Parameter(0.0, unit="Pa", description="initial pressure, chamber B")
    s = Variable("m", "rod position (0 retracted)")
    p_a = Variable("Pa", "pressure, chamber A")
    p_b = Variable("Pa", "pressure, chamber B")
    F = Variable("N", "force of the rod on the load")
    q_leak = Variable("m3/s", "leakage from chamber A to B")
    F_friction = Variable("N", "friction force (with the stop's damping)")

    def _penetration(self):
        """How far [m] the rod is past an end (>= 0)."""
        return sp.Max(-self.s, 0) + sp.Max(self.s - self.stroke, 0)

    def _stop_spring(self):
        """The stop's spring force [N] on the rod (outwards positive)."""
        return -self.c_stop * (sp.Min(self.s, 0) + sp.Max(self.s - self.stroke, 0))

    def equations(self):
        v, beta = self.flange.v, self.beta
        V_a = self.V_dead_a + self.A_a * self.s
        V_b = self.V_dead_b + self.A_b * (self.stroke - self.s)
        stop_damping = self.d_stop * sp.Min(self._penetration() / self.s_damp, 1) * v
        friction = self.d * v + self.F_c * sp.tanh(v / self.v_th) + stop_damping
        return [
            sp.Eq(der(self.s), v),
            sp.Eq(self.p_a, self.port_a.p), sp.Eq(self.p_b, self.port_b.p),
            sp.Eq(self.q_leak, self.G_leak * (self.p_a - self.p_b) + self._noise("leakage")),
            sp.Eq(V_a / beta * der(self.p_a),
                  self.port_a.q - self.q_leak - self.A_a * v * (1 + self.p_a / (2 * beta))),
            sp.Eq(V_b / beta * der(self.p_b),
                  self.port_b.q + self.q_leak + self.A_b * v * (1 + self.p_b / (2 * beta))),
            sp.Eq(self.F_friction, friction + self._noise("friction")),
            sp.Eq(self.F, self.p_a * self.A_a - self.p_b * self.A_b - self.F_friction + self._stop_spring()),
            sp.Eq(self.flange.f, -self.F)]

    def initial(self):
        return {self.s: self.s0, self.p_a: self.p_a0, self.p_b: self.p_b0}

    def energy(self):
        V_a = self.V_dead_a + self.A_a * self.s
        V_b = self.V_dead_b + self.A_b * (self.stroke - self.s)
        stop = self.c_stop / 2 * (sp.Min(self.s, 0)**2 + sp.Max(self.s - self.stroke, 0)**2)
        return (V_a * self.p_a**2 + V_b * self.p_b**2) / (2 * self.beta) + stop

    def dissipation(self):
        """q_leak·(p_a − p_b) + F_friction·v [W] as (power, 1)."""
        return self.q_leak * (self.p_a - self.p_b) + self.F_friction * self.flange.v, sp.Integer(1)

    def part_conductance(self, part, values, params):
        if part == "leakage":
            return params["G_leak"]
        v, s = values["flange.v"], values["s"]
        sech2 = 1 - math.tanh(v / params["v_th"])**2
        penetration = max(-s, 0.0) + max(s - params["stroke"], 0.0)
        stop = params["d_stop"] * min(penetration / params["s_damp"], 1.0)
        return params["d"] + params["F_c"] / params["v_th"] * sech2 + stop
