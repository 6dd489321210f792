"""Translational mechanics: velocity v [m/s], force f [N] (positive into the component)."""
from .base import Domain

translational = Domain("translational", "v", "m/s", "f", "N", free_end=True)
