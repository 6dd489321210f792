"""The package's shape: layers import downwards only, no import cycles (imports inside functions
count: a lazy import is still a dependency), modules and functions of the compiler, the
analyses and the component catalog small enough to read, and no module reaching into another's
private names."""
import ast
import functools
import pathlib

import networkx as nx

import physlib

PACKAGE = pathlib.Path(physlib.__file__).parent
LAYERS = ["domains", "core", "components", "assembly", "analysis"]   # lowest first


@functools.cache
def modules():
    """{dotted module name: (path, parsed tree)} for every module of physlib: parsed once per
    process (2.4 s), which the tests here and in test_layout.py read but never change."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = (path, ast.parse(path.read_text()))
    return out


def imports(name, path, tree):
    """(imported module, imported names) for every import in the module, at any depth."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target, tuple(alias.name for alias in node.names)


@functools.cache
def dependency_graph():
    """Module -> modules of physlib it imports (shared by the tests: never change it)."""
    mods = modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(mods)
    for name, (path, tree) in mods.items():
        for target, names in imports(name, path, tree):
            if not target.startswith("physlib"):
                continue
            # "from . import x" imports the submodule x
            candidates = [f"{target}.{n}" for n in names if f"{target}.{n}" in mods] or [target]
            for module in candidates:
                if module in mods and module != name:
                    graph.add_edge(name, module)
    return graph


def test_no_import_cycles_between_modules():
    graph = dependency_graph()
    # A package's __init__ re-exports its modules; edges into an __init__ stand for "some module
    # of that package", so only cycles among modules themselves count.
    inits = {name for name, (path, _) in modules().items() if path.name == "__init__.py"}
    cycles = [c for c in nx.simple_cycles(graph.subgraph(set(graph) - inits))]
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])


def test_layers_import_downwards_only():
    rank = {layer: k for k, layer in enumerate(LAYERS)}
    wrong = []
    for a, b in dependency_graph().edges:
        la, lb = (n.split(".")[1] if n.count(".") else None for n in (a, b))
        if la in rank and lb in rank and rank[lb] > rank[la]:
            wrong.append(f"{a} -> {b}")
    assert not wrong, "upward imports: " + ", ".join(wrong)


def test_compiler_analyses_and_catalog_are_small_enough_to_read():
    long_modules, long_functions = [], []
    for name, (path, tree) in modules().items():
        if not name.startswith(("physlib.assembly", "physlib.analysis", "physlib.components")):
            continue
        lines = len(path.read_text().splitlines())
        if lines > 400:
            long_modules.append(f"{name} ({lines} lines)")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 60:
                    long_functions.append(f"{name}.{node.name} ({length} lines)")
    assert not long_modules, "modules over 400 lines: " + ", ".join(long_modules)
    assert not long_functions, "functions over 60 lines: " + ", ".join(long_functions)


def test_no_module_imports_another_modules_private_names():
    private = []
    for name, (path, tree) in modules().items():
        for target, names in imports(name, path, tree):
            if target.startswith("physlib"):
                private += [f"{name}: {n} from {target}" for n in names if n.startswith("_")]
    assert not private, "private names imported: " + ", ".join(private)


def test_tests_examples_and_benchmarks_read_nothing_outside_the_repository():
    # A fresh clone must run everything on its own: reference data lives in tests/data (see
    # tests/data/README.md), never in a folder beside the clone or at a path of one machine.
    # The system's pseudo-files under /proc and /dev are not project data.
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    outside = re.compile(
        r"""["']shared["']|shared[/\\]reference"""             # the old reference folder
        r"""|["']\.\.["'/\\]|\bpardir\b"""                     # climbing up by name
        r"""|\bROOT\.parent\b|\.parent\.parent\.parent\b"""    # climbing above the root
        r"""|(?<![\w.~])/(?:work|home|Users|root|mnt|tmp)/"""  # a machine's own folders
        r"""|["']/(?!proc/|dev/)[A-Za-z_]|["'](?:~|[A-Za-z]:)[/\\]""")   # absolute literals
    climb = re.compile(r"parents\[(\d+)\]")
    marks = re.compile(r"""['"/\\~]|par""")
    text = {"", ".py", ".md", ".txt", ".cir", ".csv", ".toml", ".cfg", ".ini", ".sh", ".json",
            ".yaml", ".yml"}
    found = []
    for folder in ("tests", "examples", "benchmarks"):
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix not in text:
                continue
            depth = len(path.relative_to(root).parts)    # Path(__file__).parents[depth - 1] is root
            content = path.read_text(errors="replace")
            # every pattern needs a quote, a slash, a tilde or "par(dir|ent)": only the lines
            # with one are matched (the reference CSVs are 68 MB of numbers, 13 s of matching)
            starts = sorted({content.rfind("\n", 0, hit.start()) + 1 for hit in marks.finditer(content)})
            for start in starts:
                end = content.find("\n", start)
                line = content[start:] if end < 0 else content[start:end]
                too_high = [n for n in climb.findall(line) if int(n) >= depth]
                if outside.search(line) or too_high:
                    number = content.count("\n", 0, start) + 1
                    found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)


def test_no_reference_to_documents_outside_the_repository():
    # Users get the package, its tests, examples, benchmarks and README, nothing beside them: a
    # method is explained where it is used (with a citation where it is published), never by a
    # section number of a design document or a path into a folder they do not have. The words
    # are built from pieces so that this test does not find itself.
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    design_doc = re.compile("ALGO" + "RITHMS")
    sibling_folder = re.compile(r"\b" + "sha" + r"red[/\\]")
    text = {"", ".py", ".md", ".txt", ".cir", ".csv", ".toml", ".cfg", ".ini", ".sh", ".json",
            ".yaml", ".yml", ".rst"}
    this_file = pathlib.Path(__file__).resolve()
    paths = [root / "README.md"]
    for folder in ("physlib", "examples", "benchmarks", "tests", "docs"):
        paths += sorted((root / folder).rglob("*"))
    found = []
    for path in paths:
        relative = path.relative_to(root)
        if (not path.is_file() or "__pycache__" in path.parts or path.suffix not in text
                or relative.parts[:2] in {("tests", "data"), ("docs", "_build"), ("docs", "api"), ("docs", "gallery")}
                or path.resolve() == this_file):
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if design_doc.search(line) or sibling_folder.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "references users cannot follow:\n" + "\n".join(found)
