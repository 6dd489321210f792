"""Batteries as the Modelica Standard Library's Electrical.Batteries: a stack of cells with an
open-circuit voltage over state of charge (``CellStack``, with RC elements ``CellRCStack``), a
supercapacitor (``SuperCap``) and the constant-current, constant-voltage charger
(``CCCVcharger``, the MSL's Batteries.Utilities.CCCVcharger).

A cell stack of Ns cells in series and Np in parallel, pins p (+) and n (−), current i into p:

    v = OCV + R0·i + Σ v_k,     OCV = Ns·OCVmax·f(SOC),     d(SOC)/dt = (i − i_dis)/(Np·Qnom)
    i_dis = G·OCV,  G = Np·Idis/(Ns·OCVmax)     (self-discharge in parallel with the OCV)
    RC element k: C_k·dv_k/dt = i − v_k/R_k,  R_k = Ns·R/Np, C_k = Np·C/Ns

- f: the table OCV/OCVmax over SOC (``OCV_SOC``), piecewise linear or, with ``smoothness=
  "akima"``, the MSL's ContinuousDerivative (Akima) spline, held at its end values; without a
  table the straight line from (SOCmin, OCVmin/OCVmax) to (SOCmax, 1).
- R0 = Ns·Ri/Np·(1 + alpha·(T − T_ref)), T the heat port's temperature (``use_heat_port``) or
  T_ref; every loss (R0·i², G·OCV², the RC resistors') leaves through the heat port.
- SOC is the integral of the current through the OCV; the MSL's integrator also stops at
  SOCtolerance from 0 and 1, where its assertions end the run (the battery exhausted or
  overcharged): here SOC goes on, and the table holds its end value.

Stores the charge's energy as the OCV's integral is not a quadratic form: the energy books
count ∫OCV·i_ocv as the supply it is (declared stored energy: the RC capacitors' C_k·v_k²/2);
dissipates the losses. Noise: the Johnson noise of each resistance and conductance at T (a
current in parallel with each).
"""
from ...constants import Constant
from ...core import Mode, Parameter, Port, Variable, der
from ...core import symbols
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import any_of, switched_once, where
from ...core.tables import akima, interpolate, table_points
from ...domains import thermal
from .interfaces import OnePort
from ..noise_variants import noisy_class
from .semiconductors.junctions import BOLTZMANN

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["CellStack", "CellRCStack", "SuperCap", "CCCVcharger"]

MAX_RC = 3      # RC elements a CellRCStack holds (the MSL's examples use one or two)


