"""Tests of the built documentation, run by .ci/run after the docs build (not by the main
suite: ``testpaths`` is ``tests``)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "docs" / "_build" / "html"
sys.path.insert(0, str(ROOT))                # ``from examples.x import build`` in the pages
