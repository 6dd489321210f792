"""The ``M`` element: ``Mname nd ng ns nb model [l= w= m= ad= as= pd= ps= nrd= nrs=]`` with
``.model model NMOS(level=1 ...)`` or ``PMOS(...)``, physlib's
:class:`~physlib.components.electrical.MOSFET` of level 1, 2 or 3 (ngspice-39's ``mos1``,
``mos2``, ``mos3``) with the model's parameters (:data:`MOSFET_PARAMETERS`,
:data:`LEVEL2_PARAMETERS`, :data:`LEVEL3_PARAMETERS`)."""
from __future__ import annotations

import math

from ..components.electrical.semiconductors.junctions import band_gap
from ..components.electrical.semiconductors.mosfet import EPS_OX, MOSFET
from ..components.electrical.semiconductors.mosfet.level3 import EPS_SI
from ..constants import CONSTANT_SETS
from .errors import SpiceError

__all__ = ["MOSFET_PARAMETERS", "mosfet"]

# ngspice-39's level-1 model parameters (its MOS1mPTable) that physlib's MOSFET has.
MOSFET_PARAMETERS = {"vto": "VTO", "vt0": "VTO", "kp": "KP", "gamma": "GAMMA", "phi": "PHI",
                     "lambda": "LAMBDA", "rd": "RD", "rs": "RS", "cbd": "CBD", "cbs": "CBS",
                     "is": "IS", "pb": "PB", "mj": "MJ", "fc": "FC", "cgso": "CGSO",
                     "cgdo": "CGDO", "cgbo": "CGBO", "tox": "TOX", "kf": "KF", "af": "AF",
                     "cj": "CJ", "cjsw": "CJSW", "mjsw": "MJSW", "js": "JS", "ld": "LD"}
MOSFET_OTHER = ("level", "tnom", "tref", "uo", "u0", "rsh", "nsub", "nss", "tpg")
# ngspice-39's level-3 model parameters (MOS3mPTable) beyond level 1's, without LAMBDA, and
# the SI scale of each (NFS is per cm²·V, NSUB per cm³, UO in cm²/V·s in SPICE)
LEVEL3_PARAMETERS = {"theta": ("THETA", 1.0), "eta": ("ETA", 1.0), "kappa": ("KAPPA", 1.0),
                     "vmax": ("VMAX", 1.0), "nfs": ("NFS", 1e4), "xj": ("XJ", 1.0),
                     "delta": ("DELTA", 1.0)}
LEVEL3_UNSUPPORTED = ("xl", "wd", "xw", "delvto", "delvt0", "xd", "alpha", "input_delta")
# ngspice-39's level-2 model parameters (MOS2mPTable) beyond level 1's, with their SI scales
# (UCRIT is in V/cm in SPICE); NSUB and UO as level 3
LEVEL2_PARAMETERS = {"nfs": ("NFS", 1e4), "xj": ("XJ", 1.0), "delta": ("DELTA", 1.0), "vmax": ("VMAX", 1.0),
                     "ucrit": ("UCRIT", 100.0), "uexp": ("UEXP", 1.0), "neff": ("NEFF", 1.0)}
# SPICE2's level-2 mobility temperature coefficient: no ngspice-39 MOSFET has it (it warns)
IGNORED = ("utra",)
# ngspice's defaults: L = W = 100 µm, M = 1, AD = AS = PD = PS = 0; NRD = NRS = 1 (squares of RSH)
INSTANCE = {"l": "L", "w": "W", "m": "M", "ad": "AD", "as": "AS", "pd": "PD", "ps": "PS"}
SQUARES = {"nrd": "RD", "nrs": "RS"}
KELVIN = 273.15
INTRINSIC = 1.45e16                # 1/m³: mos1temp.c's intrinsic carrier density


