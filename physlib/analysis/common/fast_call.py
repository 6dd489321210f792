"""Calling small CasADi functions from Python at the cost of the computation, not of the call.

A CasADi ``Function`` called from Python with NumPy arrays spends about 60 µs converting its
arguments and results, while evaluating the guards or outputs of a circuit takes well under
1 µs. Event handling calls such functions tens of times per event. :func:`fast` wraps a
function in CasADi's ``FunctionBuffer`` (fixed input and output arrays, evaluation by a
direct call) so one call costs about 1 µs plus the copying of its arguments.

Buffers are per thread, so a wrapped function can be shared like the function itself.

A function called often (:data:`HOT_CALLS` times: the event-time solves and guards of a
switching circuit, called at every event) asks for its C translation
(:mod:`~physlib.analysis.common.native_functions`, built in the background, the same numbers
bit for bit) and is evaluated by it from when it is built: the unrolled Newton solve of a
Shockley diode's junction (918 instructions) evaluates in 4.3 µs in CasADi's virtual machine,
0.55 µs in C, around 4 µs of the call itself.
"""
from __future__ import annotations

import threading

import casadi as cs
import numpy as np


HOT_CALLS = 1024         # calls after which a function asks for its C twin ...
HOT_CHECK = 32           # ... looked for every this many calls (a file's existence)
MIN_INSTRUCTIONS = 64    # below, a call costs its overhead, whatever evaluates it


class FastFunction:
    """``f(*args)`` for a CasADi function with dense inputs and outputs; returns a tuple of
    1-D arrays (a single array if the function has one output)."""

    def __init__(self, function: cs.Function):
        self.function = function
        self._local = threading.local()
        # An SX function's evaluation cannot fail (no run-time solves): no status to read.
        self._can_fail = not function.is_a("SXFunction")
        self._evaluated = function      # the function the buffers evaluate: its C twin once built
        self._calls = 0
        self._hot_after = HOT_CALLS     # calls after which the C twin is asked for
        # None: no twin asked for yet; False: none to ask for, or serving already
        self._twin = None if not self._can_fail and function.n_instructions() >= MIN_INSTRUCTIONS else False
        self._sizes_in = [function.nnz_in(i) for i in range(function.n_in())]
        self._sizes_out = [function.nnz_out(i) for i in range(function.n_out())]
        for i in range(function.n_in()):
            if not function.sparsity_in(i).is_dense():
                raise ValueError(f"{function.name()}: input {i} is sparse")
        for i in range(function.n_out()):
            if not function.sparsity_out(i).is_dense():
                raise ValueError(f"{function.name()}: output {i} is sparse")

    def _buffers(self):
        state = getattr(self._local, "state", None)
        if state is None:
            buffer, trigger = self._evaluated.buffer()
            inputs = [np.zeros(n) for n in self._sizes_in]
            outputs = [np.zeros(n) for n in self._sizes_out]
            for i, a in enumerate(inputs):
                buffer.set_arg(i, memoryview(a))
            for i, a in enumerate(outputs):
                buffer.set_res(i, memoryview(a))
            state = self._local.state = (buffer, trigger, inputs, outputs)
        return state

    def __call__(self, *args):
        buffer, trigger, inputs, outputs = self._filled(args)
        trigger()
        self._counted(1)
        if self._can_fail and buffer.ret():
            raise FloatingPointError(f"CasADi function {self.function.name()} failed to evaluate "
                                     "(a singular linear solve?)")
        if len(outputs) == 1:
            return outputs[0].copy()
        return tuple([out.copy() for out in outputs])

    def iterate(self, times: int, *args):
        """At most ``times`` calls of a function (z, ...) -> (z_next, done) from ``args``, each
        from the z_next of the call before (the other inputs copied once), until done is
        nonzero or z_next is not finite: (z_next, done) of the last call. The same numbers as
        calling it that often, at a third of the cost of a call for each call after the
        first (an unrolled Newton solve repeated until it converges)."""
        if self._can_fail:
            raise ValueError(f"{self.function.name()}: iterate is for SX functions, which cannot fail")
        _, trigger, inputs, (z_next, done) = self._filled(args)
        calls = 0
        while calls < times:
            trigger()
            calls += 1
            if done[0] or not np.isfinite(z_next).all():
                break
            inputs[0][:] = z_next
        self._counted(calls)
        return z_next.copy(), done.copy()

    def buffers(self):
        """This thread's (buffer, trigger, inputs, outputs), evaluating the C twin once it is
        built: for compiled code that triggers the buffer itself (such calls are not counted,
        so ask again: the buffers are new once the twin serves)."""
        if self._twin:
            self._look_for_twin()
        state = getattr(self._local, "state", None)
        return state if state is not None else self._buffers()

    def prefer_native(self) -> None:
        """Ask for the C twin now rather than after HOT_CALLS calls: for a function made to be
        called at every event of a run with many (where a process that built it before has it
        at once)."""
        self._hot_after = 0
        if self._twin is not False:
            self._look_for_twin()

    def _filled(self, args):
        """This thread's buffers with ``args`` copied into the inputs."""
        state = getattr(self._local, "state", None)
        buffers = state if state is not None else self._buffers()
        for target, value in zip(buffers[2], args):
            if type(value) is np.ndarray and value.ndim == 1 or isinstance(value, float):
                target[:] = value
            else:
                target[:] = np.ravel(value, order="F")      # CasADi stores matrices by column
        return buffers

    def _counted(self, calls: int) -> None:
        """Count ``calls`` evaluations; every HOT_CHECK of them, see to the C twin."""
        before, self._calls = self._calls, self._calls + calls
        if self._twin is not False and before // HOT_CHECK != self._calls // HOT_CHECK:
            self._look_for_twin()

    def _look_for_twin(self) -> None:
        """Asks for the C twin once the function is hot; evaluates by it once it is built (new
        buffers in every thread)."""
        if self._twin is None:
            if self._calls < self._hot_after:
                return
            from .native_functions import native_twin
            self._twin = native_twin(self.function, "functions") or False
        if self._twin and (native := self._twin.function()) is not None:
            self._evaluated, self._twin = native, False
            self._local = threading.local()


def fast(system, name: str, build=None) -> FastFunction:
    """The :class:`FastFunction` of ``system``'s function ``name`` (an attribute such as
    ``"guards"``, or a function made by ``build()`` on first use), kept in ``system.cache``."""
    key = ("fast", name)
    wrapped = system.cache.get(key)
    if wrapped is None:
        wrapped = system.cache[key] = FastFunction(build() if build else getattr(system, name))
    return wrapped
