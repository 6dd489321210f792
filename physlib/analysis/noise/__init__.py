"""Noise: the thermal and shot noise sources of the dissipative elements (:mod:`.sources`), the
noise of an output at an operating point (:mod:`.small_signal`), multiport noise
(:mod:`.multiport`, with the passivity it needs: :mod:`.passivity`) and per linear portion
(:mod:`.portions`), band integrals (:mod:`.band`, at the resonances of :mod:`.resonances`), and
noise along a transient run (:mod:`.transient`). Imports ``common`` and ``linear``.
"""
from .multiport import MultiportNoise, multiport_noise
from .passivity import ActiveNetworkError
from .portions import portion_noise
from .small_signal import (BOLTZMANN, ELEMENTARY_CHARGE, NoiseElement, NoiseResult, NoiseSource, NoiseWarning,
                           noise, noise_elements, noise_source_model, transfer_operating_point)
from .transient import simulate_stochastic

__all__ = ["ActiveNetworkError", "BOLTZMANN", "ELEMENTARY_CHARGE", "MultiportNoise", "NoiseElement", "NoiseResult",
           "NoiseSource", "NoiseWarning", "multiport_noise", "noise", "noise_elements", "noise_source_model",
           "portion_noise", "simulate_stochastic", "transfer_operating_point"]
