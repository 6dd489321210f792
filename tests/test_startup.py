"""Start-up: ``import physlib`` loads only what building a model takes, and the one-time SymPy
derivation of each component class is cached on disk (physlib.assembly.template_cache), so a
process with a warm cache builds, compiles and simulates without importing SymPy. No timing
is asserted here (benchmarks/bench_startup.py measures it); what is checked is what gets
imported and that the cache never changes a result or fails a run."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import physlib
from physlib.assembly import template_cache, templates

from test_electrical_transients import rc_model

RC = textwrap.dedent("""
    import json, sys
    from physlib import Model
    from physlib.components.electrical import VoltageSource, Resistor, Capacitor, Ground
    from physlib.components.signals import Step

    m = Model("rc")
    src = m.add(VoltageSource("src", V=Step(height=1.0, t0=0.0)))
    r = m.add(Resistor("R1", R=1e3))
    c = m.add(Capacitor("C1", C=1e-6))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, c.p)
    m.connect(c.n, src.n, gnd.p)
    res = m.compile().simulate(5e-3)
    print(json.dumps({"modules": sorted(sys.modules), "t": res.t.tolist(), "v": res["C1.v"].tolist()}))
""")


def run(code, cache):
    env = dict(os.environ, PHYSLIB_CACHE_DIR=str(cache))
    env.pop("PHYSLIB_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_importing_physlib_loads_no_analysis_plotting_or_dense_algebra(tmp_path):
    modules = set(run("import json, sys, physlib; print(json.dumps(sorted(sys.modules)))", tmp_path))
    for heavy in ("matplotlib", "pandas", "dask", "scipy.linalg", "sympy", "networkx", "physlib.analysis"):
        assert heavy not in modules, heavy


@pytest.mark.parametrize("setting, numpy_first, expected", [
    ({}, False, "4"),                                   # idle OpenBLAS workers sleep at once
    ({"OPENBLAS_THREAD_TIMEOUT": "12"}, False, "12"),   # never over the user's own setting
    ({"GOTO_THREAD_TIMEOUT": "20"}, False, None),       # ... under its older name either
    ({}, True, None),                                   # too late once NumPy is loaded: left alone
])
def test_importing_physlib_first_lets_idle_blas_threads_sleep(setting, numpy_first, expected):
    # OpenBLAS's workers spin for about 2**28 cycles after start-up before they sleep: a core
    # busy for the first tenth of a second of every process (a small compile-and-simulate
    # script took 10-15 % longer on two cores). The timeout is read once, as NumPy loads.
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")}
    code = ("import numpy; " if numpy_first else "") + \
        "import json, os, physlib; print(json.dumps(os.environ.get('OPENBLAS_THREAD_TIMEOUT')))"
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, **setting), capture_output=True,
                         text=True, check=True)
    assert json.loads(out.stdout) == expected


CONSTRUCT_CATALOG = textwrap.dedent("""
    import importlib, inspect, json, sys
    from physlib.core.component import Component
    from physlib.core.errors import PhyslibError
    made, importing = 0, []
    for domain in ("electrical", "rotational", "translational", "hydraulic", "thermal", "signals"):
        module = importlib.import_module("physlib.components." + domain)
        for name in module.__all__:
            if name in ("t", "Expression"):         # SymPy objects themselves
                continue
            cls = getattr(module, name)
            if not (inspect.isclass(cls) and issubclass(cls, Component)):
                continue
            try:
                cls("x")
                made += 1
            except (PhyslibError, TypeError):     # a required parameter: nothing to build
                pass
            if "sympy" in sys.modules:
                importing.append(name)
                break
    print(json.dumps({"made": made, "importing": importing}))
