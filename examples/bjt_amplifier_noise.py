"""A BJT common-emitter amplifier: bias, gain, bandwidth and noise, checked against ngspice-39.
============================================================================================

The deck is tests/data/spice/bjt/ce_npn.cir: an NPN (Gummel–Poon, with RB, RC, RE, Early
effect, high injection, leakage and junction charges) biased by a 47 k / 10 k divider from
12 V, 3.9 kΩ collector load, 1 kΩ emitter resistor bypassed by 47 µF, 10 µF input and 1 µF
output coupling into 22 kΩ, driven from a 50 Ω source. ngspice-39's .op, .ac and .noise
results for the same deck are committed beside it (make_references.py in that folder).

1. Operating point (node voltages [V], supply current [A]) against ngspice's.
2. Gain and bandwidth from ``linearize`` (vin.V → v(out)): midband gain [V/V and dB], the
   −3 dB corners [Hz], against ngspice's .ac.
3. Output noise [V/√Hz] and input-referred noise (divided by the gain) with every source in
   the transistor and the resistors ranked by its share of the 10 Hz – 10 MHz band; the noise
   figure against the 50 Ω source, NF = 10·log10(total output PSD / the part from RS alone)
   [dB], against the same ratio from ngspice's per-element vectors.

Run: python examples/bjt_amplifier_noise.py (saves bjt_amplifier_noise.png).
"""
import sys
import warnings
from pathlib import Path

import numpy as np

import physlib.spice

DECK = Path(__file__).resolve().parents[1] / "tests" / "data" / "spice" / "bjt" / "ce_npn.cir"


def ngspice_reference(kind: str) -> dict:
    """The committed ngspice-39 vectors of the deck's ``kind`` card (complex for .ac)."""
    return physlib.spice.read_csv(DECK.with_name(f"{DECK.stem}_{kind}.csv"))


def corners(f, magnitude, level):
    """The lowest and highest frequencies [Hz] where ``magnitude`` crosses ``level`` (log-linear
    interpolation between the analysed points)."""
    above = np.flatnonzero(magnitude >= level)
    lo, hi = above[0], above[-1]
    f_lo = np.exp(np.interp(level, magnitude[[lo - 1, lo]], np.log(f[[lo - 1, lo]])))
    f_hi = np.exp(np.interp(-level, -magnitude[[hi, hi + 1]], np.log(f[[hi, hi + 1]])))
    return f_lo, f_hi


