"""Resistor, capacitor and inductor whose value is a signal input, as the Modelica Standard
Library's Analog.Basic.VariableResistor, VariableCapacitor and VariableInductor."""
from ...core import Input, Parameter, Port, Variable, der
from ...core.lazy import lazy_module
from ...domains import thermal
from ...domains.electrical import CHARGE_NOMINAL, FLUX_NOMINAL
from .interfaces import OnePort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["VariableResistor", "VariableCapacitor", "VariableInductor"]


class VariableResistor(OnePort):
    """Linear resistor whose resistance is the input R: v = R_actual·i with
    R_actual = R·(1 + alpha·(T − T_ref)), T the heat port's temperature (T_ref without it).
    The MSL's Basic.VariableResistor; Simscape's Variable Resistor.

    Parameters: T_ref [K] reference temperature (> 0); alpha [1/K] temperature coefficient;
    use_heat_port (structural) the port ``heat_port``, which takes the loss (heat_port.Q =
    −v·i) at its temperature.
    Inputs: R [Ohm] resistance at T_ref (keep it positive: R = 0 is a short, which the
    equations allow, R < 0 is a source). Variables: R_actual [Ohm]. Dissipates v·i.
    """

    R = Input("Ohm", "resistance at T_ref")
    T_ref = Parameter(300.15, unit="K", description="reference temperature", positive=True)
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of resistance")
    use_heat_port = Parameter(False, description="give the resistor its heat port", structural=True)
    heat_port = Port(thermal, "heat port at the resistor temperature", condition="use_heat_port")
    R_actual = Variable("Ohm", "actual resistance", start=1.0)

    def equations(self):
        T = self.heat_port.T if self.use_heat_port else self.T_ref
        eqs = [sp.Eq(self.R_actual, self.R * (1 + self.alpha * (T - self.T_ref))),
               sp.Eq(self.v, self.R_actual * self.i)]
        if self.use_heat_port:
            eqs.append(sp.Eq(self.heat_port.Q, -self.v * self.i))
        return super().equations() + eqs

    def dissipation(self):
        return self.v, self.i


class VariableCapacitor(OnePort):
    """Capacitor whose capacitance is the input C: Q = max(C, Cmin)·v, i = dQ/dt (the charge is
    the state, so a changing C moves the voltage at constant charge, and the power v·i is not
    d(C·v²/2)/dt). The MSL's Basic.VariableCapacitor; Simscape's Variable Capacitor.

    Parameters: Cmin [F] lower bound of the capacitance (> 0, default the MSL's eps, 2.2e-16),
    which keeps Q and v related when C falls to 0; Q0 [C] the charge at the start (the MSL's
    initial voltage IC with UIC = true is Q0 = C(0)·IC: a start is set before any input is
    read, so it cannot be written with C).
    Inputs: C [F]. States: Q [C]. Stores Q·v/2 = Q²/(2·max(C, Cmin)).
    """

    C = Input("F", "capacitance")
    Cmin = Parameter(2.220446049250313e-16, unit="F", description="lower bound of the capacitance",
                     positive=True)
    Q0 = Parameter(0.0, unit="C", description="charge at the start")
    Q = Variable("C", "charge", nominal=CHARGE_NOMINAL)

    def equations(self):
        return super().equations() + [sp.Eq(self.Q, sp.Max(self.C, self.Cmin) * self.v),
                                      sp.Eq(self.i, der(self.Q))]

    def initial(self):
        return {self.Q: self.Q0}

    def energy(self):
        return self.Q * self.v / 2


class VariableInductor(OnePort):
    """Inductor whose inductance is the input L: Psi = max(L, Lmin)·i, v = dPsi/dt (the flux is
    the state). The MSL's Basic.VariableInductor; Simscape's Variable Inductor.

    Parameters: Lmin [H] lower bound of the inductance (> 0, default the MSL's eps, 2.2e-16);
    Psi0 [Wb] the flux at the start (the MSL's initial current IC is Psi0 = L(0)·IC: a start is
    set before any input is read, so it cannot be written with L).
    Inputs: L [H]. States: Psi [Wb]. Stores Psi·i/2.
    """

    L = Input("H", "inductance")
    Lmin = Parameter(2.220446049250313e-16, unit="H", description="lower bound of the inductance",
                     positive=True)
    Psi0 = Parameter(0.0, unit="Wb", description="flux at the start")
    Psi = Variable("Wb", "magnetic flux", nominal=FLUX_NOMINAL)

    def equations(self):
        return super().equations() + [sp.Eq(self.Psi, sp.Max(self.L, self.Lmin) * self.i),
                                      sp.Eq(self.v, der(self.Psi))]

    def initial(self):
        return {self.Psi: self.Psi0}

    def energy(self):
        return self.Psi * self.i / 2
