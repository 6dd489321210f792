"""The units of a linear model's signals, looked up in the compiled model by path."""
from __future__ import annotations

from collections.abc import Mapping
from itertools import chain

__all__ = ["PathUnits"]


class PathUnits(Mapping):
    """The unit of each signal of a linear model, {signal name: unit}, looked up in the compiled
    model when asked: a 10,000-element circuit's linearization would spend 60 ms finding the
    units of states nobody asks about. ``signals``: sequences of the signals' names, in order;
    ``paths``: the model path of each name that is not one itself (an analysis point's label,
    an input named otherwise). The names are gathered only when a name outside ``paths`` is
    looked up: a million-element circuit's linear model of every node has a million."""

    def __init__(self, model, signals, paths: dict):
        self.model, self.signals, self.paths = model, signals, paths
        self._names: dict | None = None

    def _all(self) -> dict:
        if self._names is None:
            self._names = dict.fromkeys(chain.from_iterable(self.signals))
        return self._names

    def __getitem__(self, name):
        path = self.paths.get(name)
        if path is None:
            if name not in self._all():
                raise KeyError(name)
            path = name
        return self.model.unit(path)

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return len(self._all())

    def __repr__(self):
        return repr(dict(self))