class _Thermal(OnePort):
    """An optional heat port that takes the losses and gives the resistances' temperature."""

    use_heat_port = Parameter(False, description="give the component a heat port", structural=True)
    heat_port = Port(thermal, "heat port at the component's temperature", condition="use_heat_port")
    T_ref = Parameter(293.15, unit="K", description="reference temperature of the resistances", positive=True)
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of the resistances at T_ref")
    lossPower = Variable("W", "power dissipated")

    def temperature(self):
        return self.heat_port.T if self.use_heat_port else self.T_ref

    def heat(self, loss):
        return [sp.Eq(self.lossPower, loss)] + \
            ([sp.Eq(self.heat_port.Q, -self.lossPower)] if self.use_heat_port else [])

    def dissipation(self):
        return self.lossPower, sp.Integer(1)

    def port_groups(self):
        return [("p", "n")] + ([("heat_port",)] if self.use_heat_port else [])

    # --- noise: the resistances' Johnson noise, each a current in parallel with its resistance
    # (see physlib.components.noise_variants); a subclass gives {part: its conductance}

    NOISE_PARTS: dict = {}
    SERIES_PARTS = ("r0", "rs")     # the parts whose resistance follows the temperature

    def _noise(self, part):
        return 0     # the noise variant's noise current of ``part`` [A]

    def conductances(self, params) -> dict:
        """{noise part: its conductance [S]} at the parameter values ``params`` (by name)."""
        raise NotImplementedError

    def noise_parts(self, params):
        return {part: "thermal" for part in self.conductances(params)}

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient) of ``part``: 4kT·G at the component's
        temperature (the heat port's, or T_ref); the series resistance follows it (alpha)."""
        T = values.get("heat_port.T", params["T_ref"])
        G = self.conductances(params)[part]
        if part in self.SERIES_PARTS:
            G /= 1 + params["alpha"] * (T - params["T_ref"])
        return 4 * BOLTZMANN * T * G, 0.0

    def noise_variant(self):
        return noisy_class(type(self))(self.name, **self._values)

    @staticmethod
    def noise_input(part):
        return "noise_" + part


class CellStack(_Thermal):
    """Cell stack with an open-circuit voltage over state of charge, self-discharge and an inner
    resistance (the MSL's Batteries.BatteryStacks.CellStack; Simscape's Battery (Table-Based)
    without its dynamics): see the module notes for the equations.

    Parameters: Ns, Np cells in series and in parallel; Qnom [C] (A·s) cell capacity; OCVmax,
    OCVmin [V] cell OCV at SOCmax, SOCmin; SOCmax, SOCmin; OCV_SOC (structural) (SOC, OCV/OCVmax)
    points or None (the straight line); smoothness (structural) "linear" or "akima"; Ri [Ohm]
    cell inner resistance; Idis [A] self-discharge current at OCVmax; SOC0 initial state of
    charge; T_ref [K], alpha [1/K] (without heat port the stack is at T_ref).
    Variables: SOC, OCV [V], i_ocv [A] the current charging the cells, lossPower [W].
    Noise: R0's and the self-discharge conductance's, at the stack's temperature.
    """

    NOISE_PARTS = {"r0": "thermal", "dis": "thermal"}
    SERIES = "Ri"       # the parameter of the cell's series resistance

    Ns = Parameter(1, unit="1", description="cells in series", positive=True)
    Np = Parameter(1, unit="1", description="cells in parallel", positive=True)
    Qnom = Parameter(unit="A.s", description="cell capacity", positive=True)
    OCVmax = Parameter(unit="V", description="cell OCV at SOCmax", positive=True)
    OCVmin = Parameter(0.0, unit="V", description="cell OCV at SOCmin", nonnegative=True)
    SOCmax = Parameter(1.0, unit="1", description="maximum state of charge", positive=True)
    SOCmin = Parameter(0.0, unit="1", description="minimum state of charge", nonnegative=True)
    OCV_SOC = Parameter(None, description="(SOC, OCV/OCVmax) points, or None for the straight line",
                        structural=True)
    smoothness = Parameter("linear", description='"linear" or "akima" (the MSL\'s ContinuousDerivative)',
                           structural=True)
    Ri = Parameter(unit="Ohm", description="cell inner resistance", positive=True)
    Idis = Parameter(0.0, unit="A", description="self-discharge current at OCVmax", nonnegative=True)
    SOC0 = Parameter(1.0, unit="1", description="initial state of charge")
    SOC = Variable("1", "state of charge", start=1.0)
    OCV = Variable("V", "open-circuit voltage of the stack")
    i_ocv = Variable("A", "current charging the cells (i less the self-discharge)")

    def validate(self):
        if self.OCV_SOC is not None:
            self._values["OCV_SOC"] = table_points(self.OCV_SOC, f"{type(self).__name__} {self.name!r}",
                                                   "(SOC, OCV/OCVmax)")
        elif not self.SOCmin < self.SOCmax:
            # The straight line runs from SOCmin to SOCmax (the MSL's table [SOCmin, ...; SOCmax, 1],
            # whose abscissa must increase): equal ends divide by zero, swapped ones invert it.
            raise ParameterError(f"{type(self).__name__} {self.name!r}: SOCmin = {self.SOCmin:g} must be "
                                 f"below SOCmax = {self.SOCmax:g} (the OCV rises linearly from OCVmin at "
                                 "SOCmin to OCVmax at SOCmax); or give the table OCV_SOC")
        if self.smoothness not in ("linear", "akima"):
            raise ParameterError(f'{type(self).__name__} {self.name!r}: smoothness must be "linear" or '
                                 f'"akima", got {self.smoothness!r}')

    def series_resistance(self):
        """R0 [Ohm] of the stack at its temperature."""
        return self.Ns * getattr(self, self.SERIES) / self.Np * (1 + self.alpha * (self.temperature() - self.T_ref))

    def ocv_fraction(self):
        if self.OCV_SOC is None:
            line = ((0.0, 0.0), (1.0, 1.0))     # scaled below: SOCmin..SOCmax to OCVmin..OCVmax
            x = (self.SOC - self.SOCmin) / (self.SOCmax - self.SOCmin)
            low = self.OCVmin / self.OCVmax
            return low + (1 - low) * interpolate(line, x)
        return (akima if self.smoothness == "akima" else interpolate)(self.OCV_SOC, self.SOC)

    def rc_voltage(self):
        return 0

    def equations(self):
        R0 = self.series_resistance()
        G = self.Np * self.Idis / (self.Ns * self.OCVmax)
        return super().equations() + [
            sp.Eq(self.OCV, self.Ns * self.OCVmax * self.ocv_fraction()),
            sp.Eq(self.i_ocv, self.i - G * self.OCV - self._noise("dis")),
            sp.Eq(self.Np * self.Qnom * der(self.SOC), self.i_ocv),
            sp.Eq(self.v, self.OCV + R0 * (self.i - self._noise("r0")) + self.rc_voltage()),
            *self.heat(R0 * self.i**2 + G * self.OCV**2 + self.rc_loss())]

    def rc_loss(self):
        return 0

    def initial(self):
        return {self.SOC: self.SOC0}

    def conductances(self, params):
        parts = {"r0": params["Np"] / (params["Ns"] * params[self.SERIES])}
        if params["Idis"] > 0:
            parts["dis"] = params["Np"] * params["Idis"] / (params["Ns"] * params["OCVmax"])
        return parts


class CellRCStack(CellStack):
    """Cell stack with RC elements in series (the MSL's Batteries.BatteryStacks.CellRCStack;
    Simscape's Battery (Table-Based) with its time constants): the CellStack's OCV,
    self-discharge and R0 (here ``R0`` per cell, the MSL's transient cell data), then up to
    three RC elements, each a resistor ∥ capacitor starting discharged (see the module notes).

    Parameters besides the CellStack's: R0 [Ohm] cell series resistance (Ri is unused);
    rcData (structural) (R [Ohm], C [F]) per cell and RC element, one to three pairs.
    States besides SOC: v_rc1, v_rc2, v_rc3 [V] (0 for the elements not given).
    """

    SERIES = "R0"
    NOISE_PARTS = {"r0": "thermal", "dis": "thermal", "rc1": "thermal", "rc2": "thermal", "rc3": "thermal"}
    Ri = Parameter(0.0, unit="Ohm", description="unused: the transient data's R0 is the series resistance")
    R0 = Parameter(unit="Ohm", description="cell series resistance", positive=True)
    rcData = Parameter(description="(R, C) pairs per cell, one to three", structural=True)
    v_rc1 = Variable("V", "voltage of RC element 1")
    v_rc2 = Variable("V", "voltage of RC element 2")
    v_rc3 = Variable("V", "voltage of RC element 3")

    def validate(self):
        super().validate()
        try:
            pairs = tuple((float(R), float(C)) for R, C in self.rcData)
        except (TypeError, ValueError):
            pairs = ()
        if not 1 <= len(pairs) <= MAX_RC or any(R <= 0 or C <= 0 for R, C in pairs):
            raise ParameterError(f"CellRCStack {self.name!r}: rcData must be one to {MAX_RC} (R, C) pairs, "
                                 f"each > 0, got {self.rcData!r:.80}")
        self._values["rcData"] = pairs

    def _elements(self):
        states = (self.v_rc1, self.v_rc2, self.v_rc3)
        # rcData holds numbers (a structural table): Constants give them their units in the equations
        return [(v, self.Ns * Constant(R, "Ohm") / self.Np, self.Np * Constant(C, "F") / self.Ns)
                for v, (R, C) in zip(states, self.rcData)]

    def rc_voltage(self):
        return sum(v for v, _, _ in self._elements())

    def rc_loss(self):
        return sum(v**2 / R for v, R, _ in self._elements())

    def equations(self):
        given = self._elements()
        unused = (self.v_rc1, self.v_rc2, self.v_rc3)[len(given):]
        return super().equations() + [sp.Eq(C * der(v), self.i - v / R - self._noise(f"rc{k}"))
                                      for k, (v, R, C) in enumerate(given, 1)] + [sp.Eq(v, 0) for v in unused]

    def initial(self):
        return {**super().initial(), **{v: 0.0 for v, _, _ in self._elements()}}

    def energy(self):
        return sum(C * v**2 / 2 for v, _, C in self._elements())

    def conductances(self, params):
        parts = super().conductances(params)
        parts.update({f"rc{k}": params["Np"] / (params["Ns"] * R) for k, (R, _) in enumerate(self.rcData, 1)})
        return parts


class SuperCap(_Thermal):
    """Supercapacitor (the MSL's Batteries.BatteryStacks.SuperCap; Simscape's Supercapacitor
    without its branches): a series resistance Rs to a capacitor C with a self-discharge
    conductance G = Idis/Vnom across it,

        v = Rs·i + v_C,    C·dv_C/dt = i − G·v_C,    Rs = Rs(T_ref)·(1 + alpha·(T − T_ref))

    Parameters: Vnom [V] nominal voltage; V0 [V] initial voltage; C [F]; Rs [Ohm];
    Idis [A] self-discharge at Vnom; T_ref [K], alpha [1/K]. States: v_C [V]. Stores C·v_C²/2;
    dissipates Rs·i² + G·v_C²; noise: Rs's and G's at T.
    """

    Vnom = Parameter(unit="V", description="nominal voltage", positive=True)
    V0 = Parameter(unit="V", description="initial voltage")
    C = Parameter(unit="F", description="capacitance", positive=True)
    Rs = Parameter(unit="Ohm", description="series resistance", positive=True)
    Idis = Parameter(0.0, unit="A", description="self-discharge current at Vnom", nonnegative=True)
    NOISE_PARTS = {"rs": "thermal", "dis": "thermal"}
    v_C = Variable("V", "capacitor voltage")

    def equations(self):
        Rs = self.Rs * (1 + self.alpha * (self.temperature() - self.T_ref))
        G = self.Idis / self.Vnom
        return super().equations() + [sp.Eq(self.v, Rs * (self.i - self._noise("rs")) + self.v_C),
                                      sp.Eq(self.C * der(self.v_C), self.i - G * self.v_C - self._noise("dis")),
                                      *self.heat(Rs * self.i**2 + G * self.v_C**2)]

    def initial(self):
        return {self.v_C: self.V0}

    def energy(self):
        return self.C * self.v_C**2 / 2

    def conductances(self, params):
        parts = {"rs": 1 / params["Rs"]}
        if params["Idis"] > 0:
            parts["dis"] = params["Idis"] / params["Vnom"]
        return parts


class CCCVcharger(OnePort):
    """Charger with a constant-current, then constant-voltage characteristic (the MSL's
    Batteries.Utilities.CCCVcharger): it drives the current I into the battery at its p pin
    (i = −I, ramped up from 0 over rampTime from startTime) until the voltage reaches Vend,
    then holds v = Vend for good.

    Parameters: I [A] charge current; Vend [V] end-of-charge voltage; startTime, rampTime [s].
    Modes: CV = 1 in constant-voltage mode (from the instant v reaches Vend).
    """

    I = Parameter(unit="A", description="constant charge current")
    Vend = Parameter(unit="V", description="end-of-charge voltage")
    startTime = Parameter(0.0, unit="s", description="start of charging")
    rampTime = Parameter(60.0, unit="s", description="ramp-up of the charge current", positive=True)
    CV = Mode({"CC": 0, "CV": 1}, start="CC", description="charging mode")

    def equations(self):
        t = symbols.t
        ramp = sp.Piecewise((0, t < self.startTime), ((t - self.startTime) / self.rampTime,
                                                       t < self.startTime + self.rampTime), (1, True))
        law = sp.Piecewise((self.v - self.Vend, sp.Eq(self.CV, 1)), (self.i + self.I * ramp, True))
        return super().equations() + [sp.Eq(law, 0)]

    def guards(self):
        return [self.v - self.Vend]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # CV once the voltage reaches Vend, and for good (in CV mode v = Vend: the guard stays 0).
        g = v["v"] - v["Vend"]
        cc_to_cv = switched_once(fired[0], v["CV"], v["pre(CV)"], g, where(g > 0, 1, v["CV"]))
        return {"CV": where(any_of(v["pre(CV)"] != 0, v["CV"] != 0), 1, cc_to_cv)}

    def time_events(self, values, t_start, t_stop):
        return [values["startTime"], values["startTime"] + values["rampTime"]]

    def next_time_event(self, values, t):
        return where(t < values["startTime"], values["startTime"],
                     where(t < values["startTime"] + values["rampTime"],
                           values["startTime"] + values["rampTime"], float("inf")))
