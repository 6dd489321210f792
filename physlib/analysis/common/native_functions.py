"""A model's CasADi function translated to C and built beside the run that asks for it.

CasADi evaluates an SX function in its virtual machine, about 7 ns an instruction. A function
evaluated thousands of times in a run (the row function of a dense output grid: 10,001 rows,
822 instructions each on a Shockley-diode buck converter; the junction's Newton solve at each
of its events) costs that many times more than its arithmetic: the same function as C
(CasADi's code generator, built by the system C compiler) runs 5–8× faster, with the same
results bit for bit (the same operations in the same order; no fused multiply-add, no
fast-math).

Building takes the compiler 0.1–0.3 s, which a run must not wait for: :func:`native_twin`
starts the build in the background (a detached process, which finishes even if the program
ends first) and the run goes on with the virtual machine; :meth:`NativeTwin.function` gives the
built function from the moment the library is there. The library is kept in physlib's cache
folder (:mod:`physlib.assembly.template_cache`) under a name hashed from the function (its
serialization), the compiler, its flags, the target (platform and processor) and CasADi's
version, so a later run, process or model of the same structure loads it at once. Nothing is
built with
``PHYSLIB_NATIVE_FUNCTIONS=0``, with the cache off (``PHYSLIB_NO_CACHE=1``), without a C
compiler, on Windows, with ``PHYSLIB_PYTHON_CALLBACKS=1`` (the switch that keeps all of
physlib's native helpers off), or for functions above :data:`NATIVE_LIMIT` instructions.
"""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import casadi as cs

from ...core.digests import sha256
from ...core.errors import ExportError
from ...core.logs import logger
from .c_compiler import FLAGS, c_compiler, target

_log = logger(__name__)

# Above this many instructions a function stays in the virtual machine: its translation (2 ms
# per 1,000 instructions, in the run) and the compiler's time (gcc -O1: 18 s and 1.6 GB for
# 112,000 instructions, 1.6 MB of C) grow faster than what it saves.
NATIVE_LIMIT = 20_000
# The translation keeps the operations' order; -O1 builds it in two thirds of -O2's time, and
# runs as fast (measured on row functions).
NATIVE_FLAGS = [flag if flag != "-O2" else "-O1" for flag in FLAGS]
BUILD_SECONDS = 300.0   # a build's lock older than this is a build that died
# The builds' niceness: the lowest priority, so that they take no core a run needs (a Shockley
# buck's first dense run on an empty cache: 0.60 s beside two builds at normal priority, 0.39 s
# at the lowest, 0.33 s with the builds there already).
BUILD_NICENESS = 19


class NativeTwin:
    """The C build of one CasADi function, at ``path`` once built."""

    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path
        self._function: cs.Function | None = None

    def function(self) -> cs.Function | None:
        """The built function (a CasADi ``external``), or None while it is being built (or if
        its build failed: the virtual machine then serves for good)."""
        if self._function is None and self.path.exists():
            from ...assembly.template_cache import mark_used
            try:
                self._function = cs.external(self.name, str(self.path))
            except RuntimeError as err:     # a damaged library: removed, built again next time
                _log.debug("native %s unusable (%s)", self.path, err)
                self.path.unlink(missing_ok=True)
                return None
            mark_used(self.path)
        return self._function


def native_twin(function: cs.Function, folder: str, build: bool = True) -> NativeTwin | None:
    """The C twin of the SX function ``function``, kept in ``folder`` of physlib's cache: loaded
    at once if a process built it before, else its build started in the background (not with
    ``build`` False: then None). None where none can be made (see the module's notes)."""
    from ...assembly.template_cache import cache_root
    if (_switch("PHYSLIB_PYTHON_CALLBACKS", False) or not _switch("PHYSLIB_NATIVE_FUNCTIONS", True)
            or sys.platform == "win32"
            or not function.is_a("SXFunction") or function.n_instructions() > NATIVE_LIMIT):
        return None
    root = cache_root()
    if root is None:
        return None
    try:
        compiler = c_compiler()
    except ExportError:
        return None
    # Keyed by the function's serialization (a third of the translation's time: a process that
    # finds the library built does not translate the function at all).
    key = sha256("\0".join([function.serialize(), *compiler, *NATIVE_FLAGS, target(), cs.__version__])
                 .encode()).hexdigest()[:16]
    twin = NativeTwin(function.name(), root / folder / f"{function.name()}-{key}.so")
    if not twin.path.exists():
        if not build:
            return None
        generator = cs.CodeGenerator(function.name(), {"with_header": False})
        generator.add(function)
        try:
            _start_build(generator.dump(), compiler, twin.path)
        except OSError as err:          # an unwritable cache folder: the virtual machine serves
            _log.debug("native %s not built (%s)", twin.path, err)
            return None
    return twin


def _start_build(source: str, compiler: list[str], path: Path) -> None:
    """Compile ``source`` into ``path`` in a detached shell: the library appears whole (renamed
    from a partial file) when the compiler is done, and its C file is removed either way. A
    build another process started (its lock file younger than BUILD_SECONDS) is left to it:
    sweep workers on one model build it once."""
    import subprocess
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.parent / f".{path.name}.building"
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        try:
            if time.time() - lock.stat().st_mtime < BUILD_SECONDS:
                return
        except FileNotFoundError:           # that build ended just now
            return
        lock.unlink(missing_ok=True)        # a build that died: start again
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    import shlex
    stem = f".{path.name}.{os.getpid()}"
    c_file, partial = path.parent / f"{stem}.c", path.parent / f"{stem}.partial"
    c_file.write_text(source)
    build = " ".join(shlex.quote(word) for word in [*compiler, *NATIVE_FLAGS, str(c_file), "-o", str(partial)])
    leftovers = " ".join(shlex.quote(str(p)) for p in (c_file, partial, lock))
    nice = f"nice -n {BUILD_NICENESS} " if BUILD_NICENESS and shutil.which("nice") else ""
    # the C file goes before the library appears, so a library found means only the lock is left
    script = (f"({nice}{build} && rm -f {shlex.quote(str(c_file))} && "
              f"mv -f {shlex.quote(str(partial))} {shlex.quote(str(path))}; rm -f {leftovers}) >/dev/null 2>&1 &")
    subprocess.run(["sh", "-c", script], check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _log.debug("building %s in the background", path)


def _switch(name: str, default: bool) -> bool:
    """The environment variable ``name`` as a switch: ``default`` when unset or empty, off for
    "0", on for anything else."""
    value = os.environ.get(name, "").strip()
    return default if not value else value != "0"
