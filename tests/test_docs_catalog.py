"""The catalog table of the docs (docs/catalog.md) names every class a domain package hands on, and nothing else: a
class added to the catalog without its row (what it models, its MSL and Simscape counterparts)
fails here, as does a row left behind by a renamed or removed class."""
import importlib
import inspect
import re
from pathlib import Path

from physlib.core.component import Component

DOMAINS = ("electrical", "rotational", "translational", "hydraulic", "thermal", "signals")
CATALOG = Path(__file__).resolve().parents[1] / "docs" / "catalog.md"


def catalog_rows() -> dict[str, set[str]]:
    """{domain: class names} from the rows of the catalog table."""
    text = CATALOG.read_text(encoding="utf-8")
    rows: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[1] in DOMAINS:
            rows.setdefault(cells[1], set()).update(re.findall(r"`(\w+)`", cells[0]))
    return rows


def user_classes(domain: str) -> set[str]:
    """The classes a domain hands on that users place in models: not its interfaces, and not a
    base that other classes of the domain extend (Waveform, Sampled, StickSlip)."""
    package = importlib.import_module(f"physlib.components.{domain}")
    classes = {name: getattr(package, name) for name in package.__all__}
    classes = {name: cls for name, cls in classes.items()
               if inspect.isclass(cls) and issubclass(cls, Component)
               and not cls.__module__.endswith(".interfaces")}
    bases = {name for name, cls in classes.items()
             if any(other is not cls and issubclass(other, cls) for other in classes.values())}
    return set(classes) - bases


def test_every_catalog_class_has_its_row_and_every_row_its_class():
    rows = catalog_rows()
    for domain in DOMAINS:
        package = importlib.import_module(f"physlib.components.{domain}")
        missing = user_classes(domain) - rows.get(domain, set())
        stale = {name for name in rows.get(domain, set()) if not hasattr(package, name)}
        assert not missing, f"{domain}: classes without a row in docs/catalog.md: {sorted(missing)}"
        assert not stale, f"{domain}: rows naming no class of physlib.components.{domain}: {sorted(stale)}"
