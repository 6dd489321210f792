"""The result of a sweep or Monte Carlo study: one :class:`SweepRow` per run in a
:class:`SweepTable`, with its parameters, the values its summary returned, optionally the full
result, and the error if the run raised; columns as NumPy arrays, or a pandas DataFrame.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from ...core.errors import PhyslibError


class SweepError(PhyslibError, ValueError):
    """A sweep or Monte Carlo study was set up wrongly: no runs, a bad distribution, an executor
    that is unknown or not installed, an analysis or summary that cannot be sent to workers."""


@dataclass
class SweepRow:
    """One run: its ``index``, ``params`` (path -> value), the ``values`` its summary returned,
    its ``result`` (when kept), ``error`` (``"SimulationError: ..."``, None if it succeeded) and
    ``seconds``, the wall time of the analysis and summary."""

    index: int
    params: dict
    values: dict = field(default_factory=dict)
    result: object = None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


class SweepTable:
    """The rows of a sweep or Monte Carlo study, in run order.

    ``table[i]`` is row i (a :class:`SweepRow`); ``table["R1.R"]`` or ``table["peak"]`` a column
    over all runs as a NumPy array: a parameter's value in each run (where a row of a list of
    parameter sets did not set it, the value its run used), a summary value (NaN where the run
    failed); ``for row in table``; ``table.failed``
    lists the rows whose run raised; ``table.to_pandas()`` gives a DataFrame (pandas optional).
    ``seed`` is the Monte Carlo seed (None for a sweep); ``timing`` says how the runs were spread:
    ``executor``, ``workers``, ``wall`` [s] (the whole call), ``startup`` [s] (from the start of
    the parallel phase until every worker had begun its first chunk: pool or cluster start,
    model transfer), ``worker_seconds`` [s] (summed over the workers, the time from the start
    of a worker's first chunk to the end of its last), ``run_seconds`` [s] (the sum of the
    runs' own times), ``chunks`` (the chunks' sizes; the first two runs are made in the calling
    process to time a run)."""

    def __init__(self, rows: list[SweepRow], param_names: list[str], seed: int | None = None,
                 timing: dict | None = None):
        self.rows = rows
        self.param_names = param_names
        self.seed = seed
        self.timing = timing or {}

    @property
    def value_names(self) -> list[str]:
        """Names of the summary values, in the order the runs first returned them."""
        names = {}
        for row in self.rows:
            names.update(dict.fromkeys(row.values))
        return list(names)

    @property
    def columns(self) -> list[str]:
        return self.param_names + self.value_names

    @property
    def failed(self) -> list[SweepRow]:
        return [row for row in self.rows if not row.ok]

    @property
    def results(self) -> list:
        """The kept results, one per row (None where the run failed or results were not kept)."""
        return [row.result for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.column(key)
        return self.rows[key]

    def column(self, name: str) -> np.ndarray:
        """A parameter or summary value over all runs (float array with NaN for failed runs,
        or an object array with None when the values are not numbers)."""
        if name in self.param_names:
            values = [row.params.get(name) for row in self.rows]
        elif name in self.value_names:
            values = [row.values.get(name) for row in self.rows]
        else:
            raise SweepError(unknown_name("column", name, self.columns))
        try:
            return np.array([np.nan if v is None else v for v in values], dtype=float)
        except (TypeError, ValueError):
            return np.array(values, dtype=object)

    def to_pandas(self):
        """A pandas DataFrame: one row per run, the parameters, the summary values and
        ``error``. pandas is optional: ``pip install pandas``."""
        try:
            import pandas
        except ImportError:
            raise PhyslibError("SweepTable.to_pandas() needs the pandas package: pip install pandas") from None
        data = {name: self.column(name) for name in self.columns}
        data["error"] = [row.error for row in self.rows]
        return pandas.DataFrame(data, index=pandas.Index([row.index for row in self.rows], name="run"))

    def __repr__(self):
        return (f"<SweepTable: {len(self.rows)} runs, {len(self.failed)} failed; columns "
                f"{', '.join(self.columns)}>")


def unknown_name(kind: str, name, known) -> str:
    """The message for a name that is not among ``known``, with the closest ones (or the first
    ten) as suggestions."""
    known = list(known)
    close = difflib.get_close_matches(str(name), known, n=5, cutoff=0.5)
    listed = close or known[:10]
    more = "" if close or len(known) <= 10 else f" (and {len(known) - 10} more)"
    return (f"unknown {kind} {name!r}; {'did you mean' if close else 'its names are'} "
            f"{', '.join(listed)}{more}")
