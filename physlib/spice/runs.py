"""Running the analyses of a :class:`~physlib.spice.deck.SpiceDeck` with physlib's own:
operating points (``.op``; ``.dc`` in :mod:`physlib.spice.dcsweep`), simulate (``.tran``),
the linear model at the DC operating point (``.ac``, ``.pz``; ``.tf`` and ``.sens`` in
:mod:`physlib.spice.transfer`) and noise at ports (``.noise``)."""
from __future__ import annotations

import re
import weakref

import numpy as np

from ..core.arrays import sorted_unique
from .bjt import refuse_excess_phase
from .checks import holdable
from .errors import SpiceError
from .results import SpiceResult

__all__ = ["run_op", "run_tran", "run_ac", "run_noise", "run_pz", "dc_op", "source_settings",
           "spice_result", "node_voltage", "injected"]

KELVIN = 273.15                 # ngspice's CONSTCtoK
N_MINLOG = 1e-38                # ngspice's floor under a density before its logarithm
N_MINGAIN = 1e-20               # ngspice's floor under |gain|² for input-referred noise
N_INTFTHRESH = 1e-10            # ngspice's threshold for a power law's exponent of 0 or -1
# ngspice's noise sources of an element, by its letter (the rest: one source, the element's)
NOISE_PARTS = {"r": ("thermal", "1overf"), "d": ("rs", "id", "1overf"),
               "q": ("rc", "rb", "re", "ic", "ib", "1overf"), "j": ("rd", "rs", "id", "1overf")}
_OUTPUT = re.compile(r"\s*v\s*\(\s*([^,\s)]+)\s*(?:,\s*([^,\s)]+)\s*)?\)\s*$", re.I)


_HOLDING = weakref.WeakKeyDictionary()     # deck -> {held pins: compiled copy with injections}


def source_settings(deck, params):
    """(the compiled model's ``params=``, the inputs that hold the sources at their DC values)
    for the ``.param`` values ``params``."""
    dc = {}                 # inputs of the sources whose DC value differs from their t = 0 one
    with deck.evaluating(params):
        for source in deck.sources.values():
            if source["waveform"] and source["dc"]() != source["at0"]():
                dc[source["input"]] = source["dc"]()
    return deck.parameter_values(params), dc


def spice_result(deck, kind, scale, values, read, raw, vectors=None):
    """The :class:`SpiceResult` of an analysis of ``deck``: ``read`` (variable path → values)
    gives its node voltages and the currents of its elements (subcircuit instances have
    none), ``vectors`` its own ones."""
    return SpiceResult(kind, scale, values, read, deck.circuit_vectors, raw, vectors)


def _guesses(sim, point) -> dict:
    """``x_guess``/``z_guess`` for ``sim`` read from ``point`` (an operating point of the deck's
    model or of a copy of it with injections), or nothing."""
    if point is None:
        return {}
    # the two models' index reductions may differ (holding a node beside a capacitor that an E
    # output fixes leaves out the dummy derivative der(v) the free model has): a derivative
    # the point lacks is 0 at DC, any other name it lacks is left to the solver's start
    known = point.model.has_variable

    def values(names):
        return {n: point[n] if known(n) else 0.0 for n in names
                if known(n) or n.startswith("der(")}
    return {"x_guess": values(sim.states), "z_guess": values(sim.algebraic)}


def injected(deck, pins: tuple):
    """(compiled copy of the deck's model with a current injected into each pin of ``pins``,
    positive into its node and zero unless set; the injections' parameter paths in the order
    of ``pins``), compiled once per deck and tuple of pins."""
    from ..analysis.linear.analysis_points import inject_through, with_analysis_points
    cache = _HOLDING.setdefault(deck, {})
    if pins not in cache:
        points = [inject_through(pin) for pin in pins]
        copy, paths = with_analysis_points(deck.model, points)
        cache[pins] = (copy.compile(), [paths[point] for point in points])
    return cache[pins]


def _held(deck, held, p, inputs, guess):
    """The steady state with each node of ``held`` ({pin path: value}) held at its value, as
    ngspice's operating point holds ``.ic`` and (at first) ``.nodeset`` nodes by replacing
    their KCL rows: a copy of the deck's model with a current injected into each such node,
    solved by ``trim`` for those currents (compiled once per deck and set of nodes); a node
    that voltage sources already fix is left to them (:func:`~physlib.spice.checks.holdable`)."""
    held = holdable(deck, held)
    if not held:
        sim = deck.compile()
        return sim.operating_point(t=0.0, params=p, inputs=inputs, **_guesses(sim, guess))
    pins = tuple(sorted(held))
    sim, free = injected(deck, pins)
    return sim.trim({pin + ".v": held[pin] for pin in pins}, free, t=0.0, params=p,
                    inputs=inputs, **_guesses(sim, guess))


