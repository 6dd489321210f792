"""Continuous-time linear blocks (the Modelica Standard Library's Blocks.Continuous): integrator,
PID controller (with output limits and anti-windup), state space, transfer function."""
import math

import numpy as np

from ...core import Component, Input, Output, Parameter, Variable, der
from ...core.component import as_real
from ...core.errors import ParameterError
from ...core.lazy import lazy_module

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["Integrator", "PID", "StateSpace", "TransferFunction"]


class Integrator(Component):
    """dy/dt = k·u, y(t0) = y0."""

    u = Input(description="input")
    y = Output(description="integral of k·u")
    k = Parameter(1.0, description="gain")
    y0 = Parameter(0.0, description="initial value")

    def equations(self):
        return [sp.Eq(der(self.y), self.k * self.u)]

    def initial(self):
        return {self.y: self.y0}


class PID(Component):
    """Parallel PID controller with a filtered derivative:
    y = kp·u + ki·∫u dt + kd·s/(Tf·s + 1)·u.

    Parameters: kp, ki [1/s], kd [s] gains; Tf [s] derivative filter time constant (> 0);
    xi0 initial value of the integral.
    States: xi (integral of u), xd (u low-pass filtered by Tf).

    **Output limits and anti-windup.** Giving ``y_max`` and/or ``y_min`` (``PID("pid", kp=2,
    ki=1, y_max=1, y_min=-1)``) limits the output and adds back-calculation anti-windup
    (Åström & Hägglund, *Advanced PID Control*, 2006, §3.5); +inf for ``y_max`` or −inf for
    ``y_min`` means no limit on that side. The limits decide the block's equations, so they
    are given at construction (their values can change like any parameter's, e.g.
    ``params={"pid.y_max": 2.0}``); without them the block is the plain PID above. With them::

        v = kp·u + ki·xi + kd·(u − xd)/Tf        (the unlimited output, variable "v")
        y = min(max(v, y_min), y_max)             (continuous: the solver steps over the kinks)
        der(xi) = u + (y − v)/(ki·Tt)

    Back-calculation feeds the saturation error y − v into the integral part I = ki·xi with
    gain 1/Tt: dI/dt = ki·u + (y − v)/Tt, which is the last equation divided by ki. Within the
    limits y = v and nothing changes. Saturated at y_max with u and the D-part constant,
    Tt·dI/dt = −I + (y_max − kp·u − D) + ki·Tt·u: I relaxes with time constant Tt to where
    v = y_max + ki·Tt·u, so v stays within ki·Tt·|u| of the limit and the output leaves it as
    soon as the error turns, instead of after the wound-up integral has run down. With
    ki = 0 there is no integral action to wind up: the tracking term is zero (xi stays the
    integral of u, which then does not reach y) and the block is a PD controller and a limiter.

    Tt [s] is the tracking time constant; 0 (the default) chooses the textbook value from the
    gains, with Ti = kp/ki and Td = kd/kp of the standard form: Tt = √(Ti·Td) = √|kd/ki| with
    a derivative part, Tt = Ti = |kp/ki| for a PI controller (then ki·Tt = kp). The choice
    follows the gains when they are changed with ``params=``. A pure integral controller
    (kp = kd = 0) has Ti = 0 and needs Tt given.
    Variables (limited): v, the output before the limits.
    """

    u = Input(description="control error")
    y = Output(description="controller output")
    kp = Parameter(1.0, description="proportional gain")
    ki = Parameter(0.0, unit="1/s", description="integral gain")
    kd = Parameter(0.0, unit="s", description="derivative gain")
    Tf = Parameter(1e-3, unit="s", description="derivative filter time constant", positive=True)
    xi0 = Parameter(0.0, description="initial value of the integral of u")
    xi = Variable(description="integral of u")
    xd = Variable(description="u through the derivative filter's low-pass")

    def __new__(cls, name=None, *positional, **values):
        # The limits decide the parameters and equations: a limited PID is a PID subclass.
        if cls is PID:
            upper, lower = (key in values and not _unlimited(values[key], sign)
                            for key, sign in _PID_LIMITS)
            if upper or lower:
                cls = _limited_pid_class(upper, lower)
        return super().__new__(cls)

    def __init__(self, name=None, *positional, **values):
        absent = {key for key, sign in _PID_LIMITS if key in values and _unlimited(values[key], sign)}
        values = {key: value for key, value in values.items() if key not in absent}
        if "Tt" in values and "Tt" not in self._parameters:
            raise ParameterError(f"PID {name!r}: Tt (the anti-windup tracking time constant) applies "
                                 "only with output limits: give y_max and/or y_min")
        super().__init__(name, *positional, **values)

    def __setattr__(self, name, value):
        # pid.y_max = 1 on a PID built without limits would otherwise be an attribute nothing reads.
        if name in ("y_max", "y_min", "Tt") and name not in self._parameters:
            raise ParameterError(f"PID {self.name!r} was built without {name}: the output limits decide "
                                 f"its equations, so build a new one, PID({self.name!r}, ..., {name}=...)")
        super().__setattr__(name, value)

    def equations(self):
        return [sp.Eq(der(self.xi), self.u),
                sp.Eq(self.Tf * der(self.xd), self.u - self.xd),
                sp.Eq(self.y, self.kp * self.u + self.ki * self.xi + self.kd * (self.u - self.xd) / self.Tf)]

    def initial(self):
        return {self.xi: self.xi0}


