"""Engine choice for variable-step hybrid simulation: CasADi 3.8 integrator events vs
scikit-sundae (SUNDIALS IDA stepped from Python) vs today's physlib simulate.

All engines integrate the SAME compiled equations of physlib (``sim.system.dae``: x' = f,
0 = g; ``sim.system.guards``) and share physlib's own event logic (``HybridStepper``:
``iterate_modes`` — transitions, projection, z re-solved — and ``settle``; time events from
``sim.time_events``). Modes live in the parameter vector p, so a mode change is a new p and a
restart of the solver. Only the integration between stops differs:

(A) ``casadi-events``: one ``casadi.integrator('idas', ...)`` call per interval between stops,
    with all output times of the interval on its grid and the guards as the DAE output
    ``"zero"``. CasADi 3.8 only detects crossings from + to − and, WITHOUT a ``transition``
    function, returns wrong states after the event (measured: x' = −1 from x = 1, zero = x − 0.55,
    outputs 0.1..1: the outputs after the crossing read −0.05, −0.15, ... instead of 0.4, 0.3,
    ...; a second indicator is never seen). A transition can change x and z only (event_in:
    index, t, x, z, p, u; event_out: post_x, post_z), not p, so it cannot switch a mode. Recipe
    used here (the "freeze" trick): augment the states with ``frozen``, ``clock``, ``which``;
    x' = (1 − frozen)·h·f, clock' = 1 − frozen, t = ta + h·clock; zero_i = frozen + (1 − frozen)
    ·s_i·guard_i (s_i = ±1 the guard's sign at the start, 0 = masked); the transition sets
    frozen = 1, which = index. After the call: outputs with frozen = 0 are valid, the crossing
    time is ta + h·clock at the end and the state there is xf[:, -1] — physlib's Python event
    iteration then runs and the next call starts from the crossing. The output grid is fixed
    when the integrator is built, so one integrator is built (and cached) per distinct pattern
    of normalized output positions.
(B) ``sundae``: scikit-sundae's IDA with root functions (the guards, both directions; IDA
    itself deactivates a guard that is zero at the start until it leaves zero), one
    ``init_step`` per interval between stops (t0, events, time events) and ``step(t_out,
    tstop=stop)`` per output time (IDA's own interpolation, no restart), yp0 = [f(x, z), 0]
    (no initial-condition search: the state is consistent after physlib's event iteration).
    Residual, Jacobian (CasADi ``jacobian`` of [f; g]: J = ∂res/∂y + cj·∂res/∂y') and guards are
    Python callbacks into CasADi Functions; variants: ``sundae-fast`` (CasADi FunctionBuffer,
    ~1 µs per call), ``sundae-plain`` (ordinary ``Function.__call__`` on NumPy arrays) and
    ``sundae-dq`` (FunctionBuffer residual, IDA's difference-quotient Jacobian).
(C) ``physlib``: ``sim.simulate`` as it is (chunked CasADi calls, guards sampled at outputs,
    crossings located on Hermite dense output).

Measured per engine: wall time (best of repeats, warm: integrators already built once),
events, solver starts (IDA initializations / integrator calls), and the error of the final
state against a tight-tolerance reference (rectifier: the hand-written scipy solution of
tests/test_rectifier_grids.py; buck: physlib at rtol 1e-10, atol 1e-12). Default grid here =
501 evenly spaced outputs (physlib's own default adds rows around events).

Run: python benchmarks/bench_engine_choice.py  (about a minute; needs ``pip install
scikit-sundae``, which is NOT a physlib dependency; without it the sundae rows are skipped).

RESULTS (2 CPUs AMD EPYC, shared and noisy; CasADi 3.8.2, scikit-sundae 1.2.0; run against a
snapshot of HEAD 2d8c048; wall = one warm run; starts = solver initializations):

case             grid     engine          wall [s]  ms/event  events  starts   |x-ref|
buck 10 ms       default  physlib (C)        0.939     0.470    1999    1052  3.41e-05
buck 10 ms       default  casadi-events  FAILED: IDASolve returned "IDA_ILL_INPUT"
buck 10 ms       default  sundae-fast        2.609     1.304    2001    1020  3.41e-05
buck 10 ms       default  sundae-fast-step   2.429     1.214    2001    1020  3.41e-05
buck 10 ms       default  sundae-plain      10.097     5.046    2001    1020  3.41e-05
buck 10 ms       default  sundae-dq          4.052     2.025    2001    1019  3.41e-05
buck 10 ms       10001    physlib (C)        4.358     2.180    1999   10052  4.89e-06
buck 10 ms       10001    casadi-events  FAILED: the CasADi call hangs (killed after 15 s)
buck 10 ms       10001    sundae-fast        5.614     2.803    2003    1019  3.41e-05
buck 10 ms       10001    sundae-fast-step  26.261    13.111    2003    1019  3.41e-05
rectifier 50 ms  default  physlib (C)        0.894     8.944     100     952  6.27e-05
rectifier 50 ms  default  casadi-events  FAILED: IDASolve returned "IDA_ILL_INPUT"
rectifier 50 ms  default  sundae-fast        0.207     2.069     100     150  1.97e-05
rectifier 50 ms  default  sundae-dq          0.168     1.678     100     150  1.97e-05
rectifier 50 ms  10001    physlib (C)        4.218    38.347     110   10935  1.67e-06
rectifier 50 ms  10001    casadi-events  FAILED: IDASolve returned "IDA_ILL_INPUT"
rectifier 50 ms  10001    sundae-fast        0.400     4.000     100     150  1.97e-05
rectifier 50 ms  10001    sundae-fast-step   2.068    20.684     100     150  1.97e-05
rectifier 50 ms  10001    sundae-dq          0.294     2.938     100     150  1.97e-05

Findings. (A) CasADi 3.8 events: only + to - crossings; without "transition" the states after
the crossing are wrong; with the freeze transition a toy problem stops correctly, but on the
real models IDAS fails after the transition ("t = 0.5 is not between tcur - hu = 0.8963 and
tcur = 1 ... tout too far back": CasADi's restart after the event steps past pending output
times and then asks IDAS to interpolate behind it), or hangs (buck, 10001 outputs). Not usable
as is. (B) scikit-sundae: correct on both (same events, final state as physlib or better), the
rectifier 4-10x faster than today and 10001 outputs cost ~2x the default grid (IDA's own
interpolation, solve() with all output times in C); but on the buck (1000 short intervals
between PWM edges) it is 2.5-5x SLOWER than today: every init_step builds a new SUNContext,
IDA memory and linear solver (no IDAReInit), and each fresh BDF start runs Python callbacks.
Python per-output step() costs ~0.2 ms per output (use solve(tspan)). sksundae has no
IDASetSuppressAlg (a huge atol on algebraic variables stands in for it, needed for the
rectifier's 1e-11 s turn-on transient). Ordinary CasADi calls instead of FunctionBuffer cost
4-5x.
"""
from __future__ import annotations

