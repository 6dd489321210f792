"""The residual and Jacobian callbacks SUNDIALS calls at each step of a stepped run
(:class:`~physlib.analysis.simulation.sundials.Stepper`): in C where they can be built, else in
Python.

The solver evaluates the model's residual one to two times and its Jacobian a third of a time
per step. As Python callbacks (ctypes) each costs about 4 µs around well under a microsecond of
CasADi evaluation: half the time of a switching converter's run. ``c/sundials_callbacks.c``
does the same copying and evaluation in C, through CasADi's ``FunctionBuffer`` (its evaluation
entry point is exported by libcasadi) and SUNDIALS' ``N_VGetArrayPointer``, both passed in as
pointers: nothing is linked.

The C file is built once per machine with the system C compiler (``$CC``, cc, gcc or clang;
about 0.1 s) into physlib's cache folder (see :mod:`physlib.assembly.template_cache`), under a
name hashed from its text and the compiler; with the cache off (``PHYSLIB_NO_CACHE=1``) or
unwritable, once per process in a temporary folder removed after loading. Without a
compiler, with a failed build, on a platform where CasADi's entry point cannot be found, or
with ``PHYSLIB_PYTHON_CALLBACKS=1``, the Python callbacks (:class:`PythonCallbacks`) serve:
the same arithmetic (the same CasADi functions on the same numbers), so a run gives the same
numbers bit for bit, only slower.
"""
from __future__ import annotations

import ctypes
import glob
import math
import os
import threading
from pathlib import Path

import casadi as cs
import numpy as np

from ...core.logs import logger
from ..common.c_compiler import native_library
from ..common.sundials_library import CV_JAC_FN, IDA_JAC_FN, NEWTON_TEST_FN, RES_FN, RHS_FN

SOURCE = Path(__file__).parent / "c" / "sundials_callbacks.c"
BUFFER_EVAL = "_ZN6casadi21_function_buffer_evalEPv"   # casadi::_function_buffer_eval(void*)

# IDA's Newton convergence test, as c/sundials_callbacks.c's physlib_ida_newton_test (see there
# why a solve is accepted only on a rate measured in it)
CONTINUE, RECOVERABLE = 901, 902        # SUN_NLS_CONTINUE, SUN_NLS_CONV_RECVR
RATE_MAX, RATE_MIN = 0.9, 0.1

_log = logger(__name__)
_lock = threading.Lock()
_loaded: dict = {}


class Model(ctypes.Structure):
    """The C struct ``PhyslibModel`` of ``c/sundials_callbacks.c``, field for field."""
    _fields_ = [("eval", ctypes.c_void_p), ("array", ctypes.c_void_p), ("n", ctypes.c_long),
                ("res", ctypes.c_void_p), ("res_y", ctypes.c_void_p), ("res_yp", ctypes.c_void_p),
                ("res_t", ctypes.c_void_p), ("res_out", ctypes.c_void_p), ("res_check", ctypes.c_void_p),
                ("jac", ctypes.c_void_p), ("jac_y", ctypes.c_void_p), ("jac_t", ctypes.c_void_p),
                ("jac_cj", ctypes.c_void_p), ("jac_out", ctypes.c_void_p), ("matrix", ctypes.c_void_p),
                ("jac_size", ctypes.c_long), ("colind", ctypes.c_void_p), ("row", ctypes.c_void_p),
                ("matrix_colind", ctypes.c_void_p), ("matrix_row", ctypes.c_void_p),
                ("pattern_columns", ctypes.c_long), ("place", ctypes.c_void_p), ("lin_values", ctypes.c_void_p),
                ("off", ctypes.c_void_p), ("off_t", ctypes.c_void_p), ("off_out", ctypes.c_void_p),
                ("off_values", ctypes.c_void_p), ("off_rows", ctypes.c_void_p), ("off_count", ctypes.c_long),
                ("rows_with_rates", ctypes.c_long), ("lin_diagonal", ctypes.c_void_p), ("wrms_norm", ctypes.c_void_p),
                ("current_iteration", ctypes.c_void_p), ("first_norm", ctypes.c_double)]


