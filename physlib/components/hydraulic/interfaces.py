"""The partial bases of the hydraulic components: two ports whose flows balance, the
turbulent orifice law they share, and the thermal noise of losses inside a component."""
from ...constants import k_B
from ...core import Component, Parameter, Port, Variable
from ...core.lazy import lazy_module
from ...domains.hydraulic import FLOW_NOMINAL, hydraulic
from ..noise_variants import noisy_class

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["TwoPort", "orifice_flow", "orifice_conductance", "InternalNoise"]


class TwoPort(Component):
    """Two ports whose flows balance: the flow ``q`` enters ``port_a`` and leaves ``port_b``.

    Variables: dp [Pa] = port_a.p − port_b.p; q [m3/s] from port_a to port_b.
    """

    port_a = Port(hydraulic, "port a (inlet for positive q)")
    port_b = Port(hydraulic, "port b (outlet for positive q)")
    dp = Variable("Pa", "pressure drop port_a.p - port_b.p")
    q = Variable("m3/s", "volume flow from port_a to port_b", nominal=FLOW_NOMINAL)

    def equations(self):
        return [sp.Eq(self.dp, self.port_a.p - self.port_b.p),
                sp.Eq(self.port_a.q + self.port_b.q, 0), sp.Eq(self.q, self.port_a.q)]


def orifice_flow(dp, k, dp_tr):
    """Flow [m3/s] of a sharp-edged orifice with k = Cd·A·√(2/rho) [m3/(s.√Pa)] under the
    pressure drop dp [Pa] (SymPy expressions): k·√|dp|·sign(dp) above the transition pressure
    dp_tr [Pa]; below it the odd cubic q_tr·(5x − x³)/4 (x = dp/dp_tr, q_tr = k·√dp_tr), which
    meets the square-root law with the same value and slope at ±dp_tr and has the finite slope
    1.25·k/√dp_tr at dp = 0 (where the square root's is infinite), so the flow linearizes."""
    x = dp / dp_tr
    laminar = k * sp.sqrt(dp_tr) * (5 * x - x**3) / 4
    turbulent = k * sp.sqrt(sp.Abs(dp)) * sp.sign(dp)
    return sp.Piecewise((laminar, sp.Abs(dp) < dp_tr), (turbulent, True))


def orifice_conductance(dp, k, dp_tr):
    """∂q/∂dp [m3/(s.Pa)] of :func:`orifice_flow` at fixed k, for numbers: (5 − 3x²)·k/(4·√dp_tr)
    below the transition, k/(2·√|dp|) above it."""
    x = dp / dp_tr
    if abs(x) < 1:
        return k * (5 - 3 * x * x) / (4 * dp_tr**0.5)
    return k / (2 * abs(dp)**0.5)


class InternalNoise:
    """Mixin of a component with several losses inside it (leakage paths, friction), each the
    source of its own thermal noise: the flow, torque or force of part ``part`` in the
    equations carries ``self._noise(part)`` (0 here; a zero-valued parameter in the copy a noise
    analysis builds, :meth:`noise_variant`) with the density 4·k_B·T·G of the part's
    small-signal conductance G (:meth:`part_conductance`), at the component's temperature T.

    A class declares ``NOISE_PARTS`` ({part: "thermal"}), ``NOISE_UNITS`` ({part: the unit of
    the flow, torque or force the part's noise adds to}) and :meth:`part_conductance`.
    """

    NOISE_PARTS: dict = {}
    NOISE_UNITS: dict = {}
    T = Parameter(300.15, unit="K", description="temperature of the losses (for their thermal noise)",
                  positive=True)

    def _noise(self, part):
        """The noise flow, torque or force of ``part``: 0 (see :meth:`noise_variant`)."""
        return 0

    def noise_parts(self, params):
        """The noise sources inside the component, {part: kind}."""
        return dict(self.NOISE_PARTS)

    def part_conductance(self, part, values, params):
        """Small-signal conductance of ``part`` (through/across unit) at an operating point."""
        raise NotImplementedError

    def internal_noise(self, part, values, params):
        """(white PSD, 1/f coefficient) of ``part``: 4·k_B·T·G and no flicker noise."""
        return 4 * k_B * params["T"] * self.part_conductance(part, values, params), 0.0

    def noise_variant(self):
        """A copy whose noise sources are zero-valued parameters (:meth:`noise_input`)."""
        return noisy_class(type(self))(self.name, **self._values, **self._input_values)

    @staticmethod
    def noise_input(part):
        """The parameter of :meth:`noise_variant` that is the noise of ``part``."""
        return "noise_" + part
