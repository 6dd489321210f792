"""The SUNDIALS 7 libraries shipped in scikit-sundae's wheels, loaded with ctypes: the
functions physlib calls and the C types of SUNDIALS' callbacks
(:mod:`physlib.analysis.simulation.sundials` steps the solvers with them;
:mod:`physlib.analysis.common.sparse_lu` solves large sparse systems with SuperLU_MT)."""
from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import threading

import numpy as np

from ...core.errors import PhyslibError, SimulationError

REAL = ctypes.c_double
INDEX = ctypes.c_int                       # sunindextype of scikit-sundae's build
POINTER = ctypes.c_void_p
REAL_P = ctypes.POINTER(REAL)

IDA_NORMAL, IDA_ONE_STEP = 1, 2
CV_NORMAL, CV_ONE_STEP = 1, 2
CV_BDF = 2
SUCCESS_FLAGS = (0, 1, 2)                   # SUCCESS, TSTOP_RETURN, ROOT_RETURN
MAX_STEPS_PER_CALL = 500_000                # one-step calls never reach this; a guard against hangs
# Error-test failures a step may take before the solver gives it up (SUNDIALS: IDA 10, CVODE 7),
# each cutting the step by up to 4. The first step after an event is tried at half the step
# planned before it; where the event starts a transient far faster than that (a buck's
# freewheeling diode opening in discontinuous conduction: the inductor's last 24 uA decaying
# through the two open elements' leakage in 1.1 ns), ten cuts from 4e-7 s stopped at 1.6e-12 s,
# short of the 2e-14 s the tolerances asked for at rtol 1e-9, and the solver's own first step
# after that failure did not move the time: the run stopped. Twenty reach it.
MAX_ERROR_TEST_FAILS = 20

RES_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER, POINTER)
IDA_JAC_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, REAL, POINTER, POINTER, POINTER, POINTER,
                            POINTER, POINTER, POINTER, POINTER)
RHS_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER)
CV_JAC_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER, POINTER, POINTER,
                           POINTER, POINTER)
# SUNNonlinSolConvTestFn: (solver, correction so far, this iteration's correction, tolerance,
# error weights, user data)
NEWTON_TEST_FN = ctypes.CFUNCTYPE(ctypes.c_int, POINTER, POINTER, POINTER, REAL, POINTER, POINTER)
ERR_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                        ctypes.c_int, POINTER, POINTER)


class SundialsUnavailable(PhyslibError):
    """The SUNDIALS libraries of scikit-sundae cannot be found or loaded."""


def vector_view(core, vector, n: int):
    """The n numbers of a serial SUNDIALS vector as a NumPy array on its memory."""
    return np.ctypeslib.as_array(core.N_VGetArrayPointer(vector), shape=(n,))


def check_flag(flag: int, what: str) -> None:
    """A SimulationError for a SUNDIALS call ``what`` that returned ``flag`` != 0."""
    if flag != 0:
        raise SimulationError(f"SUNDIALS {what} returned {flag}")


# A solver's counters since its last (re)start, as SUNDIALS names them, and their getters
COUNTERS = ("nsteps", "nfevals", "nlinsetups", "netfails", "nniters")
COUNTER_GETTERS = {"idas": ("IDAGetNumSteps", "IDAGetNumResEvals", "IDAGetNumLinSolvSetups",
                            "IDAGetNumErrTestFails", "IDAGetNumNonlinSolvIters"),
                   "cvodes": ("CVodeGetNumSteps", "CVodeGetNumRhsEvals", "CVodeGetNumLinSolvSetups",
                              "CVodeGetNumErrTestFails", "CVodeGetNumNonlinSolvIters")}


def counter_getters(lib, solver: str):
    """``read(mem) -> {counter: value}``: the counters (:data:`COUNTERS`) of the solver
    ``solver`` ("idas" or "cvodes", of the library ``lib``) since its last (re)start."""
    functions, value = [getattr(lib, name) for name in COUNTER_GETTERS[solver]], ctypes.c_long()
    reference = ctypes.byref(value)

    def read(mem) -> dict:
        out = {}
        for key, function in zip(COUNTERS, functions):
            function(mem, reference)
            out[key] = value.value
        return out
    return read


def solver_context(core, on_error):
    """(a SUNDIALS context whose error messages go to ``on_error``, the callback object: keep
    it alive with the context). SUNDIALS' warnings (t + h = t near a blow-up, say) would go to
    stderr: a run prints nothing, and what they warn of ends the run with a named error."""
    ctx = POINTER()
    check_flag(core.SUNContext_Create(0, ctypes.byref(ctx)), "SUNContext_Create")
    handler = ERR_FN(on_error)
    core.SUNContext_ClearErrHandlers(ctx)
    core.SUNContext_PushErrHandler(ctx, handler, None)
    logger = POINTER()
    if core.SUNContext_GetLogger(ctx, ctypes.byref(logger)) == 0 and logger:
        core.SUNLogger_SetWarningFilename(logger, b"")
    return ctx, handler


