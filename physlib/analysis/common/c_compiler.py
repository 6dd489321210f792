"""The system C compiler, for what physlib builds in C: exported models (FMUs, standalone
programs) and the solver callbacks of :mod:`physlib.analysis.simulation.compiled_callbacks`."""
from __future__ import annotations

import os
import shlex
import shutil

from ...core.errors import ExportError


def c_compiler() -> list[str]:
    """The C compiler command: ``$CC`` if set, else the first of cc, gcc, clang on the PATH.
    No compiler is an :class:`~physlib.core.errors.ExportError` saying what to install."""
    if os.environ.get("CC"):
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