""")


def test_building_any_catalog_component_imports_no_sympy(tmp_path):
    # A warm-cache run builds its model without SymPy: a component's checks at construction
    # (validate) work on numbers. A DC machine's nominal-voltage check once went through its
    # symbolic ViNominal and imported SymPy in every script that built one.
    out = run(CONSTRUCT_CATALOG, tmp_path)
    assert out["made"] > 100 and out["importing"] == [], out


def test_a_simulation_imports_no_other_analysis(tmp_path):
    # The compiled model's other analyses (linearization, noise, sensitivities, exports) are
    # imported when their methods are first read, and physlib.analysis hands on its names
    # lazily: a build, compile and simulate loads none of them.
    modules = set(run(RC, tmp_path)["modules"])
    assert "physlib.analysis.simulation.simulate" in modules
    for other in ("physlib.analysis.linear.linearize", "physlib.analysis.linear.linear_model",
                  "physlib.analysis.noise", "physlib.analysis.sensitivity", "physlib.analysis.export"):
        assert other not in modules, other


BUCK = textwrap.dedent("""
    import json, sys
    from physlib import Model
    from physlib.components.electrical import Capacitor, Diode, Ground, Inductor, Resistor, Switch, VoltageSource
    from physlib.components.signals import PWM

    m = Model("buck")
    src, gnd = m.add(VoltageSource("Vin", V=24.0)), m.add(Ground("gnd"))
    switch = m.add(Switch("S1", control=PWM(f=20e3, duty=0.5), Ron=0.01, Goff=1e-6))
    diode = m.add(Diode("D1", Is=1e-14, N=1.0, Rs=0.01))
    choke, cap, load = m.add(Inductor("L1", L=1e-4)), m.add(Capacitor("C1", C=1e-4)), m.add(Resistor("R", R=5.0))
    m.connect(src.p, switch.p)
    m.connect(switch.n, diode.n, choke.p)
    m.connect(choke.n, cap.p, load.p)
    m.connect(src.n, diode.p, cap.n, load.n, gnd.p)
    res = m.compile().simulate(1e-3)
    print(json.dumps({"modules": sorted(sys.modules), "events": len(res.events)}))
