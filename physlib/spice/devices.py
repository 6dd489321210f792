"""One physlib component per element card: R, C, L, K, V, I, D, E, G, F, H, S, W (B: in
:mod:`physlib.spice.behavioural`).

Supported per element (anything else on the line is a SpiceError):
``Rname n+ n- value`` (or ``r=``/``resistance=`` [Ω]; ``m=``, ``tc1=``, ``tc2=``, ``temp=``, ``dtemp=``,
``noisy=`` as ngspice's); ``Cname n+ n- value [ic=v0]`` (or
``c=``/``capacitance=``/``cap=`` [F]; v0 [V]); ``Lname n+ n- value [ic=i0]`` (or
``l=``/``inductance=`` [H]; i0 [A]); ``Kname Lname1 Lname2 k`` (|k| < 1); ``V``/``I`` with a
source value (:mod:`physlib.spice.sources`); ``Dname a k model`` with ``.model name D(...)``
(ngspice's level-1 parameters, :data:`DIODE_PARAMETERS`); ``Ename n+ n- nc+ nc- gain``;
``Gname n+ n- nc+ nc- gm`` [S]; ``Fname n+ n- vname gain``; ``Hname n+ n- vname r`` [Ω] (each
value also as ``gain=``, ngspice's name; their ``POLY(n)`` forms in :mod:`physlib.spice.poly`); ``Sname n+ n- nc+ nc- model [on|off]`` with
``.model name SW(VT= VH= RON= ROFF=)``; ``Wname n+ n- vname model [on|off]`` with ``.model
name CSW(IT= IH= RON= ROFF=)``.
"""
from __future__ import annotations

import math
import re

from ..components import electrical as el
from ..core.component import Mode
from ..core.errors import UnknownNameError
from .errors import SpiceError
from .numbers import farad_warning, zero_is_none
from .poly import is_poly, poly_sensed_sources, poly_source
from .sources import build_waveform, parse_source
from .vendor import MOSFET_STOPS, ignoring_pspice_entries, without_pspice_entries

__all__ = ["make_component", "passive", "plain_passive", "find_model", "couple", "sensed_sources"]

# ngspice-39's level-1 diode model parameters (its DIOmPTable, aliases included) that
# physlib's Diode has: .model name → Diode parameter.
DIODE_PARAMETERS = {"is": "Is", "js": "Is", "n": "N", "rs": "Rs", "cjo": "CJO", "cj0": "CJO",
                    "cj": "CJO", "vj": "VJ", "pb": "VJ", "m": "M", "mj": "M", "fc": "FC",
                    "tt": "TT", "bv": "BV", "ibv": "IBV", "ib": "IBV", "eg": "EG", "xti": "XTI",
                    "kf": "KF", "af": "AF", "isr": "ISR", "nr": "NR", "ikf": "IKF", "ik": "IKF",
                    "ikr": "IKR", "nbv": "NBV", "trs": "TRS", "trs1": "TRS"}
# level=1 only; TNOM [°C]; IBVL, NBVL, TBV1, TBV2: read, and ngspice-39's results do not depend
# on them (measured: the same currents below and beyond BV, at 27 and 75 °C)
DIODE_OTHER = ("level", "tnom", "tref", "ibvl", "nbvl", "tbv1", "tbv2")
# a D line's options (ngspice-39's DIO instance table, but off and pj) and the parameters its
# area and m scale: (parameter, exponent, whether area scales it too)
DIODE_INSTANCE = ("ic", "area", "m", "temp", "dtemp")
DIODE_SCALED = (("Is", 1, True), ("ISR", 1, True), ("IKF", 1, True), ("IKR", 1, True),
                ("CJO", 1, True), ("Rs", -1, True), ("IBV", 1, False))
