"""Parameter studies: grid sweeps and Monte Carlo runs (:mod:`.studies`) of any analysis, with
parameter distributions (:mod:`.distributions`), the jobs (:mod:`.jobs`) that executors
(:mod:`.executors`) run serially, in processes or on Dask, and the table of their results
(:mod:`.table`). Imports only ``common`` from the analyses (an analysis is called by name on the
compiled model).
"""
from .studies import (MIN_CHUNK_SECONDS, Distribution, SweepError, SweepRow, SweepTable, chunk_sizes,
                      lognormal, monte_carlo, normal, restore_malloc_thresholds, sample, sweep, uniform)

__all__ = ["sweep", "monte_carlo", "normal", "uniform", "lognormal", "Distribution", "sample", "SweepTable",
           "SweepRow", "SweepError", "chunk_sizes", "MIN_CHUNK_SECONDS", "restore_malloc_thresholds"]
