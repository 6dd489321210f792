"""The system C compiler, for what physlib builds in C: exported models (FMUs, standalone
programs), and the small native helpers of its solvers (:func:`native_library`: the SUNDIALS
callbacks of :mod:`physlib.analysis.simulation.callbacks`, the frequency sweep of
:mod:`physlib.analysis.linear.frequency_response`)."""
from __future__ import annotations

import ctypes
import os
import shutil
import sys
from pathlib import Path

from ...core.digests import sha256
from ...core.errors import ExportError
from ...core.logs import logger

_log = logger(__name__)


def c_compiler() -> list[str]:
    """The C compiler command: ``$CC`` if set, else the first of cc, gcc, clang on the PATH.
    No compiler is an :class:`~physlib.core.errors.ExportError` saying what to install."""
    if os.environ.get("CC"):
        import shlex            # only for a compiler given in $CC
        command = shlex.split(os.environ["CC"])
        if shutil.which(command[0]):
            return command
        raise ExportError(f"$CC is {os.environ['CC']!r}, which is not on the PATH; set CC to a C "
                          "compiler (gcc, clang) or unset it")
    for name in ("cc", "gcc", "clang"):
        if path := shutil.which(name):
            return [path]
    raise ExportError("no C compiler found (looked for $CC, cc, gcc, clang on the PATH): install one "
                      "(Debian/Ubuntu: apt-get install gcc; macOS: xcode-select --install), or export "
                      "with binary=False for a source-only FMU")


def target() -> str:
    """The platform and processor a library is built for: part of every cached library's name,
    so that machines of two architectures sharing a home folder (and its cache) do not load
    each other's."""
    return f"{sys.platform}-{os.uname().machine}"


def native_library(source: Path, folder: str):
    """The C file ``source`` built as a shared library and loaded (ctypes, symbols kept local),
    or None when it cannot be: no compiler, a failed build, Windows, or
    ``PHYSLIB_PYTHON_CALLBACKS=1`` (then every native helper gives way to its Python twin).

    Built once per machine (with ``$CC``, cc, gcc or clang; about 0.1 s) into ``folder`` of
    physlib's cache (:mod:`physlib.assembly.template_cache`), under a name hashed from the
    source, the compiler and the target (:func:`target`); with the cache off
    (``PHYSLIB_NO_CACHE=1``) or unwritable, once per process in a temporary folder removed
    after loading."""
    from ...assembly.template_cache import cache_root
    if os.environ.get("PHYSLIB_PYTHON_CALLBACKS", "").strip() not in ("", "0") or sys.platform == "win32":
        return None
    try:
        compiler, root = c_compiler(), cache_root()
        if root is not None:
            try:
                return _open(_built(source, compiler, root / folder))
            except OSError as err:      # an unwritable or damaged cache folder: build apart
                _log.debug("native cache %s unusable (%s); building in a temporary folder", root, err)
        import tempfile
        with tempfile.TemporaryDirectory(prefix=f"physlib-{folder}-") as temporary:
            return _open(_built(source, compiler, Path(temporary)))   # loaded: the file may go
    except (ExportError, OSError) as err:
        _log.debug("%s unavailable (%s); its Python twin serves", source.name, err)
        return None


def _open(path: Path):
    return ctypes.CDLL(str(path), mode=getattr(ctypes, "RTLD_LOCAL", 0))


# No fused multiply-add (-ffp-contract=off): a helper's arithmetic equals its Python twin's bit
# for bit on every platform (GCC contracts a * b + c by default where the target has FMA).
FLAGS = ["-O2", "-std=c99", "-fPIC", "-shared", "-ffp-contract=off"]


def _built(source: Path, compiler: list[str], folder: Path) -> Path:
    """The shared library of ``source`` in ``folder``, built now if it is not there."""
    from ...assembly.template_cache import mark_used
    text = source.read_bytes()
    key = sha256(text + " ".join(compiler + FLAGS).encode() + target().encode()).hexdigest()[:16]
    path = folder / f"{source.stem}-{key}.so"
    if path.exists():
        mark_used(path)
        return path
    # subprocess only here: a process whose library is built already does not import it
    import subprocess
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{path.name}.{os.getpid()}"
    try:
        subprocess.run([*compiler, *FLAGS, str(source), "-o", str(partial)],
                       check=True, capture_output=True, timeout=120)
    except subprocess.SubprocessError as err:
        raise ExportError(f"building {source.name} failed: {err}") from err
    os.replace(partial, path)      # whole or not at all, for a process building beside this one
    return path