def library():
    """(the built callbacks as a ctypes library, the address of CasADi's FunctionBuffer
    evaluation), or None when they are not available (then the Python callbacks serve)."""
    with _lock:
        if "library" not in _loaded:
            _loaded["library"] = _load()
        return _loaded["library"]


def _load():
    lib = native_library(SOURCE, "callbacks")
    if lib is None:
        return None
    try:
        return lib, _buffer_eval()
    except (OSError, AttributeError) as err:
        _log.debug("CasADi's FunctionBuffer entry point not found (%s); Python callbacks serve", err)
        return None


def _buffer_eval() -> int:
    """The address of casadi::_function_buffer_eval in the libcasadi CasADi loaded.

    CasADi's wheels carry the library twice, as ``libcasadi.so`` and as the versioned
    ``libcasadi.so.3.7`` its Python module links to (wheels keep no symbolic links): opening the
    other one loads a second copy of CasADi (4 ms and 13 MB), whose code would then evaluate
    the first copy's functions. The one already loaded is found by asking the dynamic loader
    not to load anything (``RTLD_NOLOAD``); the first of them where it cannot tell."""
    folder = os.path.dirname(cs.__file__)
    candidates = [path for path in sorted(glob.glob(os.path.join(folder, "libcasadi.*")))
                  if path.endswith((".so", ".dylib")) or ".so." in path]
    if not candidates:
        raise OSError(f"libcasadi not found in {folder}")
    library = None
    if hasattr(os, "RTLD_NOLOAD"):
        for path in candidates:
            try:
                library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD)
                break
            except OSError:         # not loaded
                continue
    return function_address(getattr(library or ctypes.CDLL(candidates[0]), BUFFER_EVAL))


def attach(core, ida: bool, n: int, residual, jacobian, matrix, linear=None):
    """The compiled callbacks for a solver (IDA if ``ida``, else CVODE) of n variables whose
    residual and Jacobian are the buffered CasADi functions ``residual`` and ``jacobian`` (as
    :func:`~physlib.analysis.simulation.stepping_functions.buffered` gives them) and whose
    Jacobian matrix is ``matrix`` (a :class:`~physlib.analysis.simulation.linear_solvers.
    JacobianMatrix`: dense, band or sparse); ``linear``: a
    :class:`~physlib.analysis.simulation.stepping_functions.LinearResidual` that gives the
    residual and Jacobian of a linear model instead (sparse only; ``residual`` and ``jacobian``
    None). Returns (residual, Jacobian) as ctypes function pointers of the solver's callback
    types and the user data they read (keep all three alive with the solver), or None when the
    compiled callbacks are not available."""
    loaded = library()
    if loaded is None:
        return None
    lib, evaluate = loaded
    model = Model(eval=evaluate, array=function_address(core.N_VGetArrayPointer),
                  n=n, matrix=array_address(matrix.entries),
                  wrms_norm=function_address(core.N_VWrmsNorm),
                  current_iteration=function_address(core.SUNNonlinSolGetCurIter))
    if matrix.colind is not None:       # the large kinds: the pattern (the linear residual's too)
        model.colind, model.row = array_address(matrix.colind), array_address(matrix.row)
    if matrix.kind == "sparse":         # ... written again into the matrix at each evaluation
        model.matrix_colind, model.matrix_row = array_address(matrix.matrix_colind), array_address(matrix.matrix_row)
        model.pattern_columns = matrix.colind.size - 1
    elif matrix.kind == "band":
        model.place = array_address(matrix.place)
    if linear is None:
        _attach_functions(model, ida, residual, jacobian)
    else:
        off_buffer, _, (_, off_t), (off_values,) = linear.time_offset
        model.lin_values, model.off = array_address(linear.values), buffer_address(off_buffer)
        model.off_t, model.off_out = array_address(off_t), array_address(linear.offset)
        model.off_values, model.off_rows = array_address(off_values), array_address(linear.time_rows)
        model.off_count = linear.time_rows.size
        model.rows_with_rates, model.lin_diagonal = linear.rows_with_rates, array_address(linear.diagonal)
        model.jac_out, model.jac_size = array_address(linear.jacobian_out), linear.jacobian_out.size
    if ida:
        return RES_FN(("physlib_ida_residual", lib)), IDA_JAC_FN(("physlib_ida_jacobian", lib)), model, \
            NEWTON_TEST_FN(("physlib_ida_newton_test", lib))
    return RHS_FN(("physlib_cvode_rhs", lib)), CV_JAC_FN(("physlib_cvode_jacobian", lib)), model, None


