"""Access to the committed reference data in tests/data (sources and licences in
tests/data/README.md) and the Modelica "tube" comparison used by its pass rule."""
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).resolve().parent / "data"


def reference_file(*parts: str) -> Path:
    """The path of tests/data/<parts...>; a missing file is an error, never a skip."""
    path = REFERENCE.joinpath(*parts)
    if not path.is_file():
        raise FileNotFoundError(f"reference data file {path} is missing: it is part of the "
                                f"repository (see tests/data/README.md); restore it from git")
    return path


def load_msl(model: str) -> dict[str, np.ndarray]:
    """Columns of tests/data/msl/<model>/reference.csv by name."""
    path = reference_file("msl", model, "reference.csv")
    with open(path) as fh:
        header = [h.strip('"') for h in fh.readline().strip().split(",")]
    # Some MAP-LIB references (made with another tool) head the time column "Time".
    header = ["time" if h == "Time" else h for h in header]
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, i] for i, name in enumerate(header)}


def _tube(t_ref, y_ref, rel):
    """The tube around ``y_ref``: its envelope (lowest, highest) over a window of
    ±rel·(t_end − t_0) at each point, and the value half-width rel·(range of the reference)."""
    dt = rel * (t_ref[-1] - t_ref[0])
    dy = rel * max(np.ptp(y_ref), np.max(np.abs(y_ref)) * 1e-3, 1e-12)
    lo_idx = np.searchsorted(t_ref, t_ref - dt, side="left")
    hi_idx = np.searchsorted(t_ref, t_ref + dt, side="right")
    low = np.array([y_ref[a:b].min() for a, b in zip(lo_idx, hi_idx)])
    high = np.array([y_ref[a:b].max() for a, b in zip(lo_idx, hi_idx)])
    return low, high, dy


def tube_usage(t_ref, y_ref, y, rel=2e-3):
    """How far ``y`` (sampled at ``t_ref``) strays outside the reference's envelope, at each
    point, as a fraction of the tube's value half-width: 0 inside the envelope, above 1 outside
    the tube."""
    low, high, dy = _tube(t_ref, y_ref, rel)
    outside = np.maximum(low - y, y - high)
    return np.where(np.isnan(outside), np.inf, np.maximum(0.0, outside) / dy)


def tube_violations(t_ref, y_ref, y, rel=2e-3):
    """Indices where ``y`` (sampled at ``t_ref``) leaves the CSV-compare tube around ``y_ref``.

    The tube is the reference's envelope over a time window of ±rel·(t_end − t_0), widened by
    rel·(range of the reference) in value — the MAP-LIB rule of relative width 2e-3.
    """
    low, high, dy = _tube(t_ref, y_ref, rel)
    inside = (y >= low - dy) & (y <= high + dy)         # a NaN is never inside
    return np.flatnonzero(~inside).tolist()


def assert_in_tube(name, t_ref, y_ref, y, rel=2e-3):
    bad = tube_violations(t_ref, y_ref, y, rel)
    assert not bad, (f"{name}: {len(bad)} of {len(t_ref)} points outside the {rel} tube, first at "
                     f"t = {t_ref[bad[0]]}: {y[bad[0]]} vs reference {y_ref[bad[0]]}")


def assert_within_range(result, ref, fraction=1e-3, rows=slice(None)):
    """Every vector of the reference table ``ref`` (but its scale "time" and the constant ones)
    within ``fraction`` of its range of ``result``'s vector of the same name, on the reference's
    rows ``rows`` (issue 37's measure for transients: 1e-3 of each vector's range)."""
    for name, expected in ref.items():
        expected = np.asarray(expected)[rows]
        if name == "time" or np.ptp(expected) == 0:
            continue
        error = np.max(np.abs(np.asarray(result[name]) - expected))
        assert error <= fraction * np.ptp(expected), (name, error / np.ptp(expected))