# ngspice-39's switch models (its SWmPTable, CSWmPTable): .model name → switch parameter.
SWITCH_PARAMETERS = {"sw": {"vt": "VT", "vh": "VH", "ron": "Ron", "roff": "Roff"},
                     "csw": {"it": "IT", "ih": "IH", "ron": "Ron", "roff": "Roff"}}
_CURRENT = re.compile(r"\bi\s*\(\s*([^\s(),]+)\s*\)", re.I)
KELVIN = 273.15


def _split_options(tokens, where, allowed: tuple[str, ...]):
    """(positional tokens, {key: value token}) of ``tokens``; keys outside ``allowed`` are
    refused."""
    if "=" not in tokens:               # most element lines: no key=value at all
        return list(tokens), {}
    positional, options, pos = [], {}, 0
    while pos < len(tokens):
        if pos + 1 < len(tokens) and tokens[pos + 1] == "=":
            key = tokens[pos].lower()
            if key not in allowed:
                raise SpiceError(f"{tokens[pos]}= is not supported here; supported: "
                                 f"{', '.join(k + '=' for k in allowed) or 'none'}", where)
            if pos + 2 >= len(tokens):
                raise SpiceError(f"{tokens[pos]}= has no value", where)
            options[key] = tokens[pos + 2]
            pos += 3
        else:
            positional.append(tokens[pos])
            pos += 1
    return positional, options


# ngspice's R instance options physlib reads (its RES instance table): the parallel count,
# the temperature coefficients, the instance temperature and whether it is a noise source.
RESISTOR_OPTIONS = ("m", "tc1", "tc2", "temp", "dtemp", "noisy")
# ngspice-39's names of an R, C, L value on the element line (its RES, CAP, IND instance
# parameter tables; ``l=`` is read as the inductance too).
VALUE_NAMES = {"R": ("r", "resistance"), "C": ("c", "capacitance", "cap"),
               "L": ("l", "inductance")}
# the options each of R, C, L accepts besides its value's names
PASSIVE_OPTIONS = {letter: names + (("ic", "m") if letter != "R" else RESISTOR_OPTIONS)
                   for letter, names in VALUE_NAMES.items()}
# the component class of each, the parameter its value gives and that of its start value
PASSIVE_CLASSES = {"R": (el.Resistor, "R", None), "C": (el.Capacitor, "C", "v0"),
                   "L": (el.Inductor, "L", "i0")}


def _passive(b, letter, name, tokens, card, scope, prefix):
    """An R, C or L card: its value, on its own or by one of its names (``r=1k``), and its
    options, then :func:`passive`."""
    where = card.where
    positional, options = _split_options(tokens[3:], where, PASSIVE_OPTIONS[letter])
    if options:
        given = [key for key in VALUE_NAMES[letter] if key in options]
        if len(given) > 1 or (given and positional):
            raise SpiceError(f"{letter} has its value twice ({' '.join(positional + given)})",
                             where)
        if given:
            positional.insert(0, options.pop(given[0]))
    if len(positional) != 1:
        raise SpiceError(f"{letter} takes one value after its nodes, got "
                         f"{' '.join(positional) or 'none'}", where)
    return passive(b, letter, name, positional[0], options, tokens, card, scope, prefix), TWO_PINS