def array_address(array) -> int:
    """The C address of a NumPy array's data."""
    return array.ctypes.data


def function_address(function) -> int:
    """The C address of a ctypes function (a library's symbol or a callback)."""
    return ctypes.cast(function, ctypes.c_void_p).value


def _attach_functions(model, ida: bool, residual, jacobian) -> None:
    """The buffered residual and Jacobian functions' addresses into the C ``model``."""
    res_buffer, _, res_in, res_out = residual
    jac_buffer, _, jac_in, jac_out = jacobian
    model.res, model.res_out, model.res_check = buffer_address(res_buffer), array_address(res_out[0]), array_address(res_out[1])
    model.jac, model.jac_out, model.jac_size = buffer_address(jac_buffer), array_address(jac_out[0]), jac_out[0].size
    if ida:             # residual (y, y', p, t); Jacobian (y, p, t, cj)
        model.res_y, model.res_yp, model.res_t = array_address(res_in[0]), array_address(res_in[1]), array_address(res_in[3])
        model.jac_y, model.jac_t, model.jac_cj = array_address(jac_in[0]), array_address(jac_in[2]), array_address(jac_in[3])
    else:               # (x, p, t)
        model.res_y, model.res_t = array_address(res_in[0]), array_address(res_in[2])
        model.jac_y, model.jac_t = array_address(jac_in[0]), array_address(jac_in[2])


def newton_solver(core, mem, ida, y, ctx, test, user_data):
    """SUNDIALS' Newton solver attached to the IDA memory ``mem`` (free it after IDAFree) with
    the convergence test ``test`` of :func:`solver_callbacks` (reading ``user_data``, the
    compiled callbacks' model, or nothing for the Python twin). The test is set after
    IDASetNonlinearSolver, which sets IDA's own."""
    solver = ida.SUNNonlinSol_Newton(y, ctx)
    data = None if user_data is None else ctypes.addressof(user_data)
    if not solver or ida.IDASetNonlinearSolver(mem, solver) != 0 or \
            core.SUNNonlinSolSetConvTestFn(solver, test, data) != 0:
        raise RuntimeError("SUNDIALS' Newton solver could not be attached to IDA")
    return solver


