"""The package's layout: the analyses grouped by job, each job subpackage importing only the
shared helpers and the jobs below it, modules and functions small, no import cycle; no module
name of the compiler repeated at two levels; the component catalog one package per domain,
each handing on every class of its modules under the names they always had. (The import graph
and the size rules are those of tests/test_architecture.py, which walks every subpackage.)"""
import importlib
import inspect
import re
import subprocess
import sys

import networkx as nx

import physlib

import test_architecture as architecture

ANALYSIS = architecture.PACKAGE / "analysis"
ASSEMBLY = architecture.PACKAGE / "assembly"
CATALOG = architecture.PACKAGE / "components"
SHARED = "common"
# each job subpackage and what it may import of the analyses besides the shared helpers
# (simulation reaches noise only for the noise propagated along a run; export writes FMUs and
# standalone C from the compiled functions, mirroring the simulator's fixed-step methods and events;
# sensitivity follows the simulator's runs through their events; fitting runs sensitivities, and
# linearizations for a frequency response, its experiments side by side on the sweeps' executors)
JOBS = {"linear": set(), "noise": {"linear"}, "simulation": {"linear", "noise"}, "sweeps": set(),
        "export": {"simulation"}, "sensitivity": {"simulation", "linear"},
        "fitting": {"sensitivity", "linear", "sweeps"}}


def analysis_modules():
    """{dotted name: path} of every module of physlib.analysis."""
    return {name: path for name, (path, _) in architecture.modules().items()
            if name == "physlib.analysis" or name.startswith("physlib.analysis.")}


def test_every_analysis_module_is_in_a_job_subpackage_or_shared():
    stray = []
    for path in ANALYSIS.rglob("*.py"):
        parts = path.relative_to(ANALYSIS).parts
        if parts == ("__init__.py",):
            continue                                    # the package face
        if len(parts) != 2 or parts[0] not in set(JOBS) | {SHARED}:
            stray.append("/".join(parts))
    assert not stray, "modules outside the job subpackages and the shared helpers: " + ", ".join(stray)
    assert {p.parent.name for p in ANALYSIS.glob("*/__init__.py")} == set(JOBS) | {SHARED}


def test_the_architecture_tests_walk_the_subpackages():
    names = analysis_modules()
    for job in list(JOBS) + [SHARED]:
        assert f"physlib.analysis.{job}" in names
        assert any(n.startswith(f"physlib.analysis.{job}.") for n in names), job


