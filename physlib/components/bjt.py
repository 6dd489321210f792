"""The module's former place: ``physlib.components.bjt`` is
:mod:`physlib.components.electrical.semiconductors.bjt` itself (the same module object, so
every name it holds imports from here as before)."""
import sys

from .electrical.semiconductors import bjt

sys.modules[__name__] = bjt
