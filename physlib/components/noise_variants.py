"""Copies of a component class whose internal noise currents are parameters.

A component with noise sources inside it (a diode's junction behind its series resistance, a
MOSFET's channel between its internal drain and source) writes each source in its equations
as ``self._noise(part)``, which is 0 in the class itself. A noise analysis replaces the
component by an instance of :func:`noisy_class`'s subclass, where ``_noise(part)`` is the
zero-valued parameter ``cls.noise_input(part)``: the inputs it linearizes from, in the unit of
the flow, torque or force they add to (``cls.NOISE_UNITS[part]``, amperes where a class names
none).
"""
from ..core import Parameter

__all__ = ["noisy_class"]

_CLASSES: dict = {}


def noisy_class(cls):
    """The subclass of ``cls`` (which declares ``NOISE_PARTS`` and ``noise_input(part)``) whose
    noise currents are parameters, named ``Noisy<cls>``; one per class."""
    noisy = _CLASSES.get(cls)
    if noisy is None:
        def _noise(self, part):
            return getattr(self, cls.noise_input(part))

        units = getattr(cls, "NOISE_UNITS", {})
        namespace = {cls.noise_input(part): Parameter(0.0, unit=units.get(part, "A"), description=f"noise ({part})")
                     for part in cls.NOISE_PARTS}
        # __made_by__: the on-disk template cache keys the class by this module's text.
        namespace.update(_noise=_noise, __doc__=f"A {cls.__name__} with its noise currents as "
                         "parameters (built by noise analyses).", __module__=cls.__module__,
                         __made_by__=noisy_class)
        noisy = _CLASSES[cls] = type(f"Noisy{cls.__name__}", (cls,), namespace)
    return noisy
