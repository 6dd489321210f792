"""The SUNDIALS 7 libraries shipped in scikit-sundae's wheels, loaded with ctypes: the
functions physlib calls and the C types of SUNDIALS' callbacks
(:mod:`physlib.analysis.simulation.sundials` steps the solvers with them)."""
from __future__ import annotations

import ctypes
import glob
import os
import threading

from ...core.errors import PhyslibError

REAL = ctypes.c_double
INDEX = ctypes.c_int                       # sunindextype of scikit-sundae's build
POINTER = ctypes.c_void_p
REAL_P = ctypes.POINTER(REAL)

IDA_NORMAL, IDA_ONE_STEP = 1, 2
CV_NORMAL, CV_ONE_STEP = 1, 2
CV_BDF = 2
SUCCESS_FLAGS = (0, 1, 2)                   # SUCCESS, TSTOP_RETURN, ROOT_RETURN
MAX_STEPS_PER_CALL = 500_000                # one-step calls never reach this; a guard against hangs

RES_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER, POINTER)
IDA_JAC_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, REAL, POINTER, POINTER, POINTER, POINTER,
                            POINTER, POINTER, POINTER, POINTER)
RHS_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER)
CV_JAC_FN = ctypes.CFUNCTYPE(ctypes.c_int, REAL, POINTER, POINTER, POINTER, POINTER, POINTER,
                           POINTER, POINTER)
ERR_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                        ctypes.c_int, POINTER, POINTER)


class SundialsUnavailable(PhyslibError):
    """The SUNDIALS libraries of scikit-sundae cannot be found or loaded."""


_lock = threading.Lock()
_libs = None


def libraries():
    """(core, nvecserial, dense matrix, dense linear solver, ida, cvode) as ctypes libraries,
    loaded once from the scikit-sundae distribution."""
    global _libs
    with _lock:
        if _libs is None:
            _libs = _load()
        return _libs


def _load():
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        dist = distribution("scikit-sundae")
    except PackageNotFoundError:
        raise SundialsUnavailable(
            "physlib's variable-step hybrid simulation steps SUNDIALS through the libraries of "
            "scikit-sundae, which is not installed: pip install scikit-sundae") from None
    folders = {os.path.dirname(str(dist.locate_file(f))) for f in dist.files or ()
               if "sundials_" in str(f)}
    names = ("core", "nvecserial", "sunmatrixdense", "sunlinsoldense", "ida", "cvode")
    found = {}
    for name in names:
        hits = sorted(h for folder in folders for h in glob.glob(os.path.join(folder, f"*sundials_{name}*"))
                      if not h.endswith((".a", ".lib")))
        if not hits:
            raise SundialsUnavailable(f"scikit-sundae is installed but its library sundials_{name} "
                                      f"was not found in {sorted(folders)}; reinstall scikit-sundae")
        found[name] = hits[0]
    # Loaded locally: each library finds the others through its own run path, and SUNDIALS'
    # symbols stay out of the process's global namespace, where they would stand in for those
    # of another SUNDIALS loaded later (FMPy's CVODE, of another version, crashed on them).
    libs = [ctypes.CDLL(found[name], mode=getattr(ctypes, "RTLD_LOCAL", 0)) for name in names]
    _declare(*libs)
    return libs


def _declare(core, nvec, dmat, dls, ida, cvode):
    """The C signatures of the functions physlib calls."""
    def sig(lib, name, res, *args):
        f = getattr(lib, name)
        f.restype, f.argtypes = res, list(args)

    i, p, r = ctypes.c_int, POINTER, REAL
    sig(core, "SUNContext_Create", i, i, ctypes.POINTER(p))
    sig(core, "SUNContext_Free", i, ctypes.POINTER(p))
    sig(core, "SUNContext_ClearErrHandlers", i, p)
    sig(core, "SUNContext_PushErrHandler", i, p, ERR_FN, p)
    sig(core, "SUNContext_GetLogger", i, p, ctypes.POINTER(p))
    sig(core, "SUNLogger_SetWarningFilename", i, p, ctypes.c_char_p)
    sig(core, "N_VGetArrayPointer", REAL_P, p)
    sig(core, "N_VDestroy", None, p)
    sig(core, "SUNMatDestroy", None, p)
    sig(core, "SUNLinSolFree", i, p)
    sig(nvec, "N_VNew_Serial", p, INDEX, p)
    sig(nvec, "N_VMake_Serial", p, INDEX, REAL_P, p)
    sig(dmat, "SUNDenseMatrix", p, INDEX, INDEX, p)
    sig(dmat, "SUNDenseMatrix_Data", REAL_P, p)
    sig(dls, "SUNLinSol_Dense", p, p, p, p)
    _declare_ida(ida, sig)
    _declare_cvode(cvode, sig)


