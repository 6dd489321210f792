"""The mode changes the components of a hybrid run ask for, one round of its event iteration at
a time: by one Python call per component at first, by one compiled function for all of them
once the model has iterated often."""
from __future__ import annotations

import numpy as np

from ...core.errors import ExportError
from ..common.fast_call import fast
from ..common.hybrid_components import mode_requests
from ..common.hybrid_functions import transition_function

COMPILED_AFTER_ROUNDS = 64
"""Event-iteration rounds of a compiled model after which its components' transitions run as
one compiled function (:func:`~physlib.analysis.common.hybrid_functions.transition_function`,
the same definitions traced once) instead of one Python call per component. A switching
converter iterates at thousands of events, where the Python calls cost tens of microseconds
each; a model with a few events does not pay for the tracing (1.7 ms for a buck converter's).
A run that knows it will take this many rounds (as many time events: a PWM's edges) compiles
them at its first: the 10 ms buck's first 32 edges took 10 ms the general way, one by one."""


class ModeRequests:
    """``requests(values, p, pre, fired)``: the mode changes the hybrid ``instances`` of
    ``model`` ask for (:func:`~physlib.analysis.common.hybrid_components.mode_requests`), by one
    call per component for the first COMPILED_AFTER_ROUNDS rounds of the model (none where
    ``expected_rounds`` reaches that), then by its compiled transitions (the same requests, in
    the same order of components)."""

    def __init__(self, model, instances, expected_rounds: int = 0):
        self.model, self.system, self.instances = model, model.system, instances
        self.expected_rounds = expected_rounds      # rounds the run will take at least
        # (transitions as a fast function, the mode slots, (instance, mode) per slot) once
        # made; None before, False for good when a transition cannot be traced
        self._compiled = None

    @property
    def compiled(self):
        """(transitions as a fast function, the mode slots, (instance, mode) per slot) where
        the transitions run compiled already, else None."""
        return self._compiled or None

    def __call__(self, values, p, pre, fired) -> list:
        compiled = self._compiled_now()
        if compiled is None:
            return mode_requests(self.instances, values, p, pre, fired)
        return self.among(compiled[0](values, p, pre, fired), p)

    def among(self, p_next, p) -> list:
        """The changes from ``p`` to the compiled transitions' answer ``p_next``, as
        :func:`~physlib.analysis.common.hybrid_components.mode_requests` lists them."""
        _, slots, owners = self._compiled
        requested = np.rint(p_next[slots])
        changed = (requested != p[slots]).nonzero()[0]
        requests: dict = {}
        for k in changed:
            inst, name = owners[k]
            requests.setdefault(inst, {})[name] = int(requested[k])
        return [(inst, requests[inst]) for inst in self.instances if inst in requests]

    def _compiled_now(self):
        """:attr:`compiled`, made when this call is the model's COMPILED_AFTER_ROUNDS-th round;
        None before, and for good when a component's transition cannot be traced (it keeps its
        Python calls)."""
        if self._compiled is not None:
            return self._compiled or None
        cache = self.system.cache
        if "compiled_transitions" not in cache:
            rounds = cache["transition_rounds"] = cache.get("transition_rounds", 0) + 1
            if rounds < COMPILED_AFTER_ROUNDS and self.expected_rounds < COMPILED_AFTER_ROUNDS:
                return None
            try:
                cache["compiled_transitions"] = fast(self.system, "transitions",
                                                     lambda: transition_function(self.model))
            except ExportError:
                cache["compiled_transitions"] = False
        function = cache["compiled_transitions"]
        if function is False:
            self._compiled = False
            return None
        owners = [(inst, name) for inst in self.instances for name in inst.mode_slot]
        slots = np.array([inst.mode_slot[name] for inst, name in owners], dtype=int)
        self._compiled = (function, slots, owners)
        return self._compiled
