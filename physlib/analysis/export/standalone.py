"""A compiled model as a standalone C program: simulation where no Python exists.

:func:`export_c` writes a folder with the model's equations as C (CasADi's code generator,
:mod:`physlib.analysis.export.codegen`), the run's data (``model_data.h``: parameter values,
times, variable names), a ``main.c`` that integrates them, and a ``Makefile``; it builds the
program there too, so a model that does not compile is an error now, not on the target.

The program, run without arguments, prints CSV to stdout: ``time`` and every variable path
(:attr:`~physlib.assembly.compiled.CompiledModel.variables`) as the header, then one row per
step end from t = 0 to ``t_end``. It integrates with the trapezoidal rule at the fixed step
``dt`` exactly as ``simulate(t_end, solver="trapezoidal", dt=dt)`` does
(:mod:`physlib.analysis.simulation.fixed_step_methods`): per step, Newton's method with a
backtracking line search on

    x1 − x0 − h·(f(x1, z1, t1) + f(x0, z0, t0))/2 = 0,   g(x1, z1, t1) = 0

from the explicit Euler predictor, until the Newton step is below 1e-12 of the unknowns, each
iteration a sparse QR factorization of the exact Jacobian (generated code: the factorization's
pattern is worked out once, at export). The same step grid, time events (the step they fall in
is split, the algebraic variables re-solved after them, two rows at their time stamp) and start
(start values, the algebraic equations solved by the same damped Newton), so the program's
rows equal the simulation's to rounding.
"""
from __future__ import annotations

import math
import numbers
import re
import shutil
from pathlib import Path

import casadi as cs
import numpy as np

from ...core.errors import ExportError
from ..common.initialization import ROUNDING_ULPS, term_sizes
from ..simulation.time_events import LEFT_LIMIT, run_events
from ..common.c_compiler import c_compiler
from .codegen import CFLAGS, build, generate, row_blocks

DEFAULT_T_END = 1.0
"""Stop time [s] when ``export_c`` is given none."""
DEFAULT_STEPS = 1000
"""Steps over the run when ``export_c`` is given no ``dt``: dt = t_end / 1000."""
GRID_TOL = 1e-9
"""A time event within this fraction of dt of a grid point replaces it (as the simulator does)."""
MAIN = Path(__file__).parent / "c" / "standalone_main.c"


def export_c(model, path, *, t_end: float | None = None, dt: float | None = None) -> Path:
    """Write a standalone C program that simulates the model in the folder ``path`` (created
    if missing) and build it there; returns the program's path.

    The folder holds ``main.c``, the generated ``model.c``/``model.h`` and ``model_data.h``
    and a ``Makefile`` (``make`` rebuilds the program with ``$CC``); only a C99 compiler and
    the C library are needed. The program, run without arguments, simulates from the start
    values (compiled-in parameters) with the trapezoidal rule at the fixed step ``dt`` [s]
    up to ``t_end`` [s] and prints CSV to stdout: a header ``time,<variable paths>``, then one
    row per step including t = 0, the values of
    ``simulate(t_end, solver="trapezoidal", dt=dt)`` to rounding. Defaults: ``t_end`` 1 s,
    ``dt`` = t_end/1000.

    Models with modes (hybrid components) are an :class:`~physlib.core.errors.ExportError` for
    now, as are a ``t_end`` or ``dt`` that is not a positive, finite number and a missing or
    failing C compiler.
    """
    if model.has_modes:
        raise ExportError(f"export_c supports continuous models; {model.name} has modes "
                          f"({', '.join(model.modes[:5])}), which need event handling the "
                          "standalone program does not have yet: simulate it in Python")
    t_end = _positive("t_end", DEFAULT_T_END if t_end is None else t_end)
    dt = _positive("dt", t_end / DEFAULT_STEPS if dt is None else dt)
    c_compiler()                       # before writing anything: no compiler, no half-made folder
    folder = _folder(path)
    p = model.parameter_vector(None)
    generate(_functions(model), folder, "model")
    (folder / "model_data.h").write_text(_data_header(model, p, t_end, dt))
    shutil.copyfile(MAIN, folder / "main.c")
    program = _program_name(model.name)
    (folder / "Makefile").write_text(_makefile(program))
    return build([folder / "main.c", folder / "model.c"], folder / program, shared=False, optimize=True)