_PID_LIMITS = (("y_max", 1), ("y_min", -1))


def _unlimited(value, sign) -> bool:
    """Whether a limit given as ``value`` is no limit: +inf for y_max (sign 1), −inf for y_min."""
    return as_real(value) == sign * math.inf


class _LimitedPID(PID):
    """PID with output limits and back-calculation anti-windup (see :class:`PID`); the
    variants with y_max, y_min or both are made by :func:`_limited_pid_class`."""

    v = Variable(description="controller output before the limits")
    Tt = Parameter(0.0, unit="s", nonnegative=True,
                   description="anti-windup tracking time constant; 0: √(Ti·Td), or Ti without kd")
    has_max = has_min = False

    def validate(self):
        if self.has_max and self.has_min and not self.y_min < self.y_max:
            raise ParameterError(f"PID {self.name!r}: y_min ({self.y_min}) must be below "
                                 f"y_max ({self.y_max})")
        if self.Tt == 0 and self.ki != 0 and self.kp == 0 and self.kd == 0:
            raise ParameterError(f"PID {self.name!r}: a pure integral controller (kp = kd = 0) has no "
                                 "time scale for the anti-windup: give its tracking time constant Tt [s]")

    def equations(self):
        v = self.v
        y = v
        if self.has_min:
            y = sp.Max(y, self.y_min)
        if self.has_max:
            y = sp.Min(y, self.y_max)
        tt = sp.Piecewise((self.Tt, self.Tt > 0),
                          (sp.sqrt(sp.Abs(self.kd / self.ki)), sp.Ne(self.kd, 0)),
                          (sp.Abs(self.kp / self.ki), True))
        # With ki = 0 the compiled if_else gives 0, in the Jacobians too, whatever the other
        # branch evaluates to there.
        tracking = sp.Piecewise((0, sp.Eq(self.ki, 0)), ((self.y - v) / (self.ki * tt), True))
        return [sp.Eq(der(self.xi), self.u + tracking),
                sp.Eq(self.Tf * der(self.xd), self.u - self.xd),
                sp.Eq(v, self.kp * self.u + self.ki * self.xi + self.kd * (self.u - self.xd) / self.Tf),
                sp.Eq(self.y, y)]


_limited_pid_classes: dict[tuple[bool, bool], type] = {}


def _limited_pid_class(upper: bool, lower: bool) -> type:
    """The limited PID class with parameter y_max (upper), y_min (lower) or both."""
    key = (upper, lower)
    if key not in _limited_pid_classes:
        extra = {"has_max": upper, "has_min": lower}
        if upper:
            extra["y_max"] = Parameter(description="upper output limit")
        if lower:
            extra["y_min"] = Parameter(description="lower output limit")
        _limited_pid_classes[key] = type("PID", (_LimitedPID,), {
            **extra, "__module__": __name__, "__qualname__": "PID", "__doc__": PID.__doc__})
    return _limited_pid_classes[key]


