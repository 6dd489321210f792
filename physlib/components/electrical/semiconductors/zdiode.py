"""The Zener diode with three working areas, as the Modelica Standard Library's
Analog.Semiconductors.ZDiode."""
from ....core import Parameter, Port
from ....core.lazy import lazy_module
from ....domains import thermal
from ..interfaces import OnePort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["ZDiode"]


class ZDiode(OnePort):
    """Zener diode (the MSL's Semiconductors.ZDiode; Simscape's Zener Diode, exponential)::

        i = Ids·(exp(v/Vt) − 1) − Ibv·exp(−(v + Bv)/(Nbv·Vt)) + v/R

    continued linearly (value and slope) above v = Maxexp·Vt and below v = −Bv −
    Maxexp·Nbv·Vt, so the current stays finite: forward it conducts as a diode, in reverse it
    breaks through at the Zener voltage Bv.

    Parameters: Ids [A] saturation current (> 0, default 1e-6); Vt [V] voltage equivalent of
    temperature kT/(q·n) (> 0, default 0.04); Maxexp [1] exponent where the linear continuation
    starts (> 0, default 30); R [Ohm] parallel resistance (> 0, default 1e8); Bv [V] breakthrough
    (Zener) voltage (default 5.1); Ibv [A] breakthrough knee current (default 0.7); Nbv [1]
    breakthrough emission coefficient (> 0, default 0.74); use_heat_port (structural) the port
    ``heat_port``, which takes the loss (heat_port.Q = −v·i).
    Dissipates v·i. Noise: the thermal noise 4kT·G of its small-signal conductance G (what a
    junction shows in equilibrium; no shot noise of a bias current).
    """

    Ids = Parameter(1e-6, unit="A", description="saturation current", positive=True)
    Vt = Parameter(0.04, unit="V", description="voltage equivalent of temperature (kT/qn)", positive=True)
    Maxexp = Parameter(30.0, unit="1", description="max. exponent for linear continuation", positive=True)
    R = Parameter(1e8, unit="Ohm", description="parallel ohmic resistance", positive=True)
    Bv = Parameter(5.1, unit="V", description="breakthrough voltage (Zener voltage)")
    Ibv = Parameter(0.7, unit="A", description="breakthrough knee current")
    Nbv = Parameter(0.74, unit="1", description="breakthrough emission coefficient", positive=True)
    use_heat_port = Parameter(False, description="give the diode its heat port", structural=True)
    heat_port = Port(thermal, "heat port taking the loss", condition="use_heat_port")

    def equations(self):
        v, Vt, Maxexp, Nbv = self.v, self.Vt, self.Maxexp, self.Nbv
        forward = self.Ids * (sp.exp(Maxexp) * (1 + v / Vt - Maxexp) - 1)
        breakthrough = -self.Ids - self.Ibv * sp.exp(Maxexp) * (1 - (v + self.Bv) / (Nbv * Vt) - Maxexp)
        exponential = self.Ids * (sp.exp(v / Vt) - 1) - self.Ibv * sp.exp(-(v + self.Bv) / (Nbv * Vt))
        current = sp.Piecewise((forward, v > Maxexp * Vt),
                               (breakthrough, v + self.Bv < -Maxexp * Nbv * Vt),
                               (exponential, True))
        eqs = [sp.Eq(self.i, current + v / self.R)]
        if self.use_heat_port:
            eqs.append(sp.Eq(self.heat_port.Q, -self.v * self.i))
        return super().equations() + eqs

    def dissipation(self):
        return self.v, self.i
