"""A SPICE deck in physlib: run its cards, compare with ngspice, then do what SPICE cannot.
========================================================================================

The deck is tests/data/spice/reader/subckt_nested.cir: an RC filter made of nested
subcircuits with parameters (a two-stage block X1 driving a 100 kΩ load at ``out``, a
one-stage block Xa with a 10 kΩ load at ``out2``), with ``.op`` and ``.ac dec 5 10 100meg``
cards. ngspice-39's results for the same deck are committed beside it (made by
make_references.py in that folder).

1. ``deck.run()`` runs the cards with physlib's own solvers; v(out) is compared with ngspice's.
2. Linearize from the source to the node pair (out, 0): a LinearModel with named states
   (the capacitors' voltages inside the subcircuits), its poles, a minimal realization, and
   its DC gain, which must equal the divider 100 k / (100 k + 2 k + 1 k + 4 k + 2 k).
3. Noise at ``out`` with every resistor's Johnson noise, each contribution named by its
   path inside the subcircuits and ranked by its share of the band (ngspice's .noise prints
   the contributions but does not rank them, nor give the variance over all frequencies).

Run: python examples/spice_filter.py (saves spice_filter.png).
"""
import sys
import warnings
from pathlib import Path

import numpy as np

import physlib
import physlib.spice

DECK = Path(__file__).resolve().parents[1] / "tests" / "data" / "spice" / "reader" / "subckt_nested.cir"


def ngspice_reference(kind: str) -> dict:
    """The committed ngspice-39 vectors of the deck's ``kind`` card (complex for .ac)."""
    return physlib.spice.read_csv(DECK.with_name(f"{DECK.stem}_{kind}.csv"))


def main(quick: bool = False, plot_path: str | None = "spice_filter.png"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", physlib.spice.SpiceWarning)
        deck = physlib.spice.read(DECK)
    results = deck.run()                                   # {"op": ..., "ac": ...}
    ac, ref = results["ac"], ngspice_reference("ac")
    deviation = np.max(np.abs(ac["v(out)"] - ref["v(out)"]) / np.abs(ref["v(out)"]))
    print(f"{deck.title}: v(out) = {results['op']['v(out)']:.6f} V at DC; .ac at "
          f"{len(ac['frequency'])} frequencies within {deviation:.1e} of ngspice")

    # 2. The linear model from the source to the node pair (out, 0).
    sim = deck.compile()
    lin = sim.linearize(["v1.V"], ["rload.v"])
    gain_dc = float(lin.dcgain()[0, 0])
    expected = 100e3 / (100e3 + 9e3)
    f = np.geomspace(10.0, 1e8, 40 if quick else 200)
    response = lin.frequency_response(f)[0, 0]
    poles = np.sort(lin.poles().real)
    print(f"v(out)/v1 at DC {gain_dc:.9f} (100k / 109k = {expected:.9f}); states "
          f"{', '.join(lin.states)}; poles {', '.join(f'{p:.4g}' for p in poles)} 1/s; "
          f"minimal realization: {len(lin.minimal().states)} states")

    # 3. Noise at out, contributions ranked.
    noise = sim.noise("rload.v", f, T=300.15)
    print(noise.summary(10.0, 1e8))
    print(f"rms over all frequencies {noise.std * 1e6:.4f} µV")

    if plot_path:
        import matplotlib.pyplot as plt
        fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(8, 10), sharex=True)
        top.loglog(ac["frequency"], np.abs(ac["v(out)"]), label="physlib |v(out)|")
        top.loglog(ref["frequency"], np.abs(ref["v(out)"]), "o", mfc="none", label="ngspice-39")
        top.set_ylabel("|v(out)| [V]")
        top.legend()
        middle.semilogx(f, np.degrees(np.angle(response)), label="physlib")
        middle.semilogx(ref["frequency"], np.degrees(np.angle(ref["v(out)"])), "o", mfc="none",
                        label="ngspice-39")
        middle.set_ylabel("phase of v(out) [°]")
        middle.legend()
        bottom.loglog(f, noise.asd, "k", label="total")
        ranked = sorted(noise.contributions, key=lambda k: -np.sum(noise.contributions[k]))
        for name in ranked[:4]:
            bottom.loglog(f, np.sqrt(noise.contributions[name]), label=name)
        bottom.set_ylabel("noise at out [V/√Hz]")
        bottom.set_xlabel("frequency [Hz]")
        bottom.legend(fontsize="small")
        for ax in (top, middle, bottom):
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(plot_path, dpi=110)
        plt.close(fig)
        print(f"saved {plot_path}")
    return {"deviation": deviation, "gain_dc": gain_dc, "noise": noise}


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
