"""The ``Q`` element: ``Qname nc nb ne [ns] model [area] [area=a] [m=m] [temp=t] [dtemp=d]``
with ``.model model NPN(...)`` or ``PNP(...)``, physlib's Gummel–Poon
:class:`~physlib.components.electrical.BJT` (ngspice-39's BJT, level 1) with the model's
parameters (:data:`BJT_PARAMETERS`, ngspice's aliases included)."""
from __future__ import annotations

import math

from ..components.electrical.semiconductors.bjt import BJT
from .errors import SpiceError
from .numbers import zero_is_none
from .vendor import without_pspice_entries

__all__ = ["BJT_PARAMETERS", "bjt", "refuse_excess_phase"]

# ngspice-39's BJT model parameters (its BJTmPTable) that physlib's BJT has: name → parameter.
BJT_PARAMETERS = {"is": "IS", "bf": "BF", "br": "BR", "nf": "NF", "nr": "NR", "vaf": "VAF", "va": "VAF",
                  "var": "VAR", "vb": "VAR", "ikf": "IKF", "ik": "IKF", "ikr": "IKR", "ise": "ISE",
                  "ne": "NE", "isc": "ISC", "nc": "NC", "rb": "RB", "rc": "RC", "re": "RE",
                  "cje": "CJE", "vje": "VJE", "pe": "VJE", "mje": "MJE", "me": "MJE", "cjc": "CJC",
                  "vjc": "VJC", "pc": "VJC", "mjc": "MJC", "mc": "MJC", "cjs": "CJS", "ccs": "CJS",
                  "csub": "CJS", "vjs": "VJS", "ps": "VJS", "mjs": "MJS", "ms": "MJS", "fc": "FC",
                  "tf": "TF", "tr": "TR", "xtb": "XTB", "eg": "EG", "xti": "XTI", "kf": "KF", "af": "AF",
                  "xtf": "XTF", "vtf": "VTF", "itf": "ITF", "irb": "IRB", "rbm": "RBM", "xcjc": "XCJC",
                  "iss": "ISS", "ns": "NS", "nkf": "NKF", "ptf": "PTF"}
BJT_OTHER = ("level", "tnom", "tref", "subs")  # level=1; TNOM [°C]; SUBS ±1
# ngspice reads 0 as "not given" for these: no Early effect, no high injection, no vbc term of TF.
ZERO_IS_NONE = ("VAF", "VAR", "IKF", "IKR", "VTF")
# ngspice's area factor: these scale with it (exponent 1) or inversely (-1); the m factor
# (m devices in parallel) scales them likewise, GMIN with it and KF by m^(1 - AF) (bjtnoise.c
# multiplies each noise source by m, the flicker one of the single device's current).
AREA_EXPONENTS = {"IS": 1, "ISE": 1, "ISC": 1, "IKF": 1, "IKR": 1, "ITF": 1, "IRB": 1, "ISS": 1,
                  "CJE": 1, "CJC": 1, "CJS": 1, "RB": -1, "RBM": -1, "RC": -1, "RE": -1}
INSTANCE_OPTIONS = ("area", "m", "temp", "dtemp")
KELVIN = 273.15


def bjt(b, name, tokens, card, scope, prefix, find_model, split_options):
    """(BJT, its pins in the card's node order) for a ``Q`` card: the model's parameters, the
    circuit temperature (or the line's ``temp=``, or the circuit's plus ``dtemp=``) as T, the
    model's ``tnom=`` (else ``.options tnom``) as TNOM and ``.options gmin`` (ngspice: 1e-12 S)
    across each junction, as bjtload.c; ``area`` and ``m`` scale the parameters as ngspice's.
    Without ``ns`` the substrate is ground, as ngspice connects it; the substrate junction goes
    to the collector (SUBS=1) or the base (SUBS=-1), by default as ngspice's bjtsetup.c:
    vertical NPN, lateral PNP."""
    nodes, model_name, instance = _instance_line(tokens, card, scope, find_model, split_options)
    kind, params, model_card, model_scope = find_model(scope, model_name, card.where)
    if kind not in ("npn", "pnp"):
        raise SpiceError(f"Q needs a bipolar .model (NPN or PNP), {model_name} is {kind.upper()}",
                         card.where)
    params = without_pspice_entries(b, params, model_card)
    _, options = split_options(params, model_card.where, tuple(BJT_PARAMETERS) + BJT_OTHER)
    functions = _model_functions(b, options, model_scope, model_card)
    functions.update(_circuit_functions(b, options, instance, scope, model_scope, card, model_card))
    _scale(functions, instance, b, scope, card)
    starts = b.start_voltages(prefix, {"vbe0": nodes[1:3], "vce0": nodes[0:3:2]})   # bjtgetic.c
    functions.update({param: (start, card.where) for param, start in starts.items()})
    values = {"pnp": kind == "pnp", "substrate": True, "constants": b.ctx.constants,
              "lateral": _lateral(b, kind, options, model_scope, model_card)}
    path = f"{prefix}{name}."
    for param, (function, where) in functions.items():
        values[param] = b.bind(path + param, function, where)
    if "PTF" in functions:
        b.excess_phase.append(path)
    if len(nodes) == 3:
        b.senses.append(("s", "0"))
        return BJT(name, **values), ["c", "b", "e"]
    return BJT(name, **values), ["c", "b", "e", "s"]


