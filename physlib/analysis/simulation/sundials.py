"""SUNDIALS IDA and CVODE stepped one step at a time (ctypes on the libraries of scikit-sundae).

The hybrid runs (:mod:`physlib.analysis.simulation.hybrid_simulation`) need what CasADi's
integrator interface does not give: one solver run from event to event whose every internal
step can be looked at (guards checked on each step), output at any time from the solver's own
interpolating polynomial (``IDAGetDky``/``CVodeGetDky``, no restart), and a cheap restart at an
event (``IDAReInit``: the solver memory, its linear solver and the Jacobian's storage are kept).
The wheels of scikit-sundae ship SUNDIALS 7 as shared libraries on Linux, macOS and Windows,
so no system library is needed; they are called here through ctypes.

Residual (IDA: F = [x' − f(x, z, p, t); g(x, z, p, t)] over y = [x; z]), right-hand side
(CVODE: f) and their Jacobians (IDA's ∂F/∂y + cj·∂F/∂y') are CasADi functions called
through ``FunctionBuffer`` (about 1 µs a call), wrapped once per compiled model; each callback
copies SUNDIALS' vectors into the buffer's inputs and its outputs back, in C where the
callbacks could be built (:mod:`.callbacks`), else in Python. The Jacobian is dense up to
DENSE_LIMIT variables, above it banded or sparse (:mod:`.linear_solvers`): a 5,000-state
circuit's has three entries a row. A large model affine in its unknowns evaluates its residual
as J·y + F(0) (:class:`~physlib.analysis.simulation.stepping_functions.LinearResidual`).

The solver starts from rates consistent for states and algebraic variables alike
(:func:`~physlib.analysis.simulation.dae_points.consistent_rates`), so a restart needs no
initial-condition search. The algebraic variables are kept out of IDA's error test
(``IDASetSuppressAlg``: an ideal switch's current may jump by amperes within a step the states
take smoothly); at the steps they are solved with the states by a Newton iteration whose
convergence test trusts only a rate measured in that step (:func:`~.callbacks.newton_solver`),
and a row between steps is reconstructed from the polynomial's states and rates and moved
onto the equations (:func:`~physlib.analysis.simulation.dae_points.row_between_steps`). A
failed step raises a :class:`~physlib.core.errors.SimulationError` quoting the solver's
messages; SUNDIALS' warnings are switched off (what they warn of ends the run with an error).
"""
from __future__ import annotations

import ctypes

import numpy as np

from ...core.errors import SimulationError
from .callbacks import buffer_address, newton_solver, solver_callbacks
from .dae_points import row_between_steps, solved_row
from .output_rows import RowBlock
from .stepping_functions import LinearResidual, buffered, rebuffered, stepping_functions
from .time_scale import least_first_step
from .linear_solvers import linear_solver
from ..common.sundials_library import (CV_BDF, CV_NORMAL, CV_ONE_STEP, IDA_NORMAL, IDA_ONE_STEP, MAX_ERROR_TEST_FAILS,
                                       MAX_STEPS_PER_CALL, SUCCESS_FLAGS, POINTER, REAL, REAL_P, check_flag, failure_hint,
                                       counter_getters, libraries, quoted_messages, solver_context, vector_view)

DENSE_LIMIT = 400   # states + algebraic variables up to which the stepped solver's Jacobian is dense


# --- one solver ----------------------------------------------------------------------------------

