"""Calling small CasADi functions from Python at the cost of the computation, not of the call.

A CasADi ``Function`` called from Python with NumPy arrays spends about 60 µs converting its
arguments and results, while evaluating the guards or outputs of a circuit takes well under
1 µs. Event handling calls such functions tens of times per event. :func:`fast` wraps a
function in CasADi's ``FunctionBuffer`` (fixed input and output arrays, evaluation by a
direct call) so one call costs about 1 µs plus the copying of its arguments.

Buffers are per thread, so a wrapped function can be shared like the function itself.
"""
from __future__ import annotations

import threading

import casadi as cs
import numpy as np


class FastFunction:
    """``f(*args)`` for a CasADi function with dense inputs and outputs; returns a tuple of
    1-D arrays (a single array if the function has one output)."""

    def __init__(self, function: cs.Function):
        self.function = function
        self._local = threading.local()
        # An SX function's evaluation cannot fail (no run-time solves): no status to read.
        self._can_fail = not function.is_a("SXFunction")
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
            buffer, trigger = self.function.buffer()
            inputs = [np.zeros(n) for n in self._sizes_in]
            outputs = [np.zeros(n) for n in self._sizes_out]
            for i, a in enumerate(inputs):
                buffer.set_arg(i, memoryview(a))
            for i, a in enumerate(outputs):
                buffer.set_res(i, memoryview(a))
            state = self._local.state = (buffer, trigger, inputs, outputs)
        return state

    def __call__(self, *args):
        state = getattr(self._local, "state", None)
        buffer, trigger, inputs, outputs = state if state is not None else self._buffers()
        for target, value in zip(inputs, args):
            if type(value) is np.ndarray and value.ndim == 1 or isinstance(value, float):
                target[:] = value
            else:
                target[:] = np.ravel(value, order="F")      # CasADi stores matrices by column
        trigger()
        if self._can_fail and buffer.ret():
            raise FloatingPointError(f"CasADi function {self.function.name()} failed to evaluate "
                                     "(a singular linear solve?)")
        if len(outputs) == 1:
            return outputs[0].copy()
        return tuple([out.copy() for out in outputs])


def fast(system, name: str, build=None) -> FastFunction:
    """The :class:`FastFunction` of ``system``'s function ``name`` (an attribute such as
    ``"guards"``, or a function made by ``build()`` on first use), kept in ``system.cache``."""
    key = ("fast", name)
    wrapped = system.cache.get(key)
    if wrapped is None:
        wrapped = system.cache[key] = FastFunction(build() if build else getattr(system, name))
    return wrapped
