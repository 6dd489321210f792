"""Running the analyses of a :class:`~physlib.spice.deck.SpiceDeck` with physlib's own."""
from __future__ import annotations

import numpy as np

from .errors import SpiceError

__all__ = ["run_op", "run_dc", "run_tran", "run_ac"]


def _dc_op(deck, p, inputs=None, guess=None):
    sim = deck.compile()
    given = deck._dc_inputs() if hasattr(deck, "_dc_inputs") else {}
    given.update(inputs or {})
    guesses = {"x_guess": guess.states, "z_guess": guess.algebraic} if guess is not None else {}
    return sim.operating_point(t=0.0, params=p, inputs=given, **guesses)


def run_op(deck, params):
    p = deck.parameter_values(params)
    op = _dc_op(deck, p)
    return deck._result("op", None, None, lambda path: op[path], op)


def run_dc(deck, src, values, params):
    sources = deck._builder.sources
    if src not in sources:
        raise SpiceError(f".dc: no independent source {src!r} (sources: {', '.join(sources)})")
    p = deck.parameter_values(params)
    path = sources[src]["input"]
    points, previous = [], None
    for value in values:
        previous = _dc_op(deck, p, {path: float(value)}, previous)
        points.append(previous)
    scale = "v-sweep" if path.endswith(".V") else "i-sweep"
    return deck._result("dc", scale, values, lambda name: np.array([op[name] for op in points]),
                        points)


def run_tran(deck, tstep, tstop, tstart, tmax, uic, params, t_eval):
    if not (tstep > 0 and tstop > tstart >= 0):
        raise SpiceError(f".tran {tstep} {tstop} {tstart}: need tstep > 0 and tstop > tstart >= 0")
    saved = deck._ctx.tran_values
    deck._ctx.tran_values = (tstep, tstop)
    try:
        p = deck.parameter_values(params)
    finally:
        deck._ctx.tran_values = saved
    sim = deck.compile()
    x0 = None
    if not uic:
        x0 = sim.operating_point(t=0.0, params=p).states
    if t_eval is None:
        count = int(np.floor((tstop - tstart) / tstep + 1e-9))
        t_eval = np.append(tstart + tstep * np.arange(count + 1), tstop)
        t_eval = np.unique(t_eval[t_eval <= tstop])
    max_step = tmax if tmax else min(tstep, (tstop - tstart) / 50)
    rtol = min(deck.options["reltol"], 1e-6)
    atol = min(deck.options["vntol"], 1e-8)
    res = sim.simulate(tstop, t_eval=t_eval, params=p, x0=x0, rtol=rtol, atol=atol,
                       max_step=max_step)
    keep = res.t >= tstart
    return deck._result("tran", "time", res.t[keep], lambda name: np.asarray(res[name])[keep], res)


def run_ac(deck, freqs, params):
    sources = [(name, s) for name, s in deck._builder.sources.items() if s["ac"]]
    if not sources:
        raise SpiceError(".ac: no source has an AC value (add 'AC 1' to a V or I source)")
    p = deck.parameter_values(params)
    op = _dc_op(deck, p)
    nodes = [path for path in deck.nodes.values() if path]
    currents = [path for path in deck._builder.elements
                if path.rsplit(".", 1)[-1][0] != "x"]              # every element's current
    outputs = [n + ".v" for n in nodes] + [c + ".i" for c in currents]
    lin = deck.compile().linearize([s["input"] for _, s in sources], outputs, at=op)
    response = lin.frequency_response(freqs)                   # outputs × inputs × f
    phasors = np.array([s["ac"][0]() * np.exp(1j * np.deg2rad(s["ac"][1]())) for _, s in sources])
    values = dict(zip(outputs, np.einsum("oif,i->of", response, phasors)))

    def read(name):
        if name not in values:
            raise SpiceError(f".ac has no vector for {name} (node voltages and source currents "
                             "only)")
        return values[name]
    return deck._result("ac", "frequency", freqs, read, lin)
