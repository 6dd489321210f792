"""Heat transfer: temperature T [K], heat flow Q [W] (positive into the component)."""
from .base import Domain

thermal = Domain("thermal", "T", "K", "Q", "W", across_start=293.15)
