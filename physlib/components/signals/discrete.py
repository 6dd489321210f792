"""Discrete-time blocks executed at a sample time: ZeroOrderHold, UnitDelay, DiscretePID.

A sampled block acts at the instants t0 + k·Ts (k = 0, 1, 2, ...), which it reports as time
events, so variable-step solvers stop there and fixed-step solvers end a step there; between
instants its output is constant. Its memory is held in :class:`~physlib.core.component.Discrete`
variables, which only its ``update`` changes, at those instants, during event iteration.

Timing follows Modelica's ``sample()``/``pre()`` (and Simulink's sample hits): at an instant a
block reads its input *at* the instant (a step exactly there is seen after it, and a chain of
holds at one rate adds no delay) and its output jumps there. The result row just before the
instant (same time stamp) shows the old output, the row at the instant the new one. A sample
instant at t_end, like any event there, changes nothing before the end of the run.

Sample updates are not listed in ``res.events`` (a 1 kHz controller would add a thousand
entries a second); read the held values like variables, ``res["zoh.held"]``.
"""
import math
import sys
from decimal import Decimal

from ...core import Component, Input, Output, Parameter
from ...core.component import Discrete
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import absolute, all_of, any_of, maximum, minimum, next_instant, where
from .edges import EDGE_TOLERANCE

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Discrete", "Sampled", "ZeroOrderHold", "UnitDelay", "DiscretePID"]

MAX_SAMPLES = 100_000   # sample instants of one block in one run (each is a solver stop)
NO_LIMIT = sys.float_info.max


class Sampled(Component):
    """Base of blocks that act at the sample instants t0 + k·Ts, k = 0, 1, 2, ... (time events).

    Parameters: Ts [s] sample period (> 0); t0 [s] first sample instant.
    Subclasses declare :class:`~physlib.core.component.Discrete` variables (importable from
    here), equations that use them, and ``update(values, t)`` returning their new values at an
    instant (see :meth:`~physlib.core.component.Component.update`). At most MAX_SAMPLES
    instants per run.
    """

    Ts = Parameter(unit="s", description="sample period", positive=True)
    t0 = Parameter(0.0, unit="s", description="first sample instant")

    def time_events(self, values, t_start, t_stop):
        """The instants in [t_start, t_stop] (and possibly one more on either side).

        Each is the float nearest to t0 + k·Ts computed in decimal from the shortest decimal
        forms of t0 and Ts, so the same instant is the same float in every call, and a time
        typed as a decimal lands on the instant it means: with Ts = 0.1 the fourth instant is
        0.3, where a Step(t0=0.3) steps (the binary 3·Ts is 0.30000000000000004)."""
        t0, ts = values["t0"], values["Ts"]
        first = max(0, math.floor((t_start - t0) / ts))
        last = math.ceil((t_stop - t0) / ts)
        if last - first > MAX_SAMPLES:
            raise ParameterError(f"{type(self).__name__} {self.name!r}: {last - first} sample instants "
                                 f"in the simulated interval (Ts = {ts:g} s); the limit is {MAX_SAMPLES}: "
                                 "use a longer sample period or a shorter run")
        start, period = Decimal(repr(t0)), Decimal(repr(ts))
        return [float(start + k * period) for k in range(first, last + 1)]

    def next_time_event(self, values, t):
        """The first instant t0 + k·Ts after t, computed in floating point (one rounding away
        from :meth:`time_events`' decimal instants, well within the tolerance of
        EDGE_TOLERANCE·(|t| + |t0|) inside which t counts as at an instant)."""
        t0 = values["t0"]
        return next_instant(t, t0, values["Ts"], EDGE_TOLERANCE * (absolute(t) + absolute(t0)))


class ZeroOrderHold(Sampled):
    """Zero-order hold: y = u(t0 + k·Ts) from that instant until the next one; 0 before t0.

    Parameters: Ts [s] sample period (> 0); t0 [s] first sample instant.
    Inputs: u. Discrete variables: held (u at the latest sample instant).
    """

    u = Input(description="input")
    y = Output(description="u at the latest sample instant")
    held = Discrete(description="u at the latest sample instant")

    def equations(self):
        return [sp.Eq(self.y, self.held)]

    def update(self, values, t):
        return {"held": values["u"]}


