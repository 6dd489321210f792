"""The ``J`` element: ``Jname nd ng ns model [area] [area=a] [m=m]`` with ``.model model NJF(...)``
or ``PJF(...)``, physlib's level-1 :class:`~physlib.components.electrical.JFET` (ngspice-39's
``jfet``) with the model's parameters (:data:`JFET_PARAMETERS`)."""
from __future__ import annotations

from ..components.electrical.semiconductors.jfet import JFET
from .errors import SpiceError

__all__ = ["JFET_PARAMETERS", "jfet"]

# ngspice-39's JFET model parameters (its JFETmPTable) that physlib's JFET has.
JFET_PARAMETERS = {"vto": "VTO", "vt0": "VTO", "beta": "BETA", "lambda": "LAMBDA", "rd": "RD",
                   "rs": "RS", "cgs": "CGS", "cgd": "CGD", "pb": "PB", "fc": "FC", "is": "IS",
                   "b": "B", "eg": "EG", "kf": "KF", "af": "AF"}
JFET_OTHER = ("level", "tnom")
# ngspice-39's temperature coefficients (jfettemp.c), which physlib's JFET has not: the reader
# gives it VTO, BETA and IS at the circuit's temperature T (:func:`at_temperature`).
TEMPERATURE_COEFFICIENTS = ("vtotc", "tcv", "betatce", "bex", "xti")
# PSpice's JFET parameters that ngspice-39 ignores ("unrecognized parameter (isr) - ignored"):
# the gate's recombination current, its emission coefficients, impact ionization and the
# capacitances' grading coefficient (ngspice's is 0.5), on every vendor JFET card
JFET_PSPICE_ONLY = ("isr", "n", "nr", "alpha", "vk", "m")
INSTANCE = {"area": "AREA", "m": "M"}
KELVIN = 273.15


def jfet(b, name, tokens, card, scope, prefix, find_model, split_options):
    """(JFET, its pins in the card's node order) for ``Jname nd ng ns model [area] [area=]
    [m=]``: the model's parameters (VTO, BETA, IS at T by the card's temperature coefficients,
    :func:`at_temperature`), the circuit temperature as T, the model's ``tnom=`` (else
    ``.options tnom``) as TNOM and ``.options gmin`` across each gate junction, as jfetload.c."""
    positional, instance = split_options(tokens[1:], card.where, tuple(INSTANCE))
    if "off" in (token.lower() for token in positional[4:]):
        raise SpiceError("J: the off flag is not supported yet (physlib's operating point "
                         "needs no initial guess)", card.where)
    if len(positional) == 5 and "area" not in instance:
        instance["area"] = positional.pop()
    if len(positional) != 4:
        raise SpiceError("J takes Jname nd ng ns model [area] [area=] [m=] (off, ic=, temp=, "
                         "dtemp= are not supported yet)", card.where)
    kind, params, model_card, model_scope = find_model(scope, positional[3].lower(), card.where)
    if kind not in ("njf", "pjf"):
        raise SpiceError(f"J needs a JFET .model (NJF or PJF), {positional[3]} is "
                         f"{kind.upper()}", card.where)
    _, options = split_options(params, model_card.where,
                               tuple(JFET_PARAMETERS) + JFET_OTHER + TEMPERATURE_COEFFICIENTS)
    if "level" in options and b.value(options["level"], model_scope, model_card.where)() != 1:
        raise SpiceError("only the level-1 JFET model is supported (level=1)", model_card.where)
    functions, seen = {}, {}
    coefficients = {key: b.value(token, model_scope, model_card.where)
                    for key, token in options.items() if key in TEMPERATURE_COEFFICIENTS}
    for key, token in options.items():
        if key in JFET_OTHER or key in coefficients:
            continue
        target = JFET_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same JFET parameter",
                             model_card.where)
        seen[target] = key
        functions[target] = b.value(token, model_scope, model_card.where)
    if "FC" in functions and functions["FC"]() > 0.95:
        b.ctx.warn(model_card.where, f"{name}: FC > 0.95 is limited to 0.95, as ngspice does")
        fc = functions["FC"]
        functions["FC"] = lambda: min(fc(), 0.95)
    functions.update({INSTANCE[key]: b.value(token, scope, card.where)
                      for key, token in instance.items()})
    tnom = b.value(options["tnom"], model_scope, model_card.where) if "tnom" in options else \
        (lambda: b.ctx.option("tnom"))
    functions.update({"T": lambda: b.ctx.option("temp") + KELVIN, "TNOM": lambda: tnom() + KELVIN,
                      "GMIN": lambda: b.ctx.option("gmin")})
    functions.update(at_temperature(functions, coefficients, model_card))
    drain, gate, source = positional[:3]
    functions.update(b.start_voltages(prefix, {"vds0": (drain, source), "vgs0": (gate, source)}))
    values, path = {"channel": "P" if kind == "pjf" else "N", "constants": b.ctx.constants}, f"{prefix}{name}."
    for param, function in functions.items():
        values[param] = b.bind(path + param, function, card.where)
    return JFET(name, **values), ["d", "g", "s"]


def at_temperature(functions: dict, coefficients: dict, model_card) -> dict:
    """VTO, BETA and IS (functions of the circuit's state, like ``functions``) at the temperature
    ``functions["T"]`` by ngspice-39's jfettemp.c, for the temperature coefficients the card
    gives: VTO + VTOTC·(T − TNOM) (else VTO − TCV·(T − TNOM)), BETA·1.01^(BETATCE·(T − TNOM))
    (else BETA·(T/TNOM)^BEX), IS·(T/TNOM)^XTI (XTI only when given: ngspice's default 3 is
    not applied); at T = TNOM each is the card's value."""
    def given(param):
        return functions.get(param, lambda: getattr(JFET, param).default)

    temperature, nominal = functions["T"], functions["TNOM"]
    rules = {}
    vto, beta, saturation = given("VTO"), given("BETA"), given("IS")
    if "vtotc" in coefficients or "tcv" in coefficients:
        if "B" in functions and functions["B"]() != 1:
            raise SpiceError("VTOTC= or TCV= with B ≠ 1 is not supported: ngspice-39's B term "
                             "keeps VTO at TNOM while its channel current takes VTO at T",
                             model_card.where)
        vtotc = coefficients.get("vtotc")
        slope = vtotc if vtotc else (lambda tcv=coefficients["tcv"]: -tcv())
        rules["VTO"] = lambda: vto() + slope() * (temperature() - nominal())
    if "betatce" in coefficients:
        betatce = coefficients["betatce"]
        rules["BETA"] = lambda: beta() * 1.01 ** (betatce() * (temperature() - nominal()))
    elif "bex" in coefficients:
        bex = coefficients["bex"]
        rules["BETA"] = lambda: beta() * (temperature() / nominal()) ** bex()
    if "xti" in coefficients:
        xti = coefficients["xti"]
        rules["IS"] = lambda: saturation() * (temperature() / nominal()) ** xti()
    return rules
