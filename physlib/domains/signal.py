"""Causal signals: one value per port, flowing from an output to the inputs it is connected to."""
from .base import Domain

signal = Domain("signal", "value", "1")
