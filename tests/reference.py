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
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {name: data[:, i] for i, name in enumerate(header)}


def tube_violations(t_ref, y_ref, y, rel=2e-3):
    """Indices where ``y`` (sampled at ``t_ref``) leaves the CSV-compare tube around ``y_ref``.

    The tube is the reference's envelope over a time window of ±rel·(t_end − t_0), widened by
    rel·(range of the reference) in value — the MAP-LIB rule of relative width 2e-3.
    """
    dt = rel * (t_ref[-1] - t_ref[0])
    dy = rel * max(np.ptp(y_ref), np.max(np.abs(y_ref)) * 1e-3, 1e-12)
    lo_idx = np.searchsorted(t_ref, t_ref - dt, side="left")
    hi_idx = np.searchsorted(t_ref, t_ref + dt, side="right")
    bad = []
    for i, (a, b) in enumerate(zip(lo_idx, hi_idx)):
        window = y_ref[a:b]
        if not window.min() - dy <= y[i] <= window.max() + dy:
            bad.append(i)
    return bad


def assert_in_tube(name, t_ref, y_ref, y, rel=2e-3):
    bad = tube_violations(t_ref, y_ref, y, rel)
    assert not bad, (f"{name}: {len(bad)} of {len(t_ref)} points outside the {rel} tube, first at "
                     f"t = {t_ref[bad[0]]}: {y[bad[0]]} vs reference {y_ref[bad[0]]}")