def _folder(path) -> Path:
    """The folder ``path``, made if missing; an :class:`ExportError` where it cannot be (a
    file there, or no path at all)."""
    try:
        folder = Path(path)
    except TypeError:
        raise ExportError(f"export_c: path must be the path of a folder (a str or pathlib.Path), got "
                          f"{path!r:.60}") from None
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"export_c writes a folder at {folder}, where there is a file; give the path "
                          "of a new or existing folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ExportError(f"export_c writes a folder at {folder}, which cannot be made there: "
                          f"{err.strerror or err}; give the path of a new or existing folder") from None
    return folder


def _positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (math.isfinite(value) and value > 0):
        raise ExportError(f"export_c: {name} must be a positive, finite number of seconds, got {value!r}")
    return float(value)


def _functions(model) -> list[cs.Function]:
    """The CasADi functions main.c calls (physlib_start, _ode, _step, _step_terms, _values and,
    with algebraic variables, _algebraic and _algebraic_terms)."""
    system = model.system
    x, z, p, t = system.symbols()
    ode, alg = system.dae(x, z, p, t)
    nx, nz = x.numel(), z.numel()
    w, x0, f0, h = cs.SX.sym("w", nx + nz), cs.SX.sym("x0", nx), cs.SX.sym("f0", nx), cs.SX.sym("h")
    # split, not sliced: a slice of a 1×1 w (no state, one algebraic unknown) is a row
    w_x, w_z = cs.vertsplit(w, [0, nx, nx + nz])
    f1, g1 = system.dae(w_x, w_z, p, t)
    step = cs.vertcat(w_x - x0 - h * (0.5 * f1 + 0.5 * f0), g1)
    positions, signs = zip(*(model.variable(name) for name in model.variables))
    values = system.outputs(x, z, p, t)[list(positions)] * cs.DM(signs)
    start_in, (start,) = row_blocks("physlib_start", [p, t], [cs.vertcat(*system.start(p, t))])
    functions = [cs.Function("physlib_start", start_in, cs.vertsplit(start, [0, nx, nx + nz])),
                 cs.Function("physlib_ode", *row_blocks("physlib_ode", [x, z, p, t], [ode])),
                 *_newton("physlib_step", step, w, [x0, f0, p, t, h]),
                 cs.Function("physlib_values", *row_blocks("physlib_values", [x, z, p, t], [values]))]
    if nz:
        functions += _newton("physlib_algebraic", alg, z, [x, p, t], term_sizes(alg, cs.vertcat(x, z, p)))
    return functions


def _newton(name: str, residual: cs.SX, unknowns: cs.SX, fixed: list, terms=None) -> list[cs.Function]:
    """``name(w, *fixed) -> (F, −J⁻¹·F)`` (the Newton step, by a sparse QR factorization that
    CasADi generates C for) and ``name_terms(w, *fixed) -> (terms, Σ_j |J_ij|)``: the size of
    each equation's terms (its rounding scale, asked for only when a line search stalls;
    default |J|·|w|) and the row sums that weigh the line search, as physlib's damped Newton
    (:func:`~physlib.analysis.common.initialization.damped_newton`) has them."""
    jacobian = cs.jacobian(residual, unknowns)
    inputs = [unknowns, *fixed]
    symbols, (F, J) = row_blocks(name, inputs, [residual, jacobian])
    if terms is None:
        terms = cs.mtimes(cs.fabs(jacobian), cs.fabs(unknowns))
    row_sums = cs.mtimes(cs.fabs(jacobian), cs.DM.ones(unknowns.numel(), 1))
    return [cs.Function(name, symbols, [F, cs.solve(J, -F, "qr")]),
            cs.Function(f"{name}_terms", *row_blocks(f"{name}_terms", inputs, [terms, row_sums]))]


