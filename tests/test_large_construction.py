"""The allocator's policy while a large model compiles (physlib.core.memory.large_construction):
the compile's freed arrays serve the next ones instead of fresh pages from the kernel, and
everything is as it was afterwards."""
import threading

import pytest

import physlib.assembly.compile as compile_module
import physlib.core.memory as memory
from test_results import rc_ladder as ladder


def _advice() -> bool | None:
    """NumPy's huge-page advice now (setting it back as it was)."""
    before = memory._set_numpy_advice(True)
    memory._set_numpy_advice(before)
    return before


@pytest.fixture
def recorded(monkeypatch):
    """The allocator calls made (mallopt settings and trims), and NumPy's advice at each pass."""
    calls = []
    monkeypatch.setattr(memory, "_start_environment", lambda: {})    # an allocator nobody set up
    monkeypatch.setattr(memory, "_mallopt", lambda parameter, value: calls.append((parameter, value)))
    monkeypatch.setattr(memory, "release_free_memory", lambda: calls.append("trim"))
    monkeypatch.setattr(compile_module, "release_free_memory", lambda: calls.append("compile trim"))
    run = compile_module._run

    def observed(name, function, *args):
        calls.append((name, _advice()))
        return run(name, function, *args)
    monkeypatch.setattr(compile_module, "_run", observed)
    return calls


def test_a_large_compile_reuses_what_it_frees_and_leaves_everything_as_it_was(monkeypatch, recorded):
    if _advice() is None:
        pytest.skip("this NumPy has no huge-page switch")
    monkeypatch.setattr(compile_module, "LARGE_MODEL", 10)     # 22 components: a large model here
    advice = _advice()
    result = ladder(10).compile().simulate(1e-3)
    keep = [(memory._M_MMAP_THRESHOLD, memory._KEEP), (memory._M_TRIM_THRESHOLD, memory._KEEP)]
    settled = [(memory._M_MMAP_THRESHOLD, memory._SETTLED_MMAP), (memory._M_TRIM_THRESHOLD, memory._SETTLED_TRIM)]
    passes = [c for c in recorded if isinstance(c, tuple) and isinstance(c[0], str)]
    assert recorded[:2] == keep and recorded[-3:] == settled + ["trim"]
    assert passes and all(on is False for _, on in passes)     # every pass without huge-page advice
    assert _advice() == advice and memory._depth == 0
    # the same numbers as the model compiled without it
    monkeypatch.setattr(compile_module, "LARGE_MODEL", 10**9)
    assert result["C1.v"][-1] == pytest.approx(ladder(10).compile().simulate(1e-3)["C1.v"][-1], abs=0)


def test_a_small_compile_leaves_the_allocator_alone(recorded):
    advice = _advice()
    ladder(3).compile()
    assert not any(c in ("trim", "compile trim") or isinstance(c[0], int) for c in recorded)
    assert all(on == advice for _, on in recorded)


def test_constructions_in_two_threads_set_the_policy_once_and_restore_it_once(recorded):
    inside = threading.Barrier(2)

    def construct():
        with memory.large_construction():
            inside.wait(timeout=10)         # both inside at once
    threads = [threading.Thread(target=construct) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [c for c in recorded if c == "trim" or isinstance(c[0], int)] == [
        (memory._M_MMAP_THRESHOLD, memory._KEEP), (memory._M_TRIM_THRESHOLD, memory._KEEP),
        (memory._M_MMAP_THRESHOLD, memory._SETTLED_MMAP), (memory._M_TRIM_THRESHOLD, memory._SETTLED_TRIM),
        "trim"]
    assert memory._depth == 0


def test_the_policy_is_restored_when_the_construction_fails(recorded):
    advice = _advice()
    with pytest.raises(RuntimeError):
        with memory.large_construction():
            raise RuntimeError("a compile error")
    assert memory._depth == 0 and _advice() == advice and recorded[-1] == "trim"


@pytest.mark.parametrize("variable, value", [("MALLOC_MMAP_THRESHOLD_", "65536"),
                                             ("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")])
def test_an_allocator_its_user_set_up_stays_as_they_set_it(monkeypatch, recorded, variable, value):
    monkeypatch.setattr(memory, "_start_environment", lambda: {variable: value})   # as the process started
    with memory.large_construction():
        pass
    assert recorded == ["trim"]          # no threshold set, none reset; the free pages still go back


def test_a_variable_set_after_the_start_changes_nothing(monkeypatch, recorded):
    # dask's nanny sets MALLOC_TRIM_THRESHOLD_ in its own process for the workers it starts;
    # glibc read its settings here when the process started, without it
    monkeypatch.setattr(memory, "_start_environment", lambda: {})
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    with memory.large_construction():
        pass
    assert [c[0] for c in recorded[:2]] == [memory._M_MMAP_THRESHOLD, memory._M_TRIM_THRESHOLD]


def test_the_start_environment_is_the_process_s_own(monkeypatch):
    monkeypatch.setenv("PHYSLIB_SET_AFTER_START", "1")
    start = memory._start_environment()
    assert start and "PHYSLIB_SET_AFTER_START" not in start


def test_numpy_advice_set_by_its_variable_stays(monkeypatch, recorded):
    if _advice() is None:
        pytest.skip("this NumPy has no huge-page switch")
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    advice = _advice()
    with memory.large_construction():
        assert _advice() == advice
    assert _advice() == advice


def test_component_count_counts_every_level():
    outer, inner = ladder(2), ladder(3)
    outer.add(inner)
    assert inner.component_count == 8 and outer.component_count == 6 + 8


@pytest.mark.parametrize("error", [OSError, TypeError])     # no C library to load; Windows' CDLL(None)
def test_without_glibc_the_allocator_is_left_alone(monkeypatch, error):
    import ctypes

    def no_library(name, *args, **kwargs):
        raise error("no C library here")
    memory._glibc.cache_clear()
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    try:
        assert memory._glibc() is None
        with memory.large_construction():       # nothing to set, nothing to trim: no error
            pass
        memory.release_free_memory()
    finally:
        memory._glibc.cache_clear()
