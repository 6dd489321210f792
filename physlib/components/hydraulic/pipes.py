"""The pipe with the liquid's inertia, compressibility and laminar friction in segments."""
import math

from ...core import Component, Parameter, ParameterError, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains.hydraulic import FLOW_NOMINAL, hydraulic
from ..noise_variants import noisy_class
from .interfaces import InternalNoise

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Pipe"]


class Pipe(InternalNoise, Component):
    """Rigid round pipe as N lumped segments of the liquid's inertia, laminar friction and
    compressibility (Simscape: Pipe (IL) / Segmented Pipeline (IL) with laminar friction;
    OpenHydraulics: Line).

    With the cross-section A = π·D²/4: inertance I = rho·L/A, Hagen–Poiseuille resistance
    R = 128·rho·nu·L/(π·D⁴), capacitance C = A·L/beta. Each of the N segments has the pressure
    node p_j (j = 1..N) at its centre holding C/N; between neighbouring nodes, and from the end
    nodes to the ports (half a segment: I/(2N), R/(2N)), the flows q_k (k = 0..N) obey

        I_k·dq_k/dt = p_k − p_(k+1) − R_k·q_k          (p_0 = port_a.p, p_(N+1) = port_b.p)
        (C/N)·dp_j/dt = q_(j−1) − q_j,                  port_a.q = q_0, port_b.q = −q_N.

    Pressure waves travel at c = √(beta/rho) (the wall rigid); with both ends held at fixed
    pressures the pipe resonates at f_k = k·c/(2L), open at one end and closed at the other at
    (2k − 1)·c/(4L), both to O((k/N)²) of the lumping. The ports' flows are states: drive the
    pipe from pressures or volumes, not from an ideal flow source.

    Parameters: L [m] length (> 0); diameter [m] (> 0); rho [kg/m3] density; beta [Pa] bulk
    modulus; nu [m2/s] kinematic viscosity (>= 0); N [1] number of segments (structural, an
    integer >= 1); p0 [Pa] initial pressure of the nodes; T [K] (thermal noise).
    States: q0..qN [m3/s], p1..pN [Pa]. Stores Σ I_k·q_k²/2 + Σ (C/N)·p_j²/2; dissipates
    Σ R_k·q_k², each segment's friction a noise source ("segment0".."segmentN").
    """

    port_a = Port(hydraulic, "end a")
    port_b = Port(hydraulic, "end b")
    L = Parameter(unit="m", description="length", positive=True)
    diameter = Parameter(unit="m", description="inner diameter", positive=True)
    rho = Parameter(850.0, unit="kg/m3", description="fluid density", positive=True)
    beta = Parameter(1.5e9, unit="Pa", description="bulk modulus", positive=True)
    nu = Parameter(4.6e-5, unit="m2/s", description="kinematic viscosity", nonnegative=True)
    N = Parameter(5, description="number of segments", structural=True)
    p0 = Parameter(0.0, unit="Pa", description="initial pressure")

    def validate(self):
        if isinstance(self.N, bool) or not isinstance(self.N, int) or self.N < 1:
            raise ParameterError(f"Pipe {self.name!r}: N (the number of segments) must be an "
                                 f"integer >= 1, got {self.N!r}")

    def variables(self):
        flows = {f"q{k}": Variable("m3/s", f"flow through segment joint {k}", nominal=FLOW_NOMINAL)
                 for k in range(self.N + 1)}
        nodes = {f"p{j}": Variable("Pa", f"pressure at node {j}") for j in range(1, self.N + 1)}
        return {**super().variables(), **flows, **nodes}

    def noise_parts(self, params):
        return {f"segment{k}": "thermal" for k in range(self.N + 1)}

    def _elements(self):
        """(inertances I_k, resistances R_k, node capacitance) of the segments."""
        area = sp.pi * self.diameter**2 / 4
        inertance, capacitance = self.rho * self.L / area, area * self.L / self.beta
        resistance = 128 * self.rho * self.nu * self.L / (sp.pi * self.diameter**4)
        halves = [sp.Rational(1, 2)] + [1] * (self.N - 1) + [sp.Rational(1, 2)]
        return ([h * inertance / self.N for h in halves], [h * resistance / self.N for h in halves],
                capacitance / self.N)

    def equations(self):
        inertances, resistances, capacitance = self._elements()
        q = [self.var(f"q{k}") for k in range(self.N + 1)]
        p = [self.port_a.p] + [self.var(f"p{j}") for j in range(1, self.N + 1)] + [self.port_b.p]
        segments = [sp.Eq(I * der(q[k]), p[k] - p[k + 1] - R * (q[k] - self._noise(f"segment{k}")))
                    for k, (I, R) in enumerate(zip(inertances, resistances))]
        nodes = [sp.Eq(capacitance * der(p[j]), q[j - 1] - q[j]) for j in range(1, self.N + 1)]
        return segments + nodes + [sp.Eq(self.port_a.q, q[0]), sp.Eq(self.port_b.q, -q[-1])]

    def initial(self):
        return {self.var(f"p{j}"): self.p0 for j in range(1, self.N + 1)}

    def energy(self):
        inertances, _, capacitance = self._elements()
        return sum(I * self.var(f"q{k}")**2 / 2 for k, I in enumerate(inertances)) + \
            sum(capacitance * self.var(f"p{j}")**2 / 2 for j in range(1, self.N + 1))

    def dissipation(self):
        """Σ R_k·q_k² [W] as (power, 1)."""
        _, resistances, _ = self._elements()
        return sum(R * self.var(f"q{k}")**2 for k, R in enumerate(resistances)), sp.Integer(1)

    def part_conductance(self, part, values, params):
        """1/R_k [m3/(s.Pa)] of a segment's friction (its noise: a flow 4kT/R_k across R_k)."""
        resistance = 128 * params["rho"] * params["nu"] * params["L"] / (math.pi * params["diameter"]**4)
        share = 2 if part in ("segment0", f"segment{self.N}") else 1
        return share * self.N / resistance if resistance > 0 else 0.0

    def noise_variant(self):
        return noisy_class(segmented_pipe(self.N))(self.name, **self._values)


_SEGMENTED: dict = {}


def segmented_pipe(n):
    """The subclass of :class:`Pipe` whose NOISE_PARTS name its n + 1 segments (what
    :func:`~physlib.components.noise_variants.noisy_class` makes noise parameters of)."""
    cls = _SEGMENTED.get(n)
    if cls is None:
        parts = {f"segment{k}": "thermal" for k in range(n + 1)}
        cls = _SEGMENTED[n] = type(f"Pipe{n}", (Pipe,), {
            "NOISE_PARTS": parts, "NOISE_UNITS": dict.fromkeys(parts, "m3/s"), "__module__": __name__, "__made_by__": segmented_pipe,
            "__doc__": f"A Pipe of {n} segments (built by noise analyses)."})
    return cls
