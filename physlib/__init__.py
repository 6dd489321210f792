"""physlib — acausal physical-component modeling in Python.

Build a system from components with across/through ports, compile it once, then simulate it::

    from physlib import Model
    from physlib.components.electrical import VoltageSource, Resistor, Capacitor, Ground
"""
from .analysis import OperatingPoint, SimulationResult
from .analysis.common.start_values import StartValueWarning
from .analysis.linear.linear_model import DescriptorError, LinearModel
from .analysis.linear.analysis_points import inject_across, inject_through
from .analysis.linear.linearize import linearize
from .analysis.sweeps import SweepError, SweepTable, lognormal, monte_carlo, normal, sweep, uniform
from .api import CompiledModel, Model
from .core import (Component, DeclarationError, DomainMismatchError, DuplicateNameError,
                   InitializationError, Input, MissingReferenceError, Mode, Output, Parameter, ParameterError, PhyslibError, Port,
                   PortConnectionError, SimulationError, StructuralError, UnconnectedPortError,
                   UnknownNameError, ModelError, Variable, der, t, MissingPortError,
                   UnknownAttributeError, ImpulseError, PositionState)

__version__ = "0.1.0"

__all__ = ["Model", "CompiledModel", "SimulationResult", "OperatingPoint", "Component", "Mode", "Port",
           "Input", "Output", "Parameter", "Variable", "der", "t", "PhyslibError", "ParameterError",
           "DuplicateNameError", "PortConnectionError", "DomainMismatchError",
           "UnconnectedPortError", "MissingReferenceError", "StructuralError",
           "InitializationError", "SimulationError", "UnknownNameError", "ModelError", "StartValueWarning",
           "MissingPortError", "UnknownAttributeError", "DeclarationError", "ImpulseError",
           "DescriptorError", "PositionState",
           "LinearModel", "linearize", "inject_through", "inject_across",
           "sweep", "monte_carlo", "normal", "uniform", "lognormal", "SweepTable", "SweepError"]