def test_analysis_modules_and_functions_are_small():
    long_modules, long_functions = [], []
    for name, (path, tree) in architecture.modules().items():
        if not name.startswith("physlib.analysis"):
            continue
        lines = len(path.read_text().splitlines())
        if lines > 400:
            long_modules.append(f"{name} ({lines} lines)")
        for node in architecture.ast.walk(tree):
            if isinstance(node, (architecture.ast.FunctionDef, architecture.ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > 60:
                    long_functions.append(f"{name}.{node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not long_modules, "modules over 400 lines: " + ", ".join(long_modules)
    assert not long_functions, "functions over 60 lines: " + ", ".join(long_functions)


def test_no_import_cycle_in_the_analyses():
    # as in test_architecture: an edge into an __init__ stands for "some module of that package"
    graph = architecture.dependency_graph().subgraph(
        [n for n, path in analysis_modules().items() if path.name != "__init__.py"])
    cycles = list(nx.simple_cycles(graph))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


def test_jobs_import_only_the_shared_helpers_and_the_jobs_below_them():
    """Counting lazy imports and the subpackages' own __init__ re-exports."""
    def group(name):
        parts = name.split(".")
        return parts[2] if len(parts) > 2 and parts[:2] == ["physlib", "analysis"] else None

    wrong = []
    for a, b in architecture.dependency_graph().edges:
        ga, gb = group(a), group(b)
        if ga is None or gb is None or ga == gb:
            continue
        allowed = set() if ga == SHARED else JOBS[ga] | {SHARED}
        if gb not in allowed:
            wrong.append(f"{a} -> {b}")
    assert not wrong, "imports against the order of the analysis subpackages: " + ", ".join(wrong)
    # and the order itself has no cycle
    order = nx.DiGraph([(job, below) for job, belows in JOBS.items() for below in belows])
    assert nx.is_directed_acyclic_graph(order)


def _stem(name):
    """A module name without a plural or gerund ending: "tear", "tearing" and "tears" are one."""
    return re.sub(r"(ing|s)$", "", name)


def test_no_module_name_of_the_compiler_repeats_at_two_levels():
    where = {}
    for path in ASSEMBLY.rglob("*.py"):
        if path.name != "__init__.py":
            where.setdefault(_stem(path.stem), set()).add(str(path.parent.relative_to(ASSEMBLY)))
    for init in ASSEMBLY.rglob("*/__init__.py"):        # a subpackage named like a module
        where.setdefault(_stem(init.parent.name), set()).add(str(init.parent.parent.relative_to(ASSEMBLY)))
    repeated = {name: sorted(places) for name, places in where.items() if len(places) > 1}
    assert not repeated, f"module names at two levels of physlib/assembly: {repeated}"


# the catalog's domain packages, and its modules that are no domain: the helper shared by the
# classes with noise sources inside them, and the former places of moved modules, each of
# them the moved module itself (imports written before the catalog became packages still work)
DOMAINS = {"electrical", "signals", "rotational", "translational", "hydraulic", "thermal"}
SHARED_CATALOG_MODULES = {"noise_variants", "stick_slip"}
FORMER_PLACES = {"bjt": "electrical.semiconductors.bjt", "mosfet": "electrical.semiconductors.mosfet",
                 "junctions": "electrical.semiconductors.junctions", "discrete": "signals.discrete"}


def catalog_modules(domain):
    """The imported modules of one domain package, subpackages' included, without the faces."""
    names = sorted(n for n, (path, _) in architecture.modules().items()
                   if n.startswith(f"physlib.components.{domain}.") and path.name != "__init__.py")
    return [importlib.import_module(n) for n in names]


def test_the_catalog_is_one_package_per_domain():
    packages = {p.parent.name for p in CATALOG.glob("*/__init__.py")}
    modules = {p.stem for p in CATALOG.glob("*.py")} - {"__init__"}
    assert packages == DOMAINS
    assert modules == SHARED_CATALOG_MODULES | set(FORMER_PLACES)


def test_former_module_paths_are_the_moved_modules():
    for old, new in FORMER_PLACES.items():
        assert importlib.import_module(f"physlib.components.{old}") is \
            importlib.import_module(f"physlib.components.{new}"), old


def test_each_domain_hands_on_every_class_of_its_modules():
    """A class added to a module of a domain must be listed in that module's ``__all__`` and in
    the domain package's: users import it from there."""
    for domain in DOMAINS:
        package = importlib.import_module(f"physlib.components.{domain}")
        for module in catalog_modules(domain):
            classes = {name for name, value in vars(module).items()
                       if inspect.isclass(value) and issubclass(value, physlib.Component)
                       and value.__module__ == module.__name__ and not name.startswith("_")}
            assert classes <= set(module.__all__), f"{module.__name__}.__all__ lacks {classes - set(module.__all__)}"
            missing = classes - set(package.__all__)
            assert not missing, f"{package.__name__} does not hand on {sorted(missing)} of {module.__name__}"
            for name in classes:
                assert getattr(package, name) is getattr(module, name), f"{package.__name__}.{name}"
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{package.__name__}.{name}"


def test_a_domain_reaches_into_another_only_through_its_interfaces():
    """A cross-domain part (EMF, a pump) takes another domain's partial bases (a housing
    flange), never its components: the domains stay apart."""
    wrong = []
    for a, b in architecture.dependency_graph().edges:
        pa, pb = a.split("."), b.split(".")
        if pa[:2] == pb[:2] == ["physlib", "components"] and len(pa) > 2 and len(pb) > 2 \
                and pa[2] in DOMAINS and pb[2] in DOMAINS and pa[2] != pb[2] and pb[3:] != ["interfaces"]:
            wrong.append(f"{a} -> {b}")
    assert not wrong, "imports of another domain's components: " + ", ".join(wrong)


def test_a_class_loads_its_own_module_and_not_its_whole_domain():
    code = ("import json, sys\n"
            "from physlib.components.electrical import Resistor, VoltageSource\n"
            "from physlib.components.signals import Step\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('physlib.components'))))")
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split('"')[1::2])
    assert {"physlib.components.electrical.basic", "physlib.components.electrical.sources",
            "physlib.components.signals.sources"} <= loaded
    for unused in ("electrical.semiconductors.diode", "electrical.semiconductors.bjt",
                   "electrical.semiconductors.mosfet", "electrical.ideal", "signals.continuous",
                   "signals.discrete", "hydraulic", "thermal", "translational"):
        assert f"physlib.components.{unused}" not in loaded, unused