def quoted_messages(messages) -> str:
    """The solver's last five messages, for an error's text."""
    if not messages:
        return ""
    return "\nsolver messages:\n" + "\n".join(messages[-5:])


def failure_hint(flag_name: str) -> str:
    """What a solver's failure flag suggests, for an error's text: the corrector's or the error
    test's repeated failure shrinks the steps to rounding size, which tolerances tighter than
    the rounding of the fastest rates (a stiff chamber nearly emptied), or a jump of an input
    that is no time event, cause."""
    if flag_name not in ("IDA_CONV_FAIL", "IDA_ERR_FAIL", "CV_CONV_FAILURE", "CV_ERR_FAILURE"):
        return ""
    return ("; its steps shrank to nothing: the tolerances may ask for more than the rounding of the "
            "model's fastest rates gives (try a larger rtol or atol), or an input jumps without a time event")


_lock = threading.Lock()
_libs = None
_sparse_libs = None
CSC_MAT = 0                                 # SUNSparseMatrix's compressed-column storage
COLAMD_ORDERING = 3                         # SuperLU_MT's column ordering (its default; the others print)
BAND_WORK = 40.0        # per unknown: l·(l + u) up to which a large matrix takes SUNDIALS' band LU


def libraries():
    """(core, nvecserial, dense matrix, dense linear solver, ida, cvode) as ctypes libraries,
    loaded once from the scikit-sundae distribution."""
    global _libs
    with _lock:
        if _libs is None:
            _libs = _load()
        return _libs


