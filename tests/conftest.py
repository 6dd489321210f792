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
