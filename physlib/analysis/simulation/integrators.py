"""SUNDIALS integrators (CVODES, IDAS through CasADi): built once, called safely, failures named.

Every variable-step integration of physlib runs through :class:`Integration`:

* **Normalized time.** The DAE is integrated over τ ∈ [0, L] with t = ta + (tb − ta)·τ/L (ta
  and (tb − ta)/L are appended to the parameters), so one integrator serves every interval of
  the same output pattern. L is 1 unless outputs lie closer together (or to the start) than
  1e-6 of the interval: CasADi returns the previous output's values for an output less than
  1e-9 (in τ) after it, so L, a power of ten, keeps every output gap at least 1e-6 in τ (an
  output 1e-12 s into a run of 1e6 s is an output, not the start).
* **First step from the dynamics.** IDAS's consistent initialization (IDACalcIC) and its first
  step are sized from the first requested output time. When that lies far beyond the model's
  fastest dynamics (:mod:`physlib.analysis.simulation.time_scale`), an extra first output is
  requested at 100 time constants of the fastest mode, so that a valid model starts (and
  restarts after every event) whatever the output grid.
* **Messages.** SUNDIALS and CasADi write warnings and error reports to ``sys.stderr``; during
  a call they are captured per thread and sent to the ``physlib.solver`` logger at DEBUG level
  (and quoted in the error when the call fails), so a run prints nothing.
* **Failures.** A failed call becomes a :class:`~physlib.core.errors.SimulationError` saying
  when the solver stopped and, when the solution grows without bound, which state diverged
  and its last finite value. A call that returns non-finite numbers is a failure too.
"""
from __future__ import annotations

import re
import time

import casadi as cs
import numpy as np

from ...core.errors import SimulationError
from ..common.fast_call import fast
from ..common.solver_output import solver_messages
from . import run_stats
from .stepping_functions import buffered
from .time_scale import fastest_rate
from .tolerances import absolute_tolerances


MAX_STEPS_PER_OUTPUT = 50_000   # solver steps between two output points before giving up
TOO_MANY_STEPS = (f"more than {MAX_STEPS_PER_OUTPUT} solver steps since the last event or output time "
                  "(give more output points with t_eval, or the model chatters)")
FIRST_TIME = 1e-14              # IDAS's first requested time, as a fraction of the interval
MIN_GAP = 1e-6                  # smallest output gap in τ (CasADi merges outputs < 1e-9 apart)
LEAD_TIME_CONSTANTS = 100.0     # IDAS's first output: this many fastest time constants ahead
_CACHE_LIMIT = 64               # integrators kept per compiled model