class StateSpace(Component):
    """Linear system with n states, m inputs and p outputs: dx/dt = A·x + B·u, y = C·x + D·u.

    Single input and output (m = p = 1): ports ``u`` and ``y``; B and C are vectors of n (or
    B n×1, C 1×n) and D a number. Otherwise ports ``u1`` … ``um`` and ``y1`` … ``yp``; B is
    n×m, C p×n and D p×m (0, the default, is the zero matrix). A vector B means one input,
    a vector C one output: ``StateSpace("ss", A=..., B=[[1, 0], [0, 1]], C=[[1, 0], [1, 1]])``
    has inputs u1, u2 and outputs y1, y2.

    Parameters (structural: part of the compiled model): A (n×n), B, C, D; x_start (n)
    initial state, zeros by default. Shapes that do not fit are a ParameterError naming the
    component and the shapes.
    States: x0 … x{n−1}, addressed as ``"<name>.x0"`` etc.
    """

    A = Parameter(description="state matrix (n×n)", structural=True)
    B = Parameter(description="input matrix (n×m), or a vector of n for one input", structural=True)
    C = Parameter(description="output matrix (p×n), or a vector of n for one output", structural=True)
    D = Parameter(0.0, description="feed-through (p×m), a number for one input and output", structural=True)
    x_start = Parameter(None, description="initial state (n), zeros by default", structural=True)
    inputs, outputs = ("u",), ("y",)      # port names, set per class (see _state_space_class)

    def __new__(cls, name=None, *positional, **values):
        # Ports are declared per class: StateSpace(...) is the subclass with m inputs, p outputs.
        if cls is StateSpace:
            cls = _state_space_class(*_io_sizes(values.get("B"), values.get("C")))
        return super().__new__(cls)

    def validate(self):
        where = f"StateSpace {self.name!r}"
        m, p = len(self.inputs), len(self.outputs)
        try:
            A, B, C, D = (np.array(getattr(self, k), dtype=float) for k in "ABCD")
            x0 = None if self.x_start is None else np.array(self.x_start, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"{where}: A, B, C, D and x_start must be numbers, vectors or "
                                 "matrices of numbers") from None
        n = A.shape[0] if A.ndim == 2 else 0
        if A.ndim != 2 or A.shape != (n, n) or n == 0:
            raise ParameterError(f"{where}: A must be a square matrix (n×n), got shape {A.shape}")
        B = B.reshape(n, 1) if B.ndim < 2 and B.size == n else B
        C = C.reshape(1, n) if C.ndim < 2 and C.size == n else C
        if (m, p) != (1, 1) and D.ndim == 0 and D == 0:
            D = np.zeros((p, m))
        D = D.reshape(p, m) if D.ndim < 2 and D.size == p * m else D
        x0 = np.zeros(n) if x0 is None else x0.reshape(n) if x0.size == n else x0
        shapes = (("B", B, (n, m)), ("C", C, (p, n)), ("D", D, (p, m)), ("x_start", x0, (n,)))
        for key, value, shape in shapes:
            if value.shape != shape:
                raise ParameterError(f"{where}: with A {n}×{n}, {m} input(s) and {p} output(s), {key} must "
                                     f"have shape {shape}, got {value.shape}")
            if not np.all(np.isfinite(value)):
                raise ParameterError(f"{where}: {key} has entries that are not finite")
        if not np.all(np.isfinite(A)):
            raise ParameterError(f"{where}: A has entries that are not finite")
        matrix = lambda value: tuple(map(tuple, value.tolist()))      # noqa: E731
        self._values.update(A=matrix(A), x_start=tuple(x0.tolist()))
        if (m, p) == (1, 1):            # vectors and a number, as before the MIMO form
            self._values.update(B=tuple(B[:, 0].tolist()), C=tuple(C[0].tolist()), D=float(D[0, 0]))
        else:
            self._values.update(B=matrix(B), C=matrix(C), D=matrix(D))

    def variables(self):
        return {**super().variables(),
                **{f"x{i}": Variable(description=f"state {i}") for i in range(len(self.A))}}

    def equations(self):
        n, m, p = len(self.A), len(self.inputs), len(self.outputs)
        B, C, D = (np.array(getattr(self, k), dtype=float).reshape(shape)
                   for k, shape in (("B", (n, m)), ("C", (p, n)), ("D", (p, m))))
        x = [self.var(f"x{i}") for i in range(n)]
        u = [getattr(self, name) for name in self.inputs]
        eqs = [sp.Eq(der(xi), sum(a * xj for a, xj in zip(row, x)) + sum(b * uj for b, uj in zip(brow, u)))
               for xi, row, brow in zip(x, self.A, B)]
        return eqs + [sp.Eq(getattr(self, name), sum(c * xi for c, xi in zip(crow, x))
                            + sum(d * uj for d, uj in zip(drow, u)))
                      for name, crow, drow in zip(self.outputs, C, D)]

    def initial(self):
        return {self.var(f"x{i}"): v for i, v in enumerate(self.x_start)}