def main(quick: bool = False, plot_path: str | None = "bjt_amplifier_noise.png"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", physlib.spice.SpiceWarning)
        deck = physlib.spice.read(DECK)
    sim = deck.compile()

    # 1. Bias.
    op, ref_op = deck.op(), ngspice_reference("op")
    worst = max(abs(op[k] - v[0]) / abs(v[0]) for k, v in ref_op.items() if v[0] != 0)
    print(f"bias: base {op['v(base)']:.4f} V, emitter {op['v(emit)']:.4f} V, collector "
          f"{op['v(col)']:.4f} V, supply {-op['i(vcc)'] * 1e3:.4f} mA; worst of "
          f"{len(ref_op)} values {worst:.1e} relative off ngspice-39")

    # 2. Gain and bandwidth from the linear model at that point.
    lin = sim.linearize(["vin.V"], ["rl.v"], at=op.raw)
    ref_ac = ngspice_reference("ac")
    f = ref_ac["frequency"] if quick else np.geomspace(1.0, 1e9, 721)
    gain = lin.frequency_response(f)[0, 0]
    magnitude = np.abs(gain)
    midband = magnitude.max()
    f_lo, f_hi = corners(f, magnitude, midband / np.sqrt(2))
    ref_gain = ref_ac["v(out)"]
    ref_lo, ref_hi = corners(ref_ac["frequency"], np.abs(ref_gain), np.abs(ref_gain).max() / np.sqrt(2))
    at_ref = lin.frequency_response(ref_ac["frequency"])[0, 0]
    ac_dev = np.max(np.abs(at_ref - ref_gain) / np.abs(ref_gain))
    print(f"gain: {midband:.2f} V/V ({20 * np.log10(midband):.2f} dB) from {f_lo:.3g} Hz to "
          f"{f_hi / 1e6:.4g} MHz (ngspice's .ac grid: {ref_lo:.3g} Hz to {ref_hi / 1e6:.4g} MHz); "
          f"the response within {ac_dev:.1e} of ngspice at its {len(ref_gain)} frequencies")

    # 3. Noise at the output, referred to the input, ranked; the noise figure against RS.
    ref_noise = ngspice_reference("noise")
    fn = ref_noise["frequency"] if quick else np.geomspace(1.0, 1e9, 361)
    noise = sim.noise("rl.v", fn, T=300.15, at=op.raw)
    print(noise.summary(10.0, 1e7))
    h = np.abs(lin.frequency_response(fn)[0, 0])
    input_referred = noise.asd / h
    figure = 10 * np.log10(noise.psd / noise.contributions["rs"])
    ngspice_figure = 20 * np.log10(ref_noise["onoise_spectrum"] / ref_noise["onoise_rs"])
    at_ngspice = noise if quick else sim.noise("rl.v", ref_noise["frequency"], T=300.15, at=op.raw)
    ours = 10 * np.log10(at_ngspice.psd / at_ngspice.contributions["rs"])
    nf_dev = np.max(np.abs(ours - ngspice_figure))
    out_dev = np.max(np.abs(at_ngspice.asd - ref_noise["onoise_spectrum"]) / ref_noise["onoise_spectrum"])
    k1 = int(np.argmin(np.abs(fn - 1e3)))
    print(f"at {fn[k1]:.4g} Hz: output {noise.asd[k1] * 1e9:.2f} nV/√Hz, input-referred "
          f"{input_referred[k1] * 1e9:.3f} nV/√Hz, noise figure {figure[k1]:.3f} dB against 50 Ω "
          f"(ngspice: output spectrum within {out_dev:.1e}, NF within {nf_dev:.1e} dB at its "
          f"{len(ngspice_figure)} frequencies)")

    if plot_path:
        import matplotlib.pyplot as plt
        fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
        top.loglog(f, magnitude, label="physlib linearize")
        top.loglog(ref_ac["frequency"], np.abs(ref_gain), "o", mfc="none", ms=4, label="ngspice-39 .ac")
        top.axvline(f_lo, ls=":", c="grey")
        top.axvline(f_hi, ls=":", c="grey")
        top.set_ylabel("|v(out)/vin| [V/V]")
        top.legend()
        middle.loglog(fn, noise.asd, "k", label="output (physlib)")
        middle.loglog(ref_noise["frequency"], ref_noise["onoise_spectrum"], "o", mfc="none", ms=4,
                      label="output (ngspice-39)")
        ranked = sorted(noise.contributions, key=lambda k: -noise.band_variance(10.0, 1e7, k))
        for name in ranked[:4]:
            middle.loglog(fn, np.sqrt(noise.contributions[name]), lw=1, label=name)
        middle.loglog(fn, input_referred, "b--", label="input-referred")
        middle.set_ylabel("noise [V/√Hz]")
        middle.legend(fontsize="small", loc="lower left")
        bottom.semilogx(fn, figure, label="physlib")
        bottom.semilogx(ref_noise["frequency"], ngspice_figure, "o", mfc="none", ms=4,
                        label="ngspice-39 vectors")
        bottom.set_ylabel("noise figure, 50 Ω [dB]")
        bottom.set_xlabel("frequency [Hz]")
        bottom.legend()
        for ax in (top, middle, bottom):
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(plot_path, dpi=110)
        plt.close(fig)
        print(f"saved {plot_path}")
    return {"op_deviation": worst, "ac_deviation": ac_dev, "gain": midband, "bandwidth": (f_lo, f_hi),
            "noise": noise, "noise_deviation": out_dev, "noise_figure_deviation": nf_dev}


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