def passive(b, letter, name, token, options, tokens, card, scope, prefix):
    """The R, C or L component of the card ``card`` (split into ``tokens``) whose value is
    ``token`` and whose other options are ``options`` ({key: value token}). A card of two
    nodes and a value alone (``R1 a b 1k``, most cards of a large deck) is made by this with
    ``options`` empty, without the parsing of :func:`_passive`."""
    where = card.where
    value = b.value(token, scope, where)
    if letter == "C" and (farads := farad_warning(token)):
        b.ctx.warn(where, farads)
    cls, param, start = PASSIVE_CLASSES[letter]
    path = f"{prefix}{name}."
    if options:
        if letter == "R":     # without: R·(1 + 0·ΔT + 0·ΔT²)/1 is R exactly, whatever T
            factor, cls = _resistor_options(b, options, scope, card)
        else:
            factor = _parallel(b, letter, options["m"], scope, card) if "m" in options else None
        if factor is not None:
            b.factors[path + param] = factor
            nominal, value = value, (lambda: nominal() * factor())
        number = b.bind(path + param, value, where)
    else:   # a number on a plain card is read from it again when asked for
        number = value() if b.bindings.on_card(tokens, value) else b.bind(path + param, value, where)
    values = {**passive_keywords(letter, b.ctx.constants), param: number}
    ic = b.value(options["ic"], scope, where) if "ic" in options else \
        b.start_voltage(prefix, tokens[1:3]) if letter == "C" else None
    if ic is not None:
        values[start] = b.bind(path + start, ic, where)
    return cls(name, **values)


def _parallel(b, letter, token, scope, card):
    """The factor ``m`` C or L elements in parallel (``m=`` on the line, as ngspice-39's
    capacitor and inductor) give their value: C·m, L/m."""
    count = b.value(token, scope, card.where)
    if not count() > 0:
        raise SpiceError(f"{letter}: m = {count():g} must be > 0", card.where)
    if letter == "C":
        return count
    return lambda: 1.0 / count()


def passive_keywords(letter: str, constants: str) -> dict:
    """The keywords an R, C or L component takes before its value: a resistor's ``constants``
    (the k of its thermal noise), given first (structural keywords first take the
    constructor's short path)."""
    return {"constants": constants} if letter == "R" else {}


def plain_passive(letter: str, constants: str):
    """A function making the components of plain R, C or L cards (two nodes and a number) from
    their names and values, as :func:`passive` does one by one, without the cards: for a large
    deck's builder, which reads the numbers itself. All at once (``Component.many``)."""
    cls, param, _ = PASSIVE_CLASSES[letter]
    keywords = passive_keywords(letter, constants)
    return lambda names, values: cls.many(names, param, values, **keywords)


TWO_PINS = ("p", "n")       # the pins of a two-pin element, in its nodes' order


class NoiselessResistor(el.Resistor):
    """A :class:`Resistor` that is no noise source: ngspice's ``noisy=0`` on an R line. Its power
    is not booked as dissipation either (the noise analysis takes its sources from there)."""

    def dissipation(self):
        return None


def _resistor_options(b, options, scope, card):
    """(function giving the factor of the card's resistance, or None; class) of an R line's
    options (some given), as ngspice's restemp.c: R·(1 + TC1·ΔT + TC2·ΔT²)/M with
    ΔT = T − TNOM, T = temp= [°C] or the circuit temperature plus dtemp=; noisy=0 gives a
    :class:`NoiselessResistor`."""
    given = {key: b.value(options[key], scope, card.where) for key in RESISTOR_OPTIONS
             if key in options}
    zero = lambda: 0.0                                           # noqa: E731
    tc1, tc2, dtemp = (given.get(key, zero) for key in ("tc1", "tc2", "dtemp"))
    count = given.get("m", lambda: 1.0)
    if not count() > 0:
        raise SpiceError(f"R: m = {count():g} must be > 0", card.where)

    def celsius():
        return given["temp"]() if "temp" in given else b.ctx.option("temp") + dtemp()

    def factor():
        delta = celsius() - b.ctx.option("tnom")
        return (1 + tc1() * delta + tc2() * delta**2) / count()

    noisy = given.get("noisy", lambda: 1.0)()
    if noisy not in (0, 1):
        raise SpiceError(f"R: noisy = {noisy:g}; give 0 or 1", card.where)
    scaled = given.keys() - {"noisy"}
    return factor if scaled else None, (NoiselessResistor if noisy == 0 else el.Resistor)


