"""Electrical domain: potential v [V], current i [A] (positive into the component)."""
from .base import Domain

electrical = Domain("electrical", "v", "V", "i", "A", needs_reference=True)