def sparse_libraries():
    """(sparse matrix, SuperLU_MT linear solver, band matrix, band linear solver) as ctypes
    libraries, loaded once when a stepped solver first needs a large Jacobian (SuperLU_MT
    brings a BLAS along, so it is not loaded for the dense solvers of small models)."""
    global _sparse_libs
    libraries()
    with _lock:
        if _sparse_libs is None:
            found = _paths(("sunmatrixsparse", "sunlinsolsuperlumt", "sunmatrixband", "sunlinsolband"))
            loaded = [ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_LOCAL", 0)) for path in found.values()]
            _declare_sparse(*loaded)
            _one_thread(os.path.dirname(found["sunlinsolsuperlumt"]))
            _sparse_libs = tuple(loaded)
        return _sparse_libs


def _one_thread(folder: str) -> None:
    """Tell the OpenMP and OpenBLAS that scikit-sundae bundles for SuperLU_MT (its own copies,
    under hashed names beside it; NumPy's and SciPy's are others) to use one thread, as the
    solver is asked to. Left at the core count, SuperLU_MT's triangular solves ran in a team
    whose idle member spun on the other core: the first runs of a 5,000-state model's steps
    took 270-300 ms instead of 210. Where the libraries are not found (another platform's
    layout), nothing is changed."""
    for pattern, function in (("libgomp*", "omp_set_num_threads"), ("libopenblas*", "openblas_set_num_threads")):
        for path in glob.glob(os.path.join(folder, pattern)):
            try:
                getattr(ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_LOCAL", 0)), function)(1)
            except (OSError, AttributeError):
                pass


def _load():
    found = _paths(("core", "nvecserial", "sunmatrixdense", "sunlinsoldense", "ida", "cvode"))
    # Loaded locally: each library finds the others through its own run path, and SUNDIALS'
    # symbols stay out of the process's global namespace, where they would stand in for those
    # of another SUNDIALS loaded later (FMPy's CVODE, of another version, crashed on them).
    libs = [ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_LOCAL", 0)) for path in found.values()]
    _declare(*libs)
    return libs


def _paths(names) -> dict:
    """{name: path} of scikit-sundae's libraries sundials_<name>: looked for first where its
    wheels put them (:func:`_wheel_folders`), then in the folders of its distribution's files."""
    found = _found(names, _wheel_folders())
    if len(found) == len(names):
        return found
    folders = _distribution_folders()
    found = _found(names, folders)
    for name in names:
        if name not in found:
            raise SundialsUnavailable(f"scikit-sundae is installed but its library sundials_{name} "
                                      f"was not found in {sorted(folders)}; reinstall scikit-sundae")
    return found


def _found(names, folders) -> dict:
    """{name: path} of the libraries ``*sundials_<name>*`` in ``folders`` (the first in sorted
    order; static archives left out), each folder listed once."""
    files = [os.path.join(folder, entry) for folder in folders if os.path.isdir(folder)
             for entry in os.listdir(folder) if not entry.startswith(".") and not entry.endswith((".a", ".lib"))]
    found = {}
    for name in names:
        hits = sorted(path for path in files if f"sundials_{name}" in os.path.basename(path))
        if hits:
            found[name] = hits[0]
    return found


def _wheel_folders() -> list:
    """The folders beside the ``sksundae`` package where wheels bundle its libraries
    (``scikit_sundae.libs`` on Linux and Windows, ``sksundae/.dylibs`` on macOS), found without
    importlib.metadata, whose import and file list cost 40 ms of a small script's start."""
    spec = importlib.util.find_spec("sksundae")
    if spec is None or not spec.origin:
        return []
    package = os.path.dirname(spec.origin)
    return [folder for folder in (os.path.join(os.path.dirname(package), "scikit_sundae.libs"),
                                  os.path.join(package, ".dylibs")) if os.path.isdir(folder)]


def _distribution_folders() -> set:
    """The folders of scikit-sundae's files that hold a SUNDIALS library."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        dist = distribution("scikit-sundae")
    except PackageNotFoundError:
        raise SundialsUnavailable(
            "physlib's variable-step hybrid simulation steps SUNDIALS through the libraries of "
            "scikit-sundae, which is not installed: pip install scikit-sundae") from None
    return {os.path.dirname(str(dist.locate_file(f))) for f in dist.files or () if "sundials_" in str(f)}


def _sig(lib, name, res, *args):
    """Declare the C signature of ``lib.name``: result type ``res``, argument types ``args``."""
    f = getattr(lib, name)
    f.restype, f.argtypes = res, list(args)


def _declare(core, nvec, dmat, dls, ida, cvode):
    """The C signatures of the functions physlib calls."""
    i, p = ctypes.c_int, POINTER
    _sig(core, "SUNContext_Create", i, i, ctypes.POINTER(p))
    _sig(core, "SUNContext_Free", i, ctypes.POINTER(p))
    _sig(core, "SUNContext_ClearErrHandlers", i, p)
    _sig(core, "SUNContext_PushErrHandler", i, p, ERR_FN, p)
    _sig(core, "SUNContext_GetLogger", i, p, ctypes.POINTER(p))
    _sig(core, "SUNLogger_SetWarningFilename", i, p, ctypes.c_char_p)
    _sig(core, "N_VGetArrayPointer", REAL_P, p)
    _sig(core, "N_VSetArrayPointer", None, REAL_P, p)
    _sig(core, "N_VDestroy", None, p)
    _sig(core, "SUNMatDestroy", None, p)
    _sig(core, "SUNLinSolFree", i, p)
    _sig(core, "N_VWrmsNorm", REAL, p, p)
    _sig(core, "SUNNonlinSolGetCurIter", i, p, ctypes.POINTER(i))
    _sig(core, "SUNNonlinSolSetConvTestFn", i, p, NEWTON_TEST_FN, p)
    _sig(core, "SUNNonlinSolFree", i, p)
    _sig(nvec, "N_VNew_Serial", p, INDEX, p)
    _sig(nvec, "N_VMake_Serial", p, INDEX, p, p)     # the data as an address or a pointer
    _sig(dmat, "SUNDenseMatrix", p, INDEX, INDEX, p)
    _sig(dmat, "SUNDenseMatrix_Data", REAL_P, p)
    _sig(dls, "SUNLinSol_Dense", p, p, p, p)
    _declare_ida(ida)
    _declare_cvode(cvode)


def _declare_sparse(smat, sls, bmat, bls):
    i, p = ctypes.c_int, POINTER
    _sig(smat, "SUNSparseMatrix", p, INDEX, INDEX, INDEX, i, p)
    _sig(smat, "SUNSparseMatrix_Data", REAL_P, p)
    _sig(smat, "SUNSparseMatrix_IndexValues", ctypes.POINTER(INDEX), p)
    _sig(smat, "SUNSparseMatrix_IndexPointers", ctypes.POINTER(INDEX), p)
    _sig(sls, "SUNLinSol_SuperLUMT", p, p, p, i, p)
    _sig(sls, "SUNLinSol_SuperLUMTSetOrdering", i, p, i)
    _sig(sls, "SUNLinSolInitialize_SuperLUMT", i, p)
    _sig(sls, "SUNLinSolSetup_SuperLUMT", i, p, p)                 # solver, matrix
    _sig(sls, "SUNLinSolSolve_SuperLUMT", i, p, p, p, p, REAL)     # solver, matrix, x, b, tol
    _sig(bmat, "SUNBandMatrix", p, INDEX, INDEX, INDEX, p)           # N, mu, ml, context
    _sig(bmat, "SUNBandMatrix_Data", REAL_P, p)
    _sig(bmat, "SUNBandMatrix_LDim", INDEX, p)
    _sig(bmat, "SUNBandMatrix_StoredUpperBandwidth", INDEX, p)
    _sig(bmat, "SUNBandMatrix_Column", REAL_P, p, INDEX)              # its diagonal entry
    _sig(bls, "SUNLinSol_Band", p, p, p, p)
    _sig(bls, "SUNLinSolInitialize_Band", i, p)
    _sig(bls, "SUNLinSolSetup_Band", i, p, p)                       # solver, matrix
    _sig(bls, "SUNLinSolSolve_Band", i, p, p, p, p, REAL)           # solver, matrix, x, b, tol


def _declare_ida(ida):
    i, p, r = ctypes.c_int, POINTER, REAL
    _sig(ida, "IDACreate", p, p)
    _sig(ida, "IDAInit", i, p, RES_FN, r, p, p)
    _sig(ida, "IDAReInit", i, p, r, p, p)
    _sig(ida, "IDASStolerances", i, p, r, r)
    _sig(ida, "IDASVtolerances", i, p, r, p)
    _sig(ida, "IDASetLinearSolver", i, p, p, p)
    _sig(ida, "IDASetJacFn", i, p, IDA_JAC_FN)
    _sig(ida, "IDASetUserData", i, p, p)
    _sig(ida, "IDASetId", i, p, p)
    _sig(ida, "IDASetSuppressAlg", i, p, i)
    _sig(ida, "SUNNonlinSol_Newton", p, p, p)
    _sig(ida, "IDASetNonlinearSolver", i, p, p)
    _sig(ida, "IDASetMaxStep", i, p, r)
    _sig(ida, "IDASetInitStep", i, p, r)
    _sig(ida, "IDASetStopTime", i, p, r)
    _sig(ida, "IDAClearStopTime", i, p)
    _sig(ida, "IDASetMaxNumSteps", i, p, ctypes.c_long)
    _sig(ida, "IDASetMaxErrTestFails", i, p, i)
    _sig(ida, "IDASolve", i, p, r, ctypes.POINTER(r), p, p, i)
    _sig(ida, "IDAGetDky", i, p, r, i, p)
    _sig(ida, "IDAGetSolution", i, p, r, p, p)
    _sig(ida, "IDAGetLastStep", i, p, ctypes.POINTER(r))
    _sig(ida, "IDAGetCurrentStep", i, p, ctypes.POINTER(r))
    _sig(ida, "IDAFree", None, ctypes.POINTER(p))
    _sig(ida, "IDAGetReturnFlagName", ctypes.c_char_p, ctypes.c_long)
    for name in ("IDAGetNumSteps", "IDAGetNumResEvals", "IDAGetNumLinSolvSetups",
                 "IDAGetNumErrTestFails", "IDAGetNumNonlinSolvIters"):
        _sig(ida, name, i, p, ctypes.POINTER(ctypes.c_long))


def _declare_cvode(cvode):
    i, p, r = ctypes.c_int, POINTER, REAL
    _sig(cvode, "CVodeCreate", p, i, p)
    _sig(cvode, "CVodeInit", i, p, RHS_FN, r, p)
    _sig(cvode, "CVodeReInit", i, p, r, p)
    _sig(cvode, "CVodeSStolerances", i, p, r, r)
    _sig(cvode, "CVodeSVtolerances", i, p, r, p)
    _sig(cvode, "CVodeSetLinearSolver", i, p, p, p)
    _sig(cvode, "CVodeSetJacFn", i, p, CV_JAC_FN)
    _sig(cvode, "CVodeSetUserData", i, p, p)
    _sig(cvode, "CVodeSetMaxStep", i, p, r)
    _sig(cvode, "CVodeSetInitStep", i, p, r)
    _sig(cvode, "CVodeSetStopTime", i, p, r)
    _sig(cvode, "CVodeClearStopTime", i, p)
    _sig(cvode, "CVodeSetMaxNumSteps", i, p, ctypes.c_long)
    _sig(cvode, "CVodeSetMaxErrTestFails", i, p, i)
    _sig(cvode, "CVode", i, p, r, p, ctypes.POINTER(r), i)
    _sig(cvode, "CVodeGetDky", i, p, r, i, p)
    _sig(cvode, "CVodeGetLastStep", i, p, ctypes.POINTER(r))
    _sig(cvode, "CVodeGetCurrentStep", i, p, ctypes.POINTER(r))
    _sig(cvode, "CVodeFree", None, ctypes.POINTER(p))
    _sig(cvode, "CVodeGetReturnFlagName", ctypes.c_char_p, ctypes.c_long)
    for name in ("CVodeGetNumSteps", "CVodeGetNumRhsEvals", "CVodeGetNumLinSolvSetups",
                 "CVodeGetNumErrTestFails", "CVodeGetNumNonlinSolvIters"):
        _sig(cvode, name, i, p, ctypes.POINTER(ctypes.c_long))