def _declare_ida(ida, sig):
    i, p, r = ctypes.c_int, POINTER, REAL
    sig(ida, "IDACreate", p, p)
    sig(ida, "IDAInit", i, p, RES_FN, r, p, p)
    sig(ida, "IDAReInit", i, p, r, p, p)
    sig(ida, "IDASStolerances", i, p, r, r)
    sig(ida, "IDASVtolerances", i, p, r, p)
    sig(ida, "IDASetLinearSolver", i, p, p, p)
    sig(ida, "IDASetJacFn", i, p, IDA_JAC_FN)
    sig(ida, "IDASetUserData", i, p, p)
    sig(ida, "IDASetId", i, p, p)
    sig(ida, "IDASetSuppressAlg", i, p, i)
    sig(ida, "IDASetMaxStep", i, p, r)
    sig(ida, "IDASetInitStep", i, p, r)
    sig(ida, "IDASetStopTime", i, p, r)
    sig(ida, "IDAClearStopTime", i, p)
    sig(ida, "IDASetMaxNumSteps", i, p, ctypes.c_long)
    sig(ida, "IDASolve", i, p, r, ctypes.POINTER(r), p, p, i)
    sig(ida, "IDAGetDky", i, p, r, i, p)
    sig(ida, "IDAGetSolution", i, p, r, p, p)
    sig(ida, "IDAGetLastStep", i, p, ctypes.POINTER(r))
    sig(ida, "IDAGetCurrentStep", i, p, ctypes.POINTER(r))
    sig(ida, "IDAFree", None, ctypes.POINTER(p))
    sig(ida, "IDAGetReturnFlagName", ctypes.c_char_p, ctypes.c_long)
    for name in ("IDAGetNumSteps", "IDAGetNumResEvals", "IDAGetNumLinSolvSetups",
                 "IDAGetNumErrTestFails", "IDAGetNumNonlinSolvIters"):
        sig(ida, name, i, p, ctypes.POINTER(ctypes.c_long))


def _declare_cvode(cvode, sig):
    i, p, r = ctypes.c_int, POINTER, REAL
    sig(cvode, "CVodeCreate", p, i, p)
    sig(cvode, "CVodeInit", i, p, RHS_FN, r, p)
    sig(cvode, "CVodeReInit", i, p, r, p)
    sig(cvode, "CVodeSStolerances", i, p, r, r)
    sig(cvode, "CVodeSetLinearSolver", i, p, p, p)
    sig(cvode, "CVodeSetJacFn", i, p, CV_JAC_FN)
    sig(cvode, "CVodeSetUserData", i, p, p)
    sig(cvode, "CVodeSetMaxStep", i, p, r)
    sig(cvode, "CVodeSetInitStep", i, p, r)
    sig(cvode, "CVodeSetStopTime", i, p, r)
    sig(cvode, "CVodeClearStopTime", i, p)
    sig(cvode, "CVodeSetMaxNumSteps", i, p, ctypes.c_long)
    sig(cvode, "CVode", i, p, r, p, ctypes.POINTER(r), i)
    sig(cvode, "CVodeGetDky", i, p, r, i, p)
    sig(cvode, "CVodeGetLastStep", i, p, ctypes.POINTER(r))
    sig(cvode, "CVodeGetCurrentStep", i, p, ctypes.POINTER(r))
    sig(cvode, "CVodeFree", None, ctypes.POINTER(p))
    sig(cvode, "CVodeGetReturnFlagName", ctypes.c_char_p, ctypes.c_long)
    for name in ("CVodeGetNumSteps", "CVodeGetNumRhsEvals", "CVodeGetNumLinSolvSetups",
                 "CVodeGetNumErrTestFails", "CVodeGetNumNonlinSolvIters"):
        sig(cvode, name, i, p, ctypes.POINTER(ctypes.c_long))