def dc_op(deck, settings, inputs=None, guess=None, params=None, hold=None):
    """The operating point with the sources at their DC values (``settings``) and ``inputs``,
    from ``guess`` (an operating point) or else as ngspice starts it: ``.nodeset`` nodes held
    at their values first, then released; ``hold`` ({pin path: value}, the ``.ic`` values of a
    transient without uic) held to the end."""
    p, given = settings
    inputs = {**given, **(inputs or {})}
    nodeset = deck.node_values("nodeset", params) if guess is None else {}
    if nodeset:
        guess = _held(deck, {**nodeset, **(hold or {})}, p, inputs, None)
    if hold:
        return _held(deck, hold, p, inputs, guess)
    sim = deck.compile()
    return sim.operating_point(t=0.0, params=p, inputs=inputs, **_guesses(sim, guess))


def run_op(deck, params):
    op = dc_op(deck, source_settings(deck, params), params=params)
    return spice_result(deck, "op", None, None, lambda path: op[path], op)


def run_tran(deck, tstep, tstop, tstart, tmax, uic, params, t_eval):
    if not (tstep > 0 and tstop > tstart >= 0):
        raise SpiceError(f".tran {tstep} {tstop} {tstart}: need tstep > 0 and tstop > tstart >= 0")
    p = deck.parameter_values(params, tran=(tstep, tstop))
    sim = deck.compile()
    start = x0 = None
    guess = {}
    if not uic:
        hold = deck.node_values("ic", params)
        start = dc_op(deck, (p, {}), params=params, hold=hold)
        # without held nodes the whole operating point, as vectors (no names: half a second
        # for a million elements): its states, and its algebraic variables where the start's
        # solve begins (from the start values, a TL072 whose input starts at -1 V began with
        # its input pair's gate junctions 1 V forward)
        x0 = {n: start[n] for n in sim.states} if hold else start
        guess = {} if hold else start
        start = start if hold else None
    if t_eval is None:
        count = int(np.floor((tstop - tstart) / tstep + 1e-9))
        # k·(tstop − tstart)/count rounds once, so whole multiples of tstep (a .meas window's
        # ends) are met exactly; tstart + k·tstep would drift below them
        span = count * tstep
        times = tstart + (tstop - tstart) * np.arange(count + 1) / count \
            if abs(span - (tstop - tstart)) <= 1e-9 * (tstop - tstart) else \
            tstart + tstep * np.arange(count + 1)
        t_eval = sorted_unique(np.append(times[times <= tstop], tstop))
    max_step = tmax if tmax else min(tstep, (tstop - tstart) / 50)
    rtol = min(deck.options["reltol"], 1e-6)
    atol = min(deck.options["vntol"], 1e-8)
    res = sim.simulate(tstop, t_eval=t_eval, params=p, x0=x0, z_guess=guess, rtol=rtol,
                       atol=atol, max_step=max_step)
    keep = res.t >= tstart

    def read(name):
        values = np.array(res[name], dtype=float)
        if start is not None and res.t[0] == 0.0:
            values[0] = start[name]     # ngspice's t = 0 row: the point with .ic nodes held
        return values[keep]
    return spice_result(deck, "tran", "time", res.t[keep], read, res)