class Stepper:
    """One SUNDIALS solver (IDA for ``"idas"``, CVODE with BDF for ``"cvodes"``) for a compiled
    model, restarted at every event and stepped one step at a time.

    ``restart(t, x, z, p)`` starts from a consistent point (no initial-condition search);
    ``step(t_stop)`` takes one internal step, never past ``t_stop``, and returns the time
    reached; ``at(t)`` is (x, z) at any t within the last step, from the solver's interpolating
    polynomial; ``counters()`` the solver's statistics since the last restart. ``sparse``: a
    sparse (or banded) Jacobian; default: beyond DENSE_LIMIT unknowns. ``own_test``: IDA with
    physlib's Newton test (:func:`~.callbacks.newton_solver`; False: SUNDIALS' own, fewer
    iterations, for a DAE without algebraic variables, whose unknowns are all error-tested)."""

    def __init__(self, system, solver: str, rtol: float, atol: float, max_step: float | None,
                 rows_keep_p: bool = True, atols: np.ndarray | None = None, sparse: bool | None = None,
                 own_test: bool = True):
        core, nvec, dmat, dls, ida, cvode = libraries()
        self.core, self.nvec = core, nvec
        self.system, self.solver = system, solver
        self.ida = solver == "idas"
        self.lib = ida if self.ida else cvode
        self._get_dky = ida.IDAGetDky if self.ida else cvode.CVodeGetDky
        self._get_last_step = ida.IDAGetLastStep if self.ida else cvode.CVodeGetLastStep
        self._get_next_step = ida.IDAGetCurrentStep if self.ida else cvode.CVodeGetCurrentStep
        self._last, self._next = REAL(), REAL()
        self._last_ref, self._next_ref = ctypes.byref(self._last), ctypes.byref(self._next)
        self.nx, self.nz = len(system.state_pos), len(system.z_pos)
        n = self.nx + (self.nz if self.ida else 0)
        self.n = n
        self.sparse = n > DENSE_LIMIT if sparse is None else sparse
        functions = stepping_functions(system, solver, self.sparse)
        self._res = self._jac = self._native = None    # a linear model's run evaluates neither
        if functions.linear is None:
            self._res, self._jac = buffered(functions.residual), buffered(functions.jacobian)
            self._native = functions        # asked at each solver start for their C twins
        self._row, self._row_vectors = None, ()     # the row function between steps: _rows()
        self.messages: list[str] = []
        self._counters = None               # counters(), made on first use

        self.ctx, self._err = solver_context(core, self._on_error)    # the handler kept alive
        ctx = self.ctx
        self.y, self.yp = nvec.N_VNew_Serial(n, ctx), nvec.N_VNew_Serial(n, ctx)
        self.dky = nvec.N_VNew_Serial(n, ctx)
        self.rtol, self.atol = rtol, atol
        self.y_arr = vector_view(core, self.y, n)
        self.yp_arr = vector_view(core, self.yp, n)
        self.dky_arr = vector_view(core, self.dky, n)
        self.matrix = linear_solver((dmat, dls), self.y, n, functions.pattern if self.sparse else None, ctx)
        self.linear = None if functions.linear is None else LinearResidual(
            functions.linear, self.matrix.colind, self.matrix.row, self.nx if self.ida else 0)
        self.t_now = 0.0
        self._stepped = False               # a step taken since the last restart
        self._factored = False              # a step ever taken: the linear solver has factored
        self._h_known = False               # self._last holds that step's size
        self._stop = None                   # the stop time the solver holds
        self._tret = REAL()
        self._tret_ref = ctypes.byref(self._tret)
        self._started = False
        self._atols = atols      # atol per unknown, if not ``atol`` for all (:mod:`.tolerances`)
        self.mem = self._create_solver(ctx, rtol, atol, max_step, own_test)
        # Output rows between steps, completed in blocks (IDA), each with its parameter vector
        # unless ``rows_keep_p`` is False (a run whose parameter vector cannot change).
        self.row_block = RowBlock(self, system.dae.size1_in(2) if rows_keep_p else 0) if self.ida else None

    def _create_solver(self, ctx, rtol, atol, max_step, own_test):
        """IDA's or CVODE's memory (BDF), set up with the callbacks, tolerances, linear solver
        and step limits (IDA: which unknowns are algebraic, left out of its error test)."""
        lib, prefix = self.lib, "IDA" if self.ida else "CVode"

        def call(name, *args):
            check_flag(getattr(lib, prefix + name)(mem, *args), prefix + name)
        mem = POINTER(lib.IDACreate(ctx) if self.ida else lib.CVodeCreate(CV_BDF, ctx))
        self._callbacks()
        call("Init", self._callback, 0.0, self.y, *((self.yp,) if self.ida else ()))
        if self._user_data is not None:
            call("SetUserData", ctypes.addressof(self._user_data))
        if self._atols is None:
            call("SStolerances", rtol, atol)
        else:                                                   # the solver keeps a copy
            vector = self.nvec.N_VMake_Serial(self.n, self._atols[:self.n].ctypes.data_as(REAL_P), ctx)
            call("SVtolerances", rtol, vector)
            self.core.N_VDestroy(vector)
        call("SetLinearSolver", self.matrix.solver, self.matrix.A)
        call("SetJacFn", self._jac_callback)
        # Newton with physlib's convergence test (callbacks.newton_solver), unless told otherwise
        self._newton = newton_solver(self.core, mem, lib, self.y, ctx, self._newton_test,
                                     self._user_data) if self.ida and own_test else None
        if self.ida and self.nz:
            self._id = self.nvec.N_VNew_Serial(self.n, ctx)
            ident = vector_view(self.core, self._id, self.n)
            ident[:self.nx], ident[self.nx:] = 1.0, 0.0
            call("SetId", self._id)
            call("SetSuppressAlg", 1)
        if max_step is not None:
            call("SetMaxStep", max_step)
        for name, limit in (("SetMaxNumSteps", MAX_STEPS_PER_CALL), ("SetMaxErrTestFails", MAX_ERROR_TEST_FAILS)):
            getattr(lib, prefix + name)(mem, limit)
        return mem

    # --- callbacks (called by SUNDIALS; exceptions must not escape into C) ----------------------

    def _callbacks(self) -> None:
        """The solver's residual and Jacobian callbacks (:mod:`.callbacks`): compiled where
        available, else Python."""
        self._callback, self._jac_callback, self._user_data, self._newton_test = solver_callbacks(
            self.core, self.ida, self.n, self._res, self._jac, self.matrix, self.linear)
        self.compiled_callbacks = self._user_data is not None
        if not self.compiled_callbacks:
            self._native = None             # the Python callbacks keep CasADi's virtual machine

    def _count_evaluations(self, evaluations: int | None = None) -> None:
        """Count this solver segment's residual evaluations (or ``evaluations``) toward the
        residual's and Jacobian's C twins; evaluate by them once built
        (:meth:`.stepping_functions.SteppingFunctions.native`)."""
        built = self._native.native(self.counters()["nfevals"] if evaluations is None else evaluations)
        if built is not None:           # the twins, or False: none will come (no more counting)
            self._native = None
        if built:
            self._res, self._jac = rebuffered(built[0], self._res), rebuffered(built[1], self._jac)
            self._user_data.res, self._user_data.jac = buffer_address(self._res[0]), buffer_address(self._jac[0])

    def _on_error(self, line, func, file, message, code, _data, _ctx):
        self.messages.append(f"{(func or b'').decode()}: {(message or b'').decode()}")

    # --- stepping -------------------------------------------------------------------------------

    def restart(self, t: float, x, z, p, rates, first_step: float = 0.0) -> None:
        """Start at t from the consistent (x, z) with parameters p; ``rates``: y' there
        (see :func:`consistent_rates`); ``first_step`` [s]: the size to try first (0: the
        solver's own estimate, a tiny fraction of the distance to the stop time, from which
        it doubles its way up; IDA's never below 100 rounding steps of t: least_first_step)."""
        self.p = p
        if self._native is not None:
            self._count_evaluations()
        if self.linear is not None:
            self.linear.restart(p, t)
        else:
            self._res[2][-2 if not self.ida else 2][:] = p
            self._jac[2][1][:] = p
        if self._row is not None:
            self._row[2][2][:] = p
        self.y_arr[:self.nx] = x
        if self.ida:
            self.y_arr[self.nx:] = z
        self.yp_arr[:] = rates
        self._start = (t, self.y_arr.copy(), self.yp_arr.copy())
        self._reinit(t, first_step)

    def _reinit(self, t, first_step):
        if self.ida:
            check_flag(self.lib.IDAReInit(self.mem, t, self.y, self.yp), "IDAReInit")
            self.lib.IDASetInitStep(self.mem, first_step or least_first_step(
                t, self.y_arr, self.yp_arr, self.nx, self.rtol, self.atol))
        else:
            check_flag(self.lib.CVodeReInit(self.mem, t, self.y), "CVodeReInit")
            self.lib.CVodeSetInitStep(self.mem, first_step)
        self.first_step = first_step
        self.t_now, self._stepped, self._stop = t, False, None
        self.messages.clear()

    def step(self, t_stop: float) -> float:
        """One internal step towards (never past) ``t_stop``; returns the time reached."""
        self._solve(t_stop, t_stop, True)
        return self.t_now

    def advance_to(self, t_out: float, t_stop: float) -> None:
        """Internal steps, in C and never past ``t_stop``, until ``t_out`` is reached; then t_now is
        t_out, y there (interpolated) in ``y_arr``: one call where :meth:`step` costs one a step."""
        self._solve(t_out, t_stop, False)

    def _solve(self, t_out: float, t_stop: float, one_step: bool) -> None:
        self.set_stop(t_stop)
        mode = (IDA_ONE_STEP if one_step else IDA_NORMAL) if self.ida else (CV_ONE_STEP if one_step else CV_NORMAL)
        flag = self.lib.IDASolve(self.mem, t_out, self._tret_ref, self.y, self.yp, mode) if self.ida else \
            self.lib.CVode(self.mem, t_out, self.y, self._tret_ref, mode)
        if flag not in SUCCESS_FLAGS:
            self.recover(flag, self._tret.value)
            return self._solve(t_out, t_stop, one_step)
        self.advanced(self._tret.value, stepped=True)

    def parameter_inputs(self):
        """The residual's and Jacobian's parameter vectors, for a compiled loop that restarts the
        solver itself (:mod:`.compiled_time_events`); None for Python callbacks or a linear model."""
        usable = self._res is not None and self.compiled_callbacks and self.ida
        return (self._res[2][2], self._jac[2][1]) if usable else None

    def restarted(self, t: float, y, yp, first_step: float, stop: float, evaluations: int) -> None:
        """A compiled loop restarted the solver at t from (y, y') as :meth:`restart` does (p changed
        in place) and set its stop time; the segments it ended took ``evaluations`` of the
        residual, counted toward its C twins (they serve from the loop's next call once built)."""
        if self._native is not None:
            self._count_evaluations(evaluations)
        self._start, self.first_step, self._stop = (t, y.copy(), yp.copy()), first_step, stop
        self.t_now, self._stepped = t, False
        self.messages.clear()
        if self._row is not None:
            self._row[2][2][:] = self.p

    stepped = property(lambda self: self._stepped, doc="Whether a step was taken since the last restart.")

    def set_stop(self, t_stop: float) -> None:
        """The time the solver's steps must not pass [s]."""
        if t_stop != self._stop:        # a new stop time (one ctypes call less per step)
            (self.lib.IDASetStopTime if self.ida else self.lib.CVodeSetStopTime)(self.mem, t_stop)
            self._stop = t_stop

    def advanced(self, t_now: float, stepped: bool) -> None:
        """The solver's steps (taken here or by a compiled loop) have come to t_now [s]."""
        self.t_now = t_now
        if stepped:
            self._stepped, self._h_known, self._factored = True, False, True

    def recover(self, flag: int, t: float) -> None:
        """After a step that failed with ``flag`` at t [s]: if it was the first after a restart,
        tried at the size the run had before the event (the event started a fast transient),
        start again at the solver's own first step; otherwise raise a SimulationError."""
        if flag < 0 and not self._stepped and self.first_step:
            t0, y, yp = self._start
            self.y_arr[:], self.yp_arr[:] = y, yp
            self._reinit(t0, 0.0)
            return
        name = ((self.lib.IDAGetReturnFlagName if self.ida else self.lib.CVodeGetReturnFlagName)(flag) or b"").decode()
        raise SimulationError(f"{self.solver} failed at t = {t:.10g} s: {name}{failure_hint(name)}"
                              + quoted_messages(self.messages))

    @property
    def h_last(self) -> float:
        """The last step taken [s] (0 before the first since a restart), read when asked."""
        if not self._stepped:
            return 0.0
        if not self._h_known:
            self._get_last_step(self.mem, self._last_ref)
            self._h_known = True
        return self._last.value

    @property
    def h_next(self) -> float:
        """The step the solver plans next [s] (0 before its first step since a restart)."""
        if not self._stepped:
            return 0.0
        self._get_next_step(self.mem, self._next_ref)
        return self._next.value

    def current(self):
        """(x, z) at the time the last step reached (the solver's corrected solution)."""
        y = self.y_arr
        if self.ida:
            return y[:self.nx].copy(), y[self.nx:].copy()
        return y.copy(), np.empty(0)

    def state_weights(self, x) -> np.ndarray:
        """How far each state may be off at ``x``: rtol·|x| + its atol, the weights of the
        solver's own error test."""
        atol = self.atol if self._atols is None else self._atols[:self.nx]
        return self.rtol * np.abs(x) + atol

    def states_at(self, t: float) -> np.ndarray:
        """The states at t within the last step, from the interpolating polynomial alone."""
        return self.current()[0] if t == self.t_now else self._dky(t, 0)[0]

    def at(self, t: float):
        """(x, z) at t within the last step: the states from the solver's interpolating
        polynomial, the algebraic variables reconstructed there and both moved within their
        tolerances onto the algebraic equations (:func:`row_between_steps`)."""
        if t == self.t_now:
            return self.current()
        if not self.ida or not self.nz:
            x, _ = self._dky(t, 0)
            return x, np.empty(0)
        buffer, trigger, (y_in, yp_in, _p, t_in, h_in, _rtol, _atol), (out, check) = self._rows()
        if self.lib.IDAGetSolution(self.mem, t, *self._row_vectors) != 0:
            raise self.no_interpolation(t)
        t_in[0], h_in[0] = t, max(self.h_last, 1e-300)
        trigger()
        y = out if check[0] == 0.0 and (self.row_solves_at_run_time is False or buffer.ret() == 0) else \
            solved_row(self.system, y_in, self.p, t)
        return y[:self.nx].copy(), y[self.nx:].copy()

    def _rows(self):
        """The buffered row function between steps (IDA with z), built on first use: a sensitivity
        run's augmented DAE, whose row function takes seconds to build, never asks for it."""
        if self._row is None:
            row = row_between_steps(self.system)
            self._row, self._row_solves = buffered(row), not row.is_a("SXFunction")   # SX ones cannot fail
            self._row[2][5][0], self._row[2][6][0] = self.rtol, self.atol
            self._row[2][2][:] = self.p
            # its inputs y, y' as SUNDIALS vectors: IDAGetSolution writes the rows straight there
            self._row_vectors = tuple(self.nvec.N_VMake_Serial(self.n, a.ctypes.data_as(REAL_P), self.ctx)
                                      for a in self._row[2][:2])
        return self._row

    @property
    def row_solves_at_run_time(self) -> bool:
        """Whether the row function solves linear systems at run time (and so can fail)."""
        self._rows()
        return self._row_solves

    def _dky(self, t: float, k: int, into=None):
        """The k-th derivative of the interpolating polynomial at t: (its x part, all of y),
        copied, or written ``into`` the given array."""
        if self._get_dky(self.mem, t, k, self.dky) != 0:
            raise self.no_interpolation(t)
        if into is not None:
            into[:] = self.dky_arr
            return None
        y = self.dky_arr.copy()
        return y[:self.nx], y

    def no_interpolation(self, t: float) -> SimulationError:
        """The error for an output time outside the last step."""
        return SimulationError(f"{self.solver}: no interpolation at t = {t:.10g} s "
                               f"(last step [{self.t_now - self.h_last:.10g}, {self.t_now:.10g}] s)")

    # --- statistics -----------------------------------------------------------------------------

    def counters(self) -> dict:
        """The solver's counters since its last restart (SUNDIALS resets them at each one, so
        they are read before one; every event reads them: the getters are looked up once)."""
        if self._counters is None:
            self._counters = counter_getters(self.lib, self.solver)
        return self._counters(self.mem)

    def close(self) -> None:
        if getattr(self, "mem", None) is None:
            return
        mem = self.mem
        if self._native is not None:
            self._count_evaluations()
        if self.row_block is not None:
            self.row_block.close(self.core.N_VDestroy)
        (self.lib.IDAFree if self.ida else self.lib.CVodeFree)(ctypes.byref(mem))
        if self._newton is not None:
            self.core.SUNNonlinSolFree(self._newton)
        if self._factored or self.matrix.kind != "sparse":
            # SUNDIALS 7's SuperLU_MT solver crashes when freed before its first factorization
            # (it frees factors it never made); one that never stepped is left (a few hundred bytes).
            self.core.SUNLinSolFree(self.matrix.solver)
        self.core.SUNMatDestroy(self.matrix.A)
        for v in (self.y, self.yp, self.dky) + ((self._id,) if self.ida and self.nz else ()) + \
                self._row_vectors:
            self.core.N_VDestroy(v)
        self.core.SUNContext_Free(ctypes.byref(self.ctx))
        self.mem = None

    def __del__(self):
        try:
            self.close()
        except Exception:       # noqa: BLE001 - interpreter shutdown
            pass