class UnitDelay(Sampled):
    """Unit delay z⁻¹: at each sample instant t_k = t0 + k·Ts the output becomes the input
    sampled at the previous instant, y = u(t_(k−1)), and holds it until t_(k+1); y = y0 until
    the second instant t0 + Ts.

    Parameters: Ts [s] sample period (> 0); t0 [s] first sample instant; y0 initial output.
    Inputs: u. Discrete variables: held (the output), last (u at the latest sample instant).
    """

    u = Input(description="input")
    y = Output(description="u at the previous sample instant")
    y0 = Parameter(0.0, description="output until the second sample instant")
    held = Discrete(description="output: u at the previous sample instant", start="y0")
    last = Discrete(description="u at the latest sample instant", start="y0")

    def equations(self):
        return [sp.Eq(self.y, self.held)]

    def update(self, values, t):
        return {"held": values["pre(last)"], "last": values["u"]}


class DiscretePID(Sampled):
    """Discrete PID controller, updated at t_k = t0 + k·Ts and held in between (0 before t0):

        e_k  = u(t_k)
        xi_k = xi_(k−1) + Ts·e_k                                (backward Euler)
        v_k  = kp·e_k + ki·xi_k + kd·(e_k − e_(k−1))/Ts          (backward difference)
        y_k  = min(max(v_k, y_min), y_max)

    with xi_(−1) = xi0 and e_(−1) = 0 (the derivative sees the first error as a step from 0).
    Anti-windup by clamping: when v_k is beyond a limit and the integral step ki·Ts·e_k pushes
    further beyond it, the integral is not advanced (xi_k = xi_(k−1)) and v_k is taken again.

    Parameters: Ts [s] sample period (> 0); t0 [s] first sample instant; kp, ki [1/s], kd [s]
    gains; y_min, y_max output limits (none by default; y_min < y_max); xi0 initial integral
    of u [s].
    Inputs: u (control error). Discrete variables: held (the output), xi (integral of u),
    e_last (u at the latest sample instant).
    """

    u = Input(description="control error")
    y = Output(description="controller output")
    kp = Parameter(1.0, description="proportional gain")
    ki = Parameter(0.0, unit="1/s", description="integral gain")
    kd = Parameter(0.0, unit="s", description="derivative gain")
    y_min = Parameter(-NO_LIMIT, description="lower output limit (none by default)")
    y_max = Parameter(NO_LIMIT, description="upper output limit (none by default)")
    xi0 = Parameter(0.0, unit="s", description="initial value of the integral of u")
    held = Discrete(description="controller output")
    xi = Discrete(unit="s", description="integral of u (backward Euler)", start="xi0")
    e_last = Discrete(description="u at the latest sample instant")

    def validate(self):
        if not self.y_min < self.y_max:
            raise ParameterError(f"DiscretePID {self.name!r}: y_min ({self.y_min:g}) must be below "
                                 f"y_max ({self.y_max:g})")

    def equations(self):
        return [sp.Eq(self.y, self.held)]

    def update(self, v, t):
        e, ts = v["u"], v["Ts"]
        derivative = v["kd"] * (e - v["pre(e_last)"]) / ts
        xi = v["pre(xi)"] + ts * e
        out = v["kp"] * e + v["ki"] * xi + derivative
        push = v["ki"] * e
        # Written with physlib.core.logic so that it also compiles to C (see Component.update).
        clamped = any_of(all_of(out > v["y_max"], push > 0), all_of(out < v["y_min"], push < 0))
        xi = where(clamped, v["pre(xi)"], xi)
        out = v["kp"] * e + v["ki"] * xi + derivative
        return {"held": minimum(maximum(out, v["y_min"]), v["y_max"]), "xi": xi, "e_last": e}