def run_ac(deck, freqs, params):
    """The response [V, A] at ``freqs`` [Hz] to every source's ``AC mag phase`` together. Node
    voltages and the sources' currents (ngspice's vectors) are computed here; the other
    elements' currents when one is first read, all in one batch (linearized then): most runs
    never read them, and they are two thirds of a ladder's outputs."""
    sources = [(name, s) for name, s in deck.sources.items() if s["ac"]]
    if not sources:
        raise SpiceError(".ac: no source has an AC value (add 'AC 1' to a V or I source)")
    refuse_excess_phase(deck, ".ac", params)
    op = dc_op(deck, source_settings(deck, params), params=params)
    sim = deck.compile()
    inputs = [s["input"] for _, s in sources]
    eager = [path + ".v" for path in deck.nodes.values() if path] + \
        [path + ".i" for path in deck.sources if sim.has_variable(path + ".i")]
    lin = sim.linearize(inputs, eager, at=op, descriptor="auto")
    with deck.evaluating(params):
        phasors = [s["ac"][0]() * np.exp(1j * np.deg2rad(s["ac"][1]())) for _, s in sources]

    def responses(lin):
        """{output: its response to the sources' phasors together} (output × source × f)."""
        response = lin.frequency_response(freqs)
        total = response[:, 0, :]           # in place: a ladder's is 80 MB
        if phasors[0] != 1.0:
            total *= phasors[0]
        for k in range(1, len(phasors)):
            total += response[:, k, :] * phasors[k]
        return dict(zip(lin.outputs, total))
    values = responses(lin)
    later = []

    def read(name):
        if name not in values and not later:    # the first of the others: all of them
            later.extend(path + ".i" for path in deck.elements      # every two-pin element's
                         if path.rsplit(".", 1)[-1][0] != "x" and path not in deck.sources
                         and sim.has_variable(path + ".i"))
            if later:
                values.update(responses(sim.linearize(inputs, later, at=op, descriptor="auto")))
        if name not in values:
            raise SpiceError(f".ac has no vector for {name} (node voltages and element currents "
                             "only)")
        return values[name]
    return spice_result(deck, "ac", "frequency", freqs, read, lin)


def node_voltage(deck, node: str, what: str) -> str | None:
    """The voltage path of a node (None for ground)."""
    node = node.lower()
    if node in ("0", "gnd"):
        return None
    if node not in deck.nodes:
        raise SpiceError(f"{what}: no node {node!r} in the deck (nodes: "
                         f"{', '.join(sorted(n for n in deck.nodes if deck.nodes[n]))})")
    return deck.nodes[node] + ".v"


def _ac_source(deck, src: str, what: str) -> dict:
    sources = deck.sources
    if src not in sources:
        raise SpiceError(f"{what}: no independent source {src!r} (sources: "
                         f"{', '.join(sources) or 'none'})")
    if not sources[src]["ac"]:
        raise SpiceError(f"{what}: source {src} has no AC value, so ngspice refuses it as the "
                         "noise input; add 'AC 1' to its line")
    return sources[src]


def _noise_name(deck, path: str) -> tuple[str, str | None]:
    """(ngspice's element name, the source's part or None) of a physlib noise source:
    ``r1`` → ("r1", None), ``d1.rs`` → ("d1", "rs"), ``x1.d1.id`` → ("d.x1.d1", "id")."""
    element, part = (path, None) if path in deck.elements else path.rsplit(".", 1)
    if element not in deck.elements:
        raise SpiceError(f".noise: the noise source {path} is not an element of the deck")
    letter = element.rsplit(".", 1)[-1][0]
    return (f"{letter}.{element}" if "." in element else element), part


def _integrate(f, density):
    """ngspice's integral of a density over each interval of ``f`` (a power law between the
    two points, as its ``Nintegrate``): one value per interval after the first point."""
    ln_f = np.log(np.maximum(f, N_MINLOG))
    ln_d = np.log(np.maximum(density, N_MINLOG))
    d_ln_f = np.diff(ln_f)
    out = np.empty(len(f) - 1)
    for k in range(len(f) - 1):
        exponent = (ln_d[k + 1] - ln_d[k]) / d_ln_f[k]
        if abs(exponent) < N_INTFTHRESH:
            out[k] = density[k + 1] * (f[k + 1] - f[k])
            continue
        a = np.exp(ln_d[k + 1] - exponent * ln_f[k + 1])
        exponent += 1.0
        if abs(exponent) < N_INTFTHRESH:
            out[k] = a * d_ln_f[k]
        else:
            out[k] = a * (np.exp(exponent * ln_f[k + 1]) - np.exp(exponent * ln_f[k])) / exponent
    return out