import os
import sys
import time

import casadi as cs
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(ROOT, "examples"), os.path.join(ROOT, "tests")]

from benchlib import machine  # noqa: E402
from physlib.analysis.common.fast_call import FastFunction  # noqa: E402
from physlib.analysis.common.initialization import solve_algebraic  # noqa: E402
from physlib.analysis.simulation import integrators as physlib_integrators  # noqa: E402
from physlib.analysis.simulation.events import HybridStepper  # noqa: E402

RTOL, ATOL = 1e-6, 1e-8
ALG_ATOL = 1e6          # scikit-sundae: algebraic variables out of the error test (see Sundae)


# --- (A) CasADi 3.8 integrator with "zero" + "transition" -----------------------------------------

class CasadiEvents:
    """One CasADi IDAS call per interval between stops, stopping at the first crossing."""

    name = "casadi-events"

    def __init__(self, system, rtol=RTOL, atol=ATOL):
        self.system, self.rtol, self.atol = system, rtol, atol
        self.nx, self.nz = system.dae.size1_in(0), system.dae.size1_in(1)
        self.ng = system.guards.size1_out(0)
        x, z, p, t = system.symbols(cs.SX)
        frozen, clock, which = cs.SX.sym("frozen"), cs.SX.sym("clock"), cs.SX.sym("which")
        ta, h, tau = cs.SX.sym("ta"), cs.SX.sym("h"), cs.SX.sym("tau")
        s = cs.SX.sym("s", self.ng)
        time_ = ta + h * clock
        ode, alg = system.dae(x, z, p, time_)
        g = system.guards(x, z, p, time_)
        run = 1 - frozen
        self.problem = {
            "x": cs.vertcat(x, frozen, clock, which), "z": z, "t": tau,
            "p": cs.vertcat(p, ta, h, s),
            "ode": cs.vertcat(run * h * ode, 0, run, 0), "alg": alg,
            "zero": frozen + run * (s * g + (1 - s * s))}
        nX = self.nx + 3
        index, tt = cs.SX.sym("index"), cs.SX.sym("t")
        X, Z = cs.SX.sym("X", nX), cs.SX.sym("Z", self.nz)
        P, U = cs.SX.sym("P", self.problem["p"].numel()), cs.SX.sym("U", 0)
        post = cs.vertcat(X[:self.nx], 1, X[self.nx + 1], index)
        self.transition = cs.Function("transition", [index, tt, X, Z, P, U], [post, Z],
                                      cs.event_in(), cs.event_out())
        self.cache, self.starts, self.builds, self.build_time = {}, 0, 0, 0.0

    def _integrator(self, pattern):
        key = tuple(np.round(pattern, 12))
        F = self.cache.get(key)
        if F is None:
            started = time.perf_counter()
            F = cs.integrator("seg", "idas", self.problem, 0.0, list(key),
                              {"abstol": self.atol, "reltol": self.rtol, "transition": self.transition,
                               "max_events": 1_000_000, "event_tol": 1e-14, "max_num_steps": 50_000,
                               "suppress_algebraic": True, "first_time": 1e-14,
                               "disable_internal_warnings": True,
                               "show_eval_warnings": False})
            self.build_time += time.perf_counter() - started
            self.builds += 1
            self.cache[key] = F
        return F

    def segment(self, x, z, p, ta, tb, outs, g_ref, mask):
        """(times reached, X, Z at them, event (te, xe, ze, fired) or None, x, z at the end)."""
        h = tb - ta
        pattern = np.append((outs - ta) / h, 1.0)
        s = np.where(mask, 0.0, np.sign(g_ref))
        F = self._integrator(pattern)
        self.starts += 1
        r = F(x0=np.concatenate([x, [0.0, 0.0, 0.0]]), z0=z, p=np.concatenate([p, [ta, h], s]))
        Xa, Za = r["xf"].full(), r["zf"].full()
        valid = Xa[self.nx] < 0.5          # frozen is 0 up to rounding (3e-22 seen) before the event
        n_ok = int(np.argmin(valid)) if not valid.all() else len(valid)
        X, Z = Xa[:self.nx], Za
        n_out = min(n_ok, len(outs))
        if valid.all():
            return outs, X[:, :-1], Z[:, :-1], None, X[:, -1], Z[:, -1]
        te = ta + h * Xa[self.nx + 1, -1]
        fired = np.zeros(self.ng, bool)
        fired[int(round(Xa[self.nx + 2, -1]))] = True
        return outs[:n_out], X[:, :n_out], Z[:, :n_out], (te, X[:, -1], Z[:, -1], fired), None, None

    def short(self, x, z, p, ta, tb):
        _, _, _, _, xf, zf = self.segment(x, z, p, ta, tb, np.empty(0), np.zeros(self.ng),
                                          np.ones(self.ng, bool))
        return xf, zf


