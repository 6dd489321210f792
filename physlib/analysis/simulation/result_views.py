"""What a simulation result shows: units, pint quantities, plots, CSV and pandas tables."""
from __future__ import annotations

import io
import os

import numpy as np

from ...core.errors import ParameterError, PhyslibError
from ...core.lazy import lazy_module

display_units = lazy_module("physlib.analysis.common.display_units")    # for units shown or converted


class ResultViews:
    """Units, plots and tables of a :class:`~physlib.analysis.simulation.results.SimulationResult`
    (which supplies ``model``, ``t``, ``names``, ``res[name]``, ``_read`` and ``noise_std``).
    Values stay in the units their variables are declared in; units are strings in the
    Modelica grammar (:mod:`physlib.units`)."""

    def unit(self, name: str) -> str:
        """The unit ``name`` is declared in: a variable's (``res.unit("rotor.w") == "rad/s"``),
        a derivative's (``"rad/s2"`` for ``"der(rotor.w)"``), a parameter's, a mode's (``"1"``)."""
        return self.model.unit(name)

    def quantity(self, name: str, registry=None):
        """``res[name]`` as a pint ``Quantity`` in its declared unit: ``res.quantity("C1.v")`` is
        in volts, ``.to("mV")`` converts. ``registry``: the pint ``UnitRegistry`` to make it with
        (default: pint's application registry). pint is optional: ``pip install pint``."""
        return display_units.pint_quantity(self[name], self.unit(name), registry)

    def plot(self, *names, ax=None, units: dict | None = None):
        """Plot the named variables over time, each labelled with its unit; returns the
        matplotlib Figure. ``units``: display units by path, ``{"rotor.w": "rpm"}`` plots
        rotor.w in rpm (its rad/s scaled by 60/2π); a unit of another dimension (rad/s in Hz)
        is a :class:`~physlib.core.errors.ParameterError` naming both."""
        if not names:
            raise PhyslibError("name the variables to plot, e.g. res.plot('C1.v')")
        units = dict(units or {})
        stray = [name for name in units if name not in names]
        if stray:
            raise ParameterError(f"plot: units= names {', '.join(map(repr, stray))}, which is not plotted "
                                 f"(plotted: {', '.join(names)})")
        fig, axes = panels(len(names), ax, 1.6)
        for axis, name in zip(axes, names):
            values = self[name]
            if name in units:
                scale, shift = display_units.display_conversion(self.unit(name), units[name], name)
                values = values * scale + shift
            unit = units.get(name) or ("mode" if self.model.mode_slot(name) is not None else self.unit(name))
            axis.plot(self.t, values, label=name)
            axis.set_ylabel(f"{name} [{unit}]")
            axis.grid(True, alpha=0.3)
            axis.legend(loc="best")
        axes[-1].set_xlabel("time [s]")
        fig.tight_layout()
        return fig

    def plot_noise(self, name: str, ax=None, k: float = 3.0):
        """The noiseless trajectory of ``name`` with its ±k·σ noise envelope; returns the Figure."""
        import matplotlib.pyplot as plt

        std = self.noise_std(name)
        if ax is None:
            fig, ax = plt.subplots()
        else:
            fig = ax.figure
        mean = self[name]
        ax.fill_between(self.t, mean - k * std, mean + k * std, alpha=0.3, label=f"±{k:g}σ")
        ax.plot(self.t, mean, label=name)
        ax.set_xlabel("t [s]")
        ax.set_ylabel(f"{name} [{self.unit(name)}]")
        ax.legend()
        return fig

    def to_csv(self, path, names=None, *, units: bool = True) -> None:
        """Write ``time`` and the named variables (a path or a list of them; default: all, then
        the modes) as CSV: a row
        of names, a row of their units (``s``, then each declared unit in the Modelica grammar;
        left out with ``units=False``), then one row per output time at full precision.

        ``pandas.read_csv(path, header=[0, 1])`` reads the columns as (name, unit) pairs,
        ``pandas.read_csv(path, skiprows=[1])`` the values under their names.
        ``path``: a file name (``str`` or ``os.PathLike``), written anew, or an open text file
        (anything with a ``write`` method: ``io.StringIO``, ``sys.stdout``), written at its
        current position and left open."""
        if not hasattr(path, "write") and not isinstance(path, (str, os.PathLike)):
            raise PhyslibError(f"to_csv: path must be a file name or an open text file, got {path!r} "
                               f"({type(path).__name__})")
        if isinstance(path, (io.RawIOBase, io.BufferedIOBase)) or "b" in str(getattr(path, "mode", "")):
            raise PhyslibError(f"to_csv writes text: {path!r:.60} is a binary file; open it with mode 'w' "
                               "(or wrap it in io.TextIOWrapper)")
        names = self._column_names(names)
        columns = self._read(names)
        header = [["time"] + names] + ([["s"] + [self.unit(n) for n in names]] if units else [])
        if hasattr(path, "write"):
            self._write_csv(path, header, columns)
            return
        try:
            with open(path, "w", newline="") as fh:
                self._write_csv(fh, header, columns)
        except OSError as err:
            raise PhyslibError(f"to_csv cannot write {os.fspath(path)!r}: {err.strerror or err}; give the "
                               "name of a file in an existing, writable folder") from None

    def _column_names(self, names) -> list:
        """``names`` of to_csv and to_pandas as a list (all by default); one path alone is one
        column (iterated, "C1.v" was the unknown variables 'C', '1', ...)."""
        return [names] if isinstance(names, str) else list(names) if names is not None else self.names

    def _write_csv(self, fh, header, columns) -> None:
        import csv
        writer = csv.writer(fh)
        writer.writerows(header)
        for i, tt in enumerate(self.t):
            writer.writerow([repr(float(tt))] + [repr(float(c[i])) for c in columns])

    def to_pandas(self, names=None):
        """A pandas ``DataFrame`` with one column per named variable (default: all, then the
        modes, like :meth:`to_csv`), indexed by time [s] (index name ``"time"``; an event time
        appears twice, as in ``res.t``). Values in their declared units, which
        ``frame.attrs["units"]`` holds by column name (and ``"time"``: ``"s"``).

        pandas is optional: ``pip install pandas``."""
        try:
            import pandas
        except ImportError:
            raise PhyslibError("SimulationResult.to_pandas() needs the pandas package: "
                               "pip install pandas") from None
        names = self._column_names(names)
        columns = self._read(names)
        values = np.column_stack(columns) if columns else np.empty((len(self.t), 0))
        frame = pandas.DataFrame(values, index=pandas.Index(self.t, name="time"), columns=names)
        frame.attrs["units"] = {"time": "s", **{name: self.unit(name) for name in names}}
        return frame


def panels(count: int, ax=None, height: float = 1.6):
    """(Figure, axes): ``count`` stacked axes sharing time, ``height`` inches each, or ``ax``
    for all of them."""
    import matplotlib.pyplot as plt

    if ax is not None:
        return ax.figure, [ax] * count
    fig, axes = plt.subplots(count, 1, sharex=True, squeeze=False, figsize=(7, 2.2 + height * count))
    return fig, axes[:, 0]
