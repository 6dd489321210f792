"""The module's former place: ``physlib.components.discrete`` is
:mod:`physlib.components.signals.discrete` itself (the same module object, so every name it
holds imports from here as before)."""
import sys

from .signals import discrete

sys.modules[__name__] = discrete
