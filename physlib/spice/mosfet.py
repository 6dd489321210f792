"""The ``M`` element: ``Mname nd ng ns nb model [l=] [w=] [m=]`` with ``.model model NMOS(level=1
...)`` or ``PMOS(...)``, physlib's level-1 :class:`~physlib.components.electrical.MOSFET`
(ngspice-39's ``mos1``) with the model's parameters (:data:`MOSFET_PARAMETERS`)."""
from __future__ import annotations

from ..components.electrical.semiconductors.mosfet import EPS_OX, MOSFET
from .errors import SpiceError

__all__ = ["MOSFET_PARAMETERS", "mosfet"]

# ngspice-39's level-1 model parameters (its MOS1mPTable) that physlib's MOSFET has.
MOSFET_PARAMETERS = {"vto": "VTO", "vt0": "VTO", "kp": "KP", "gamma": "GAMMA", "phi": "PHI",
                     "lambda": "LAMBDA", "rd": "RD", "rs": "RS", "cbd": "CBD", "cbs": "CBS",
                     "is": "IS", "pb": "PB", "mj": "MJ", "fc": "FC", "cgso": "CGSO",
                     "cgdo": "CGDO", "cgbo": "CGBO", "tox": "TOX", "kf": "KF", "af": "AF"}
MOSFET_OTHER = ("level", "tnom", "tref", "uo", "u0")
INSTANCE = {"l": "L", "w": "W", "m": "M"}          # ngspice's defaults: 100 µm, 100 µm, 1
KELVIN = 273.15


def mosfet(b, name, tokens, card, scope, prefix, find_model, split_options):
    """(MOSFET, its pins in the card's node order) for ``Mname nd ng ns nb model [l= w= m=]``:
    the model's parameters, the circuit temperature as T, the model's ``tnom=`` (else
    ``.options tnom``) as TNOM and ``.options gmin`` across each bulk junction, as mos1load.c.
    With TOX and without KP, KP = UO·3.9·ε0/TOX·1e-4 (UO [cm²/V·s], default 600) as
    mos1temp.c; TOX also makes ngspice add Meyer's gate capacitances, which physlib does not
    model: a SpiceWarning says so (.op and .dc are unaffected)."""
    positional, instance = split_options(tokens[1:], card.where, tuple(INSTANCE))
    if len(positional) != 5:
        raise SpiceError("M takes Mname nd ng ns nb model [l=] [w=] [m=] (ad, as, pd, ps, nrd, "
                         "nrs, off, ic=, temp= are not supported yet)", card.where)
    kind, params, model_card, model_scope = find_model(scope, positional[4].lower(), card.where)
    if kind not in ("nmos", "pmos"):
        raise SpiceError(f"M needs a MOSFET .model (NMOS or PMOS), {positional[4]} is "
                         f"{kind.upper()}", card.where)
    _, options = split_options(params, model_card.where, tuple(MOSFET_PARAMETERS) + MOSFET_OTHER)
    if "level" in options and b.value(options["level"], model_scope, model_card.where)() != 1:
        raise SpiceError("only the level-1 MOSFET model (Shichman-Hodges) is supported (level=1)",
                         model_card.where)
    values, path, seen = {"channel": "P" if kind == "pmos" else "N"}, f"{prefix}{name}.", {}
    functions = {}
    for key, token in options.items():
        if key in MOSFET_OTHER:
            continue
        target = MOSFET_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same MOSFET parameter", model_card.where)
        seen[target] = key
        functions[target] = b.value(token, model_scope, model_card.where)
    if "TOX" in functions and functions["TOX"]() > 0:
        values["meyer"] = False
        b.ctx.warn(model_card.where, f"{name}: TOX makes ngspice add Meyer's gate capacitances "
                   "(level 1), which physlib does not model: .op and .dc agree, .ac, .noise and "
                   ".tran lack them")
        if "KP" not in functions:
            token = options.get("uo", options.get("u0"))
            mobility = b.value(token, model_scope, model_card.where) if token else (lambda: 600.0)
            tox = functions["TOX"]
            functions["KP"] = lambda: mobility() * EPS_OX / tox() * 1e-4
    functions.update({INSTANCE[key]: b.value(token, scope, card.where) for key, token in instance.items()})
    tnom_token = options.get("tnom", options.get("tref"))
    tnom = b.value(tnom_token, model_scope, model_card.where) if tnom_token else \
        (lambda: b.ctx.option("tnom"))
    functions.update({"T": lambda: b.ctx.option("temp") + KELVIN, "TNOM": lambda: tnom() + KELVIN,
                      "GMIN": lambda: b.ctx.option("gmin")})
    for param, function in functions.items():
        values[param] = function()
        b.bind(path + param, function, card.where)
    return MOSFET(name, **values), ["d", "g", "s", "b"]
