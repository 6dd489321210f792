"""The package's layout: the analyses grouped by job, each job subpackage importing only the
shared helpers and the jobs below it, modules and functions small, no import cycle; no module
name of the compiler repeated at two levels. (The import graph and the size rules are those of
tests/test_architecture.py, which walks every subpackage.)"""
import re

import networkx as nx

import test_architecture as architecture

ANALYSIS = architecture.PACKAGE / "analysis"
ASSEMBLY = architecture.PACKAGE / "assembly"
SHARED = "common"
# each job subpackage and what it may import of the analyses besides the shared helpers
# (simulation reaches noise only for the noise propagated along a run; export writes FMUs and
# standalone C from the compiled functions, mirroring the simulator's fixed-step methods and events;
# sensitivity follows the simulator's runs through their events; fitting runs sensitivities)
JOBS = {"linear": set(), "noise": {"linear"}, "simulation": {"linear", "noise"}, "sweeps": set(),
        "export": {"simulation"}, "sensitivity": {"simulation", "linear"}, "fitting": {"sensitivity"}}


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