# --- (B) scikit-sundae IDA ---------------------------------------------------------------------------

class Sundae:
    """scikit-sundae IDA: root functions, one init_step per interval, IDA's interpolation for outputs."""

    def __init__(self, system, call="fast", jacobian=True, rtol=RTOL, atol=ATOL, suppress=True,
                 stepping=False):
        from sksundae.ida import IDA

        self.name = f"sundae-{call}" if jacobian else "sundae-dq"
        self.name += "-step" if stepping else ""
        self.stepping = stepping
        self.nx, self.nz = nx, nz = system.dae.size1_in(0), system.dae.size1_in(1)
        self.ng = ng = system.guards.size1_out(0)
        n = nx + nz
        x, z, p, t = system.symbols(cs.SX)
        y, yp, cj = cs.SX.sym("y", n), cs.SX.sym("yp", n), cs.SX.sym("cj")
        sub = [y[:nx], y[nx:], p, t]
        ode, alg = system.dae(*sub)
        resid = cs.vertcat(yp[:nx] - ode, alg)
        dres = cs.jacobian(resid, y) + cj * cs.diagcat(cs.SX.eye(nx), cs.SX(nz, nz))
        res_f = cs.Function("res", [y, yp, p, t], [resid])
        jac_f = cs.Function("dres", [y, p, t, cj], [cs.densify(dres)])
        ode_f = cs.Function("ode", [y, p, t], [ode])
        grd_f = cs.Function("grd", [y, p, t], [system.guards(*sub)])
        self.p = np.zeros(system.dae.size1_in(2))
        P = self.p
        if call == "fast":
            res_c, jac_c, grd_c = FastFunction(res_f), FastFunction(jac_f), FastFunction(grd_f)
            self.ode = FastFunction(ode_f)

            def resfn(t, y, yp, r):
                r[:] = res_c(y, yp, P, t)

            def jacfn(t, y, yp, r, cj, JJ):
                JJ[:, :] = jac_c(y, P, t, cj).reshape(n, n, order="F")

            def eventsfn(t, y, yp, e):
                e[:] = grd_c(y, P, t)
        else:
            self.ode = lambda *a: ode_f(*a).full().ravel()

            def resfn(t, y, yp, r):
                r[:] = res_f(y, yp, P, t).full().ravel()

            def jacfn(t, y, yp, r, cj, JJ):
                JJ[:, :] = jac_f(y, P, t, cj).full()

            def eventsfn(t, y, yp, e):
                e[:] = grd_f(y, P, t).full().ravel()
        # scikit-sundae 1.2 has no IDASetSuppressAlg: a huge absolute tolerance on the algebraic
        # variables keeps them out of the local error test (as physlib's suppress_algebraic);
        # without it IDA fails (h -> 1e-15) restarting into the rectifier's 1e-11 s transient.
        atol_v = np.concatenate([np.full(nx, atol), np.full(nz, ALG_ATOL if suppress else atol)])
        options = dict(algebraic_idx=list(range(nx, n)) if nz else None, rtol=rtol, atol=atol_v,
                       max_num_steps=50_000, eventsfn=eventsfn, num_events=ng)
        if jacobian:
            options["jacfn"] = jacfn
        eventsfn.terminal, eventsfn.direction = [True] * ng, [0] * ng
        self.solver = IDA(resfn, **options)
        plain = dict(options, eventsfn=None, num_events=0)
        self.plain = IDA(resfn, **plain)     # for physlib's short settling integrations
        self.starts = 0
        self.builds, self.build_time = 0, 0.0

    def _init(self, solver, x, z, p, t):
        self.p[:] = p
        y = np.concatenate([x, z])
        yp = np.concatenate([self.ode(y, self.p, t), np.zeros(self.nz)])
        solver.init_step(t, y, yp)
        self.starts += 1

    def segment(self, x, z, p, ta, tb, outs, g_ref, mask):
        nx = self.nx
        if self.stepping:           # one Python step() per output time
            self._init(self.solver, x, z, p, ta)
            X, Z = np.empty((nx, len(outs))), np.empty((self.nz, len(outs)))
            for k, to in enumerate(np.append(outs, tb)):
                r = self.solver.step(to, tstop=tb)
                if not r.success:
                    raise RuntimeError(f"IDA failed at t = {r.t}: {r.message}")
                if r.status == 2:             # IDA_ROOT_RETURN
                    fired = np.asarray(r.i_events[-1]) != 0
                    return outs[:k], X[:, :k], Z[:, :k], (r.t, r.y[:nx], r.y[nx:], fired), None, None
                if k < len(outs):
                    X[:, k], Z[:, k] = r.y[:nx], r.y[nx:]
            return outs, X, Z, None, r.y[:nx], r.y[nx:]
        # solve(): the output loop runs in C, IDA stops at the first root (terminal events)
        # and appends it as the last row; tstop = tb.
        self.p[:] = p
        y = np.concatenate([x, z])
        yp = np.concatenate([self.ode(y, self.p, ta), np.zeros(self.nz)])
        # (with only [ta, tb] solve() returns every internal step: only the last row is used)
        r = self.solver.solve(np.concatenate([[ta], outs, [tb]]), y, yp)
        self.starts += 1
        if not r.success:
            raise RuntimeError(f"IDA failed at t = {r.t[-1]}: {r.message}")
        Y = r.y.T
        if not len(outs):
            Y = Y[:, [0, -1]] if r.status != 2 else Y[:, [0, -1]]
        if r.status == 2:
            k = len(r.t) - 2 if len(outs) else 0      # outputs before the root
            fired = np.asarray(r.i_events[-1]) != 0
            return outs[:k], Y[:nx, 1:-1], Y[nx:, 1:-1], (r.t[-1], Y[:nx, -1], Y[nx:, -1], fired), None, None
        return outs, Y[:nx, 1:-1], Y[nx:, 1:-1], None, Y[:nx, -1], Y[nx:, -1]

    def short(self, x, z, p, ta, tb):
        self._init(self.plain, x, z, p, ta)
        r = self.plain.step(tb, tstop=tb)
        return r.y[:self.nx], r.y[self.nx:]


