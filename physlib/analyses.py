"""The analysing :class:`CompiledModel`: :class:`physlib.Model` compiles to it.

It sits above both :mod:`physlib.assembly` (which builds and compiles a model) and
:mod:`physlib.analysis` (which analyses a compiled one), so that neither of those imports the
other backwards: the assembly layer's class holds the compiled equations, and this subclass
adds the analyses as methods that call :mod:`physlib.analysis`. :mod:`physlib.api` hands it out
on first use, so that importing physlib does not import the analyses.

Each method spells out the options of the analysis it calls, with the same defaults (a test
keeps them equal), so that ``help()``, ``inspect.signature`` and an editor's completion show
them; its docstring is the analysis function's. An option it does not take is an
:class:`~physlib.analysis.common.options.OptionError` naming the valid ones.
"""
from __future__ import annotations

import difflib
import inspect

from .analysis.common.options import OptionError
from .core.bulk import import_lasting
from .assembly import compiled

# Where each analysis function lives: it is imported when its method is first read, so that a
# process that only simulates does not import the linear, noise, sensitivity and export code.
_HOMES = {
    "simulate": ".analysis.simulation.simulate",
    "sensitivity": ".analysis.sensitivity.sensitivity",
    "gradient": ".analysis.sensitivity.sensitivity",
    "operating_point": ".analysis.linear.operating_point",
    "trim": ".analysis.linear.operating_point",
    "linearize": ".analysis.linear.linearize",
    "noise": ".analysis.noise.small_signal",
    "multiport_noise": ".analysis.noise.multiport",
    "portion_noise": ".analysis.noise.portions",
    "export_fmu": ".analysis.export.fmu",
    "export_c": ".analysis.export.standalone",
}

__all__ = ["CompiledModel"]


def _function(name: str):
    """The analysis function ``name`` (imported on first use)."""
    return getattr(import_lasting(_HOMES[name], __package__), name)


def _analysis(name: str):
    """Decorate a method that forwards to the analysis function ``name``: its signature as
    ``inspect`` reports it leaves out the ``**unknown`` catch-all (which only turns a misspelt
    option into an OptionError), and its docstring becomes the method's summary followed by
    the function's when the method is first read (:class:`_AnalysisMethod`)."""
    def decorate(method):
        signature = inspect.signature(method)
        method.__signature__ = signature.replace(parameters=[
            p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD])
        return _AnalysisMethod(method, name)
    return decorate


class _AnalysisMethod:
    """A method of :class:`CompiledModel` whose analysis function is imported when the method
    is first read (on the class, for ``help()``, or on a model, to call it): only then is its
    docstring completed with the function's."""

    def __init__(self, method, name: str):
        self.method, self.name, self.documented = method, name, False

    def __get__(self, instance, owner=None):
        if not self.documented:
            own = inspect.cleandoc(self.method.__doc__ or "")
            theirs = inspect.cleandoc(_function(self.name).__doc__ or "")
            self.method.__doc__ = f"{own}\n\n{theirs}" if theirs else own
            self.documented = True
        return self.method if instance is None else self.method.__get__(instance, owner)


