"""The channel current of levels 2 and 3 as staged intermediate variables
(:class:`StagedChannel`, a part of :class:`~.device.MOSFET`): each stage a variable of the
MOSFET with an equation of the voltages and the stages before it, so the equations stay small
enough for their derivatives to be derived (inlined into one expression they would not). The
stages themselves are :func:`~.level2.level2_stages` and :func:`~.level3.level3_stages`.
"""
from .....core import Variable
from .....core.lazy import lazy_module
from . import level2, level3
from .channel import temperature

sp = lazy_module("sympy")     # imported when equations are derived

__all__ = ["StagedChannel", "derivative_stages"]

# level -> its module: STAGES {name: (unit, description)}, is_present(name, present), <level>_stages
LEVELS = {2: (level2.STAGES, level2.is_present, level2.level2_stages),
          3: (level3.STAGES, level3.is_present, level3.level3_stages)}


class StagedChannel:
    """The staged parts of :class:`~.device.MOSFET` at levels 2 and 3: the stages' variables
    and equations, and the transconductance its channel's thermal noise reads."""

    def _stages(self, temp):
        """[(stage, its expression)] of this device's level (the last, "current", the channel
        current in the conducting direction)."""
        return LEVELS[self.level][2](self, self._polarity(), temp, self._conducting())

    def _stage_variables(self):
        """{stage: Variable} of this device (those its structure has)."""
        table, is_present, _ = LEVELS[self.level]
        present = self.present()
        return {name: Variable(unit, description) for name, (unit, description) in table.items()
                if is_present(name, present)}

    def _staged_equations(self, temp):
        """The stages (von and vdsat among them) and ids."""
        stages = self._stages(temp)
        named = {"von": self.von, "vdsat": self.vdsat}
        current = stages[-1][1]
        # residuals, not Eq: SymPy's Eq would try to decide each equation (seconds here)
        return [(named[name] if name in named else self.var(name)) - expr for name, expr in stages[:-1]] + \
            [self.ids - sp.Piecewise((current, self.vds >= 0), (-current, True))]

    def staged_transconductance(self, values, params):
        """gm = ∂I/∂vgc [S], the channel current's derivative by the gate voltage in the
        conducting direction at an operating point (``values``: the device's variables by name,
        ``params``: its parameters), by the chain rule through the stages
        (:func:`derivative_stages`), in numbers. Only the noise analysis reads it, so it is no
        variable of the model: as equations its derivation would take longer than the rest."""
        from .....core.symbolic import ConstantSymbol, VariableSymbol, parameter_symbol
        self._deriving = True
        try:
            stages = self._stages(temperature(self, self._polarity()))
        finally:
            self._deriving = False
        names = [name for name, _ in stages[:-1]]
        symbols = {name: VariableSymbol(name, real=True) for name in names}
        symbols.update({"d_" + name: sp.Symbol("d_" + name) for name in names})
        numbers = {parameter_symbol(name): value for name, value in params.items()
                   if not self._parameters[name].structural}
        numbers.update({VariableSymbol(name, real=True): value for name, value in values.items()})
        gm = 0.0
        for name, expr in derivative_stages(stages, symbols, symbols["vgc"]):
            value = expr.xreplace(numbers)
            gm = float(value.xreplace({c: c.value for c in value.atoms(ConstantSymbol)}))
            if name in symbols:
                numbers[symbols["d_" + name]] = gm
        return gm


def derivative_stages(stages, symbols, wrt):
    """[(stage, d(its expression)/d``wrt``)] by the chain rule through the stages before it
    (``symbols``: stage name -> its symbol; the derivative of stage s is the symbol
    ``symbols['d_' + s]``; a stage without a symbol, the last, is used by none), for the
    stages that depend on ``wrt``: each derivative an expression as small as its stage's, in
    the stages' values and their derivatives (:meth:`StagedChannel.staged_transconductance`
    evaluates them in order)."""
    derivatives, out = {wrt: sp.Integer(1)}, []
    for name, expr in stages:
        total = 0
        for sym, dsym in derivatives.items():
            if expr.has(sym):
                total += sp.diff(expr, sym) * dsym
        if total != 0:
            out.append((name, total))
            if name in symbols:
                derivatives[symbols[name]] = symbols["d_" + name]
    return out
