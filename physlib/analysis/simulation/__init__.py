"""Transient simulation: :func:`.simulate.simulate` with its SUNDIALS integrators
(:mod:`.integrators`) or fixed-step methods (:mod:`.fixed_step`, :mod:`.fixed_step_methods`),
time events and mode events (:mod:`.time_events`, :mod:`.events`, :mod:`.event_location`,
:mod:`.hybrid_simulation`; the components' side of modes, shared with operating points, is
:mod:`..common.hybrid_components`), invariant projection (:mod:`.invariants`) and the
:class:`~.results.SimulationResult` it returns. Imports ``common`` and ``linear`` (a result's
``at(t)`` is an operating point); ``noise.transient`` only when a run propagates noise.
"""