def refuse_excess_phase(deck, analysis: str, params):
    """A :class:`SpiceError` at the model card of the first BJT with an excess phase (PTF and
    TF > 0 with the ``.param`` values ``params``) for the small-signal ``analysis``: ngspice-39
    delays the transconductance by exp(−jω·td) in ``.ac`` and ``.noise`` (bjtacld.c) and
    leaves the excess phase out of ``.pz`` (bjtpzld.c), where physlib's linear model holds the
    second-order filter its transients integrate (as ngspice's do)."""
    builder = deck._builder
    if not builder.excess_phase:
        return
    how = "leaves the excess phase out of .pz" if analysis == ".pz" else \
        "delays the transconductance by exp(-j*omega*td) in .ac and .noise"
    with deck.evaluating(params):
        for path in builder.excess_phase:
            (ptf, where), tf = builder.bindings[path + "PTF"], builder.bindings.get(path + "TF")
            if ptf() > 0 and tf and tf[0]() > 0:
                raise SpiceError(
                    f"{analysis}: {path[:-1]} has an excess phase (PTF = {ptf():g}, td = "
                    f"PTF*pi/180*TF = {ptf() * math.pi / 180 * tf[0]():.4g} s): ngspice-39 {how}, "
                    "which physlib's small-signal model (the transient's second-order filter) "
                    f"does not reproduce; give PTF=0 for {analysis}", where)


def _instance_line(tokens, card, scope, find_model, split_options):
    """(nodes, model name, {option: token}) of ``Qname nc nb ne [ns] model [area] [k=v ...]``:
    the model is the fourth or fifth word, whichever names a .model (as ngspice decides)."""
    positional, options = split_options(tokens[1:], card.where, INSTANCE_OPTIONS)
    form = "Qname nc nb ne [ns] model [area] [area=a] [m=m] [temp=t] [dtemp=d]"
    for count in (3, 4):
        if len(positional) > count and _is_model(scope, positional[count], find_model):
            rest = positional[count + 1:]
            if rest and "area" not in options:
                options["area"] = rest.pop(0)
            if rest:
                hint = "off and ic= are not supported" if "off" in map(str.lower, rest) else form
                raise SpiceError(f"Q: {' '.join(rest)} not understood ({hint})", card.where)
            return positional[:count], positional[count].lower(), options
    raise SpiceError(f"Q takes {form}, with a .model name after the nodes", card.where)


def _is_model(scope, name, find_model) -> bool:
    try:
        find_model(scope, name.lower(), None)
    except SpiceError:
        return False
    return True


def _model_functions(b, options, model_scope, model_card) -> dict:
    """{BJT parameter: (value function, where)} of the model card's parameters."""
    out, seen = {}, {}
    for key, token in options.items():
        if key in BJT_OTHER:
            continue
        target = BJT_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same BJT parameter", model_card.where)
        seen[target] = key
        function = b.value(token, model_scope, model_card.where)
        if target in ZERO_IS_NONE:
            function = zero_is_none(function)
        out[target] = (function, model_card.where)
    if "level" in options and b.value(options["level"], model_scope, model_card.where)() != 1:
        raise SpiceError("only the level-1 (Gummel-Poon) BJT model is supported (level=1)",
                         model_card.where)
    return out


def _circuit_functions(b, options, instance, scope, model_scope, card, model_card) -> dict:
    """T (the line's temp= [°C], else the circuit's plus dtemp=), TNOM and GMIN."""
    tnom_token = options.get("tnom", options.get("tref"))
    tnom = b.value(tnom_token, model_scope, model_card.where) if tnom_token else \
        (lambda: b.ctx.option("tnom"))
    if "temp" in instance:
        celsius = b.value(instance["temp"], scope, card.where)
    else:
        delta = b.value(instance.get("dtemp", "0"), scope, card.where)
        celsius = lambda: b.ctx.option("temp") + delta()        # noqa: E731
    return {"T": (lambda: celsius() + KELVIN, card.where),
            "TNOM": (lambda: tnom() + KELVIN, card.where),
            "GMIN": (lambda: b.ctx.option("gmin"), card.where)}


def _scale(functions, instance, b, scope, card):
    """Apply the line's ``area`` and ``m`` to ``functions`` in place (defaults of parameters the
    card leaves out included)."""
    if "area" not in instance and "m" not in instance:
        return
    area = b.value(instance.get("area", "1"), scope, card.where)
    count = b.value(instance.get("m", "1"), scope, card.where)
    for name, value in (("area", area), ("m", count)):
        if not value() > 0:
            raise SpiceError(f"Q: {name} = {value():g} must be > 0", card.where)
    for param, exponent in AREA_EXPONENTS.items():
        function, where = functions.get(param, (_default(param), card.where))
        functions[param] = (lambda f=function, e=exponent: f() * (area() * count()) ** e, where)
    gmin, _ = functions["GMIN"]
    functions["GMIN"] = (lambda: gmin() * count(), card.where)
    kf, where = functions.get("KF", (_default("KF"), card.where))
    af, _ = functions.get("AF", (_default("AF"), card.where))
    functions["KF"] = (lambda: kf() * count() ** (1 - af()), where)


def _default(param):
    default = BJT.__dict__[param].default
    return lambda: default


def _lateral(b, kind, options, model_scope, model_card) -> bool:
    subs = -1 if kind == "pnp" else 1             # ngspice: vertical NPN, lateral PNP
    if "subs" in options:
        subs = b.value(options["subs"], model_scope, model_card.where)()
        if subs not in (1, -1):
            raise SpiceError(f"SUBS={subs:g}: give 1 (vertical) or -1 (lateral)", model_card.where)
    return subs == -1
