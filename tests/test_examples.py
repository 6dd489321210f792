"""Every script in examples/ runs (short horizon) and saves its plot, so none of them rots.

Convention: each example defines ``main(quick=False, plot_path=...)`` and returns its result.
"""
import importlib.util
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_and_saves_its_plot(path, tmp_path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plot = tmp_path / f"{path.stem}.png"
    module.main(quick=True, plot_path=str(plot))
    assert plot.exists() and plot.stat().st_size > 1000
    plt.close("all")
