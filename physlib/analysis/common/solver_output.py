"""What solvers print, captured per call: CasADi and SUNDIALS write their messages to
``sys.stderr`` (CasADi dumps a failing function's inputs there before raising). A run or a
solve collects them with :class:`solver_messages` to quote them in its error, log them at
DEBUG on ``physlib.solver`` and keep them off the user's console; threads are kept apart (the
same stream stands in for all, each thread's text going to its own buffer)."""
from __future__ import annotations

import io
import sys
import threading

from ...core.logs import logger

__all__ = ["solver_messages"]

log = logger("physlib.solver")


class _ThreadRouter(io.TextIOBase):
    """Stands in for ``sys.stderr`` while solver calls run: text written by a thread inside a
    call goes to that call's buffer, everything else to the real stream."""

    def __init__(self, stream):
        self.stream = stream
        self.buffers: dict[int, io.StringIO] = {}

    def write(self, text):
        buffer = self.buffers.get(threading.get_ident())
        return (buffer or self.stream).write(text)

    def flush(self):
        self.stream.flush()


_router_lock = threading.Lock()
_router: _ThreadRouter | None = None
_router_users = 0


class solver_messages:
    """Context manager capturing what solvers print to ``sys.stderr`` in this thread; the text
    is logged at DEBUG on ``physlib.solver`` and available as ``getvalue()`` of the buffer."""

    def __enter__(self) -> io.StringIO:
        global _router, _router_users
        self.buffer = io.StringIO()
        with _router_lock:
            if _router_users == 0:
                _router = _ThreadRouter(sys.stderr)
                sys.stderr = _router
            _router_users += 1
            self.router = _router
            self.previous = _router.buffers.get(threading.get_ident())
            _router.buffers[threading.get_ident()] = self.buffer
        return self.buffer

    def __exit__(self, *exc):
        global _router, _router_users
        with _router_lock:
            if self.previous is None:
                self.router.buffers.pop(threading.get_ident(), None)
            else:
                self.router.buffers[threading.get_ident()] = self.previous
            _router_users -= 1
            if _router_users == 0:
                if sys.stderr is self.router:
                    sys.stderr = self.router.stream
                _router = None
        text = self.buffer.getvalue()
        if text.strip():
            if self.previous is not None:
                self.previous.write(text)
            log.debug("%s", text.rstrip())
        return False
