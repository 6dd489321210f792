"""C code from a compiled model's CasADi functions, and the system C compiler that builds it.

CasADi's :class:`casadi.CodeGenerator` writes a function and everything it calls (sparse
linear algebra, the QR factorization of a code-generated Newton solver) as plain C99 with no
dependency beyond the C library and libm, so the code it writes builds anywhere a C compiler
does: an FMU's binary, a standalone program.
"""
from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import casadi as cs

from ...core.errors import ExportError
from ..common.c_compiler import c_compiler

CFLAGS = ("-std=c99", "-fPIC")
"""Flags of every build: C99 (what the FMI headers and CasADi's output are written in),
position-independent (the FMU's binary is a shared library). No -Wall: its analyses of
uninitialized variables tripled GCC's time on generated code (a 1,000-stage ladder's FMU:
36 s against 11 s at -O0) and warn of nothing a user could act on."""

ROWS_PER_FUNCTION = 100
"""Rows of the equations (and values) each generated C function computes: a C compiler's time
grows faster than a function's length. A 1000-stage RC ladder as whole functions: gcc -O2
ran out of memory after five minutes; in blocks of 100 rows, 30 s (48 s on a loaded machine),
and the program runs three times faster than at -O0."""

OPTIMIZE_LIMIT = 100_000
"""Sources larger than this many bytes [B] are compiled without optimization (-O0, else -O2)
unless the caller asks. CasADi writes straight-line C; GCC's optimizer needs time and memory
superlinear in a function's length even in blocks of ROWS_PER_FUNCTION rows (a 1,000-stage RC
ladder's FMU, 2.7 MB of C: -O0 11 s and 0.5 GB, -O2 47 s, -O1 128 s; as whole functions -O1
ran out of 15 GB), while -O0 code runs only a few times slower."""


def generate(functions: list[cs.Function], directory: Path, name: str) -> Path:
    """Write ``name.c`` and ``name.h`` in ``directory`` with the C code of ``functions`` (each
    callable from C by its CasADi name, through CasADi's documented calling convention:
    ``name(arg, res, iw, w, mem)`` with ``name_work`` giving the work-array sizes). Returns
    the path of the .c file."""
    directory.mkdir(parents=True, exist_ok=True)
    generator = cs.CodeGenerator(f"{name}.c", {"with_header": True, "indent": 1})
    for function in functions:
        generator.add(function)
    # CodeGenerator writes into the working directory it is given as a prefix.
    generator.generate(str(directory) + os.sep)
    return directory / f"{name}.c"


def build(sources: list[Path], output: Path, *, shared: bool, include: tuple = (),
          hidden: bool = False, optimize: bool | None = None) -> Path:
    """Compile and link ``sources`` into ``output``: a shared library (``shared=True``) or a
    program. ``hidden``: export only the symbols the code marks as exported (an FMU's fmi2
    functions), so two FMUs loaded into one process never share a function of the same name.
    ``optimize``: -O2 (True) or -O0 (False); None: -O2 up to :data:`OPTIMIZE_LIMIT` bytes of C
    (code split into short functions, as the standalone program's, compiles at -O2 in time
    linear in its length). A compiler failure is an :class:`~physlib.core.errors.ExportError`
    quoting the compiler's first error lines."""
    folders = {Path(d) for d in include} | {source.parent for source in sources}
    size = sum(path.stat().st_size for folder in folders for path in folder.glob("*.c"))
    level = "-O2" if (size <= OPTIMIZE_LIMIT if optimize is None else optimize) else "-O0"
    command = [*c_compiler(), level, *CFLAGS, *(f"-I{d}" for d in include), *map(str, sources),
               "-o", str(output), "-lm"]
    if shared:
        command.insert(len(c_compiler()), "-shared")
    if hidden:
        command.insert(len(c_compiler()), "-fvisibility=hidden")
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as err:
        raise ExportError(f"could not run the C compiler {command[0]!r}: {err}") from None
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if "error" in line][:8]
        raise ExportError(f"the C compiler failed building {output.name} ({shlex.join(command[:3])} ...):\n  "
                          + "\n  ".join(errors or result.stderr.splitlines()[-8:]))
    return output


def row_blocks(name: str, inputs: list, outputs: list) -> tuple[list, list]:
    """(MX symbols of ``inputs``, MX ``outputs``) where every ROWS_PER_FUNCTION rows of the SX
    ``outputs`` (all with the same number of rows) are computed by a C function of their own."""
    symbols = [cs.MX.sym(f"in{k}", s.sparsity()) for k, s in enumerate(inputs)]
    rows = outputs[0].size1()
    blocks = [cs.Function(f"{name}_rows{first}", inputs,
                          [out[first:min(first + ROWS_PER_FUNCTION, rows), :] for out in outputs]).call(symbols)
              for first in range(0, max(rows, 1), ROWS_PER_FUNCTION)]
    return symbols, [cs.vertcat(*(block[k] for block in blocks)) for k in range(len(outputs))]