def _source(b, letter, name, tokens, card, scope, prefix, sensed):
    spec = parse_source(tokens[3:], card.where, lambda t: b.value(t, scope, card.where),
                        b.is_value, current=letter == "I")
    path = f"{prefix}{name}.{'V' if letter == 'V' else 'I'}"
    if spec.ignored:
        b.ctx.warn(card.where, f"{name}: {' and '.join(spec.ignored)} ignored (the inputs of "
                   "ngspice's .disto analysis, which physlib does not have)")
    for note in spec.notes:
        b.ctx.warn(card.where, f"{name}: {note}")
    if spec.kind:
        value, bindings, at0 = build_waveform(spec, b.ctx.tran, card.where)
        for param, function in bindings.items():
            b.bind(f"{path}.{param}", function, card.where)
    else:
        at0 = spec.dc or (lambda: 0.0)
        value = b.bind(path, at0, card.where)
    dc = spec.dc or at0
    if spec.dc is None and spec.kind:
        b.ctx.warn(card.where, f"{name} has no DC value: its t = 0 value is used (as ngspice)")
    b.sources[prefix + name] = {"input": path, "dc": dc, "at0": at0, "ac": spec.ac,
                                "waveform": spec.kind, "where": card.where}
    if letter == "V":
        cls = el.SensingVoltageSource if name in sensed else el.VoltageSource
        return cls(name, V=value), ["p", "n"]
    return el.CurrentSource(name, I=value), ["p", "n"]


def find_model(scope, name: str, where):
    """(type, tokens, card, scope of its definition) of .model ``name`` seen from ``scope``."""
    while scope is not None:
        body = getattr(scope, "body", None)
        if body is not None and name in body.models:
            return body.models[name] + (scope,)
        scope = scope.parent
    raise SpiceError(f"unknown .model {name}", where)


def _diode_instance(b, functions, instance, scope, card) -> dict:
    """{parameter: value function} of a D line's options: T (``temp=`` [°C], else the circuit's
    temperature plus ``dtemp=``), GMIN (``.options gmin``), and ``area`` and ``m`` (m devices
    in parallel) scaling the model's ``functions`` in place as ngspice-39's diotemp.c and
    dioload.c: IS, ISR, IKF, IKR, CJO by area·m, RS by 1/(area·m), IBV by m, KF by m^(1 − AF)
    (m flicker sources of one device's current, as dionoise.c); GMIN is not
    scaled (measured against ngspice-39: with m = 2 and GMIN·m a reverse junction's voltage
    moved 5e-7 off) (``functions``: {parameter: (value function, where)})."""
    given = {key: b.value(instance[key], scope, card.where) for key in DIODE_INSTANCE[1:]
             if key in instance}
    for key in ("area", "m"):
        if key in given and not given[key]() > 0:
            raise SpiceError(f"D: {key} = {given[key]():g} must be > 0", card.where)
    one = lambda: 1.0                                              # noqa: E731
    area, count = given.get("area", one), given.get("m", one)
    if "temp" in given:
        celsius = given["temp"]
    else:
        celsius = lambda: b.ctx.option("temp") + given.get("dtemp", lambda: 0.0)()   # noqa: E731
    if "area" in given or "m" in given:
        for param, exponent, by_area in DIODE_SCALED:
            default = el.Diode.__dict__[param].default
            function, where = functions.get(param, (lambda default=default: default, card.where))
            functions[param] = (lambda f=function, e=exponent, a=by_area:
                                f() * ((area() if a else 1.0) * count()) ** e, where)
        kf, where = functions.get("KF", (lambda: el.Diode.__dict__["KF"].default, card.where))
        af, _ = functions.get("AF", (lambda: el.Diode.__dict__["AF"].default, card.where))
        functions["KF"] = (lambda: kf() * count() ** (1 - af()), where)
    return {"T": lambda: celsius() + KELVIN, "GMIN": lambda: b.ctx.option("gmin")}