# --- the shared driver: physlib's event logic, an engine between stops ------------------------------

def run_engine(sim, engine, t_end, n_out, event_tol=1e-10, max_events=100):
    """Simulate ``sim`` from 0 to ``t_end`` with ``engine``; returns (final x, events, outputs)."""
    system = sim.system
    p = sim.parameter_vector(None)
    x, z0 = (np.asarray(v).ravel() for v in system.start(p, 0.0))
    z = solve_algebraic(system, x, z0, p, 0.0, lambda i: sim.algebraic[i])
    stepper = HybridStepper(sim, p, solver="idas", rtol=engine_rtol(engine), atol=engine_atol(engine),
                            event_tol=event_tol, max_events=max_events, projection="energy",
                            step=engine.short)
    x, z = stepper.start(0.0, t_end, x, z)
    t, x, z, g, mask = stepper.settle(0.0, x, z, stepper.no_guards())
    outs = np.linspace(0.0, t_end, n_out)
    time_events = [te for te in sim.time_events(stepper.p, 0.0, t_end) if 0.0 < te < t_end]
    stops = np.unique(np.concatenate([time_events, [t_end]]))
    X_out = np.full((len(x), n_out), np.nan)
    X_out[:, 0] = x
    for stop in stops:
        while t < stop:
            # outputs a rounding error after t (an output on a time event) take the values at t
            # (IDA: "tout too close to t0"), those a rounding error before the stop the stop's
            at_t = np.flatnonzero((outs >= t) & (outs - t <= 1e-9 * (stop - t)))
            X_out[:, at_t] = x[:, None]
            inside = np.flatnonzero((outs - t > 1e-9 * (stop - t)) & (stop - outs > 1e-9 * (stop - t)))
            reached, X, Z, event, xf, zf = engine.segment(x, z, stepper.p, t, stop, outs[inside], g, mask)
            X_out[:, inside[:len(reached)]] = X
            if event is None:
                t, x, z = stop, xf, zf
                break
            te, xe, ze, fired = event
            t, x, z, g, mask = stepper.handle_event(te, xe, ze, fired, "state", None, g_before=g)
        X_out[:, np.flatnonzero(np.abs(outs - stop) <= 1e-12 * max(abs(stop), 1e-300))] = x[:, None]
        if stop < t_end:
            z = stepper.solve_z(x, z, t)
            x, z = stepper.iterate_modes(t, x, z, stepper.no_guards(), "time")
            t, x, z, g, mask = stepper.settle(t, x, z, stepper.no_guards())
    return x, stepper.events, X_out