def run_noise(deck, output, src, freqs, params):
    match = _OUTPUT.match(output)
    if not match:
        raise SpiceError(f".noise output {output!r}: give a node voltage, v(out) or v(out,ref)")
    source = _ac_source(deck, src, ".noise")
    refuse_excess_phase(deck, ".noise", params)
    paths = [p for p in (node_voltage(deck, n, ".noise") for n in match.groups() if n) if p]
    if not paths:
        raise SpiceError(f".noise output {output}: both nodes are ground")
    op = dc_op(deck, source_settings(deck, params), params=params)
    sim = deck.compile()
    result = sim.noise(paths[0] if len(paths) == 1 else tuple(paths), freqs,
                       T=deck.options["temp"] + KELVIN, at=op)
    # Input-referred: divided by the gain from the input source at AC 1 alone (ngspice-39).
    gain_model = sim.linearize([source["input"]], paths, at=op, descriptor="auto")
    response = gain_model.frequency_response(freqs)[:, 0]
    gain = response[0] - response[1] if len(paths) == 2 else response[0]
    gain_sq_inv = 1.0 / np.maximum(np.abs(gain) ** 2, N_MINGAIN)

    parts: dict[str, dict[str, np.ndarray]] = {}      # ngspice element -> part -> PSD [V²/Hz]
    for s in result.sources:
        name, part = _noise_name(deck, s.path)
        psd = np.asarray(result.contributions[s.path], dtype=float)
        letter = name.rsplit(".", 1)[-1][0]
        table = parts.setdefault(name, dict.fromkeys(NOISE_PARTS.get(letter, ()), 0.0 * psd))
        if part is not None:
            table[part] = table.get(part, 0.0) + psd
        elif letter == "d":               # a diode without RS: one source, white + 1/f
            white = s.density / (s.density + s.flicker / freqs) if s.flicker else 1.0
            table["id"], table["1overf"] = psd * white, psd * (1.0 - white)
        elif letter == "r":
            table["thermal"] = psd
        else:
            table[""] = psd
    total = np.asarray(result.psd, dtype=float)
    vectors = {"onoise_spectrum": np.sqrt(total), "inoise_spectrum": np.sqrt(total * gain_sq_inv)}
    for name, table in parts.items():
        vectors[f"onoise_{name}"] = np.sqrt(sum(table.values()))
        vectors.update({f"onoise_{name}_{part}": np.sqrt(psd) for part, psd in table.items()
                        if part})
    if len(freqs) > 1 and freqs[0] != freqs[-1]:
        vectors.update(_noise_totals(freqs, parts, gain_sq_inv))
    return spice_result(deck, "noise", "frequency", freqs, None, result, vectors)


def _noise_totals(freqs, parts, gain_sq_inv) -> dict:
    """ngspice's integrated noise [V or A]: each source's density integrated interval by
    interval, the input-referred one with the gain at each interval's upper end."""
    out_sum, in_sum, vectors = 0.0, 0.0, {}
    for name, table in parts.items():
        element_out = element_in = 0.0
        for part, psd in table.items():
            steps = _integrate(freqs, psd)
            o, i = float(steps.sum()), float((steps * gain_sq_inv[1:]).sum())
            element_out, element_in = element_out + o, element_in + i
            if part:
                vectors[f"onoise_total_{name}_{part}"] = np.sqrt(o)
                vectors[f"inoise_total_{name}_{part}"] = np.sqrt(i)
        vectors[f"onoise_total_{name}"] = np.sqrt(element_out)
        vectors[f"inoise_total_{name}"] = np.sqrt(element_in)
        out_sum, in_sum = out_sum + element_out, in_sum + element_in
    vectors["onoise_total"], vectors["inoise_total"] = np.sqrt(out_sum), np.sqrt(in_sum)
    return vectors


def _input_source(deck, in_p: str, in_n: str):
    """(name, source) of the independent source of the top level across the input nodes."""
    from .lexer import split
    port = {("0" if n in ("0", "gnd") else n) for n in (in_p, in_n)}
    for name, source in deck.sources.items():
        nodes = split(source["where"].text, source["where"])[1:3]
        if "." not in name and {("0" if n.lower() == "gnd" else n.lower()) for n in nodes} == port:
            return name, source
    raise SpiceError(f".pz {in_p} {in_n}: physlib's pole-zero analysis needs the independent "
                     f"V or I source across the input nodes; add 'Vin {in_p} {in_n} 0 AC 1' "
                     f"(vol) or 'Iin {in_p} {in_n} 0 AC 1' (cur)")


