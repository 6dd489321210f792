"""The documentation's pages (README.md and docs/**/*.md) and their Python code blocks, for the
tests that check that a page's example does what its text says."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def code_blocks(page: str) -> list[str]:
    """The ```python blocks of a page, by its path from the repository's root."""
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), flags=re.S)


def code_block(page: str, containing: str) -> str:
    """The first ```python block of a page that contains a piece of text."""
    return next(block for block in code_blocks(page) if containing in block)
