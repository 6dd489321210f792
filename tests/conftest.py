import matplotlib

matplotlib.use("Agg")


def _private_template_cache():
    """The tests' own template cache (physlib.assembly.template_cache), in a fresh temporary
    folder per session unless PHYSLIB_CACHE_DIR is set: never the user's cache."""
    import atexit
    import os
    import shutil
    import tempfile

    if not os.environ.get("PHYSLIB_CACHE_DIR"):
        folder = tempfile.mkdtemp(prefix="physlib-test-cache-")
        os.environ["PHYSLIB_CACHE_DIR"] = folder
        atexit.register(shutil.rmtree, folder, ignore_errors=True)


_private_template_cache()


def _no_background_builds():
    """No C twins of model functions built in the background during the suite (unless
    PHYSLIB_NATIVE_FUNCTIONS is set): hundreds of models would each start compilers beside
    the tests. A twin gives its function's numbers bit for bit; tests/test_native_functions.py
    switches them on and compares."""
    import os

    os.environ.setdefault("PHYSLIB_NATIVE_FUNCTIONS", "0")


_no_background_builds()


def _hypothesis_profiles():
    """In CI (CI=true) property tests draw the same examples every run (derandomized), so a
    run's verdict is reproducible; locally they draw new ones each time, which is how bugs are
    found (each found example is then a test of its own)."""
    import os

    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")


_hypothesis_profiles()
