"""``.four freq vectors`` (and a ``.control`` script's ``fourier``): the Fourier components of
transient vectors as ngspice-39 computes them (its ``fourier.c``).

The last period 1/freq of the transient is resampled onto ``gridsize`` (200) equally spaced
times, the period's start included and its end left out, by linear interpolation between the
result's own time points (ngspice's default interpolation degree 1), and each harmonic k < n
(n = 10) is the discrete sum over that grid: a_k = 2/N·Σ v_i·sin(2πki/N), b_k = 2/N·Σ
v_i·cos(2πki/N), magnitude hypot(a_k, b_k), phase atan2(b_k, a_k) [°] (against a sine: sin(ωt)
reads 0°, cos(ωt) 90°), the DC term Σ v_i/N with phase 0;
normalized by the fundamental (magnitude ratio, phase difference [°]); THD
100·√(Σ_{k≥2} (|c_k|/|c_1|)²) [%]. ngspice interpolates from its own time steps, physlib from
the ``.tran`` card's output points: the tstep grid should hold the 200 grid points (tstep
dividing 1/(200·freq)), or be fine enough for linear interpolation.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import SpiceError
from .results import NO_CIRCUIT, SpiceResult

__all__ = ["fourier", "run_four", "print_fourier", "script_fourier", "four_settings", "HARMONICS",
           "GRIDSIZE"]

HARMONICS = 10          # ngspice's nfreqs
GRIDSIZE = 200          # ngspice's fourgridsize


def fourier(time, values, freq: float, harmonics: int = HARMONICS,
            gridsize: int = GRIDSIZE) -> dict:
    """{"frequency", "magnitude", "phase", "norm_magnitude", "norm_phase": arrays of
    ``harmonics`` values; "thd": [%]} of ``values`` over ``time`` [s] at fundamental ``freq``
    [Hz], as ngspice-39's fourier."""
    time, values = np.asarray(time, dtype=float), np.asarray(values, dtype=float)
    if not freq > 0:
        raise SpiceError(f"fourier: the fundamental frequency must be > 0 [Hz], got {freq}")
    period, start, stop = 1.0 / freq, float(time.min()), float(time.max())
    if stop - start < period:
        raise SpiceError(f"fourier {freq:g} Hz: the transient spans {stop - start:g} s, less "
                         f"than one period ({period:g} s); run it longer")
    start = max(start, stop - period)
    grid = start + np.arange(gridsize) * ((stop - start) / gridsize)
    data = np.interp(grid, time, values)
    k = np.arange(harmonics)[:, None] * (2.0 * math.pi * np.arange(gridsize) / gridsize)
    sines, cosines = np.sin(k) @ data * (2.0 / gridsize), np.cos(k) @ data * (2.0 / gridsize)
    magnitude, phase = np.hypot(sines, cosines), np.degrees(np.arctan2(cosines, sines))
    magnitude[0], phase[0] = cosines[0] / 2.0, 0.0
    norm_magnitude, norm_phase = magnitude / magnitude[1], phase - phase[1]
    norm_magnitude[0] = norm_phase[0] = 0.0
    return {"frequency": np.arange(harmonics) * freq, "magnitude": magnitude, "phase": phase,
            "norm_magnitude": norm_magnitude, "norm_phase": norm_phase,
            "thd": 100.0 * math.sqrt(float(np.sum(norm_magnitude[2:] ** 2)))}


PARTS = ("magnitude", "phase", "norm_magnitude", "norm_phase")


def four_settings(options: dict) -> tuple[int, int]:
    """(harmonics, gridsize) from ``nfreqs`` and ``fourgridsize`` in ``options`` (a deck's
    ``.options`` or a script's variables), each its default where missing or below 1, as
    ngspice-39's fourier.c reads them."""
    return tuple(int(options[name]) if options.get(name, 0) >= 1 else default
                 for name, default in (("nfreqs", HARMONICS), ("fourgridsize", GRIDSIZE)))


