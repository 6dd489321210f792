"""The built site (docs/_build/html) has what issue 41 asks of it: an API entry for every public
name, and a gallery page with its figure for every example. Run after the docs build."""
import importlib
import inspect

import pytest

from conftest import HTML, ROOT

pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(),
                                reason="build the docs first: python3 -m sphinx -W --keep-going -b html docs docs/_build/html")
DOMAINS = ("electrical", "rotational", "translational", "hydraulic", "thermal", "signals")


def inventory() -> set[str]:
    from sphinx.util.inventory import InventoryFile
    with open(HTML / "objects.inv", "rb") as handle:
        data = InventoryFile.load(handle, "", lambda base, uri: uri)
    names = set()
    for kind, entries in (data.data.items() if hasattr(data, "data") else data.items()):
        if kind.startswith("py:"):
            names.update(entries)
    return names


def test_every_public_name_has_an_api_entry():
    names = inventory()
    modules = ["physlib", "physlib.spice", *(f"physlib.components.{d}" for d in DOMAINS)]
    missing = [f"{module}.{name}" for module in modules
               for name in importlib.import_module(module).__all__
               if not inspect.ismodule(getattr(importlib.import_module(module), name))
               and f"{module}.{name}" not in names]
    assert not missing, f"public names without an API entry: {missing}"
    results = ["SimulationResult", "OperatingPoint", "LinearModel", "NoiseResult", "MultiportNoise",
               "StochasticResult", "SensitivityResult", "SweepTable", "FitResult", "SpiceResult"]
    assert all(any(entry.endswith("." + cls) for entry in names) for cls in results)
    assert "physlib.CompiledModel.simulate" in names


def test_every_example_has_a_gallery_page_with_its_figure():
    examples = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    assert examples
    for stem in examples:
        page = HTML / "gallery" / f"{stem}.html"
        assert page.exists(), f"no gallery page for examples/{stem}.py"
        images = list((HTML / "_images").glob(f"sphx_glr_{stem}_*.png"))
        assert images, f"the gallery page of examples/{stem}.py shows no figure"
        assert f"sphx_glr_{stem}_" in page.read_text(encoding="utf-8")