def mosfet(b, name, tokens, card, scope, prefix, find_model, split_options):
    """(MOSFET, its pins in the card's node order) for ``Mname nd ng ns nb model [l= w= m= ad=
    as= pd= ps= nrd= nrs=]``: the model's parameters, the circuit temperature as T, the model's
    ``tnom=`` (else ``.options tnom``) as TNOM and ``.options gmin`` across each bulk junction,
    as mos1load.c. With TOX and without KP, KP = UO·3.9·ε0/TOX·1e-4 (UO [cm²/V·s], default
    600) as mos1temp.c; TOX brings Meyer's gate capacitances. NSUB [1/cm³] (with TOX) sets
    PHI, GAMMA and VTO where they are absent (with NSS, TPG), as mos1temp.c. Without RD (RS),
    RSH·NRD (RSH·NRS) is the drain (source) resistance, NRD and NRS 1 by default, as
    mos1temp.c. ``level=2`` takes LAMBDA, NFS, XJ, DELTA, UCRIT, UEXP, VMAX, NEFF, NSUB, UO
    besides, ``level=3`` THETA, ETA, KAPPA, VMAX, NFS, XJ, DELTA, NSUB, UO
    (and not LAMBDA), both with ngspice's defaults (TOX 1e-7 m, MJSW 0.33), level 3 with
    mos3temp.c's intrinsic density for PHI from NSUB; XL, WD, XW, DELVTO, XD, ALPHA are
    SpiceErrors, as is any level but 1, 2 and 3; UTRA is a SpiceWarning (ngspice ignores it)."""
    positional, instance = split_options(tokens[1:], card.where, tuple(INSTANCE) + tuple(SQUARES))
    if len(positional) != 5:
        raise SpiceError("M takes Mname nd ng ns nb model [l= w= m= ad= as= pd= ps= nrd= nrs=] "
                         "(off, ic=, temp= are not supported yet)", card.where)
    kind, params, model_card, model_scope = find_model(scope, positional[4].lower(), card.where)
    if kind not in ("nmos", "pmos"):
        raise SpiceError(f"M needs a MOSFET .model (NMOS or PMOS), {positional[4]} is "
                         f"{kind.upper()}", card.where)
    level, options = _level_options(b, params, model_scope, model_card, split_options)
    functions = _model_functions(b, options, model_scope, model_card)
    values, path = {"channel": "P" if kind == "pmos" else "N", "level": level,
                    "constants": b.ctx.constants}, f"{prefix}{name}."
    tnom_token = options.get("tnom", options.get("tref"))
    tnom = b.value(tnom_token, model_scope, model_card.where) if tnom_token else \
        (lambda: b.ctx.option("tnom"))
    if level != 1:
        _staged_defaults(b, functions, options, (model_scope, model_card), level)
    _mobility(b, functions, options, (model_scope, model_card))
    if "nsub" in options and "TOX" in functions and functions["TOX"]() > 0:
        _doping_defaults(b, functions, options, values["channel"], tnom, (model_scope, model_card),
                         _intrinsic_density(tnom, b.ctx.constants) if level == 3 else (lambda: INTRINSIC))
    functions.update({INSTANCE[key]: b.value(token, scope, card.where)
                      for key, token in instance.items() if key in INSTANCE})
    _sheet_resistances(b, functions, options, instance, (scope, card), (model_scope, model_card))
    _warn_zero_junction_capacitance(b, name, functions, model_card)
    functions.update({"T": lambda: b.ctx.option("temp") + KELVIN, "TNOM": lambda: tnom() + KELVIN,
                      "GMIN": lambda: b.ctx.option("gmin")})
    d, g, s, bulk = positional[:4]
    functions.update(b.start_voltages(prefix, {"vds0": (d, s), "vgs0": (g, s), "vbs0": (bulk, s)}))
    for param, function in functions.items():
        values[param] = b.bind(path + param, function, card.where)
    return MOSFET(name, **values), ["d", "g", "s", "b"]