def _diode(b, name, tokens, card, scope, prefix):
    """``Dname a k model [ic=vd]`` with ``.model model D(...)``: physlib's SPICE level-1 Diode
    with the model's parameters, the circuit temperature (``.temp``/``.options temp``) as T,
    the model's ``tnom=`` (else ``.options tnom``) as TNOM, ``.options gmin`` (ngspice: 1e-12 S)
    across the junction as ngspice's dioload adds it, and as vd0 (the junction's ``uic``
    start) ``ic=``, else the .ic voltages across it (diogetic.c)."""
    positional, instance = _split_options(tokens[1:], card.where, DIODE_INSTANCE)
    if len(positional) == 4 and "area" not in instance:
        instance["area"] = positional.pop()
    if len(positional) != 3:
        raise SpiceError("D takes two nodes, a model name, [area] and [area=a] [m=m] [temp=t] "
                         "[dtemp=d] [ic=vd] (off is not supported)", card.where)
    kind, params, model_card, model_scope = find_model(scope, positional[2].lower(), card.where)
    if kind != "d":
        raise SpiceError(f"D needs a diode .model (D), {positional[2]} is {kind.upper()}", card.where)
    params = without_pspice_entries(b, params, model_card)
    _, options = _split_options(params, model_card.where, tuple(DIODE_PARAMETERS) + DIODE_OTHER)
    functions, path = {}, f"{prefix}{name}."
    seen = {}
    for key, token in options.items():
        if key in DIODE_OTHER:
            continue
        target = DIODE_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same diode parameter", model_card.where)
        seen[target] = key
        function = b.value(token, model_scope, model_card.where)
        if target in ("IKF", "IKR"):                 # 0: none, as ngspice-39 (measured)
            function = zero_is_none(function)
        functions[target] = (function, model_card.where)
    if "level" in options and b.value(options["level"], model_scope, model_card.where)() != 1:
        raise SpiceError("only the level-1 diode model is supported (level=1)", model_card.where)
    if "ISR" in functions:     # ngspice-39's NR is 1 when not given (measured: a card with
        # ISR and without NR gives what NR=1 gives), where the Diode's, PSpice's, is 2
        functions.setdefault("NR", (lambda: 1.0, model_card.where))
    tnom_token = options.get("tnom", options.get("tref"))
    tnom = b.value(tnom_token, model_scope, model_card.where) if tnom_token else \
        (lambda: b.ctx.option("tnom"))
    nominal = lambda: tnom() + KELVIN                             # noqa: E731
    start = {"vd0": b.value(instance["ic"], scope, card.where)} if "ic" in instance else \
        b.start_voltages(prefix, {"vd0": positional[:2]})
    functions.update({param: (function, card.where) for param, function in
                      (("TNOM", nominal), *_diode_instance(b, functions, instance, scope, card).items(),
                       *start.items())})
    values = {param: b.bind(path + param, function, where)
              for param, (function, where) in functions.items()}
    return el.Diode(name, constants=b.ctx.constants, **values), ["p", "n"]


def sensed_sources(body) -> set[str]:
    """The V sources of a (sub)circuit whose current an element reads (F, H, W by name, B and
    E/G VALUE= through ``i(vname)``): they are built as :class:`SensingVoltageSource`."""
    out = set()
    for card, tokens in body.element_cards("FHWBEG"):
        letter = card.text[0].upper()
        if letter in "FH" and is_poly(tokens):
            out.update(poly_sensed_sources(tokens))
        elif letter in "FHW" and len(tokens) > 3:
            out.add(tokens[3].lower())
        elif letter in "BEG":
            out.update(name.lower() for name in _CURRENT.findall(card.text))
    return out


def member_named(model, name: str):
    """The member of ``model`` named ``name`` (an element's name), or None."""
    try:
        return model[name]
    except UnknownNameError:
        return None


