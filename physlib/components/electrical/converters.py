"""DC-DC converters as the Modelica Standard Library's Electrical.PowerConverters.DCDC: the
step-down and step-up choppers and the H bridge, built of the MSL's ideal switching elements.

Each converter has the DC side 1 (dc_p1, dc_n1: the supply) and side 2 (dc_p2, dc_n2: the load),
the MSL's vDC1 = dc_p1.v − dc_n1.v, iDC1 = dc_p1.i, vDC2, iDC2, and its elements between those
pins, each an ideal switching element in the curve-parameter form of
:class:`~physlib.components.electrical.IdealDiode` (conducting: v = Ron·s + Vknee, i = s + Goff·Vknee;
blocking: v = s + Vknee, i = Goff·(s + Vknee)):

- a diode conducts while its current is forward and blocks while its voltage is below the knee
  (the MSL's IdealDiode);
- a transistor is the MSL's IdealGTOThyristor: a diode that may conduct only while its fire
  input is above 0.5 (off = s < 0 or not fire), so it turns off on command.

The fire inputs take SignalPWM's output (1 firing, 0 not). Parameters as the MSL's:
RonTransistor, GoffTransistor, VkneeTransistor, RonDiode, GoffDiode, VkneeDiode (1e-5 Ω,
1e-5 S, 0 V). Dissipates lossPower, the sum of the elements' v·i. Noise: each element's
conductance in its present state (1/Ron or Goff) gives Johnson noise 4kT·G at the analysis
temperature, a current in parallel with the element.
"""
from ...constants import unit_current, unit_voltage
from ...core import Component, Input, Mode, Parameter, Port, Variable
from ...core.lazy import lazy_module
from ...core.logic import all_of, switched_once, where
from ...domains import electrical
from ..noise_variants import noisy_class
from .semiconductors.junctions import BOLTZMANN

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["ChopperStepDown", "ChopperStepUp", "HBridge"]


def _element(kind: str, what: str):
    """The curve parameter and the mode of one switching element."""
    return (Variable("1", f"curve parameter of the {what}: current [A] conducting, voltage [V] blocking"),
            Mode({"off": 0, "on": 1}, start="off", description=f"{kind} state of the {what}"))


def _diode_rule(fired, on, pre, s):
    """An ideal diode's next state (IdealDiode's rule): a fired guard switches once; otherwise
    it follows s (off below zero current, on above zero voltage)."""
    follows_s = where(all_of(on != 0, s < 0), 0, where(all_of(on == 0, s > 0), 1, on))
    return switched_once(fired, on, pre, s, follows_s)