def _io_sizes(B, C) -> tuple[int, int]:
    """(m, p) from the shapes of B and C: a vector B is one input, a vector C one output.
    Shapes that do not say are taken as (1, 1), and validate() reports what is wrong."""
    def size(matrix, axis):
        try:
            shape = np.shape(np.array(matrix, dtype=float))
        except (TypeError, ValueError):
            return 1
        return shape[axis] if len(shape) == 2 else 1
    return size(B, 1), size(C, 0)


_state_space_classes: dict[tuple[int, int], type] = {}


def _state_space_class(m: int, p: int) -> type:
    """The StateSpace class with ports u and y (m = p = 1) or u1 … um and y1 … yp."""
    if (m, p) not in _state_space_classes:
        siso = (m, p) == (1, 1)
        inputs = ("u",) if siso else tuple(f"u{j}" for j in range(1, m + 1))
        outputs = ("y",) if siso else tuple(f"y{i}" for i in range(1, p + 1))
        ports = {**{name: Input(description=f"input {name}") for name in inputs},
                 **{name: Output(description=f"output {name}") for name in outputs}}
        _state_space_classes[m, p] = type("StateSpace", (StateSpace,), {
            **ports, "inputs": inputs, "outputs": outputs, "__module__": __name__,
            "__qualname__": "StateSpace", "__doc__": StateSpace.__doc__})
    return _state_space_classes[m, p]


class TransferFunction(StateSpace):
    """SISO transfer function num(s)/den(s), coefficients in descending powers of s
    (``TransferFunction("G", num=[1], den=[1, 2, 1])`` is 1/(s² + 2s + 1)); realized in
    controllable canonical form, starting at rest."""

    u = Input(description="input")
    y = Output(description="output")
    num = Parameter(description="numerator coefficients, highest power first", structural=True)
    den = Parameter(description="denominator coefficients, highest power first", structural=True)

    def __init__(self, name=None, *, num, den):
        try:
            num = np.trim_zeros(np.atleast_1d(np.array(num, dtype=float)), "f")
            den = np.trim_zeros(np.atleast_1d(np.array(den, dtype=float)), "f")
        except (TypeError, ValueError):
            raise ParameterError(f"TransferFunction {name!r}: num and den must be sequences of "
                                 f"numbers, got num={num!r}, den={den!r}") from None
        if num.ndim != 1 or den.ndim != 1:
            raise ParameterError(f"TransferFunction {name!r}: num and den must be flat sequences "
                                 "of coefficients (highest power first)")
        if den.size < 2 or num.size > den.size or not np.all(np.isfinite(np.r_[num, den])):
            raise ParameterError(f"TransferFunction {name!r}: needs a proper transfer function "
                                 "(deg num <= deg den >= 1) with finite coefficients")
        num, den = np.r_[np.zeros(den.size - num.size), num] / den[0], den / den[0]
        n = den.size - 1
        A = np.zeros((n, n))
        A[:-1, 1:] = np.eye(n - 1)
        A[-1, :] = -den[:0:-1]
        B = np.zeros(n)
        B[-1] = 1.0
        D = num[0]
        C = (num[:0:-1] - D * den[:0:-1])
        super().__init__(name, A=A.tolist(), B=B.tolist(), C=C.tolist(), D=float(D),
                         num=tuple(num), den=tuple(den))
