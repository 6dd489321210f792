"""Exceptions raised by physlib.

Every error a user can cause is a :class:`PhyslibError` subclass whose message names the
component, port, parameter or variable involved and says what to do about it.
"""


class PhyslibError(Exception):
    """Base class of all physlib errors."""


class ParameterError(PhyslibError, ValueError):
    """A parameter is unknown, missing, or has a non-physical value."""


class StructureChangeError(ParameterError):
    """A parameter value given to a compiled model (``params=``) that would change the
    structure of its equations: a diode compiled without junction charge (CJO = TT = 0)
    asked for CJO > 0. The compiled equations cannot follow it; set the value on the component
    before compiling, or compile again."""


class UnknownNameError(PhyslibError, KeyError):
    """A variable, parameter or mode path that the model does not have."""

    def __str__(self):          # KeyError would print the message with quotes around it
        return str(self.args[0]) if self.args else ""


class ModelError(PhyslibError, TypeError):
    """A model was given something it cannot hold (e.g. adding a string as a component)."""


class DuplicateNameError(PhyslibError, ValueError):
    """Two components (or subsystems) of one model share a name."""


class PortConnectionError(PhyslibError):
    """A connection is invalid (unknown port, component not in the model, ...)."""


class MissingPortError(PortConnectionError, AttributeError):
    """A conditional port that this component does not have with its settings
    (``support`` of a gear built with ``use_support=False``). Also an :class:`AttributeError`,
    so ``hasattr(gear, "support")`` and ``getattr(gear, "support", None)`` work."""


class UnknownAttributeError(PhyslibError, AttributeError):
    """A component or model has no port, parameter, variable or member of that name."""


class DeclarationError(PhyslibError, TypeError):
    """A component class declares something physlib cannot use: a port typed by something
    that is not a domain, ``equations()`` returning a single equation instead of a list, ..."""


class UnitCheckError(DeclarationError):
    """``Model.compile(units="strict")``: a component class whose equations' units disagree."""


class DomainMismatchError(PortConnectionError):
    """Ports of different physical domains were connected."""


class UnconnectedPortError(PortConnectionError):
    """A port was left unconnected, or a signal input has neither a value nor a source."""


class MissingReferenceError(PhyslibError):
    """A network has no reference (an electrical circuit without Ground)."""


class StructuralError(PhyslibError):
    """The equation system is structurally over- or under-determined."""


class InitializationError(PhyslibError):
    """No consistent initial values could be found."""


class SimulationError(PhyslibError):
    """The solver failed."""


class ModeSettlingError(PhyslibError):
    """The modes of hybrid components do not settle: asked again and again at the same instant
    (an event, the start of a run, an operating point), their transitions keep changing them.
    Ideal elements for which no set of modes is consistent (ideal diodes driving a negative
    resistance), or a transition rule that contradicts itself. The message names the components."""


class ImpulseError(SimulationError):
    """An input jumps where constraints tie a state to it: a current step through an inductor,
    a voltage step directly across a capacitor. The state would jump and its derivative be an
    impulse, which a simulation cannot represent."""


class ExportError(PhyslibError):
    """A compiled model cannot be exported as asked (an FMU, standalone C): no C compiler, a
    compiler failure, or a component whose behaviour cannot be written as compiled code. The
    message names what and how to fix it."""


class SensitivityError(PhyslibError):
    """Parameter sensitivities that do not exist, or that physlib cannot compute, for a run: an
    event whose time is not a differentiable function of the parameters (a guard that grazes
    zero or crosses it with zero slope, events chasing each other), a fixed-step run whose
    guards are only looked at at step ends. The message names the component, the guard and the
    time."""


class FitError(PhyslibError):
    """A fit that cannot be set up as asked: measured data with NaN or outside the experiment's
    span, a variable the model does not have, a start value outside its bounds. The message
    names the experiment and the variable or parameter."""


class InputRateError(PhyslibError):
    """A linear model's response to an input that drives a state directly (an ideal source
    across a capacitor or feeding an inductor alone: index reduction differentiated the
    input's value) has terms in s·u, the capacitor's s·C or the inductor's s·L, that a state
    space of u leaves out: such a model gives its gain at zero frequency only. The message
    names the input and the states it fixes."""