def run_pz(deck, in_p, in_n, out_p, out_n, transfer, find, params):
    """Poles and zeros [rad/s] of v(out_p, out_n) over the input: a voltage across in_p, in_n
    (``vol``) or a current into it (``cur``). The deck's source across the input port drives
    it; when its kind is the other one (a V source for ``cur``), the port is opened (its
    current is the input) or held (its voltage is): the transfer function without cancelling
    common factors, like ngspice's determinant-based one."""
    import scipy.linalg
    if transfer not in ("vol", "cur") or find not in ("pol", "zer", "pz"):
        raise SpiceError(f".pz ... {transfer} {find}: give vol or cur, then pol, zer or pz")
    name, source = _input_source(deck, in_p.lower(), in_n.lower())
    refuse_excess_phase(deck, ".pz", params)
    outputs = [n for n in (node_voltage(deck, out_p, ".pz"), node_voltage(deck, out_n, ".pz")) if n] + \
        [n for n in (node_voltage(deck, in_p, ".pz"), node_voltage(deck, in_n, ".pz")) if n]
    if not outputs[:2] or out_p.lower() == out_n.lower():
        raise SpiceError(f".pz output {out_p} {out_n}: give two different nodes")
    is_voltage = source["input"].endswith(".V")
    port = [name + ".i"] if is_voltage else []
    op = dc_op(deck, source_settings(deck, params), params=params)
    lin = deck.compile().linearize([source["input"]], outputs + port, at=op)
    A, B, C, D = lin.A, lin.B, lin.C, lin.D
    n_out = len([n for n in (out_p, out_n) if n.lower() not in ("0", "gnd")])
    sign_out = np.array([1.0, -1.0][:n_out]) if out_p.lower() not in ("0", "gnd") else np.array([-1.0])
    c1, d1 = sign_out @ C[:n_out], sign_out @ D[:n_out]
    n = A.shape[0]
    if (transfer == "vol") == is_voltage:
        a_hat, e_hat, b_hat, c_hat, d_hat = A, np.eye(n), B, c1[None, :], d1[None, :]
    else:
        # The port's other variable: the source current for a V source, the voltage across
        # in_p, in_n for an I source; it becomes the input, the source's value an unknown.
        if is_voltage:
            c2, d2 = C[-1], D[-1]
        else:
            rows = C[n_out:], D[n_out:]
            sign_in = np.array([1.0, -1.0][:len(rows[0])]) if in_p.lower() not in ("0", "gnd") \
                else np.array([-1.0])
            c2, d2 = sign_in @ rows[0], sign_in @ rows[1]
        a_hat = np.block([[A, B], [c2[None, :], d2[None, :]]])
        e_hat = np.block([[np.eye(n), np.zeros((n, 1))], [np.zeros((1, n + 1))]])
        b_hat = np.vstack([np.zeros((n, 1)), [[-1.0]]])
        c_hat, d_hat = np.hstack([c1, d1])[None, :], np.zeros((1, 1))
    scale = max(1.0, float(np.max(np.abs(A)))) if A.size else 1.0
    poles = _finite_eigenvalues(a_hat, e_hat, scale, scipy.linalg)
    zeros = _finite_eigenvalues(np.block([[a_hat, b_hat], [c_hat, d_hat]]),
                                scipy.linalg.block_diag(e_hat, np.zeros((1, 1))), scale,
                                scipy.linalg)
    vectors = {}
    if find in ("pol", "pz"):
        vectors.update({f"pole({k})": v for k, v in enumerate(poles, 1)})
    if find in ("zer", "pz"):
        vectors.update({f"zero({k})": v for k, v in enumerate(zeros, 1)})
    return spice_result(deck, "pz", None, None, None, lin, vectors)


def _finite_eigenvalues(a, e, scale, linalg) -> list[complex]:
    """The finite generalized eigenvalues of (a, e) [rad/s], ascending by real part (then
    positive imaginary part first), as ngspice lists them; computed on (a/scale, e) so that
    the infinite ones (beta ≈ 0) are told apart from large finite ones."""
    if not a.size:
        return []
    from ..analysis.linear.linear_model import balanced_pencil
    a, e = balanced_pencil(a, e)        # (unbalanced, a common-emitter stage's poles went unstable)
    alpha, beta = linalg.eig(a / scale, e, right=False, homogeneous_eigvals=True)
    keep = np.abs(beta) > 1e-9 * np.maximum(np.abs(alpha), 1.0)
    values = alpha[keep] / beta[keep] * scale
    values = np.where(np.abs(values.imag) <= 1e-12 * np.abs(values), values.real + 0j, values)
    return sorted((complex(v) for v in values), key=lambda v: (v.real, -v.imag))