class Integration:
    """Integrates one compiled model with one solver and tolerances.

    ``integration(x, z, p, ta, tb, grid)`` returns the states and algebraic variables at the
    times ``ta + (tb - ta)·grid`` (``grid``: increasing values in (0, 1], default ``(1.0,)``)
    as two arrays with one column per output."""

    def __init__(self, model, solver: str, rtol: float, atol: float, step_bound: float | None = None):
        self.model = model
        self.system = model.system
        self.solver, self.rtol, self.atol = solver, rtol, atol
        # time derivatives among the algebraic variables: atol over a bound of the solver's
        # steps (:mod:`.tolerances`; max_step, else the run's length), and no algebraic
        # variable's below its rounding at the first call's start
        self.step_bound = step_bound
        self.atolv = None
        self._atolv_pending = step_bound is not None and solver == "idas"

    def __call__(self, x, z, p, ta: float, tb: float, grid=(1.0,), max_step: float | None = None):
        X, Z, failure, messages, scale = self._solve(x, z, p, ta, tb, grid, max_step)
        if failure is not None:
            if _failed_at_start(failure, messages):
                raise StartFailure(f"{self.solver}: no consistent start at t = {ta:.6g} s: {failure}")
            raise self._failure(x, z, p, ta, tb, failure, messages, scale)
        return X, Z

    def _solve(self, x, z, p, ta, tb, grid, max_step):
        """(X, Z, failure reason or None, captured solver messages, τ scale L)."""
        grid = np.asarray(grid, dtype=float).ravel()
        if self._atolv_pending:
            self._atolv_pending = False
            self.atolv = absolute_tolerances(self.system, self.atol, self.step_bound, start=(x, z, p, ta))
        lead = self._lead(x, z, p, ta, tb, grid[0])
        full = grid if lead is None else np.concatenate([[lead], grid])
        out, failure, messages, scale = self._attempts(x, z, p, ta, tb, full, max_step)
        if lead is not None and failure is not None and _failed_at_start(failure, messages):
            # The lead output asked for steps near the fastest mode's time constant, and at
            # steps that small IDAS's corrector can fail to converge on equations of very
            # different scales (junction charges of 1e-12 C beside node voltages: its iteration
            # matrix spans 1e28). Without it IDAS sizes its first step from the first output.
            out, failure, messages, scale = self._attempts(x, z, p, ta, tb, grid, max_step)
            full = grid
        if failure is not None:
            return None, None, failure, messages, scale
        k = len(full) - len(grid)
        X, Z = out["xf"][:, k:], out["zf"][:, k:]
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Z))):
            return None, None, "the solution is not finite", messages, scale
        return X, Z, None, messages, scale

    def _attempts(self, x, z, p, ta, tb, full, max_step):
        """(outputs, failure or None, messages, τ scale L) of the integrator for the output
        times ``full`` (fractions of [ta, tb]), with the start-up fallbacks below."""
        scale = _time_scale(full)
        pattern = tuple((full * scale).tolist())
        max_step_tau = None if max_step is None else max_step / (tb - ta) * scale
        out, failure, messages = self._call(self._integrator(pattern, max_step_tau), x, z, p, ta, tb, scale)
        if failure is not None and _failed_at_start(failure, messages):
            # IDAS starts from zero rates, which its consistent initialization (IDACalcIC)
            # corrects; that Newton iteration can fail (a line search "with too small a step" at
            # tight tolerances, on a linear system), and IDAS's first steps then fail their error
            # test. The model's equations give the exact rates x' = f(x, z, p, t): start from
            # them (an integrator built for this call only).
            rates = fast(self.system, "dae")(x, z, p, ta)[0] * (tb - ta) / scale
            out, failure, messages = self._call(self._integrator(pattern, max_step_tau, rates=rates),
                                                x, z, p, ta, tb, scale)
        if failure is not None and "IDACalcIC" in failure:
            # IDACalcIC takes its Newton step from the first output time; if the dynamics at the
            # start were misjudged (a model too large for fastest_rate), the same call with
            # IDACalcIC looking only 1e-14 of the interval ahead is a local correction.
            out, failure, messages = self._call(self._integrator(pattern, max_step_tau, True), x, z, p,
                                                ta, tb, scale)
        return out, failure, messages, scale

    def _lead(self, x, z, p, ta, tb, first):
        """An extra first output (a fraction of the interval, a power of ten) for IDAS when the
        first output lies more than LEAD_TIME_CONSTANTS time constants of the model's fastest
        mode ahead; None if it does not."""
        if self.solver != "idas" or not len(x):
            return None
        # One estimate per mode (parameter vector) of a run: a run with modes starts the solver
        # again and again in the same few modes, and the estimate only sizes a first output.
        rates = self.__dict__.setdefault("_rates", {})
        key = p.tobytes()
        if key not in rates:
            rates[key] = fastest_rate(self.system, x, z, p, ta)
        rate = rates[key]
        if rate is None or not rate > 0:
            return None
        lead = LEAD_TIME_CONSTANTS / rate / (tb - ta)
        if lead >= 0.1 * first:
            return None
        return 10.0 ** np.floor(np.log10(lead))

    def _call(self, integrator, x, z, p, ta, tb, scale=1.0):
        """(outputs {"xf": (nx, n outputs), "zf": (nz, n outputs)} as arrays, failure reason
        or None, captured solver messages). The integrator writes its outputs straight into
        NumPy arrays (a FunctionBuffer): converting CasADi's matrices of a 5,000-state run
        with 1,001 outputs cost 0.6 s, a third of the whole run."""
        stats, started = run_stats.current(), time.perf_counter()
        buffer, trigger, inputs, outputs = buffered(integrator)
        inputs[0][:], inputs[1][:] = x, z
        inputs[2][:] = np.concatenate([p, [ta, (tb - ta) / scale]])
        with solver_messages() as messages:
            try:
                trigger()
            except RuntimeError as err:
                out, failure = None, _last_line(str(err))
            else:
                n = integrator.size2_out(0)
                out = {"xf": outputs[0].reshape(n, len(x)).T, "zf": outputs[1].reshape(n, len(z)).T}
                failure = None
        if stats is not None:
            stats.solver_call(buffer.stats(), time.perf_counter() - started)
        return out, failure, messages.getvalue()

    def _integrator(self, grid: tuple, max_step_tau: float | None, close_start: bool = False,
                    rates=None):
        """The integrator for an output pattern; ``close_start``: IDAS's initial-condition
        step looks only a tiny fraction of the interval ahead; ``rates``: IDAS starts from these
        initial rates (in τ) instead of zero (not kept: they belong to one call)."""
        atolv = None if self.atolv is None else self.atolv.tobytes()
        key = ("scaled", self.solver, self.rtol, self.atol, atolv, grid, max_step_tau, close_start)
        cache = self.system.cache
        integrator = cache.get(key) if rates is None else None
        if integrator is None:
            dae = self.system.dae_dict()
            ta, h, tau = cs.SX.sym("ta"), cs.SX.sym("h"), cs.SX.sym("tau")
            time = ta + h * tau
            problem = {"x": dae["x"], "z": dae["z"], "p": cs.vertcat(dae["p"], ta, h), "t": tau,
                       "ode": h * cs.substitute(dae["ode"], dae["t"], time),
                       "alg": cs.substitute(dae["alg"], dae["t"], time)}
            options = {"abstol": self.atol, "reltol": self.rtol, "max_num_steps": MAX_STEPS_PER_OUTPUT,
                       "disable_internal_warnings": True, "show_eval_warnings": False}
            if self.atolv is not None:
                options["abstolv"] = self.atolv.tolist()
            if self.solver == "idas":
                # Algebraic variables carry no initial rates, so keep them out of the local error
                # test; their accuracy follows from the states they are solved from.
                options["suppress_algebraic"] = True
                if close_start:
                    options["first_time"] = FIRST_TIME
            if max_step_tau is not None:
                options["max_step_size"] = max_step_tau
            if rates is not None:
                options["init_xdot"] = np.asarray(rates, dtype=float).ravel().tolist()
            integrator = cs.integrator("simulate", self.solver, problem, 0.0, list(grid), options)
            if rates is not None:
                return integrator
            scaled = [k for k in cache if isinstance(k, tuple) and k[0] == "scaled"]
            if len(scaled) >= _CACHE_LIMIT:
                cache.pop(scaled[0], None)
            cache[key] = integrator
        return integrator

    # --- failures ---------------------------------------------------------------------------------

    def _failure(self, x, z, p, ta, tb, reason, messages, scale=1.0) -> SimulationError:
        """The error for a failed integration from (x, z) at ta towards tb: where the solver
        stopped and, if the solution ran away, which state did."""
        t_stop = _stop_time(messages, ta, tb, scale)
        if t_stop is not None:
            t_good = ta + (t_stop - ta) * (1 - 1e-6)
            reached = self._try(x, z, p, ta, t_good) if t_good > ta else None
        else:
            t_good, reached = self._last_good(x, z, p, ta, tb)
            t_stop = t_good
        text = f"{self.solver} stopped at t = {t_stop:.6g} s (integrating from {ta:.6g} s to {tb:.6g} s)"
        grown = runaway(*reached) if reached is not None else None
        if grown is not None:
            name, value = self.model.states[grown], reached[1][grown]
            text += (f": the solution diverges: {name} reached {value:.4g} at t = {t_good:.6g} s "
                     "and grows without bound. Check the signs and parameters of the equations "
                     f"that drive {name}")
        else:
            text += f": {reason}. Check parameters and initial values, or tighten rtol/atol"
            if "TOO_MUCH_WORK" in reason:
                text += (f" (more than {MAX_STEPS_PER_OUTPUT} solver steps between two output "
                         "points: give more output points with t_eval)")
        if messages.strip():
            text += f"\nsolver messages (times in seconds):\n{_abridged(_in_seconds(messages, ta, tb, scale))}"
        return SimulationError(text)

    def _try(self, x, z, p, ta, tb):
        """(largest |x| before tb, x at tb) over outputs a quarter apart, or None if the solver cannot
        get to tb with finite values: a runaway grows far beyond all it was (a 1e6 Pa swing does not)."""
        X, _, failure, _, _ = self._solve(x, z, p, ta, tb, (0.25, 0.5, 0.75, 1.0), None)
        return None if failure is not None else (np.max(np.abs(np.column_stack([x, X[:, :-1]])), axis=1), X[:, -1])

    def _last_good(self, x, z, p, ta, tb, rounds: int = 20):
        """The latest time the solver reaches with finite values, by bisection (CVODES's failure
        report does not say when it stopped): 20 halvings, 1e-6 of the interval. Returns the
        time and the (X, Z) reached there (None if not even the start could be left)."""
        lo, hi, reached = ta, tb, None
        for _ in range(rounds):
            mid = 0.5 * (lo + hi)
            found = self._try(x, z, p, ta, mid)
            if found is None:
                hi = mid
            else:
                lo, reached = mid, found
        return lo, reached


