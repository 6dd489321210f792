"""physlib — acausal physical-component modeling in Python.

Build a system from components with across/through ports, compile it once, then simulate it::

    from physlib import Model
    from physlib.components.electrical import VoltageSource, Resistor, Capacitor, Ground
"""
import gc as _gc
import os as _os
import sys as _sys

# NumPy's OpenBLAS starts a worker thread per core as it loads, and each worker spins for about
# 2**28 cycles after start-up and after every job before it sleeps: on a two-core machine that
# is a core busy for the first tenth of a second of every process, which slowed a script that
# compiles and simulates a small circuit by 10-15 % (its CPU time rose by 75 %), and each sweep
# worker's spinning thread competes with the other workers. physlib's dense algebra is small
# (its large kernels run in CasADi and SUNDIALS), so the workers are told to sleep as soon as
# they are idle (2**4 cycles): matrix products still use every core, at the same speed (a
# 2000 x 2000 product, and 2,000 products of 200 x 200, took as long either way). Only where NumPy is not loaded yet, and never over the user's own
# setting (OPENBLAS_THREAD_TIMEOUT or GOTO_THREAD_TIMEOUT in the environment).
if "numpy" not in _sys.modules and not {"OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT"} & _os.environ.keys():
    _os.environ["OPENBLAS_THREAD_TIMEOUT"] = "4"

# Importing physlib (NumPy and its own modules with it) makes tens of thousands of objects that
# live as long as the process and are never garbage; Python's collector, counting them, ran 37
# collections over them, 4 ms of a small compile-and-simulate script. It is paused for the
# imports, and what they made is moved to its oldest generation without traversing it
# (physlib.core.bulk.import_lasting does the same for the modules loaded on first use).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from .api import Model  # noqa: E402  (after the thread setting, which must precede NumPy's import)
    from .core import (Component, DeclarationError, DomainMismatchError, DuplicateNameError, ExportError,
                       InitializationError, Input, MissingReferenceError, Mode, Output, Parameter, ParameterError, PhyslibError, Port,
                       PortConnectionError, SimulationError, StructuralError, StructureChangeError,
                       UnconnectedPortError, UnknownNameError, ModelError, Variable, der, MissingPortError,
                       UnknownAttributeError, ImpulseError, ModeSettlingError, PositionState, SensitivityError, FitError,
                       InputRateError,
                       UnitError, UnitWarning, UnitCheckError)
finally:
    if _collecting:
        _gc.freeze()
        _gc.unfreeze()
        _gc.enable()

# Names imported on first use (PEP 562), so that ``import physlib`` loads only what building a
# model takes: the analyses (and SciPy's dense algebra, pandas, dask, matplotlib behind them)
# and SymPy (``t``) load when first asked for.
_LAZY = {
    "CompiledModel": "physlib.api", "t": "physlib.core.symbols",
    "SimulationResult": "physlib.analysis.simulation.results",
    "OperatingPoint": "physlib.analysis.linear.operating_point",
    "StartValueWarning": "physlib.analysis.common.start_values",
    "DescriptorError": "physlib.analysis.linear.linear_model",
    "LinearModel": "physlib.analysis.linear.linear_model",
    "inject_across": "physlib.analysis.linear.analysis_points",
    "inject_through": "physlib.analysis.linear.analysis_points",
    "linearize": "physlib.analysis.linear.linearize",
    **dict.fromkeys(["SweepError", "SweepTable", "lognormal", "monte_carlo", "normal", "sweep", "uniform"],
                    "physlib.analysis.sweeps"),
    **dict.fromkeys(["fit", "fit_frequency", "Experiment", "FitResult"], "physlib.analysis.fitting"),
}
_SUBMODULES = ("units", "constants")      # physlib.units.parse(...) after a bare ``import physlib``

__version__ = "0.1.0"

__all__ = ["Model", "CompiledModel", "SimulationResult", "OperatingPoint", "Component", "Mode", "Port",
           "Input", "Output", "Parameter", "Variable", "der", "t", "PhyslibError", "ParameterError",
           "DuplicateNameError", "PortConnectionError", "DomainMismatchError",
           "UnconnectedPortError", "MissingReferenceError", "StructuralError", "StructureChangeError",
           "InitializationError", "SimulationError", "UnknownNameError", "ModelError", "StartValueWarning",
           "MissingPortError", "UnknownAttributeError", "DeclarationError", "ImpulseError",
           "ModeSettlingError", "DescriptorError", "PositionState", "ExportError", "SensitivityError", "FitError",
           "InputRateError", "LinearModel", "linearize", "inject_through", "inject_across",
           "sweep", "monte_carlo", "normal", "uniform", "lognormal", "SweepTable", "SweepError",
           "fit", "fit_frequency", "Experiment", "FitResult", "UnitError", "UnitWarning", "UnitCheckError"]


def __getattr__(name):
    import importlib
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))
