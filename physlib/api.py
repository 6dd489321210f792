"""The user-facing classes: :class:`Model` and :class:`CompiledModel`.

They sit above both :mod:`physlib.assembly` (which builds and compiles a model) and
:mod:`physlib.analysis` (which analyses a compiled one), so that neither of those imports the
other backwards: the assembly layer's classes hold the netlist and the compiled equations,
and these subclasses add the analyses as methods that call :mod:`physlib.analysis`.
"""
from __future__ import annotations

import difflib
import inspect

from .analysis.common.options import OptionError
from .analysis.linear.linearize import linearize
from .analysis.linear.operating_point import operating_point, trim
from .analysis.noise.multiport import multiport_noise
from .analysis.noise.portions import portion_noise
from .analysis.noise.small_signal import noise
from .analysis.simulation.simulate import simulate
from .assembly import compiled, model

__all__ = ["Model", "CompiledModel"]


class CompiledModel(compiled.CompiledModel):
    """A compiled model: simulate it, find operating points, linearize it, analyze its noise.

    Parameters stay symbolic inputs of the compiled functions, so ``simulate(...,
    params={"R1.R": 2e3})`` reuses them without recompiling. An option a method does not take
    is an :class:`~physlib.analysis.common.options.OptionError` listing the ones it does.
    """

    def simulate(self, t_end: float, **options):
        """Transient simulation from ``t0`` to ``t_end`` [s]; see :func:`physlib.analysis.simulation.simulate.simulate`."""
        return _call(simulate, self, t_end, **options)

    def operating_point(self, **options):
        """Steady state (x' = 0, 0 = g) for given inputs and parameters; see
        :func:`physlib.analysis.linear.operating_point.operating_point`."""
        return _call(operating_point, self, **options)

    def trim(self, targets: dict, free: list, **options):
        """Steady state where ``targets`` are met by choosing the ``free`` inputs/parameters; see
        :func:`physlib.analysis.linear.operating_point.trim`."""
        return _call(trim, self, targets, free, **options)

    def linearize(self, inputs, outputs, **options):
        """Linear model from ``inputs`` to ``outputs`` at an operating point; see
        :func:`physlib.analysis.linear.linearize.linearize`."""
        return _call(linearize, self, inputs, outputs, **options)

    def noise(self, output, f=None, **options):
        """Noise of ``output`` (a variable, or a pair of across variables) from the thermal and
        shot noise of the dissipative elements; see :func:`physlib.analysis.noise.small_signal.noise`."""
        return _call(noise, self, output, f, **options)

    def multiport_noise(self, ports, f, **options):
        """Port matrices Z, Y, S and thermal-noise correlations 2kT·(Z + Zᴴ), 2kT·(Y + Yᴴ),
        kT·(I − S·Sᴴ) at ``ports``; see :func:`physlib.analysis.noise.multiport.multiport_noise`."""
        return _call(multiport_noise, self, ports, f, **options)

    def portion_noise(self, f, **options):
        """Thermal-noise multiport (Z, Y, S and their correlations) of each linear portion of
        ``partitions`` at the nodes it shares with the rest, independent of the operating point:
        compute it once; see :func:`physlib.analysis.noise.portions.portion_noise`."""
        return _call(portion_noise, self, f, **options)


class Model(model.Model):
    __doc__ = model.Model.__doc__
    compiled_class = CompiledModel


def _call(function, *args, **options):
    """``function(*args, **options)``, with an option it does not take named as an OptionError
    listing the ones it does (Python's TypeError would not say what is valid)."""
    accepted = [name for name, par in inspect.signature(function).parameters.items()
                if par.kind == par.KEYWORD_ONLY]
    unknown = [name for name in options if name not in accepted]
    if unknown:
        hints = [f"{name!r} (did you mean {difflib.get_close_matches(name, accepted, n=1)[0]!r}?)"
                 if difflib.get_close_matches(name, accepted, n=1) else repr(name) for name in unknown]
        raise OptionError(f"{function.__name__}() has no option {', '.join(hints)}; its options are "
                          f"{', '.join(accepted)}")
    return function(*args, **options)