def _failed_at_start(failure: str, messages: str) -> bool:
    """Whether IDAS failed in its consistent initialization or in its first step (an error test
    failing "at t = 0", the start of the call in τ)."""
    return "IDACalcIC" in failure or (("IDA_ERR_FAIL" in failure or "IDA_CONV_FAIL" in failure)
                                      and re.search(r"\bt = 0\b", messages) is not None)


def _time_scale(grid) -> float:
    """L of the module docstring: 1, or the power of ten that makes every gap between the start
    and the outputs ``grid`` (fractions of the interval) at least MIN_GAP in τ."""
    gap = float(np.min(np.diff(np.concatenate([[0.0], grid]))))
    if not gap > 0 or gap >= MIN_GAP:
        return 1.0
    return float(min(10.0 ** np.ceil(np.log10(MIN_GAP / gap)), 1e20))


def runaway(x_start, x_reached, factor: float = 1e3):
    """Index of the state that grew the most relative to its start (|x| / (|x0| + 1)), if it
    grew by more than ``factor``; else None."""
    if not len(x_start):
        return None
    growth = np.abs(x_reached) / (np.abs(x_start) + 1.0)
    i = int(np.argmax(growth))
    return i if growth[i] > factor else None


def stopped(solver: str, t: float, reason: str, x_peak, x_now, states) -> SimulationError:
    """The error for a hybrid run that cannot go on at t [s]: the solution diverges (a state
    grew a thousandfold beyond ``x_peak``, the largest |x| the run had met) or ``reason``."""
    grown = runaway(x_peak, x_now) if len(x_now) else None
    text = f"{solver} stopped at t = {t:.6g} s"
    if grown is None:
        return SimulationError(f"{text}: {reason}")
    name = states[grown]
    return SimulationError(
        f"{text}: the solution diverges: {name} reached {x_now[grown]:.4g} and grows without bound. "
        f"Check the signs and parameters of the equations that drive {name}")


