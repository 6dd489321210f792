"""Run a deck's analysis cards from the command line, as ``ngspice -b deck.cir`` does::

    python -m physlib.spice deck.cir [--csv DIR] [--plot]

Prints each analysis: ``.op`` as ngspice's node-voltage and source-current tables, ``.tf``,
``.sens`` and ``.pz`` as ``name = value`` lines (numbers as ngspice prints them), ``.four`` as ngspice's Fourier tables, the others
(``.dc``, ``.tran``, ``.ac``, …) as a table of every vector against the scale (complex values
as ``re,im``); then the measurements (``name = value``) and what a ``.control`` script's
``print``, ``wrdata``, ``write`` and ``echo`` lines give (:mod:`physlib.spice.control`).
``--csv DIR`` also writes ``DIR/<deck>_<kind>.csv`` per analysis (the scale column, then the
vectors; complex ones as ``name.re`` and ``name.im``, the layout of the ngspice references in
tests/data/spice), ``<deck>_meas.csv`` (a row of values under their names) and
``<deck>_print<k>.csv`` per printed table; ``--plot`` saves ``<deck>_<kind>.png`` per swept
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


def print_result(kind: str, result, out=None):
    """One analysis as ngspice's batch mode prints it, to ``out`` (the ``sys.stdout`` of the
    call, where None: a default taken at import would keep a stream replaced since)."""
    out = out or sys.stdout
    if result.kind == "four":
        from .fourier import print_fourier
        print_fourier(result, out)
        return
    if result.kind in ("tf", "sens", "pz"):
        heading = {"tf": "Transfer function information:", "sens": f"{kind}: DC sensitivities",
                   "pz": f"{kind}: poles and zeros"}[result.kind]
        out.write(f"\n{heading}\n")
        for name in result.names:
            out.write(f"{name} = {_number(result[name])}\n")
        return
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
    out.write(f"\n{kind}\n")
    _table(names, [np.atleast_1d(result[n]) for n in names], out)


def _number(x) -> str:
    """A number as ngspice-39 prints it: 12 characters, one digit less for a minus sign
    (``7.827911e-04``, ``-7.82791e-04``); a complex one as its two parts."""
    if isinstance(x, complex) or np.iscomplexobj(x):
        return f"{_number(float(x.real))},{_number(float(x.imag))}"
    return f"{x:.6e}" if x >= 0 or x != x else f"{x:.5e}"


def _table(names, values, out):
    """Columns under their names, a row per point (shorter columns left blank)."""
    out.write(" ".join(["Index".ljust(7)] + [f"{n:<26}" for n in names]) + "\n")
    for row in range(max(len(v) for v in values)):
        cells = ["" if row >= len(v) else _number(v[row]) for v in values]
        out.write(" ".join([f"{row:<7}"] + [f"{c:<26}" for c in cells]).rstrip() + "\n")


def print_output(output, out=None):
    """A ``.control`` line's output (:class:`physlib.spice.control.Output`) as ngspice prints
    a ``print``: ``name = value`` lines for one-point vectors, else a table along the scale
    (to ``out``, else the ``sys.stdout`` of the call)."""
    out = out or sys.stdout
    if output.command == "echo":
        out.write(output.text + "\n")
        return
    if output.file:
        out.write(f"\n{output.command} {output.file}\n")
    vectors = {name: np.atleast_1d(value) for name, value in output.vectors.items()}
    if all(len(v) == 1 for v in vectors.values()):
        for name, value in vectors.items():
            out.write(f"{name} = {_number(value[0])}\n")
        return
    scale = [output.scale] if output.scale else []
    _table([n for n, _ in scale] + list(vectors), [v for _, v in scale] + list(vectors.values()),
           out)


def write_csv(result, path: str):
    """A swept result as CSV (scale first, full precision); an .op result as one row."""
    columns = _columns(result) if result.scale else [(n, np.array([result[n]])) for n in result.names]
    _write_columns(dict(columns), path)


def _write_columns(columns: dict, path: str):
    """{name: values} as CSV columns (complex ones as name.re and name.im; a shorter column
    ends early, its cells left empty)."""
    flat = []
    for name, values in columns.items():
        values = np.atleast_1d(values)
        flat += [(name + ".re", values.real), (name + ".im", values.imag)] \
            if np.iscomplexobj(values) else [(name, values)]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([name for name, _ in flat])
        for row in range(max(len(v) for _, v in flat)):
            writer.writerow(["" if row >= len(v) else repr(float(v[row])) for _, v in flat])


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


def _print_script(results, stem, folder):
    """The measurements and the .control script's outputs (and their CSVs into ``folder``)."""
    tables = [({name: np.atleast_1d(v) for name, v in results["meas"].items()}, "meas")] \
        if results.get("meas") else []
    if tables:
        print("\nmeasurements")
        for name, value in results["meas"].items():
            print(f"{name} = {value:.6e}")
    for k, output in enumerate(results.get("print", []), 1):
        print_output(output)
        if output.vectors:
            scale = dict([output.scale]) if output.scale else {}
            tables.append(({**scale, **{n: np.atleast_1d(v) for n, v in output.vectors.items()}},
                           f"print{k}"))
    for columns, name in tables if folder else []:
        path = os.path.join(folder, f"{stem}_{name}.csv")
        _write_columns(columns, path)
        print(f"wrote {path}")


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
        if kind in ("meas", "print"):
            continue
        print_result(kind, result)
        if args.csv:
            path = os.path.join(args.csv, f"{stem}_{kind}.csv")
            write_csv(result, path)
            print(f"wrote {path}")
        if args.plot and result.scale and result.kind != "four":
            path = os.path.join(folder, f"{stem}_{kind}.png")
            plot_result(kind, result, path)
            print(f"wrote {path}")
    _print_script(results, stem, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