class _Converter(Component):
    """Side 1 and 2 pins, the switching elements of ``ELEMENTS`` and the MSL's side voltages and
    currents. ``ELEMENTS``: (name, anode pin, cathode pin, fire input or None for a diode);
    a fire input "~name" fires while the input is below 0.5 (the MSL's inverted fire);
    ``SHORTS``: pairs of pins joined inside."""

    ELEMENTS: tuple = ()
    SHORTS: tuple = ()
    NOISE_PARTS: dict = {}

    def __init_subclass__(cls, **options):
        super().__init_subclass__(**options)
        cls.NOISE_PARTS = {name: "thermal" for name, *_ in cls.ELEMENTS}

    dc_p1 = Port(electrical, "side 1 positive pin")
    dc_n1 = Port(electrical, "side 1 negative pin")
    dc_p2 = Port(electrical, "side 2 positive pin")
    dc_n2 = Port(electrical, "side 2 negative pin")
    RonTransistor = Parameter(1e-5, unit="Ohm", description="transistor closed resistance", nonnegative=True)
    GoffTransistor = Parameter(1e-5, unit="S", description="transistor opened conductance", nonnegative=True)
    VkneeTransistor = Parameter(0.0, unit="V", description="transistor threshold voltage", nonnegative=True)
    RonDiode = Parameter(1e-5, unit="Ohm", description="diode closed resistance", nonnegative=True)
    GoffDiode = Parameter(1e-5, unit="S", description="diode opened conductance", nonnegative=True)
    VkneeDiode = Parameter(0.0, unit="V", description="diode forward threshold voltage", nonnegative=True)
    vDC1 = Variable("V", "side 1 voltage dc_p1.v - dc_n1.v")
    iDC1 = Variable("A", "side 1 current into dc_p1")
    vDC2 = Variable("V", "side 2 voltage dc_p2.v - dc_n2.v")
    iDC2 = Variable("A", "side 2 current into dc_p2")
    T = Parameter(300.15, unit="K", description="temperature of the elements' noise", positive=True)
    lossPower = Variable("W", "power dissipated in the elements")

    def _law(self, name, fire):
        """(Ron, Goff, Vknee) of an element."""
        if fire is None:
            return self.RonDiode, self.GoffDiode, self.VkneeDiode
        return self.RonTransistor, self.GoffTransistor, self.VkneeTransistor

    def _noise(self, part):
        return 0     # the noise variant's noise current of ``part`` [A] (noise_variants)

    def element_current(self, name, fire):
        s, on = getattr(self, f"s_{name}"), getattr(self, f"on_{name}")
        Ron, Goff, knee = self._law(name, fire)
        closed = sp.Eq(on, 1)
        voltage = s * unit_current * sp.Piecewise((Ron, closed), (1, True)) + knee
        current = s * unit_voltage * sp.Piecewise((1, closed), (Goff, True)) + Goff * knee
        return voltage, current + self._noise(name)

    def equations(self):
        pins = {p: getattr(self, p) for p in ("dc_p1", "dc_n1", "dc_p2", "dc_n2")}
        into = {p: 0 for p in pins}            # current from each pin into the elements
        eqs, loss = [], 0
        for name, anode, cathode, fire in self.ELEMENTS:
            voltage, current = self.element_current(name, fire)
            eqs.append(sp.Eq(pins[anode].v - pins[cathode].v, voltage))
            into[anode] += current
            into[cathode] -= current
            loss += voltage * current
        for a, b in self.SHORTS:
            eqs += [sp.Eq(pins[a].v, pins[b].v), sp.Eq(pins[a].i + pins[b].i, into[a] + into[b])]
        shorted = {p for pair in self.SHORTS for p in pair}
        eqs += [sp.Eq(pins[p].i, into[p]) for p in pins if p not in shorted]
        return eqs + [sp.Eq(self.vDC1, self.dc_p1.v - self.dc_n1.v), sp.Eq(self.iDC1, self.dc_p1.i),
                      sp.Eq(self.vDC2, self.dc_p2.v - self.dc_n2.v), sp.Eq(self.iDC2, self.dc_p2.i),
                      sp.Eq(self.lossPower, loss)]

    def guards(self):
        return [g for name, _, _, fire in self.ELEMENTS
                for g in ([getattr(self, f"s_{name}")] + ([getattr(self, fire.lstrip("~")) - 0.5] if fire else []))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        new, k = {}, 0
        for name, _, _, fire in self.ELEMENTS:
            on, s = v[f"on_{name}"], v[f"s_{name}"]
            as_diode = _diode_rule(fired[k], on, v[f"pre(on_{name})"], s)
            # A transistor conducts as a diode while fired and is off otherwise.
            if fire is not None:
                firing = v[fire[1:]] < 0.5 if fire.startswith("~") else v[fire] > 0.5
                as_diode = where(firing, as_diode, 0)
            new[f"on_{name}"] = as_diode
            k += 1 if fire is None else 2
        return new

    def dissipation(self):
        return self.lossPower, sp.Integer(1)

    # --- noise (see physlib.components.noise_variants) -----------------------------------------

    def noise_parts(self, params):
        return {name: "thermal" for name, *_ in self.ELEMENTS}

    def internal_noise(self, part, values, params):
        """(white PSD [A²/Hz], 1/f coefficient) of element ``part``: 4kT·G of its state
        (``params`` holds its mode), none for an ideal short (Ron = 0)."""
        fire = dict((name, f) for name, _, _, f in self.ELEMENTS)[part]
        kind = "Diode" if fire is None else "Transistor"
        Ron = params[f"Ron{kind}"]
        G = (1 / Ron if Ron > 0 else 0.0) if params[f"on_{part}"] else params[f"Goff{kind}"]
        return 4 * BOLTZMANN * params["T"] * G, 0.0

    def noise_variant(self):
        return noisy_class(type(self))(self.name, **self._values, **self.input_values)

    @staticmethod
    def noise_input(part):
        return "noise_" + part


class _Chopper(_Converter):
    """One transistor fired by ``fire_p`` and one diode, the negative pins joined."""

    SHORTS = (("dc_n1", "dc_n2"),)
    fire_p = Input("1", "fires the transistor above 0.5")
    s_transistor, on_transistor = _element("transistor", "transistor")
    s_diode, on_diode = _element("diode", "diode")


class ChopperStepDown(_Chopper):
    """Step-down chopper (buck), the MSL's PowerConverters.DCDC.ChopperStepDown (Simscape's
    Buck Converter without its filter): a transistor from dc_p1 to dc_p2 fired by ``fire_p``, a
    free-wheeling diode from dc_n1 to dc_p2, dc_n1 joined to dc_n2. The load's inductor and
    capacitor are outside. Averaged: vDC2 = duty·vDC1 while the load current flows.
    See the module notes for the elements and parameters."""

    ELEMENTS = (("transistor", "dc_p1", "dc_p2", "fire_p"), ("diode", "dc_n1", "dc_p2", None))


class ChopperStepUp(_Chopper):
    """Step-up chopper (boost), the MSL's PowerConverters.DCDC.ChopperStepUp (Simscape's Boost
    Converter without its filter): a transistor from dc_p1 to dc_n1 fired by ``fire_p``, a diode
    from dc_p1 to dc_p2, dc_n1 joined to dc_n2; the input inductor is outside, in series with
    dc_p1. Averaged: vDC2 = vDC1/(1 − duty) while the inductor current flows.
    See the module notes for the elements and parameters."""

    ELEMENTS = (("transistor", "dc_p1", "dc_n1", "fire_p"), ("diode", "dc_p1", "dc_p2", None))


class HBridge(_Converter):
    """H bridge (four-quadrant converter), the MSL's PowerConverters.DCDC.HBridge (Simscape's
    H-Bridge with ideal switches): two legs between dc_p1 and dc_n1, each an upper and a lower
    transistor with an anti-parallel diode, their midpoints dc_p2 (leg p) and dc_n2 (leg n).
    ``fire_p`` fires leg p's upper transistor and, inverted, its lower one; ``fire_n`` leg n's
    (the MSL drives fire_n with SignalPWM's notFire). Averaged: vDC2 = (2·duty − 1)·vDC1.
    See the module notes for the elements and parameters."""

    ELEMENTS = (("transistor_pp", "dc_p1", "dc_p2", "fire_p"), ("diode_pp", "dc_p2", "dc_p1", None),
                ("transistor_pn", "dc_p2", "dc_n1", "~fire_p"), ("diode_pn", "dc_n1", "dc_p2", None),
                ("transistor_np", "dc_p1", "dc_n2", "fire_n"), ("diode_np", "dc_n2", "dc_p1", None),
                ("transistor_nn", "dc_n2", "dc_n1", "~fire_n"), ("diode_nn", "dc_n1", "dc_n2", None))
    fire_p = Input("1", "fires leg p's upper transistor above 0.5, its lower one below")
    fire_n = Input("1", "fires leg n's upper transistor above 0.5, its lower one below")
    s_transistor_pp, on_transistor_pp = _element("transistor", "leg p's upper transistor")
    s_diode_pp, on_diode_pp = _element("diode", "leg p's upper diode")
    s_transistor_pn, on_transistor_pn = _element("transistor", "leg p's lower transistor")
    s_diode_pn, on_diode_pn = _element("diode", "leg p's lower diode")
    s_transistor_np, on_transistor_np = _element("transistor", "leg n's upper transistor")
    s_diode_np, on_diode_np = _element("diode", "leg n's upper diode")
    s_transistor_nn, on_transistor_nn = _element("transistor", "leg n's lower transistor")
    s_diode_nn, on_diode_nn = _element("diode", "leg n's lower diode")