def couple(b, card, tokens, scope, prefix, nets, model):
    """``Kname L1 L2 k``: a :class:`MutualInductance` of M = k·√(L1·L2) in series with each
    inductor, at its n pin (after couplings already there), as ngspice's mutual inductor adds
    M·di/dt to each winding's branch equation; added to ``model`` and wired into ``nets``."""
    where = card.where
    if len(tokens) != 4:
        raise SpiceError("K takes two inductors and a coupling coefficient: Kname L1 L2 k", where)
    name = tokens[0].lower()
    if not (name.isascii() and name.isidentifier()):
        raise SpiceError(f"element name {tokens[0]!r}: physlib needs letters, digits and '_' "
                         "only", where)
    inductors = [token.lower() for token in tokens[1:3]]
    for inductor in inductors:
        if not isinstance(member_named(model, inductor), el.Inductor):
            raise SpiceError(f"{inductor} is not an inductor (L) of the same (sub)circuit", where)
    if inductors[0] == inductors[1]:
        raise SpiceError(f"K couples two different inductors, not {inductors[0]} with itself", where)
    k = b.value(tokens[3], scope, where)
    if not abs(k()) < 1:
        raise SpiceError(f"coupling coefficient {k():g}: physlib needs |k| < 1 (|k| = 1 makes the "
                         "inductance matrix singular; use k = 0.9999 for a near-ideal coupling)", where)
    l1, l2 = (b.bindings[f"{prefix}{n}.L"][0] for n in inductors)
    mutual = lambda: k() * math.sqrt(l1() * l2())          # noqa: E731
    comp = el.MutualInductance(name, M=b.bind(f"{prefix}{name}.M", mutual, where))
    b.add_member(model, comp, card, prefix, element=False)
    for inductor, (plus, minus) in zip(inductors, (("p1", "n1"), ("p2", "n2"))):
        tail = b.coupled.get(prefix + inductor, f"{inductor}.n")   # the winding's current end
        replaced = nets.replace(tail, comp, minus)
        if replaced is not None:
            model.connect(replaced, getattr(comp, plus))
        b.coupled[prefix + inductor] = f"{name}.{minus}"


class VoltageSwitchOn(el.VoltageControlledSwitch):
    """A :class:`VoltageControlledSwitch` that starts closed: ngspice's ``on`` flag on an S
    line. The operating point and the transient start from closed; the control opens it below
    VT − VH."""

    closed = Mode({"open": 0, "closed": 1}, start="closed",
                  description="switch position; starts closed (ngspice's on flag)")


def _switch(b, letter, name, tokens, card, scope, prefix):
    """``Sname n+ n- nc+ nc- model [on|off]`` / ``Wname n+ n- vname model [on|off]``: ngspice's
    switches with hysteresis (RON default 1 Ω, ROFF default 1/GMIN as ngspice's SWsetup),
    starting open (``off``, the default) or, for S, closed (``on``). ngspice-39 starts a W
    switch open whatever its flag (measured with its control inside the hysteresis band):
    ``on`` on a W line warns and is ignored as there."""
    count = 6 if letter == "S" else 5
    form = "n+ n- nc+ nc- model" if letter == "S" else "n+ n- vname model"
    rest = [t.lower() for t in tokens[count:]]
    if len(tokens) < count or rest not in ([], ["off"], ["on"]):
        raise SpiceError(f"{letter} takes {letter}name {form} [on|off]", card.where)
    kind, params, model_card, model_scope = find_model(scope, tokens[count - 1].lower(), card.where)
    expected = "sw" if letter == "S" else "csw"
    if kind != expected:
        raise SpiceError(f"{letter} needs a .model of type {expected.upper()}, "
                         f"{tokens[count - 1]} is {kind.upper()}", card.where)
    table = SWITCH_PARAMETERS[kind]
    _, options = _split_options(params, model_card.where, tuple(table))
    values, functions = {}, {"Roff": lambda: 1.0 / b.ctx.option("gmin")}
    functions.update({table[key]: b.value(token, model_scope, model_card.where)
                      for key, token in options.items()})
    for param, function in functions.items():
        values[param] = b.bind(f"{prefix}{name}.{param}", function, model_card.where)
    if letter == "S":
        cls = VoltageSwitchOn if rest == ["on"] else el.VoltageControlledSwitch
        return cls(name, **values), ["p", "n", "pc", "nc"]
    if rest == ["on"]:
        b.ctx.warn(card.where, f"{name}: ngspice-39 starts a W switch open despite 'on' (its "
                   "flag is ignored there and here)")
    b.controls.append(("ic", tokens[3].lower()))
    return el.CurrentControlledSwitch(name, **values), ["p", "n"]