def run_four(freq: float, vectors, tran: SpiceResult, harmonics: int = HARMONICS,
             gridsize: int = GRIDSIZE) -> SpiceResult:
    """The Fourier components of each of ``vectors`` (``v(out)``, ``i(v1)``, a node name, an
    expression) of the transient ``tran``: a SpiceResult (kind ``four``) whose scale
    ``frequency`` holds the harmonics' frequencies [Hz] and whose vectors are
    ``magnitude(v(out))``, ``phase(v(out))`` [°], ``norm_magnitude(v(out))``,
    ``norm_phase(v(out))`` [°] and ``thd(v(out))`` [%] for each."""
    from .vectors import evaluate_vector, parse_list
    if tran.kind != "tran":
        raise SpiceError(f"fourier needs a transient; the result is a .{tran.kind}")

    def lookup(name):
        for candidate in (name, f"v({name})"):
            if candidate in tran:
                return tran[candidate]
        raise SpiceError(f"fourier: no vector {name!r} in the transient")
    out, frequencies = {}, None
    for text in vectors:
        for label, tree in parse_list(text, None):
            values = evaluate_vector(tree, lookup, None)
            parts = fourier(tran["time"], values, freq, harmonics, gridsize)
            frequencies = parts["frequency"]
            out.update({f"{part}({label})": parts[part] for part in PARTS + ("thd",)})
    result = SpiceResult("four", "frequency", frequencies, None, NO_CIRCUIT, tran, out)
    result.gridsize = gridsize
    return result


def print_fourier(result: SpiceResult, out, digits: int = 6):
    """``result`` (:func:`run_four`) as ngspice-39's fourier prints it."""
    width = digits + 5

    def number(value):
        return f"{value:.{digits - 1 if value < 0 else digits}g}"
    for name in result.names:
        if not name.startswith("thd("):
            continue
        label, magnitude = name[4:-1], result[f"magnitude({name[4:-1]})"]
        out.write(f"Fourier analysis for {label}:\n  No. Harmonics: {len(magnitude)}, THD: "
                  f"{result[name]:g} %, Gridsize: {result.gridsize}, Interpolation Degree: 1\n\n")
        out.write("Harmonic " + " ".join(f"{h:<{width}}" for h in (
            "Frequency", "Magnitude", "Phase", "Norm. Mag", "Norm. Phase")) + "\n")
        out.write("-------- " + " ".join(f"{h:<{width}}" for h in (
            "---------", "---------", "-----", "---------", "-----------")) + "\n")
        columns = [result["frequency"]] + [result[f"{part}({label})"] for part in PARTS]
        for k in range(len(magnitude)):
            out.write(f" {k:<4d}    " + " ".join(f"{number(c[k]):<{width}}" for c in columns)
                      + "\n")
        out.write("\n")


def script_fourier(script, card, rest: str):
    """A ``.control`` script's ``fourier freq vectors`` on its current plot (``script``: the
    running :class:`~physlib.spice.control._Script`): the result under ``four`` (``four2``, …),
    and ngspice's vector ``fourier<call><k>`` per analysed vector (its frequencies, magnitudes
    and phases, one after the other) added to the plot."""
    words = rest.split(None, 1)
    if len(words) < 2:
        raise SpiceError("fourier takes the fundamental frequency and vectors", card.where)
    if script.current is None or script.current.kind != "tran":
        raise SpiceError("fourier needs a transient as the current plot", card.where)
    # ngspice's .options are also its script's variables: a `set` after them wins
    settings = dict(script.deck.options)
    settings.update((name, float(script.variables[name])) for name in ("nfreqs", "fourgridsize")
                    if script.variables.get(name))
    result = run_four(script.number([words[0]], card), [words[1]], script.current,
                      *four_settings(settings))
    key, k = "four", 2
    while key in script.out:
        key, k = f"four{k}", k + 1
    script.out[key] = result
    calls = sum(1 for name in script.out if name.startswith("four"))
    labels = [name[4:-1] for name in result.names if name.startswith("thd(")]
    for index, label in enumerate(labels, 1):
        script.current.let(f"fourier{calls}{index}", np.concatenate(
            [result["frequency"], result[f"magnitude({label})"], result[f"phase({label})"]]))
