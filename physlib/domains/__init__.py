"""Physical domains: across/through variable names and units (see ARCHITECTURE.md, Conventions)."""
from .base import Domain
from .electrical import electrical
from .hydraulic import hydraulic
from .rotational import rotational
from .signal import signal
from .thermal import thermal
from .translational import translational

__all__ = ["Domain", "electrical", "translational", "rotational", "hydraulic", "thermal", "signal"]
