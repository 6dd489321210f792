"""Delays (the Modelica Standard Library's Blocks.Nonlinear FixedDelay and PadeDelay): a
transport delay through a sampled history of the input, and its rational (Padé)
approximation, a linear system that linearizes."""
from ...core import Component, Input, Output, Parameter, Variable, der
from ...core import symbols
from ...core.component import Discrete
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import where
from .discrete import Sampled

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["PadeDelay", "FixedDelay"]


class PadeDelay(Component):
    """Padé approximation of the delay e^(−T·s), T = delay_time, of order (m, n) (MSL
    Blocks.Nonlinear.PadeDelay with balance = false; Simscape: Transport Delay's Padé order):

        y(s)/u(s) = (b_0·s^m + … + b_m)/(a_0·s^n + … + a_n)

    whose Taylor series agrees with e^(−T·s) up to order n + m, realized as the MSL's
    controller canonical form: der(x1) = (u − a_1·x1 − … − a_n·xn)/a_0, der(x_i) = x_(i−1),
    y = c·x + d·u. The coefficients are polynomials in T: the delay time is an ordinary
    parameter. Starts in steady state for the input u_start (xn = u_start, the others 0), as the
    MSL's x[n] = u(t0).

    Parameters: delay_time [s] (> 0); n (>= 1) order of the denominator; m (1 … n, default n)
    order of the numerator (structural); u_start input at the start. States: x1 … xn.
    The MSL's balance = true (a state scaling that leaves y unchanged) is not offered.
    """

    u = Input(description="input")
    y = Output(description="approximately delayed input")
    delay_time = Parameter(1.0, unit="s", description="delay time", positive=True)
    n = Parameter(1, description="order of the denominator", structural=True)
    m = Parameter(None, description="order of the numerator, 1 … n (default n)", structural=True)
    u_start = Parameter(0.0, description="input at the start, at whose steady state the block starts")

    def validate(self):
        n = self.n
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ParameterError(f"PadeDelay {self.name!r}: n must be an integer >= 1, got {n!r}")
        if self.m is None:
            self._values["m"] = n
        elif not isinstance(self.m, int) or isinstance(self.m, bool) or not 1 <= self.m <= n:
            raise ParameterError(f"PadeDelay {self.name!r}: m must be an integer in 1 … n = {n}, got {self.m!r}")

    def variables(self):
        return {**super().variables(),
                **{f"x{i}": Variable(description=f"state {i}") for i in range(1, self.n + 1)}}

    def coefficients(self):
        """(a, b): denominator a_0 … a_n and numerator b_0 … b_m coefficients, highest power
        first, as expressions of the delay time (the MSL's padeCoefficients2)."""
        n, m, T = self.n, self.m, self.delay_time
        a, b = [sp.Integer(1)], [sp.Integer(1)]
        for i in range(1, n + 1):
            a.append(a[-1] * T * sp.Rational(n - i + 1, n + m - i + 1) / i)
            if i <= m:
                b.append(-b[-1] * T * sp.Rational(m - i + 1, n + m - i + 1) / i)
        return a[::-1], b[::-1]

    def equations(self):
        a, b = self.coefficients()
        n = self.n
        bb = [0] * (n - self.m) + b
        d = bb[0] / a[0]
        x = [self.var(f"x{i}") for i in range(1, n + 1)]
        return ([sp.Eq(der(x[0]), (self.u - sum(ak * xk for ak, xk in zip(a[1:], x))) / a[0])] +
                [sp.Eq(der(x[i]), x[i - 1]) for i in range(1, n)] +
                [sp.Eq(self.y, sum((bk - d * ak) * xk for ak, bk, xk in zip(a[1:], bb[1:], x)) + d * self.u)])

    def initial(self):
        return {self.var(f"x{i}"): (self.u_start if i == self.n else 0) for i in range(1, self.n + 1)}


class FixedDelay(Component):
    """Transport delay y(t) = u(t − delay_time), u(t0) before t0 + delay_time (MSL
    Blocks.Nonlinear.FixedDelay; Simscape: Transport Delay), through a sampled history.

    The input is sampled every Ts = delay_time/n from t0 on (n + 1 held samples, shifted at
    each sample instant, a time event) and the output interpolates linearly in time between the
    samples delay_time and delay_time − Ts old. The output is the exact delay of the input's
    piecewise-linear interpolation through its samples: for a smooth input its error is at most
    Ts²/8·max|u''|, and a step in the input becomes a ramp over Ts. More samples (n, structural)
    cost n sample instants per delay time. Linear analyses see the held samples as constants
    (no transfer through the block): use :class:`PadeDelay` there.

    Parameters: delay_time [s] (> 0); n (>= 1) samples per delay time; t0 [s] the first sample
    instant, the start of the run (a run started before it reads 0 until then).
    Discrete variables: h0 … hn (h_j = u j sample periods before the latest instant), t_last
    (the latest sample instant), started (0 until the first instant).
    """

    u = Input(description="input")
    y = Output(description="delayed input")
    delay_time = Parameter(1.0, unit="s", description="delay time", positive=True)
    n = Parameter(20, description="samples per delay time", structural=True)
    t0 = Parameter(0.0, unit="s", description="first sample instant")
    started = Discrete(description="0 until the first sample instant, then 1")
    t_last = Discrete(unit="s", description="latest sample instant")
    samples = 0                          # n of the class (see _fixed_delay_class)

    def __new__(cls, name=None, *positional, **values):
        # The held samples are discrete variables, declared per class: one class per n.
        n = values.get("n", cls._parameters["n"].default)
        if cls is FixedDelay and isinstance(n, int) and not isinstance(n, bool) and n >= 1:
            cls = _fixed_delay_class(n)
        return super().__new__(cls)

    def validate(self):
        if self.n != self.samples or self.samples < 1:
            raise ParameterError(f"FixedDelay {self.name!r}: n must be an integer >= 1, got {self.n!r}")

    def equations(self):
        n, ts = self.n, self.delay_time / self.n
        h = [getattr(self, f"h{j}") for j in range(n + 1)]
        fraction = sp.Min(sp.Max((symbols.t - self.t_last) / ts, 0), 1)
        return [sp.Eq(self.y, h[n] + (h[n - 1] - h[n]) * fraction)]

    def update(self, v, t):
        # Written with physlib.core.logic so that it also compiles to C (see Component.update).
        first = v["pre(started)"] == 0
        shifted = {f"h{j}": where(first, v["u"], v[f"pre(h{j - 1})"]) for j in range(1, self.n + 1)}
        return {"h0": v["u"], **shifted, "t_last": t, "started": 1.0}

    def _instants(self, values):
        return {"t0": values["t0"], "Ts": values["delay_time"] / self.n}

    def time_events(self, values, t_start, t_stop):
        return Sampled.time_events(self, self._instants(values), t_start, t_stop)

    def next_time_event(self, values, t):
        return Sampled.next_time_event(self, self._instants(values), t)


_fixed_delay_classes: dict[int, type] = {}


def _fixed_delay_class(n: int) -> type:
    """The FixedDelay class with the discrete variables h0 … hn."""
    if n not in _fixed_delay_classes:
        held = {f"h{j}": Discrete(description=f"u {j} sample periods before the latest instant")
                for j in range(n + 1)}
        _fixed_delay_classes[n] = type("FixedDelay", (FixedDelay,), {
            **held, "samples": n, "__module__": __name__, "__qualname__": "FixedDelay",
            "__doc__": FixedDelay.__doc__})
    return _fixed_delay_classes[n]
