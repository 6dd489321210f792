"""Elementary continuous blocks (the Modelica Standard Library's Blocks.Continuous FirstOrder,
SecondOrder, Derivative and LimIntegrator): first- and second-order lags, the approximate
derivative and the integrator whose output stays within limits (a hybrid block).

The MSL starts these blocks in one of several ways (initType); physlib's initial values are
functions of parameters, so each block takes the start value of its states (y_start, x_start),
which is the MSL's InitialState; its SteadyState is reached by giving the steady value (for a
FirstOrder, y_start = k·u(t0))."""
from ...core import Component, Input, Mode, Output, Parameter, Variable, der
from ...core.errors import ParameterError
from ...core.lazy import lazy_module
from ...core.logic import all_of, any_of, where

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["FirstOrder", "SecondOrder", "Derivative", "LimIntegrator"]


class FirstOrder(Component):
    """First-order lag k/(T·s + 1): T·dy/dt = k·u − y, y(t0) = y_start (MSL
    Blocks.Continuous.FirstOrder; Simscape: Transfer Fcn First Order).

    Parameters: k gain; T [s] time constant (> 0); y_start initial output.
    """

    u = Input(description="input")
    y = Output(description="lagged output")
    k = Parameter(1.0, description="gain")
    T = Parameter(1.0, unit="s", description="time constant", positive=True)
    y_start = Parameter(0.0, description="initial output")

    def equations(self):
        return [sp.Eq(self.T * der(self.y), self.k * self.u - self.y)]

    def initial(self):
        return {self.y: self.y_start}


class SecondOrder(Component):
    """Second-order lag k·w²/(s² + 2·D·w·s + w²) (MSL Blocks.Continuous.SecondOrder):
    dy/dt = yd, d(yd)/dt = w·(w·(k·u − y) − 2·D·yd).

    Parameters: k gain; w [rad/s] angular frequency (> 0); D damping (>= 0); y_start, yd_start
    initial output and output derivative.
    Variables: yd, the derivative of y.
    """

    u = Input(description="input")
    y = Output(description="output")
    k = Parameter(1.0, description="gain")
    w = Parameter(1.0, unit="rad/s", description="angular frequency", positive=True)
    D = Parameter(1.0, description="damping", nonnegative=True)
    y_start = Parameter(0.0, description="initial output")
    yd_start = Parameter(0.0, description="initial derivative of the output")
    yd = Variable(description="derivative of y")

    def equations(self):
        return [sp.Eq(der(self.y), self.yd),
                sp.Eq(der(self.yd), self.w * (self.w * (self.k * self.u - self.y) - 2 * self.D * self.yd))]

    def initial(self):
        return {self.y: self.y_start, self.yd: self.yd_start}


class Derivative(Component):
    """Approximate derivative k·s/(T·s + 1) (MSL Blocks.Continuous.Derivative; Simscape:
    Filtered Derivative): dx/dt = (u − x)/T, y = (k/T)·(u − x).

    Parameters: k gain; T [s] time constant (> 0; the smaller, the closer to k·du/dt);
    x_start initial state (u(t0) starts it in steady state, y = 0).
    Variables: x, u low-pass filtered with T.
    """

    u = Input(description="input")
    y = Output(description="approximate derivative of k·u")
    k = Parameter(1.0, description="gain")
    T = Parameter(0.01, unit="s", description="time constant", positive=True)
    x_start = Parameter(0.0, description="initial state")
    x = Variable(description="u low-pass filtered with T")

    def equations(self):
        return [sp.Eq(self.T * der(self.x), self.u - self.x),
                sp.Eq(self.y, self.k / self.T * (self.u - self.x))]

    def initial(self):
        return {self.x: self.x_start}


class LimIntegrator(Component):
    """Integrator whose output stays within [outMin, outMax] (MSL Blocks.Continuous.LimIntegrator;
    Simscape: Integrator with saturation limits): dy/dt = k·u, except at a limit while k·u
    pushes beyond it, where dy/dt = 0; y(t0) = y_start.

    Modes: limit = 0 integrating, 1 held at out_max, −1 held at out_min. Reaching a limit with
    k·u pushing on is a state event (guard y − limit); the output leaves it at the event where
    k·u turns (guard k·u), located to event_tol (1e-10 s by default).
    Parameters: k gain; out_max, out_min limits (out_min < out_max); y_start initial output
    (within the limits).
    """

    u = Input(description="input")
    y = Output(description="limited integral of k·u")
    k = Parameter(1.0, description="integrator gain")
    out_max = Parameter(1.0, description="upper limit of the output")
    out_min = Parameter(-1.0, description="lower limit of the output")
    y_start = Parameter(0.0, description="initial output, within the limits")
    limit = Mode({"at_min": -1, "free": 0, "at_max": 1}, start="free", description="integrating or held at a limit")

    def validate(self):
        if not self.out_min < self.out_max:
            raise ParameterError(f"LimIntegrator {self.name!r}: out_min ({self.out_min}) must be below "
                                 f"out_max ({self.out_max})")
        if not self.out_min <= self.y_start <= self.out_max:
            raise ParameterError(f"LimIntegrator {self.name!r}: y_start ({self.y_start}) must lie within "
                                 f"[out_min, out_max] = [{self.out_min}, {self.out_max}]")

    def equations(self):
        return [sp.Eq(der(self.y), sp.Piecewise((self.k * self.u, sp.Eq(self.limit, 0)), (0, True)))]

    def initial(self):
        return {self.y: self.y_start}

    def guards(self):
        held = sp.Ne(self.limit, 0)
        return [sp.Piecewise((self.k * self.u, held), (self.y - self.out_max, True)),
                sp.Piecewise((self.k * self.u, held), (self.y - self.out_min, True))]

    def transition(self, v, fired):
        # Written with physlib.core.logic so that it also compiles to C (see Component.transition).
        # A fired guard counts as reached (the event lies within event_tol of the crossing, on
        # either side); the mode switches at most once per instant, from the one before it.
        push, y, pre = v["k"] * v["u"], v["y"], v["pre(limit)"]
        from_free = where(all_of(any_of(fired[0], y >= v["out_max"]), push > 0), 1,
                          where(all_of(any_of(fired[1], y <= v["out_min"]), push < 0), -1, 0))
        from_held = where(pre == 1, where(any_of(fired[0], push < 0), 0, 1),
                          where(any_of(fired[1], push > 0), 0, -1))
        return {"limit": where(v["limit"] == pre, where(pre == 0, from_free, from_held), v["limit"])}
