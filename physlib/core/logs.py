"""physlib's loggers ("physlib.compile", "physlib.cache", "physlib.solver", ...), which cost
nothing until the program uses :mod:`logging`.

physlib logs at DEBUG and INFO only: records nobody can see unless the program has configured
``logging``, which imports it. Importing ``logging`` itself costs 5 ms, a sixtieth of a small
deck's whole ``python -m physlib.spice`` process, so :func:`logger` does not: its calls pass to
``logging.getLogger(name)`` once some code has imported ``logging``, and do nothing before."""
from __future__ import annotations

import sys

DEBUG, INFO = 10, 20        # logging's levels


class _Logger:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def _target(self):
        logging = sys.modules.get("logging")
        return None if logging is None else logging.getLogger(self.name)

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 (logging.Logger's name)
        target = self._target()
        return target is not None and target.isEnabledFor(level)

    def debug(self, message: str, *args) -> None:
        target = self._target()
        if target is not None:
            target.debug(message, *args, stacklevel=2)

    def info(self, message: str, *args) -> None:
        target = self._target()
        if target is not None:
            target.info(message, *args, stacklevel=2)


def logger(name: str) -> _Logger:
    """The logger ``name`` (debug, info, isEnabledFor), without importing ``logging``."""
    return _Logger(name)