def _level_options(b, params, model_scope, model_card, split_options):
    """(level, {key: value token}) of a MOSFET ``.model`` card's parameters: level 1, 2 or 3,
    each with its own table; a parameter ngspice-39 has at that level but physlib does not is
    a SpiceError naming it, UTRA (which ngspice ignores) a warning."""
    allowed = tuple(MOSFET_PARAMETERS) + MOSFET_OTHER + tuple(LEVEL3_PARAMETERS) + LEVEL3_UNSUPPORTED + \
        tuple(LEVEL2_PARAMETERS) + IGNORED
    _, options = split_options(params, model_card.where, allowed)
    level = b.value(options["level"], model_scope, model_card.where)() if "level" in options else 1
    if level not in (1, 2, 3):
        raise SpiceError(f"MOSFET level={level:g} is not supported; physlib has levels 1, 2 and 3 "
                         "(ngspice's mos1, mos2, mos3)", model_card.where)
    level = int(level)
    own = {1: (), 2: tuple(LEVEL2_PARAMETERS), 3: tuple(LEVEL3_PARAMETERS)}[level]
    foreign = [key for key in options if key in LEVEL3_UNSUPPORTED or (key == "lambda" and level == 3) or
               (key in tuple(LEVEL2_PARAMETERS) + tuple(LEVEL3_PARAMETERS) and key not in own)]
    if foreign:
        raise SpiceError(f"{', '.join(k + '=' for k in foreign)} not supported on a level-{level} "
                         f"MOSFET here", model_card.where)
    for key in IGNORED:
        if key in options:
            b.ctx.warn(model_card.where, f"{key}= ignored, as ngspice-39 ignores it (none of its MOSFET "
                       "levels 1-3 has it)")
            del options[key]
    return level, options


def _staged_defaults(b, functions, options, model, level):
    """The level-2 or level-3 parameters of the card into ``functions`` (in SI units), and
    ngspice's defaults of these levels where they differ from level 1's: TOX 1e-7 m, MJSW 0.33
    (mos2set.c, mos3set.c)."""
    for key, (target, scale) in (LEVEL2_PARAMETERS if level == 2 else LEVEL3_PARAMETERS).items():
        if key in options:
            value = b.value(options[key], model[0], model[1].where)
            functions[target] = (lambda value, scale: lambda: value() * scale)(value, scale)
    for key, target, scale in (("nsub", "NSUB", 1e6), ("uo", "UO", 1e-4), ("u0", "UO", 1e-4)):
        if key in options:
            value = b.value(options[key], model[0], model[1].where)
            functions[target] = (lambda value, scale: lambda: value() * scale)(value, scale)
    functions.setdefault("TOX", lambda: 1e-7)
    functions.setdefault("MJSW", lambda: 0.33)


def _intrinsic_density(tnom, constants):
    """mos3temp.c's intrinsic carrier density at TNOM [1/m³]: 1.45e16·(T/300)^1.5·
    exp(Eg(T)/(2·k/q)·(1/300 − 1/T)), k and q of the set named ``constants``."""
    k_over_q = CONSTANT_SETS[constants].thermal_voltage(1.0)

    def density():
        t = tnom() + KELVIN
        return INTRINSIC * (t / 300) ** 1.5 * math.exp(0.5 * float(band_gap(t)) * (1 / 300 - 1 / t) / k_over_q)
    return density


def _mobility(b, functions, options, model):
    """KP = UO·3.9·ε0/TOX·1e-4 (UO [cm²/V·s], default 600) where KP is absent and TOX > 0
    (mos1temp.c)."""
    if "TOX" in functions and functions["TOX"]() > 0 and "KP" not in functions:
        token = options.get("uo", options.get("u0"))
        mobility = b.value(token, model[0], model[1].where) if token else (lambda: 600.0)
        tox = functions["TOX"]
        functions["KP"] = lambda: mobility() * EPS_OX / tox() * 1e-4