def engine_rtol(engine):
    return getattr(engine, "rtol", RTOL)


def engine_atol(engine):
    return getattr(engine, "atol", ATOL)


def physlib_run(sim, t_end, n_out, rtol=RTOL, atol=ATOL):
    """(final x, events, solver calls) of today's sim.simulate; n_out None: its default grid."""
    calls = [0]
    original = physlib_integrators.Integration._call

    def counted(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    physlib_integrators.Integration._call = counted
    try:
        res = sim.simulate(t_end, rtol=rtol, atol=atol,
                           t_eval=None if n_out is None else np.linspace(0.0, t_end, n_out))
    finally:
        physlib_integrators.Integration._call = original
    return np.array([res[s][-1] for s in sim.states]), res.events, calls[0]


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - started)
    return best, out


def measure(sim, engine, t_end, n, isolate=False):
    """(wall time, final x, events, solver starts, integrator build time) of a warm run, or the
    failure as text. ``isolate``: in a forked child (CasADi's experimental events can abort the
    process)."""
    if isolate and hasattr(os, "fork"):
        import multiprocessing as mp
        import pickle

        ctx = mp.get_context("fork")
        receive, send = ctx.Pipe(False)
        child = ctx.Process(target=lambda: send.send(pickle.dumps(measure(sim, engine, t_end, n))))
        child.start()
        child.join(15)
        if child.exitcode is None:
            child.kill()               # our own child, by its handle
            child.join()
            return "no answer within 15 s (the CasADi call hangs)"
        if child.exitcode != 0:
            return f"the process died (exit code {child.exitcode}) inside the CasADi call"
        return pickle.loads(receive.recv())
    try:
        run_engine(sim, engine, t_end, n)            # warm-up: integrators built
        engine.starts, build_before = 0, engine.build_time
        t_run, (xf, events, _) = best_of(lambda: run_engine(sim, engine, t_end, n), 1)
    except Exception as err:       # noqa: BLE001 - a failing engine is a result
        return str(err).strip().splitlines()[-1][:100]
    return t_run, xf, len(events), engine.starts, engine.build_time - build_before


