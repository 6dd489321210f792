"""Every ```python block of the README and of the docs' pages runs as written (the pages' doctests):
a page's blocks run in order in one namespace, in an empty folder (the files they write stay
there). What the blocks compute is checked in tests/test_docs_pages.py and beside the analyses
they show (tests/doc_pages.py)."""
import re
import warnings
from pathlib import Path

import matplotlib
import pytest

from conftest import ROOT

matplotlib.use("Agg")
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
PAGES = [page for page in PAGES if not {"_build", "gallery", "api"} & set(page.relative_to(ROOT).parts)]


def blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_of_the_page_run(page, tmp_path, monkeypatch):
    import matplotlib.pyplot as plt
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_page"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # SpiceWarnings the SPICE page's deck shows on purpose
        for number, block in enumerate(blocks(page), 1):
            try:
                exec(compile(block, f"{page.name}, block {number}", "exec"), namespace)
            finally:
                plt.close("all")


def test_every_former_readme_block_is_on_a_page():
    # The README's ten Python blocks (before the docs site) now live on these pages.
    expected = {"README.md": ["sim.summary()"],
                "docs/guide/writing_components.md": ["class Varistor"],
                "docs/guide/units.md": ["import pint"],
                "docs/guide/hybrid.md": ["res.events"],
                "docs/guide/linearization.md": ["sim.trim(", "lin.minimal()"],
                "docs/guide/noise.md": ["sim.noise("],
                "docs/guide/sweeps.md": ["physlib.monte_carlo("],
                "docs/guide/spice.md": ["physlib.spice.read("],
                "docs/guide/fmu_and_c.md": ["export_fmu(", "export_c("]}
    for page, pieces in expected.items():
        text = "\n".join(blocks(ROOT / page))
        for piece in pieces:
            assert piece in text, f"{page} lost its block with {piece}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_fence_of_the_page_is_closed(page):
    # An unclosed fence turns the rest of the page into one code block, which builds without a
    # warning (the first version of docs/guide/model.md did that).
    fences = [line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("```")]
    assert len(fences) % 2 == 0, f"{page.name}: a code fence is not closed"