class CompiledModel(compiled.CompiledModel):
    """A compiled model: simulate it, find operating points, linearize it, analyze its noise.

    Parameters stay symbolic inputs of the compiled functions, so ``simulate(...,
    params={"R1.R": 2e3})`` reuses them without recompiling. An option a method does not take
    is an :class:`~physlib.analysis.common.options.OptionError` listing the ones it does.
    """

    @_analysis("simulate")
    def simulate(self, t_end: float, *, t0: float = 0.0, solver: str = "idas", dt: float | None = None,
                 rtol: float = 1e-6, atol: float = 1e-8, t_eval=None, params: dict | None = None,
                 x0: dict | None = None, projection: str | None = "energy", noise=None,
                 noise_T: float = 300.15, max_step: float | None = None, event_tol: float = 1e-10,
                 max_events: int = 100, invariants=None, initial: str = "strict",
                 progress: bool | None = None, z_guess: dict | None = None, **unknown):
        """Transient simulation from ``t0`` to ``t_end`` [s]
        (:func:`physlib.analysis.simulation.simulate.simulate`)."""
        return _forward("simulate", (self, t_end), locals(), unknown)

    @_analysis("sensitivity")
    def sensitivity(self, t_end: float, *, params, outputs=None, t_eval=None, method: str = "auto",
                    relative: bool = False, values: dict | None = None, t0: float = 0.0, solver: str = "idas",
                    rtol: float = 1e-6, atol: float = 1e-8, x0: dict | None = None,
                    projection: str | None = "energy", max_step: float | None = None,
                    event_tol: float = 1e-10, max_events: int = 100, initial: str = "strict", **unknown):
        """A simulation with the derivatives of its variables with respect to ``params``,
        through its events (:func:`physlib.analysis.sensitivity.sensitivity.sensitivity`)."""
        return _forward("sensitivity", (self, t_end), locals(), unknown)

    @_analysis("gradient")
    def gradient(self, objective, params, t_end: float, *, t_eval=None, values: dict | None = None, t0: float = 0.0,
                 solver: str = "idas", rtol: float = 1e-6, atol: float = 1e-8, x0: dict | None = None,
                 projection: str | None = "energy", max_step: float | None = None, event_tol: float = 1e-10,
                 max_events: int = 100, initial: str = "strict", **unknown):
        """The adjoint gradient of a scalar objective of the run: of its sampled outputs, an
        integral over it or a value at an event
        (:func:`physlib.analysis.sensitivity.sensitivity.gradient`)."""
        return _forward("gradient", (self, objective, params, t_end), locals(), unknown)

    @_analysis("operating_point")
    def operating_point(self, *, t: float = 0.0, params: dict | None = None, inputs: dict | None = None,
                        x_guess: dict | None = None, z_guess: dict | None = None, tol: float = 1e-12,
                        max_iter: int = 100, **unknown):
        """Steady state (x' = 0, 0 = g) for given inputs and parameters
        (:func:`physlib.analysis.linear.operating_point.operating_point`)."""
        return _forward("operating_point", (self,), locals(), unknown)

    @_analysis("trim")
    def trim(self, targets: dict, free: list, *, t: float = 0.0, params: dict | None = None,
             inputs: dict | None = None, x_guess: dict | None = None, z_guess: dict | None = None,
             free_guess: dict | None = None, tol: float = 1e-12, max_iter: int = 100, **unknown):
        """Steady state where ``targets`` are met by choosing the ``free`` inputs/parameters
        (:func:`physlib.analysis.linear.operating_point.trim`)."""
        return _forward("trim", (self, targets, free), locals(), unknown)

    @_analysis("linearize")
    def linearize(self, inputs, outputs, *, at=None, descriptor: bool | str = False, params: dict | None = None,
                  t: float = 0.0, times=None, **unknown):
        """Linear model from ``inputs`` to ``outputs`` at an operating point
        (:func:`physlib.analysis.linear.linearize.linearize`)."""
        return _forward("linearize", (self, inputs, outputs), locals(), unknown)

    @_analysis("noise")
    def noise(self, output, f=None, *, T: float = 300.15, at=None, external=None, **unknown):
        """Noise of ``output`` (a variable, or a pair of across variables) from the thermal and
        shot noise of the dissipative elements (:func:`physlib.analysis.noise.small_signal.noise`)."""
        return _forward("noise", (self, output, f), locals(), unknown)

    @_analysis("multiport_noise")
    def multiport_noise(self, ports, f, *, T: float = 300.15, z0=50.0, at=None, **unknown):
        """Port matrices Z, Y, S and thermal-noise correlations 2kT·(Z + Zᴴ), 2kT·(Y + Yᴴ),
        kT·(I − S·Sᴴ) at ``ports`` (:func:`physlib.analysis.noise.multiport.multiport_noise`)."""
        return _forward("multiport_noise", (self, ports, f), locals(), unknown)

    @_analysis("portion_noise")
    def portion_noise(self, f, *, T: float = 300.15, z0=50.0, params: dict | None = None, **unknown):
        """Thermal-noise multiport (Z, Y, S and their correlations) of each linear portion of
        ``partitions`` at the nodes it shares with the rest, independent of the operating point:
        compute it once (:func:`physlib.analysis.noise.portions.portion_noise`)."""
        return _forward("portion_noise", (self, f), locals(), unknown)

    @_analysis("export_fmu")
    def export_fmu(self, path, *, inputs=(), outputs=(), parameters="all", name: str | None = None,
                   binary: bool = True, display_units: dict | None = None, **unknown):
        """Write this model as an FMI 2.0 Model Exchange FMU at ``path``
        (:func:`physlib.analysis.export.fmu.export_fmu`)."""
        return _forward("export_fmu", (self, path), locals(), unknown)

    @_analysis("export_c")
    def export_c(self, path, *, t_end: float | None = None, dt: float | None = None, **unknown):
        """Write and build a standalone C program at ``path`` that simulates this model with the
        trapezoidal rule and prints CSV (:func:`physlib.analysis.export.standalone.export_c`)."""
        return _forward("export_c", (self, path), locals(), unknown)


def _forward(analysis: str, args, values, unknown):
    """``function(*args, **options)`` for the analysis function named ``analysis``, with its keyword-only
    options taken from the calling method's ``values`` (its ``locals()``); an option in
    ``unknown`` is an OptionError listing the valid ones (Python's TypeError would not say what
    is valid)."""
    function = _function(analysis)
    accepted = [name for name, par in inspect.signature(function).parameters.items()
                if par.kind == par.KEYWORD_ONLY]
    if unknown:
        hints = [f"{name!r} (did you mean {difflib.get_close_matches(name, accepted, n=1)[0]!r}?)"
                 if difflib.get_close_matches(name, accepted, n=1) else repr(name) for name in unknown]
        raise OptionError(f"{function.__name__}() has no option {', '.join(hints)}; its options are "
                          f"{', '.join(accepted)}")
    return function(*args, **{name: values[name] for name in accepted})
