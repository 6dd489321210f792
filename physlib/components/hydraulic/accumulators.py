"""The gas-charged accumulator."""
from ...core import Component, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import hydraulic

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Accumulator"]


class Accumulator(Component):
    """Gas-charged (bladder or piston) accumulator (Simscape: Gas-Charged Accumulator (IL);
    OpenHydraulics: Accumulator). The liquid volume V_f in it is the state; the gas, precharged
    to p_pre in the whole volume V_gas, is compressed polytropically once the liquid pressure
    exceeds p_pre:

        dV_f/dt = port_a.q
        p = (p_pre + p_atm)·(V_gas/(V_gas − V_f))^n − p_atm      for V_f >= 0
        p = p_pre + k_empty·V_f                                   for V_f < 0 (empty)

    p = port_a.p and p_pre are gauge pressures over p_atm (give p_atm = 0 and absolute pressures
    to work in absolute ones): the gas law holds for absolute pressures. n = 1 is isothermal
    (give 1.0001), 1.4 adiabatic nitrogen. Below the precharge the liquid chamber is empty and
    its wall acts as a stiff spring k_empty (Simscape's hard stop at zero volume).

    Stored energy (the gas's compression work less the atmosphere's, zero at V_f = 0):
    E = (p_pre + p_atm)·V_gas·((V_gas/(V_gas − V_f))^(n−1) − 1)/(n − 1) − p_atm·V_f for
    V_f >= 0, p_pre·V_f + k_empty·V_f²/2 when empty; dE/dV_f = p, so the books hold.

    Parameters: V_gas [m3] gas volume at precharge (> 0); p_pre [Pa] precharge pressure (> 0,
    gauge); n [1] polytropic index (> 1); p_atm [Pa] atmospheric pressure (>= 0); k_empty
    [Pa/m3] stiffness of the empty chamber (> 0); V_f0 [m3] initial liquid volume (< V_gas).
    States: V_f [m3]. Variables: p [Pa].
    """

    port_a = Port(hydraulic, "liquid port")
    V_gas = Parameter(unit="m3", description="gas volume at precharge", positive=True)
    p_pre = Parameter(unit="Pa", description="precharge pressure (gauge)", positive=True)
    n = Parameter(1.4, unit="1", description="polytropic index",
                  check=(lambda n: n > 1, "the polytropic index must be > 1 (1.0001 for isothermal)"))
    p_atm = Parameter(101325.0, unit="Pa", description="atmospheric pressure", nonnegative=True)
    k_empty = Parameter(1e15, unit="Pa/m3", description="stiffness of the empty liquid chamber",
                        positive=True)
    V_f0 = Parameter(0.0, unit="m3", description="initial liquid volume")
    V_f = Variable("m3", "liquid volume")
    p = Variable("Pa", "liquid pressure (gauge)")

    def validate(self):
        if self.V_f0 >= self.V_gas:
            raise type(self)._parameters["V_f0"].invalid(
                self.name, f"= {self.V_f0:g} m3 must be below V_gas = {self.V_gas:g} m3 (the gas "
                "would be compressed to nothing)")

    def _compression(self):
        return self.V_gas / (self.V_gas - self.V_f)

    def equations(self):
        p_gas = (self.p_pre + self.p_atm) * self._compression()**self.n - self.p_atm
        empty = self.p_pre + self.k_empty * self.V_f
        return [sp.Eq(der(self.V_f), self.port_a.q), sp.Eq(self.p, self.port_a.p),
                sp.Eq(self.p, sp.Piecewise((empty, self.V_f < 0), (p_gas, True)))]

    def initial(self):
        return {self.V_f: self.V_f0}

    def energy(self):
        gas = (self.p_pre + self.p_atm) * self.V_gas * (self._compression()**(self.n - 1) - 1) \
            / (self.n - 1) - self.p_atm * self.V_f
        empty = self.p_pre * self.V_f + self.k_empty * self.V_f**2 / 2
        return sp.Piecewise((empty, self.V_f < 0), (gas, True))