class StartFailure(SimulationError):
    """IDAS's consistent initialization (IDACalcIC) or its first step failed at the start of
    an interval (also after the retries of :meth:`Integration._attempts`): the run can go on
    with a solver that starts from consistent rates instead
    (:class:`~physlib.analysis.simulation.sundials.Stepper`)."""


def _last_line(message: str) -> str:
    message = message.strip()
    return message.splitlines()[-1] if message else "unknown solver failure"


_AT_TIME = re.compile(r"\bt\s*=\s*([-+0-9.eE]+)")


def _stop_time(messages: str, ta: float, tb: float, scale: float = 1.0) -> float | None:
    """The time at which SUNDIALS reports it stopped ("At t = 0.99998, mxstep steps taken..."),
    converted from normalized time τ ∈ [0, scale] to seconds; None if it did not say."""
    found = _AT_TIME.findall(messages)
    for value in reversed(found):
        try:
            tau = float(value)
        except ValueError:
            continue
        if 0.0 <= tau <= scale:
            return ta + (tb - ta) * tau / scale
    return None


def _in_seconds(messages: str, ta: float, tb: float, scale: float = 1.0) -> str:
    """The messages with their normalized times "t = τ" written as times in seconds."""
    def convert(match):
        try:
            return f"t = {ta + (tb - ta) * float(match.group(1)) / scale:.6g}"
        except ValueError:
            return match.group(0)
    return _AT_TIME.sub(convert, messages)


def _abridged(messages: str, lines: int = 6) -> str:
    """The distinct lines of the solver's messages, at most ``lines`` of them."""
    seen: list[str] = []
    for line in messages.strip().splitlines():
        if line not in seen:
            seen.append(line)
    text = "\n".join(seen[:lines])
    return text + (f"\n... ({len(seen) - lines} more distinct lines)" if len(seen) > lines else "")
