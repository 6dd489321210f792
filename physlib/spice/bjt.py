"""The ``Q`` element: ``Qname nc nb ne [ns] model`` with ``.model model NPN(...)`` or
``PNP(...)``, physlib's Gummel–Poon :class:`~physlib.components.electrical.BJT` (ngspice-39's BJT,
level 1) with the model's parameters (:data:`BJT_PARAMETERS`, ngspice's aliases included)."""
from __future__ import annotations

import math

from ..components.electrical.semiconductors.bjt import BJT
from .errors import SpiceError

__all__ = ["BJT_PARAMETERS", "bjt"]

# ngspice-39's BJT model parameters (its BJTmPTable) that physlib's BJT has: name → parameter.
BJT_PARAMETERS = {"is": "IS", "bf": "BF", "br": "BR", "nf": "NF", "nr": "NR", "vaf": "VAF", "va": "VAF",
                  "var": "VAR", "vb": "VAR", "ikf": "IKF", "ik": "IKF", "ikr": "IKR", "ise": "ISE",
                  "ne": "NE", "isc": "ISC", "nc": "NC", "rb": "RB", "rc": "RC", "re": "RE",
                  "cje": "CJE", "vje": "VJE", "pe": "VJE", "mje": "MJE", "me": "MJE", "cjc": "CJC",
                  "vjc": "VJC", "pc": "VJC", "mjc": "MJC", "mc": "MJC", "cjs": "CJS", "ccs": "CJS",
                  "csub": "CJS", "vjs": "VJS", "ps": "VJS", "mjs": "MJS", "ms": "MJS", "fc": "FC",
                  "tf": "TF", "tr": "TR", "xtb": "XTB", "eg": "EG", "xti": "XTI", "kf": "KF", "af": "AF"}
BJT_OTHER = ("level", "tnom", "tref", "subs")        # level=1 only; TNOM [°C]; SUBS 1 or -1
# ngspice reads 0 as "not given" for these: no Early effect, no high-injection roll-off.
ZERO_IS_NONE = ("VAF", "VAR", "IKF", "IKR")
KELVIN = 273.15


def bjt(b, name, tokens, card, scope, prefix, find_model, split_options):
    """(BJT, its pins in the card's node order) for ``Qname nc nb ne [ns] model``: the model's
    parameters, the circuit temperature as T, the model's ``tnom=`` (else ``.options tnom``) as
    TNOM and ``.options gmin`` (ngspice: 1e-12 S) across each junction, as bjtload.c. Without
    ``ns`` the substrate is ground, as ngspice connects it (its junction then conducts only
    GMIN·vsub and charges CJS); the substrate junction goes to the collector (SUBS=1) or the
    base (SUBS=-1), by default as ngspice's bjtsetup.c: vertical NPN, lateral PNP."""
    if len(tokens) not in (5, 6) or "=" in tokens:
        raise SpiceError("Q takes Qname nc nb ne [ns] model (area, off, ic=, temp=, m= are not "
                         "supported yet)", card.where)
    kind, params, model_card, model_scope = find_model(scope, tokens[-1].lower(), card.where)
    if kind not in ("npn", "pnp"):
        raise SpiceError(f"Q needs a bipolar .model (NPN or PNP), {tokens[-1]} is {kind.upper()}",
                         card.where)
    _, options = split_options(params, model_card.where, tuple(BJT_PARAMETERS) + BJT_OTHER)
    values, path, seen = {"pnp": kind == "pnp", "substrate": True}, f"{prefix}{name}.", {}
    for key, token in options.items():
        if key in BJT_OTHER:
            continue
        target = BJT_PARAMETERS[key]
        if target in seen:
            raise SpiceError(f"{key}= and {seen[target]}= set the same BJT parameter", model_card.where)
        seen[target] = key
        function = b.value(token, model_scope, model_card.where)
        if target in ZERO_IS_NONE:
            function = _zero_is_none(function)
        values[target] = function()
        b.bind(path + target, function, model_card.where)
    if "level" in options and b.value(options["level"], model_scope, model_card.where)() != 1:
        raise SpiceError("only the level-1 (Gummel-Poon) BJT model is supported (level=1)",
                         model_card.where)
    subs = -1 if kind == "pnp" else 1             # ngspice: vertical NPN, lateral PNP
    if "subs" in options:
        subs = b.value(options["subs"], model_scope, model_card.where)()
        if subs not in (1, -1):
            raise SpiceError(f"SUBS={subs:g}: give 1 (vertical) or -1 (lateral)", model_card.where)
    values["lateral"] = subs == -1
    tnom_token = options.get("tnom", options.get("tref"))
    tnom = b.value(tnom_token, model_scope, model_card.where) if tnom_token else \
        (lambda: b.ctx.option("tnom"))
    circuit = {"T": lambda: b.ctx.option("temp") + KELVIN, "TNOM": lambda: tnom() + KELVIN,
               "GMIN": lambda: b.ctx.option("gmin")}
    for param, function in circuit.items():
        values[param] = function()
        b.bind(path + param, function, card.where)
    if len(tokens) == 5:
        b.senses.append(("s", "0"))
        return BJT(name, **values), ["c", "b", "e"]
    return BJT(name, **values), ["c", "b", "e", "s"]


def _zero_is_none(function):
    def value():
        number = function()
        return math.inf if number == 0 else number
    return value
