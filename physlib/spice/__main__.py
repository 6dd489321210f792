"""Run a deck's analysis cards from the command line, as ``ngspice -b deck.cir`` does::

    python -m physlib.spice deck.cir [--csv DIR] [--plot]

Prints each analysis: ``.op`` as ngspice's node-voltage and source-current tables, the others
(``.dc``, ``.tran``, ``.ac``, …) as a table of every vector against the scale (complex values
as ``re,im``). ``--csv DIR`` also writes ``DIR/<deck>_<kind>.csv`` per analysis (the scale
column, then the vectors; complex ones as ``name.re`` and ``name.im``, the layout of the
ngspice references in tests/data/spice); ``--plot`` saves ``<deck>_<kind>.png`` per swept
analysis (node voltages; magnitude on log axes for ``.ac``) in DIR or the current folder.
Warnings go to stderr with their file and line; a deck physlib cannot read or run exits with
status 1 and the error's message.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import warnings

import numpy as np

from ..core.errors import PhyslibError
from . import SpiceWarning, read


def _columns(result) -> list[tuple[str, np.ndarray]]:
    """(column name, values) of a swept result: the scale, then each vector (complex vectors
    as two columns)."""
    columns = [(result.scale, np.asarray(result[result.scale]))]
    for name in result.names:
        if name == result.scale:
            continue
        values = np.asarray(result[name])
        if np.iscomplexobj(values):
            columns += [(name + ".re", values.real), (name + ".im", values.imag)]
        else:
            columns.append((name, values))
    return columns


def print_result(kind: str, result, out=sys.stdout):
    """One analysis as ngspice's batch mode prints it."""
    if result.scale is None:
        out.write(f"\n{kind}: operating point\n\n\tNode{'Voltage':>41}\n\t----{'-------':>41}\n")
        for name in result.names:
            if name.startswith("v("):
                out.write(f"\t{name[2:-1]:<32}{result[name]:>13.6e}\n")
        out.write(f"\n\tSource{'Current':>39}\n\t------{'-------':>39}\n")
        for name in result.names:
            if name.startswith("i("):
                out.write(f"\t{name[2:-1] + '#branch':<32}{result[name]:>13.6e}\n")
        return
    names = [result.scale] + [n for n in result.names if n != result.scale]
    values = [np.asarray(result[n]) for n in names]
    out.write(f"\n{kind}\n" + " ".join(["Index".ljust(7)] + [f"{n:<26}" for n in names]) + "\n")
    for row in range(len(values[0])):
        cells = [f"{v[row].real:.6e},{v[row].imag:.6e}" if np.iscomplexobj(v) else f"{v[row]:.6e}"
                 for v in values]
        out.write(" ".join([f"{row:<7}"] + [f"{c:<26}" for c in cells]).rstrip() + "\n")


def write_csv(result, path: str):
    """A swept result as CSV (scale first, full precision); an .op result as one row."""
    columns = _columns(result) if result.scale else [(n, np.array([result[n]])) for n in result.names]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([name for name, _ in columns])
        for row in zip(*(values for _, values in columns)):
            writer.writerow([repr(float(x)) for x in row])


def plot_result(kind: str, result, path: str):
    """Node voltages of a swept result against its scale, saved to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    scale = np.asarray(result[result.scale])
    for name in result.names:
        if name.startswith("v("):
            values = np.asarray(result[name])
            ax.plot(scale, np.abs(values) if np.iscomplexobj(values) else values, label=name)
    if kind.startswith("ac"):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("|v| [V]")
    else:
        ax.set_ylabel("v [V]")
    ax.set_xlabel(result.scale)
    ax.legend(fontsize="small")
    ax.grid(True, which="both", alpha=0.3)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m physlib.spice",
                                     description="Run an ngspice deck's analysis cards with physlib.")
    parser.add_argument("deck", help="the deck (.cir file)")
    parser.add_argument("--csv", metavar="DIR", help="write <deck>_<kind>.csv per analysis into DIR")
    parser.add_argument("--plot", action="store_true", help="save <deck>_<kind>.png per swept analysis")
    args = parser.parse_args(argv)
    stem = os.path.splitext(os.path.basename(args.deck))[0]
    folder = args.csv or "."
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SpiceWarning)
            deck = read(args.deck)
            print(f"Circuit: {deck.title}")
            results = deck.run()
        for warning in caught:
            print(f"warning: {warning.message}", file=sys.stderr)
    except PhyslibError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.csv:
        os.makedirs(args.csv, exist_ok=True)
    for kind, result in results.items():
        print_result(kind, result)
        if args.csv:
            path = os.path.join(args.csv, f"{stem}_{kind}.csv")
            write_csv(result, path)
            print(f"wrote {path}")
        if args.plot and result.scale:
            path = os.path.join(folder, f"{stem}_{kind}.png")
            plot_result(kind, result, path)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
