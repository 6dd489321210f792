"""Rotational mechanics: angular velocity w [rad/s], torque tau [N·m] (positive into the component)."""
from .base import Domain

rotational = Domain("rotational", "w", "rad/s", "tau", "N.m", free_end=True)