def buffer_address(buffer) -> int:
    """The C address of a CasADi FunctionBuffer: ``_self()`` gives it in a capsule, as CasADi's
    own ``Function.buffer()`` passes it to its evaluation."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(buffer._self(), None)


def solver_callbacks(core, ida: bool, n: int, residual, jacobian, matrix, linear=None):
    """(residual callback, Jacobian callback, user data or None, Newton convergence test or
    None) for a solver (IDA if ``ida``, else CVODE: no test) of n variables, whose residual and
    Jacobian are the buffered CasADi functions ``residual`` and ``jacobian``, with its Jacobian
    ``matrix`` (and ``linear``) as for :func:`attach`: compiled (:func:`attach`) where
    available, else :class:`PythonCallbacks`. Keep all four alive with the solver."""
    compiled = attach(core, ida, n, residual, jacobian, matrix, linear)
    if compiled is not None:
        return compiled
    python = PythonCallbacks(core, n, residual, jacobian, matrix, linear)
    if ida:
        return RES_FN(python.ida_residual), IDA_JAC_FN(python.ida_jacobian), None, \
            NEWTON_TEST_FN(python.ida_newton_test)
    return RHS_FN(python.cvode_rhs), CV_JAC_FN(python.cvode_jacobian), None, None


class PythonCallbacks:
    """The callbacks in Python, called by SUNDIALS through ctypes; exceptions must not escape
    into C (they return −1, a failed call)."""

    def __init__(self, core, n, residual, jacobian, matrix, linear=None):
        self.core, self.n = core, n
        self._res, self._jac, self.matrix = residual, jacobian, matrix
        self.linear = linear
        self._views: dict[int, np.ndarray] = {}
        self.first_norm = 0.0
        self._iteration = ctypes.c_int()

    def _store(self, out) -> int:
        """The Jacobian's entries ``out`` (and a sparse one's pattern) into the solver's matrix
        (a band one's places; the solver has zeroed the rest); 0, or 1 (recoverable) if they
        are not all finite."""
        matrix = self.matrix
        if matrix.kind == "band":
            matrix.entries[matrix.place] = out
        else:
            matrix.entries[:] = out
        if matrix.kind == "sparse":
            matrix.matrix_colind[:], matrix.matrix_row[:] = matrix.colind, matrix.row
        return 0 if math.isfinite(out.sum()) else 1

    def _array(self, vector) -> np.ndarray:
        view = self._views.get(vector)
        if view is None:
            pointer = self.core.N_VGetArrayPointer(vector)
            view = self._views[vector] = np.ctypeslib.as_array(pointer, shape=(self.n,))
        return view

    def ida_residual(self, t, yy, yp, rr, _data):
        try:
            if self.linear is not None:
                return 0 if self.linear.evaluate(t, self._array(yy), self._array(yp), self._array(rr)) else 1
            _, trigger, (y_in, yp_in, _p, t_in), (out, check) = self._res
            y_in[:] = self._array(yy)
            yp_in[:] = self._array(yp)
            t_in[0] = t
            trigger()
            if check[0] != 0.0:     # not finite
                return 1            # recoverable: IDA retries with a smaller step
            self._array(rr)[:] = out
            return 0
        except Exception:       # noqa: BLE001 - reported as a failed call
            return -1

    def ida_jacobian(self, t, cj, yy, _yp, _rr, _matrix, _data, _t1, _t2, _t3):
        try:
            if self.linear is not None:
                return self._store(self.linear.jacobian(cj))
            _, trigger, (y_in, _p, t_in, cj_in), (out,) = self._jac
            y_in[:] = self._array(yy)
            t_in[0], cj_in[0] = t, cj
            trigger()
            return self._store(out)
        except Exception:       # noqa: BLE001
            return -1

    def ida_newton_test(self, solver, _ycor, delta, tol, ewt, _data):
        try:
            norm = self.core.N_VWrmsNorm(delta, ewt)
            self.core.SUNNonlinSolGetCurIter(solver, ctypes.byref(self._iteration))
            iteration = self._iteration.value
            if iteration == 0:
                self.first_norm = norm
                return 0 if RATE_MAX / (1.0 - RATE_MAX) * norm <= tol else CONTINUE
            rate = (norm / self.first_norm) ** (1.0 / iteration)
            if rate > RATE_MAX:
                return RECOVERABLE
            rate = max(rate, RATE_MIN)
            return 0 if rate / (1.0 - rate) * norm <= tol else CONTINUE
        except Exception:       # noqa: BLE001
            return -1

    def cvode_rhs(self, t, y, ydot, _data):
        try:
            if self.linear is not None:
                return 0 if self.linear.evaluate(t, self._array(y), None, self._array(ydot)) else 1
            _, trigger, (x_in, _p, t_in), (out, check) = self._res
            x_in[:] = self._array(y)
            t_in[0] = t
            trigger()
            if check[0] != 0.0:     # not finite
                return 1
            self._array(ydot)[:] = out
            return 0
        except Exception:       # noqa: BLE001
            return -1

    def cvode_jacobian(self, t, y, _fy, _matrix, _data, _t1, _t2, _t3):
        try:
            if self.linear is not None:
                return self._store(self.linear.jacobian(0.0))
            _, trigger, (x_in, _p, t_in), (out,) = self._jac
            x_in[:] = self._array(y)
            t_in[0] = t
            trigger()
            return self._store(out)
        except Exception:       # noqa: BLE001
            return -1