def _data_header(model, p: np.ndarray, t_end: float, dt: float) -> str:
    """model_data.h: sizes, parameter values, the step grid with its time events, the CSV header."""
    steps = math.ceil(t_end / dt - GRID_TOL)
    # an edge at t_end itself (a pulse whose period divides it) is no event of the run: the
    # last step ends at its left limit, as the simulator's does
    events, end_eval = run_events(model, p, 0.0, t_end)
    snapped, extra = _place_events(events, t_end, dt, steps)
    header = ",".join(["time", *(_csv_field(name) for name in model.variables)])
    system = model.system
    sizes = {"NX": len(system.state_pos), "NZ": len(system.z_pos), "NP": p.size,
             "NV": len(model.variables)}
    return "\n".join([
        f"/* Data of the standalone simulation of {_c_comment(model.name)} (physlib export_c). */",
        *(f"#define {key} {value}" for key, value in sizes.items()),
        "#define T0 0.0",
        f"#define T_END {t_end!r}",
        f"#define T_END_EVAL {end_eval!r}",
        f"#define DT {dt!r}",
        f"#define GRID_STEPS {steps}LL",
        f"#define LEFT_LIMIT {LEFT_LIMIT!r}",
        f"#define ROUNDING_ULPS {ROUNDING_ULPS}",
        *_documentation(model, p),
        f"#define PARAMETERS {_c_array(p.tolist())}",
        f"#define N_SNAPPED {len(snapped)}",
        f"static const long long SNAPPED_STEP[] = {_c_array([k for k, _ in snapped], 'LL')};",
        f"static const double SNAPPED_TIME[] = {_c_array([te for _, te in snapped])};",
        f"#define N_EXTRA {len(extra)}",
        f"static const double EXTRA_EVENTS[] = {_c_array(extra)};",
        f"static const char HEADER[] = {_c_string(header)};",
        ""])


def _documentation(model, p: np.ndarray) -> list[str]:
    """A comment naming each entry of PARAMETERS (path, value, unit) and each CSV column's
    unit: the program's numbers say what they are where they are written."""
    names = [""] * p.size
    for name in model.parameters:
        names[model.parameter_slot(name)] = name
    entries = [_c_comment(f" * {k:5d}  {name} = {value!r} [{model.unit(name)}]") for k, (name, value)
               in enumerate(zip(names, p.tolist())) if name]
    columns = [_c_comment(f" *   {name} [{model.unit(name)}]") for name in model.variables]
    return ["/* PARAMETERS, entry by entry: index, path = value [unit], as exported (export again to",
            " * change one: the time events above and below were placed with these values).",
            *entries, " * The CSV columns after time [s]:", *columns, " */"]


def _place_events(events: list[float], t_end: float, dt: float, steps: int):
    """Time events as the simulator's step grid takes them: ([(grid index, time)] for those
    within GRID_TOL·dt of a grid point, which they replace; [times] of the others, which split
    the step they fall in)."""
    grid = dt * np.arange(steps + 1)
    grid[-1] = t_end
    snapped, extra = {}, []
    for te in events:
        k = int(np.argmin(np.abs(grid - te)))
        if abs(grid[k] - te) <= GRID_TOL * dt:
            if k > 0:                  # an event a rounding error after t0 leaves the run as it is
                snapped[k] = te
        else:
            extra.append(te)
    return sorted(snapped.items()), sorted(extra)


def _c_array(numbers_: list, suffix: str = "") -> str:
    # C has no empty initializer: an unused 0 keeps the array valid.
    return "{" + ", ".join(_c_number(v) + suffix for v in numbers_ or [0]) + "}"


def _c_number(value) -> str:
    """A C literal that reads back as ``value`` exactly (repr is the shortest such decimal);
    infinite and NaN parameters (a diode's BV = inf: no breakdown) as math.h's macros."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NAN" if math.isnan(value) else ("INFINITY" if value > 0 else "-INFINITY")
    return repr(value)


def _c_string(text: str) -> str:
    """A C string literal of ``text``, as adjacent literals of at most 2000 characters (C99
    compilers need only take 4095 in one)."""
    pieces = [text[k:k + 2000].replace("\\", "\\\\").replace('"', '\\"') for k in range(0, len(text), 2000)]
    return "\n    ".join(f'"{piece}"' for piece in pieces) or '""'


def _c_comment(text: str) -> str:
    return text.replace("*/", "* /")


def _csv_field(name: str) -> str:
    return f'"{name.replace(chr(34), chr(34) * 2)}"' if any(c in name for c in ',"\n') else name


def _program_name(model_name: str) -> str:
    return re.sub(r"\W", "_", model_name, flags=re.ASCII).strip("_") or "model"


def _makefile(program: str) -> str:
    # No CC line: make's default (cc) or $CC from the environment.
    return (f"# Builds the standalone simulation of a physlib model (export_c): make; ./{program} > out.csv\n"
            f"CFLAGS ?= -O2 {' '.join(CFLAGS)}\n\n"
            f"{program}: main.c model.c model.h model_data.h\n"
            f"\t$(CC) $(CFLAGS) main.c model.c -o {program} -lm\n\n"
            "clean:\n"
            f"\trm -f {program}\n")
