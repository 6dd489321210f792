"""Writes the API reference's pages (docs/api/*.rst) from the packages' ``__all__`` lists at
build time, so that a name added to a package gets its entry without anyone editing the docs.
Each object is documented once, under the first (shortest) public name it has; the other
places that hand it on list it with a link."""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path

DOMAINS = ("electrical", "rotational", "translational", "hydraulic", "thermal", "signals")
# Component modules besides the domains that hand on names of their own.
COMPONENT_MODULES = ("stick_slip", "discrete", "bjt", "mosfet", "junctions", "noise_variants")
ANALYSIS_PACKAGES = ("analysis", "analysis.simulation.results", "analysis.simulation.run_stats",
                     "analysis.common.hybrid_components", "analysis.noise", "analysis.noise.transient",
                     "analysis.sensitivity", "analysis.sweeps", "analysis.fitting",
                     "analysis.fitting.result", "analysis.export")
# The result classes the analyses return, by the module they are defined in (not all are
# handed on by a package's __all__; these are the ones users read).
RESULT_CLASSES = {
    "physlib.analysis.simulation.results": ["SimulationResult"],
    "physlib.analysis.simulation.run_stats": ["RunStats"],
    "physlib.analysis.common.hybrid_components": ["Event"],
    "physlib.analysis.linear.operating_point": ["OperatingPoint"],
    "physlib.analysis.linear.linear_model": ["LinearModel"],
    "physlib.analysis.noise": ["NoiseResult", "MultiportNoise"],
    "physlib.analysis.noise.transient": ["StochasticResult"],
    "physlib.analysis.sensitivity": ["SensitivityResult", "SensitivityEvent", "Gradient"],
    "physlib.analysis.sweeps": ["SweepTable", "SweepRow"],
    "physlib.analysis.fitting.result": ["FitResult", "Identifiability", "Prediction"],
    "physlib.spice.results": ["SpiceResult", "CircuitVectors"],
    "physlib.spice.deck": ["SpiceDeck"],
}


def public_names(module_name: str) -> list[str]:
    module = importlib.import_module(module_name)
    return list(getattr(module, "__all__", []))


class Pages:
    """Collects the sections of the API pages; remembers where each object is documented."""

    def __init__(self):
        self.documented: dict[int, str] = {}

    def section(self, module_name: str, names: list[str], title: str, level: str = "-") -> str:
        module = importlib.import_module(module_name)
        new, elsewhere = [], []
        for name in names:
            obj = getattr(module, name)
            key = id(obj)
            if inspect.ismodule(obj):
                continue
            if key in self.documented and (inspect.isclass(obj) or inspect.isroutine(obj)):
                elsewhere.append((name, self.documented[key], obj))
            else:
                if inspect.isclass(obj) or inspect.isroutine(obj):
                    self.documented[key] = f"{module_name}.{name}"
                new.append(name)
        lines = [title, level * len(title), "", f".. currentmodule:: {module_name}", ""]
        if new:
            lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {name}" for name in new] + [""]
        if elsewhere:
            lines += [f"Also handed on by ``{module_name}``:", ""]
            for name, target, obj in elsewhere:
                role = "class" if inspect.isclass(obj) else "func"
                lines.append(f"* ``{name}``: :{role}:`{target}`")
            lines.append("")
        return "\n".join(lines)


def write(folder: Path) -> None:
    pages = Pages()
    root = ["The ``physlib`` package", "=======================", "",
            "What ``import physlib`` hands on (``physlib.__all__``); the analyses load on first use.",
            "", pages.section("physlib", public_names("physlib"), "physlib"),
            ".. automodule:: physlib.units", "   :no-members:", "",
            pages.section("physlib.units", public_names("physlib.units"), "physlib.units"),
            ".. automodule:: physlib.constants", "   :no-members:", "",
            pages.section("physlib.constants", public_names("physlib.constants"), "physlib.constants")]
    components = ["Components", "==========", "",
                  "Every class of the catalog, by domain: ``from physlib.components.<domain> import <class>``.",
                  "The :doc:`catalog table <../catalog>` says what each models and its Modelica and Simscape "
                  "counterparts.", ""]
    for domain in DOMAINS:
        components.append(pages.section(f"physlib.components.{domain}",
                                        public_names(f"physlib.components.{domain}"), domain))
    for module in COMPONENT_MODULES:
        components.append(pages.section(f"physlib.components.{module}",
                                        public_names(f"physlib.components.{module}"), module))
    spice = ["SPICE decks", "===========", "", ".. automodule:: physlib.spice", "",
             pages.section("physlib.spice", public_names("physlib.spice"), "physlib.spice")]
    results = ["Analysis results", "================", "",
               "What the analyses return: each result class once, under the module that defines "
               "or hands it on.", ""]
    for module, names in RESULT_CLASSES.items():
        results.append(pages.section(module, names, module))
    analysis = ["Analyses", "========", "",
                "The analysis packages' own names (most are also methods of "
                ":class:`physlib.CompiledModel`).", ""]
    for package in ANALYSIS_PACKAGES:
        module = f"physlib.{package}"
        names = [n for n in public_names(module)] if hasattr(importlib.import_module(module), "__all__") else []
        if names:
            analysis.append(pages.section(module, names, module))
    for name, text in (("physlib", root), ("results", results), ("components", components),
                       ("spice", spice), ("analysis", analysis)):
        target = folder / f"{name}.rst"
        content = "\n".join(text) + "\n"
        if not target.exists() or target.read_text() != content:
            target.write_text(content)
