"""Sphinx configuration of physlib's documentation: the user guide (Markdown, MyST), the API
reference (autosummary over the packages' ``__all__``; docstrings are reST, see physlib_docs.py) and the
gallery of examples/ (sphinx-gallery, run at short horizons).

Build: python -m sphinx -W --keep-going -b html docs docs/_build/html
"""
import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))          # physlib from this checkout, ``from examples.x import build``
sys.path.insert(0, str(DOCS))
os.environ.setdefault("MPLBACKEND", "Agg")

import api_pages  # noqa: E402
import physlib  # noqa: E402

project = "physlib"
author = "the physlib developers"
copyright = "the physlib developers, MIT licence"
release = version = physlib.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "physlib_docs",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "tests", "README.md", "**/*.ipynb", "**/*.py", "**/*.zip",
                    "**/*.md5", "**/*.json"]
templates_path = ["_templates"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# sphinx-gallery's configuration holds functions, which Sphinx cannot pickle into its environment
# cache (it re-reads the configuration instead).
suppress_warnings = ["config.cache"]

# API reference: one page per public name, written from the packages' __all__ at each build.
(DOCS / "api").mkdir(exist_ok=True)
api_pages.write(DOCS / "api")
autosummary_generate = True
autosummary_ignore_module_all = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_inherit_docstrings = True

# Cross-references must resolve: a broken one fails the build (with -W). Not checked: names of
# other libraries (no network for intersphinx inventories), and physlib's internal modules
# (``physlib.core.logic``, ``physlib.assembly.compiled.CompiledModel``), which docstrings name for
# readers of the source but the reference does not document: a module, or a path with three or
# more module names. Public paths (``physlib.X``, ``physlib.components.<domain>.X``,
# ``physlib.spice.X``) and short names must resolve.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:mod", r"\.?physlib\..*"),
    (r"py:.*", r"\.?physlib\.(core|assembly|domains)\..*"),
    (r"py:.*", r"\.?physlib(\.[a-z_]+){3,}\..*"),
    # Internal helpers that docstrings name for readers of the source (methods of the
    # component protocol without docstrings of their own, private functions and classes).
    (r"py:.*", r"(density|local_values|relative_acceleration|acceleration|sides|value|time_events|"
               r"noise_input|energy|simulate|operating_point|propagate_noise|regularized_sign|"
               r"channel\..*|capacitances\..*|Location|BASE_DIMENSIONS|Domain|FlatSystem|DaeSystem|"
               r"ResultViews)"),
    (r"py:.*", r"(numpy|np|scipy|sympy|sp|casadi|ca|pandas|pd|networkx|nx|matplotlib|dask|pint|"
               r"fmpy|control|collections|typing|pathlib|os|io|concurrent|enum|dataclasses|abc|fractions)\b.*"),
    (r"py:.*", r"(float|int|str|bool|bytes|dict|list|tuple|set|frozenset|object|callable|type|"
               r"None|Callable|Iterable|Iterator|Mapping|Sequence|Any|Path|PathLike|Figure|"
               r"ndarray|array_like|array|optional|default|mapping|sequence|iterable|complex|"
               r"Exception|ValueError|TypeError|KeyError|AttributeError|RuntimeError|UserWarning|"
               r"Warning|ArithmeticError|LookupError|NotImplementedError|Enum|IntEnum)"),
]

# Gallery: every script of examples/ runs at its short horizon (``--quick``, what
# tests/test_examples.py runs), and the plot it saves is shown below its output.
GALLERY_OUT = "gallery"


def quick_argv(gallery_conf, script_vars):
    """The command line of each example: ``--quick``. Also gives the example its ``__file__``,
    which sphinx-gallery leaves out but the examples use, as scripts do, to find their data
    (tests/data's decks, reference results) and their sibling examples."""
    script_vars["example_globals"]["__file__"] = str(script_vars["src_file"])
    return ["--quick"]


class SavedPlots:
    """sphinx-gallery image scraper for scripts that save their figure (and may close it): the
    PNG files a script writes in its folder become the page's images (moved out, so the source
    tree stays as it was), and whatever else it writes there (an FMU) is removed after it."""

    def __init__(self):
        self.before: set[Path] = set()

    def __repr__(self):                  # sphinx-gallery keys its cache on the config's repr
        return "SavedPlots"

    def snapshot(self, gallery_conf, fname, when=None):
        folder = ROOT / "examples"
        if when in (None, "before"):
            self.before = set(folder.rglob("*"))
        else:
            for path in sorted(set(folder.rglob("*")) - self.before, reverse=True):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                elif path.exists():
                    path.unlink()

    def __call__(self, block, block_vars, gallery_conf):
        import matplotlib.pyplot as plt
        from sphinx_gallery.scrapers import figure_rst
        folder = Path(block_vars["src_file"]).parent
        images = []
        for png in sorted(set(folder.glob("*.png")) - self.before):
            target = Path(next(block_vars["image_path_iterator"]))
            shutil.move(png, target)
            images.append(str(target))
        plt.close("all")
        return figure_rst(images, gallery_conf["src_dir"])


saved_plots = SavedPlots()


def reset_examples(gallery_conf, fname, when):
    saved_plots.snapshot(gallery_conf, fname, when)


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": GALLERY_OUT,
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"__init__\.py",
    "reset_argv": quick_argv,
    "image_scrapers": (saved_plots,),
    "reset_modules": (reset_examples,),
    "reset_modules_order": "both",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = "physlib"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
