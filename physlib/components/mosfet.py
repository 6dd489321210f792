"""The module's former place: ``physlib.components.mosfet`` is
:mod:`physlib.components.electrical.semiconductors.mosfet` itself (the same module object, so
every name it holds imports from here as before)."""
import sys

from .electrical.semiconductors import mosfet

sys.modules[__name__] = mosfet