def _controlled(b, letter, name, tokens, card, scope, prefix):
    if is_poly(tokens):
        return poly_source(b, letter, name, tokens, card, scope, prefix)
    keyword = tokens[3].lower() if len(tokens) > 3 else ""
    if keyword in {"E": ("value", "vol"), "G": ("value", "cur")}.get(letter, ()):
        from .behavioural import value_source
        return value_source(b, letter, name, card, scope, prefix)
    if letter in "EG" and (keyword == "table" or keyword.startswith(("table=", "table{"))):
        from .behavioural import table_source
        return table_source(b, letter, name, card, scope, prefix)
    count = 6 if letter in "EG" else 5
    form = "n+ n- nc+ nc- value" if letter in "EG" else "n+ n- vname value"
    if keyword in ("value", "vol", "cur", "table", "laplace", "freq"):
        raise SpiceError(f"{letter} is supported in its linear form {letter}name {form} "
                         "(or gain=value), as POLY(n) and (E, G) as VALUE={expression} and "
                         f"TABLE; {keyword.upper()} on {letter} is not supported yet", card.where)
    positional, options = _split_options(tokens[count - 1:], card.where, ("gain",))
    if len(tokens) < count - 1 or len(positional) + len(options) != 1:
        raise SpiceError(f"{letter} takes {letter}name {form} (or gain=value)", card.where)
    value = b.value(options.get("gain") or positional[0], scope, card.where)
    cls, param = {"E": (el.VCVS, "gain"), "G": (el.VCCS, "gm"), "F": (el.CCCS, "gain"),
                  "H": (el.CCVS, "r")}[letter]
    number = b.bind(f"{prefix}{name}.{param}", value, card.where)
    if letter in "FH":
        b.controls.append(("ic", tokens[3].lower()))
    pins = ["p", "n", "pc", "nc"] if letter in "EG" else ["p", "n"]
    return cls(name, **{param: number}), pins


def make_component(b, letter, name, tokens, card, body, scope, prefix, sensed):
    """(component, its pin names in the card's node order) for one element card."""
    if letter in "RCL":
        return _passive(b, letter, name, tokens, card, scope, prefix)
    if letter in "VI":
        return _source(b, letter, name, tokens, card, scope, prefix, sensed)
    if letter == "D":
        return _diode(b, name, tokens, card, scope, prefix)
    if letter in "SW":
        return _switch(b, letter, name, tokens, card, scope, prefix)
    if letter == "Q":
        from .bjt import bjt
        return bjt(b, name, tokens, card, scope, prefix, find_model, _split_options)
    if letter == "M":
        from .mosfet import mosfet
        return mosfet(b, name, tokens, card, scope, prefix,
                      ignoring_pspice_entries(b, find_model, MOSFET_STOPS), _split_options)
    if letter == "J":
        from .jfet import JFET_PSPICE_ONLY, jfet
        return jfet(b, name, tokens, card, scope, prefix,
                    ignoring_pspice_entries(b, find_model, only_pspice=JFET_PSPICE_ONLY),
                    _split_options)
    if letter == "B":
        from .behavioural import behavioural_source
        return behavioural_source(b, name, card, scope, prefix)
    return _controlled(b, letter, name, tokens, card, scope, prefix)
