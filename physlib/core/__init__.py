"""Declarations: the Component base class, ports, parameters, variables, errors."""
from .component import Component, Input, Mode, Output, Parameter, Port, PortRef, Variable
from .errors import (DeclarationError, DomainMismatchError, DuplicateNameError, ExportError, ImpulseError, InitializationError,
                     MissingPortError, MissingReferenceError, ModelError, ModeSettlingError, ParameterError,
                     FitError, InputRateError, PhyslibError, PortConnectionError, SensitivityError, SimulationError, StructuralError, StructureChangeError,
                     UnconnectedPortError, UnitCheckError, UnknownAttributeError, UnknownNameError)
from .units import UnitError, UnitWarning
from .positions import PositionState
from .symbols import der

__all__ = ["Component", "Mode", "Input", "Output", "Parameter", "Port", "PortRef", "Variable", "der", "t",
           "PhyslibError", "ParameterError", "DuplicateNameError", "PortConnectionError",
           "DomainMismatchError", "UnconnectedPortError", "MissingReferenceError", "StructuralError",
           "StructureChangeError",
           "InitializationError", "SimulationError", "UnknownNameError", "ModelError",
           "MissingPortError", "UnknownAttributeError", "DeclarationError", "ImpulseError",
           "ModeSettlingError", "PositionState", "ExportError", "SensitivityError", "FitError", "InputRateError",
           "UnitError", "UnitWarning", "UnitCheckError"]


def __getattr__(name):
    # ``t`` is a SymPy symbol: SymPy is imported when it is first asked for.
    if name == "t":
        from .symbols import t
        return t
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