def _doping_defaults(b, functions, options, channel, tnom, model, intrinsic):
    """PHI, GAMMA, VTO from NSUB [1/cm³] where absent, as mos1temp.c and mos3temp.c: PHI =
    2·vt(TNOM)·ln(NSUB/ni) (``intrinsic`` gives ni [1/m³]: mos1's 1.45e10/cm³, mos3's at TNOM;
    at least 0.1 V; NSUB below ni is an error), GAMMA = √(2·εSi·q·NSUB)/Cox, VTO = vfb + tp·(GAMMA·√PHI
    + PHI) with the flat-band voltage vfb of the gate type TPG (default 1) and NSS [1/cm²]."""
    def value(key, default):
        return b.value(options[key], model[0], model[1].where) if key in options else (lambda: default)
    doping, nss, gate = value("nsub", None), value("nss", 0.0), value("tpg", 1.0)
    tp, tox, (k_B, q) = (1 if channel == "N" else -1), functions["TOX"], CONSTANT_SETS[b.ctx.constants]
    if doping() * 1e6 <= intrinsic():
        raise SpiceError(f"nsub={doping():g} is below the intrinsic carrier density "
                         f"{intrinsic() * 1e-6:.4g}/cm³", model[1].where)
    phi = functions.get("PHI") or \
        (lambda: max(0.1, 2 * k_B * (tnom() + KELVIN) / q * math.log(doping() * 1e6 / intrinsic())))
    gamma = functions.get("GAMMA") or (lambda: math.sqrt(2 * EPS_SI * q * doping() * 1e6) / (EPS_OX / tox()))

    def threshold():
        eg = float(band_gap(tnom() + KELVIN))
        work = 3.25 + 0.5 * eg - tp * gate() * 0.5 * eg if gate() != 0 else 3.2
        flat = work - (3.25 + 0.5 * eg + tp * 0.5 * phi()) - nss() * 1e4 * q / (EPS_OX / tox())
        return flat + tp * (gamma() * math.sqrt(phi()) + phi())
    functions.update({"PHI": phi, "GAMMA": gamma, "VTO": functions.get("VTO") or threshold})


def _model_functions(b, options, model_scope, model_card):
    """{MOSFET parameter: function giving its value} of the ``.model`` card's ``options``."""
    functions, seen = {}, {}
    for key, token in options.items():
        if key in MOSFET_OTHER or key in LEVEL3_PARAMETERS or key in LEVEL2_PARAMETERS:
            continue
        target = MOSFET_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same MOSFET parameter", model_card.where)
        seen[target] = key
        functions[target] = b.value(token, model_scope, model_card.where)
    return functions


def _sheet_resistances(b, functions, options, instance, element, model):
    """RD = RSH·NRD and RS = RSH·NRS into ``functions`` where the model gives RSH but not RD
    (RS), NRD and NRS from the element card (``instance``), 1 when absent (mos1temp.c)."""
    if "rsh" not in options:
        return
    sheet = b.value(options["rsh"], model[0], model[1].where)
    for key, target in SQUARES.items():
        if target in functions:
            continue
        squares = b.value(instance[key], element[0], element[1].where) if key in instance else (lambda: 1.0)
        functions[target] = (lambda sheet, squares: lambda: sheet() * squares())(sheet, squares)


def _warn_zero_junction_capacitance(b, name, functions, model_card):
    """A SpiceWarning where CBD=0 (CBS=0) given beside CJ·AD (CJ·AS) > 0: ngspice takes a given
    CBD as the bottom capacitance even when 0, physlib's MOSFET CJ·AD in place of a CBD of 0."""
    for cap, area in (("CBD", "AD"), ("CBS", "AS")):
        if cap in functions and functions[cap]() == 0 and "CJ" in functions and area in functions \
                and functions["CJ"]() * functions[area]() > 0:
            b.ctx.warn(model_card.where, f"{name}: {cap.lower()}=0 with cj= and {area.lower()}= > 0: "
                       f"ngspice's bottom capacitance is 0, physlib's CJ·{area} ({cap} = 0 means not given)")
