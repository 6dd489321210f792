"""Electrical sources: the ideal voltage and current sources (each a number, a waveform or a
signal), the voltage source that senses its current, and the behavioural source (SPICE's B
element)."""
from ...core import Input, Output, Parameter, ParameterError, Port, symbols
from ...core.lazy import lazy_module
from ...domains import electrical
from .interfaces import OnePort

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["VoltageSource", "CurrentSource", "SensingVoltageSource", "BehaviouralSource"]


class VoltageSource(OnePort):
    """Ideal voltage source: v = V.

    Inputs: V [V] a number, a waveform (``V=Step(...)``) or a connected signal.
    """

    V = Input("V", "source voltage")

    def equations(self):
        return super().equations() + [sp.Eq(self.v, self.V)]


class CurrentSource(OnePort):
    """Ideal current source: i = I, flowing from p through the source to n.

    Inputs: I [A] a number, a waveform or a connected signal.
    """

    I = Input("A", "source current")  # noqa: E741

    def equations(self):
        return super().equations() + [sp.Eq(self.i, self.I)]


class SensingVoltageSource(VoltageSource):
    """A :class:`VoltageSource` that also outputs its current as a signal ``i_sense`` [A] (from
    p through the source to n), to control a :class:`CCCS` or :class:`CCVS` (SPICE's F and H
    name such a source)."""

    i_sense = Output("A", "source current, from p through the source to n")

    def equations(self):
        return super().equations() + [sp.Eq(self.i_sense, self.i)]


class BehaviouralSource(OnePort):
    """A voltage or current given by an expression (SPICE's B element): ``kind="V"``:
    v = expr; ``kind="I"``: i = expr (from p through the source to n).

    The expression (a SymPy expression or its text) may use time ``t``, the potentials of
    sense pins ``s1``, ``s2``, … (electrical pins that draw no current: ``s1`` is the
    potential of the node it is connected to, measured from ground), control currents ``c1``,
    ``c2``, … (signal inputs [A], e.g. a :class:`SensingVoltageSource`'s ``i_sense``) and
    parameters ``k1``, ``k2``, … given as keywords, which ``params=`` may change after compiling.
    The numbers of pins, inputs and parameters follow from the symbols used (one class per
    combination, as :class:`~physlib.components.signals.StateSpace`).

    ``BehaviouralSource("B1", kind="V", expr="k1*(s1 - s2)**2", k1=0.5)``

    Parameters: kind, expr (structural: changing them means compiling again); k1, k2, … [1].
    The expression should be smooth; steps in it (Piecewise, Heaviside) are not time events.
    """

    kind = Parameter("V", description='"V": v = expr, "I": i = expr', structural=True)
    expr = Parameter(description="SymPy expression of t, s1…, c1…, k1…", structural=True)
    senses, currents, constants = (), (), ()        # names, set per class
    units_checked = False     # expr is the user's, in bare numbers (as SPICE's B source)

    def __new__(cls, name=None, *positional, **values):
        if cls is BehaviouralSource:
            used = _behavioural_symbols(values.get("expr"), name)
            cls = _behavioural_class(*(max((int(n[1:]) for n in used if n[0] == letter), default=0)
                                       for letter in "sck"))
        return super().__new__(cls)

    def validate(self):
        if self.kind not in ("V", "I"):
            raise ParameterError(f"BehaviouralSource {self.name!r}: kind must be 'V' or 'I', got {self.kind!r}")
        self._values["expr"] = sp.srepr(_behavioural_expression(self.expr, self.name))

    def equations(self):
        mapping = {sp.Symbol(n): getattr(self, n).v for n in self.senses}
        mapping.update({sp.Symbol(n): getattr(self, n) for n in self.currents + self.constants})
        mapping[sp.Symbol("t")] = symbols.t
        value = _behavioural_expression(self.expr, self.name).xreplace(mapping)
        return super().equations() + [sp.Eq(getattr(self, n).i, 0) for n in self.senses] + \
            [sp.Eq(self.v if self.kind == "V" else self.i, value)]

    def port_groups(self):
        return [("p", "n")] + [(n,) for n in self.senses]


def _behavioural_expression(expr, name):
    """The SymPy expression of a BehaviouralSource's ``expr``, its symbols checked."""
    if isinstance(expr, str):
        try:
            expr = sp.sympify(expr, locals={"t": sp.Symbol("t")})
        except (sp.SympifyError, SyntaxError, TypeError) as err:
            raise ParameterError(f"BehaviouralSource {name!r}: cannot read expr: {err}") from None
    if not isinstance(expr, sp.Basic):
        raise ParameterError(f"BehaviouralSource {name!r}: expr must be a SymPy expression or its text")
    _behavioural_symbols(expr, name)
    return expr


def _behavioural_symbols(expr, name) -> set[str]:
    """Names of the symbols of ``expr`` other than t: s1…, c1…, k1… only."""
    if isinstance(expr, str):
        expr = _behavioural_expression(expr, name)
    if expr is None:
        raise ParameterError(f"BehaviouralSource {name!r} needs parameter expr")
    names = {str(x) for x in expr.free_symbols} - {"t"}
    bad = sorted(n for n in names if not (n[:1] in ("s", "c", "k") and n[1:].isdigit() and int(n[1:]) > 0))
    if bad:
        raise ParameterError(f"BehaviouralSource {name!r}: expr may use t, s1…, c1…, k1… only, "
                             f"not {', '.join(bad)}")
    return names


_behavioural_classes: dict = {}


def _behavioural_class(senses: int, currents: int, constants: int) -> type:
    """The BehaviouralSource class with sense pins s1…, control inputs c1… and parameters k1…."""
    key = (senses, currents, constants)
    if key not in _behavioural_classes:
        names = [tuple(f"{letter}{j}" for j in range(1, n + 1)) for letter, n in zip("sck", key)]
        members = {n: Port(electrical, "sense pin (draws no current)") for n in names[0]}
        members.update({n: Input("A", "control current") for n in names[1]})
        members.update({n: Parameter(unit="1", description="expression parameter") for n in names[2]})
        _behavioural_classes[key] = type("BehaviouralSource", (BehaviouralSource,), {
            **members, "senses": names[0], "currents": names[1], "constants": names[2],
            "__module__": __name__, "__qualname__": "BehaviouralSource",
            "__doc__": BehaviouralSource.__doc__})
    return _behavioural_classes[key]