# --- the cases -----------------------------------------------------------------------------------------

def cases():
    from buck_converter import build
    from test_rectifier_grids import T_END, reference, rectifier

    buck = build().compile()
    rect = rectifier(1e-6)
    started = time.perf_counter()
    buck_ref = np.array(physlib_run(buck, 10e-3, None, rtol=1e-10, atol=1e-12)[0])
    rect_ref = np.array([reference(1e-6)[0]])      # C1.v, the only state
    print(f"(references: {time.perf_counter() - started:.1f} s)")
    return [("buck 10 ms", buck, 10e-3, buck_ref), ("rectifier 50 ms", rect, T_END, rect_ref)]


def main():
    print(machine())
    try:
        import sksundae
        sundae = sksundae.__version__
    except ImportError:
        sundae = None
        print("scikit-sundae is not installed: pip install scikit-sundae (the sundae rows are skipped)")
    rows = []
    for label, sim, t_end, ref in cases():
        engines = [CasadiEvents(sim.system)]
        if sundae:
            engines += [Sundae(sim.system, "fast"), Sundae(sim.system, "fast", stepping=True),
                        Sundae(sim.system, "plain"), Sundae(sim.system, "fast", jacobian=False)]
        for grid, n_out in (("default", None), ("10001", 10001)):
            repeat = 2
            t_run, (xf, events, calls) = best_of(lambda: physlib_run(sim, t_end, n_out), repeat)
            rows.append((label, grid, "physlib (C)", t_run, len(events), calls,
                         np.max(np.abs(xf - ref)), None))
            for engine in engines:
                n = 501 if n_out is None else n_out
                outcome = measure(sim, engine, t_end, n, isolate=isinstance(engine, CasadiEvents))
                if isinstance(outcome, str):
                    rows.append((label, grid, engine.name, None, 0, 0, None, outcome))
                    continue
                t_run, xf, n_events, starts, extra = outcome
                rows.append((label, grid, engine.name, t_run, n_events, starts,
                             np.max(np.abs(xf - ref)), extra))
    print()
    header = f"{'case':16} {'grid':8} {'engine':14} {'wall [s]':>9} {'ms/event':>9} {'events':>7} " \
             f"{'starts':>7} {'|x-ref|':>9}"
    print(header)
    print("-" * len(header))
    for label, grid, name, t_run, n_ev, starts, err, build in rows:
        if t_run is None:
            print(f"{label:16} {grid:8} {name:14} FAILED: {build}")
            continue
        print(f"{label:16} {grid:8} {name:14} {t_run:9.3f} {t_run / max(n_ev, 1) * 1e3:9.3f} {n_ev:7d} "
              f"{starts:7d} {err:9.2e}" + (f"  (incl. {build:.2f} s building integrators)" if build else ""))


if __name__ == "__main__":
    main()