""")


def test_a_switching_run_imports_what_it_uses(tmp_path):
    # A hybrid run loads neither the fixed-step solvers, nor operating points (res.at), units
    # shown or CSV (res.to_csv), nor the projection of mode constraints it has none of, nor
    # the C build's command-line quoting: each is imported where it is first used.
    out = run(BUCK, tmp_path)
    assert out["events"] >= 39
    for unused in ("physlib.analysis.simulation.fixed_step", "physlib.analysis.linear.operating_point",
                   "physlib.analysis.common.display_units", "physlib.analysis.common.projection", "csv",
                   "shlex"):
        assert unused not in out["modules"], unused


def test_every_public_name_still_imports_from_the_package():
    for name in physlib.__all__:
        assert getattr(physlib, name) is not None, name
    from physlib import CompiledModel, t, linearize            # noqa: F401  (loaded on first use)
    from physlib.api import CompiledModel as api_class
    assert api_class is CompiledModel and physlib.Model("m").compiled_class is CompiledModel


def test_a_warm_cache_compiles_and_simulates_without_sympy_and_bit_for_bit(tmp_path):
    cold = run(RC, tmp_path)
    assert "sympy" in cold["modules"]                          # derived, and cached
    assert list((tmp_path / f"templates-v{template_cache.FORMAT}").glob("*.pkl"))
    warm = run(RC, tmp_path)
    for heavy in ("sympy", "networkx", "matplotlib", "pandas", "dask"):
        assert heavy not in warm["modules"], heavy
    assert warm["t"] == cold["t"] and warm["v"] == cold["v"]


DECK = """three elements: a pulse into R and C
V1 in 0 DC 0 PULSE(0 1 0 1n 1n 1 2)
R1 in out 1k
C1 out 0 1u
.tran 10u 5m
.end
"""

SPICE_COMMAND = textwrap.dedent("""
    import json, runpy, sys
    sys.argv = ["physlib.spice", sys.argv[1]]
    try:
        runpy.run_module("physlib.spice", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        assert not stop.code, stop.code
    print(json.dumps({"modules": sorted(sys.modules)}))
""")


def test_compiling_simulating_and_running_a_deck_import_no_scipy_numpy_ma_or_logging(tmp_path):
    # SciPy's sparse package takes about a third of a second to import (it clones NumPy's
    # namespace): the compiler's structural work and a small operating point are done without
    # it, so a script or a `python -m physlib.spice` run does not pay for it; with a warm
    # template cache SymPy is not imported either.
    # Nor NumPy's masked arrays (np.unique imports them on first use: 16 ms) or logging (5 ms;
    # physlib's DEBUG/INFO records wait for a program that imported it), nor hashlib (it
    # loads OpenSSL's library first: the caches hash with CPython's own SHA-256, core.digests).
    for run_number in ("cold", "warm"):
        modules = set(run(RC, tmp_path)["modules"])
        assert "scipy" not in modules, run_number
    assert not {"sympy", "numpy.ma", "logging", "hashlib"} & modules
    deck = tmp_path / "three_elements.cir"
    deck.write_text(DECK)
    env = dict(os.environ, PHYSLIB_CACHE_DIR=str(tmp_path))
    env.pop("PHYSLIB_NO_CACHE", None)
    for run_number in ("cold", "warm"):
        out = subprocess.run([sys.executable, "-c", SPICE_COMMAND, str(deck)], env=env,
                             capture_output=True, text=True, check=True).stdout.splitlines()
        modules = set(json.loads(out[-1])["modules"])
        assert "scipy" not in modules, run_number
    assert not {"sympy", "numpy.ma", "logging", "hashlib"} & modules
    # The run's result: the last printed row (t = 5 ms, five time constants) is the RC step
    # response 1 - exp(-5) within the transient's tolerance (1e-4 V, as the benchmark checks).
    last = next(line for line in reversed(out) if line.startswith("500 ")).split()
    assert float(last[1]) == pytest.approx(5e-3, abs=1e-12)
    assert float(last[3]) == pytest.approx(1 - np.exp(-5.0), abs=1e-4)


LARGE_LADDER = textwrap.dedent("""
    import json, sys
    from physlib import Model
    from physlib.components.electrical import VoltageSource, Resistor, Capacitor, Ground
    from physlib.components.signals import Step

    m = Model("ladder")
    src, gnd = m.add(VoltageSource("src", V=Step(height=1.0, t0=0.0))), m.add(Ground("gnd"))
    m.connect(src.n, gnd.p)
    node = src.p
    for k in range(1, 501):         # 500 states: over the stepped solver's dense limit (400)
        r, c = m.add(Resistor(f"R{k}", R=1e3)), m.add(Capacitor(f"C{k}", C=1e-6))
        m.connect(node, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, gnd.p)
        node = r.n
    res = m.compile().simulate(5e-3, solver="idas", rtol=1e-8, atol=1e-10)
    print(json.dumps({"modules": sorted(sys.modules), "v1": float(res["C1.v"][-1])}))
""")


def test_reading_and_writing_a_deck_need_no_casadi(tmp_path):
    # A deck converted (read, checked for DC paths, written back) computes nothing: CasADi
    # (60 ms of import) waits for the first compile, and NumPy's masked arrays stay unloaded.
    code = textwrap.dedent(f"""
        import json, sys, warnings
        import physlib.spice as spice
        warnings.simplefilter("ignore")
        deck = spice.read({DECK!r})
        spice.write(deck.model)
        print(json.dumps({{"modules": sorted(sys.modules), "nodes": list(deck.nodes)}}))
    """)
    out = run(code, tmp_path)
    assert out["nodes"] == ["0", "in", "out"]
    assert not {"casadi", "numpy.ma", "scipy"} & set(out["modules"])


def test_a_large_linear_model_simulates_without_scipy(tmp_path):
    # A linear model over the dense limit steps with its Jacobian's numbers on a sparse
    # pattern, evaluated by the compiled callbacks; SciPy's sparse matrix (0.17 s to import)
    # serves only the Python callbacks and is made there.
    out = run(LARGE_LADDER, tmp_path)
    assert "scipy" not in out["modules"]
    # The ladder's ODE, τ·v' = A·v + e1 (1 V on from t = 0, τ = RC), solved independently with
    # the matrix exponential: v(t) = s − expm(A·t/τ)·s, s = −A⁻¹·e1 the steady state (all at 1 V).
    import scipy.linalg
    n, tau = 500, 1e3 * 1e-6
    A = np.diag(np.full(n, -2.0)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    A[-1, -1] = -1.0                                      # the last node has no next resistor
    steady = -np.linalg.solve(A, np.eye(n)[0])            # every node at 1 V
    v = steady - scipy.linalg.expm(A * 5e-3 / tau) @ steady
    # rtol 1e-8, atol 1e-10 on values of order 1: the run is within 1e-6 V
    assert out["v1"] == pytest.approx(v[0], abs=1e-6)


def test_corrupt_and_foreign_entries_are_derived_again_with_the_same_result(tmp_path):
    cold = run(RC, tmp_path)
    entries = sorted((tmp_path / f"templates-v{template_cache.FORMAT}").glob("*.pkl"))
    entries[0].write_bytes(b"not a pickle")
    entries[1].write_bytes(entries[2].read_bytes())            # a valid entry under another key
    again = run(RC, tmp_path)
    assert again["t"] == cold["t"] and again["v"] == cold["v"]
    assert "sympy" in again["modules"]                         # those two were derived again


def test_an_unwritable_or_disabled_cache_still_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(templates, "_cache", {})
    a = rc_model().compile().simulate(5e-3)
    monkeypatch.setenv("PHYSLIB_NO_CACHE", "1")
    assert template_cache.cache_dir() is None
    monkeypatch.setattr(templates, "_cache", {})
    b = rc_model().compile().simulate(5e-3)
    np.testing.assert_array_equal(a["C1.v"], b["C1.v"])


def test_a_changed_helper_module_of_the_catalog_is_a_new_key(monkeypatch):
    # The Diode's equations call the pn-junction functions of
    # physlib/components/electrical/semiconductors/junctions.py; an edit there must not leave a
    # stale derived Diode in the cache (it did: the key held only the Diode's own module; and
    # a module in a subpackage of the catalog must count as much as one at its top).
    from pathlib import Path

    from physlib.components.electrical import Diode
    from physlib.components.electrical.semiconductors import junctions
    monkeypatch.setenv("PHYSLIB_NO_CACHE", "1")     # no digest of the code kept on disk
    template_cache._environment.cache_clear()
    key = template_cache.cache_key(Diode, (), frozenset(), frozenset())
    real = template_cache.file_digest
    edited = Path(junctions.__file__).resolve()
    monkeypatch.setattr(template_cache, "file_digest",
                        lambda path: "edited" if Path(path).resolve() == edited else real(path))
    template_cache._environment.cache_clear()      # read once per process
    try:
        assert template_cache.cache_key(Diode, (), frozenset(), frozenset()) != key
    finally:
        template_cache._environment.cache_clear()


def test_the_code_digest_kept_on_disk_follows_each_file_s_size_and_time(tmp_path, monkeypatch):
    # A later process reads the digest of physlib's deriving code back from the cache folder
    # instead of hashing a hundred modules; an edit (same size, new time) or a spoilt entry
    # makes it hash them again, and the digest is always that of the files' text.
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path / "cache"))
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    for f, text in zip(files, ("x = 1\n", "y = 2\n")):
        f.write_text(text)
    paths = [str(f) for f in files]

    def hashed():
        import hashlib
        return hashlib.sha256(b"".join(hashlib.sha256(f.read_bytes()).hexdigest().encode()
                                       for f in files)).hexdigest()

    first = template_cache._code_digest(paths)
    memos = list((tmp_path / "cache" / f"templates-v{template_cache.FORMAT}").glob("code-*"))
    assert first == hashed() and len(memos) == 1 and memos[0].read_text() == first
    monkeypatch.setattr(template_cache, "file_digest", lambda path: pytest.fail("hashed again"))
    assert template_cache._code_digest(paths) == first                   # read back, not hashed
    monkeypatch.undo()
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path / "cache"))
    files[1].write_text("y = 3\n")                                       # the same size
    os.utime(files[1], ns=(os.stat(files[1]).st_mtime_ns + 10**9,) * 2)
    edited = template_cache._code_digest(paths)
    assert edited == hashed() != first
    for memo in (tmp_path / "cache" / f"templates-v{template_cache.FORMAT}").glob("code-*"):
        memo.write_text("spoilt")
    assert template_cache._code_digest(paths) == edited


def test_the_code_digest_covers_every_module_of_the_deriving_packages(tmp_path):
    # The listing by os.scandir finds what a recursive glob finds, nested folders included.
    (tmp_path / "pkg" / "sub" / "deeper").mkdir(parents=True)
    for name in ("pkg/a.py", "pkg/sub/b.py", "pkg/sub/deeper/c.py", "pkg/notes.txt", "pkg/sub/d.pyc"):
        (tmp_path / name).write_text("")
    found = template_cache._python_files(str(tmp_path / "pkg"))
    assert sorted(found) == sorted(str(p) for p in (tmp_path / "pkg").rglob("*.py"))
    package = Path(physlib.__file__).parent / "components"
    assert sorted(template_cache._python_files(str(package))) == sorted(str(p) for p in package.rglob("*.py"))


def test_a_changed_class_source_is_a_new_key(tmp_path, monkeypatch):
    module = tmp_path / "startup_component.py"
    source = textwrap.dedent("""
        import sympy as sp
        from physlib import Component, Port
        from physlib.domains import electrical

        class Leak(Component):
            p = Port(electrical)
            n = Port(electrical)

            def equations(self):
                return [sp.Eq(self.p.i, SCALE * (self.p.v - self.n.v)), sp.Eq(self.p.i + self.n.i, 0)]

        SCALE = 1
    """)
    module.write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import startup_component
    first = template_cache.cache_key(startup_component.Leak, (), frozenset(), frozenset())
    assert first is not None
    assert first == template_cache.cache_key(startup_component.Leak, (), frozenset(), frozenset())
    module.write_text(source.replace("SCALE = 1", "SCALE = 2"))
    os.utime(module, ns=(os.stat(module).st_mtime_ns + 10**9,) * 2)
    assert template_cache.cache_key(startup_component.Leak, (), frozenset(), frozenset()) != first
    assert template_cache.cache_key(startup_component.Leak, (1,), frozenset(), frozenset()) != first


NOISE = textwrap.dedent("""
    import json, sys
    from physlib import Model
    from physlib.components.electrical import VoltageSource, Resistor, Diode, Ground

    m = Model("clamp")                     # the 1N4148-like diode behind 1 kOhm from 5 V
    src = m.add(VoltageSource("src", V=5.0))
    r = m.add(Resistor("R1", R=1e3))
    d = m.add(Diode("D1", Is=2.52e-9, N=1.752, Rs=0.568))
    gnd = m.add(Ground("gnd"))
    m.connect(src.p, r.p)
    m.connect(r.n, d.p)
    m.connect(d.n, src.n, gnd.p)
    sim = m.compile()
    res = sim.noise("D1.v", [1.0, 1e3, 1e6], at=sim.operating_point())
    print(json.dumps({"modules": sorted(sys.modules), "psd": res.psd.tolist()}))
""")


def test_a_warm_cache_runs_a_diode_noise_analysis_without_sympy(tmp_path):
    # The noise analysis's copies of classes (the Diode with its noise currents as parameters,
    # the injected sources) name the function that made them (__made_by__), so they are cached
    # like any class: a second process derives nothing, and its spectrum is the same bit for bit.
    cold = run(NOISE, tmp_path)
    assert "sympy" in cold["modules"]
    warm = run(NOISE, tmp_path)
    assert "sympy" not in warm["modules"]
    assert warm["psd"] == cold["psd"]


def test_a_class_made_by_a_module_function_is_keyed_by_that_module(tmp_path, monkeypatch):
    module = tmp_path / "startup_factory.py"
    source = textwrap.dedent("""
        import sympy as sp
        from physlib import Component, Parameter, Port
        from physlib.domains import electrical

        class Base(Component):
            p = Port(electrical)
            n = Port(electrical)

            def equations(self):
                return [sp.Eq(self.p.i, self.scale() * (self.p.v - self.n.v)), sp.Eq(self.p.i + self.n.i, 0)]

            def scale(self):
                return 1

        def made(stamp=True):
            namespace = {"g": Parameter(SCALE), "scale": lambda self: self.g}
            if stamp:
                namespace["__made_by__"] = made
            return type("MadeBase", (Base,), namespace)

        SCALE = 1
    """)
    module.write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import startup_factory

    def key(cls):
        return template_cache.cache_key(cls, (), frozenset(), frozenset())
    first = key(startup_factory.made())
    assert first is not None and first == key(startup_factory.made())
    assert first != key(startup_factory.Base)
    assert key(startup_factory.made(stamp=False)) is None             # no stable identity
    module.write_text(source.replace("SCALE = 1", "SCALE = 2"))        # the factory's module
    os.utime(module, ns=(os.stat(module).st_mtime_ns + 10**9,) * 2)
    assert key(startup_factory.made()) != first

    def local():
        return type("Local", (startup_factory.Base,), {"__made_by__": local})
    assert key(local()) is None                # a function its module does not hold by name


def test_classes_without_a_stable_identity_are_not_cached_on_disk():
    from physlib.components.signals import Add

    made = type(Add("a", k=[1, 2, 3]))                          # one class per number of inputs
    assert made is not Add and template_cache.cache_key(made, (), frozenset(), frozenset()) is None

    class Local(physlib.Component):
        pass

    assert template_cache.cache_key(Local, (), frozenset(), frozenset()) is None
    with pytest.raises(TypeError):
        template_cache._plain(object())  # noqa: SLF001 -- a structure key of no plain data


def test_the_sundials_libraries_found_beside_the_package_are_the_distribution_s():
    # The simulator finds scikit-sundae's libraries in the folder its wheels bundle them in,
    # without reading the distribution's file list (importlib.metadata, 40 ms of a start); the
    # file list must name the same files.
    from physlib.analysis.common import sundials_library as sundials
    names = ("core", "nvecserial", "sunmatrixdense", "sunlinsoldense", "ida", "cvode")
    assert sundials._paths(names) == sundials._found(names, sundials._distribution_folders())


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads Linux's map of a process's files")
def test_a_run_with_the_compiled_stepping_loop_loads_casadi_once(tmp_path):
    # CasADi's wheels carry libcasadi twice (unversioned and versioned names, no symbolic
    # links): the compiled callbacks once opened the copy CasADi's module had not, a second
    # CasADi in the process (4 ms, 13 MB) evaluating the first one's functions.
    code = RC.replace('print(json.dumps({', textwrap.dedent('''\
        from physlib.analysis.simulation import callbacks
        compiled = callbacks.library() is not None     # as every IDA run with algebraic variables
        files = sorted({path for path in (line.split()[-1] for line in open("/proc/self/maps"))
                        if path.rsplit("/", 1)[-1].startswith("libcasadi.")})
        print(json.dumps({"compiled": compiled, "libcasadi": files,'''), 1)
    out = run(code, tmp_path)
    if not out["compiled"]:
        pytest.skip("the compiled callbacks are not available here (no C compiler)")
    assert len(out["libcasadi"]) == 1, out["libcasadi"]
