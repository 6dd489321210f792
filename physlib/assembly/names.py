"""Name tables of a flattened model, computed from its groups rather than stored name by name.

A flat system numbers its variables (and its parameters) group by group, instance by instance,
then per local: entry ``start[g] + row * width[g] + k`` belongs to instance ``row`` of group
``g`` and to the ``k``-th local of the group's class. Its name is ``head + path + tail``, the
instance's path between the local's two pieces (``"" + "C1" + ".v"``, ``"der(" + "C1" + ".v)"``).

A model of 100,000 stages has over a million variables. The tables here make a name only when
it is asked for, and find the number of a name by parsing it (the instance path, then the
local's pieces) rather than through a dictionary of every name: storing the strings cost more
time and memory than the rest of flattening.
"""
from __future__ import annotations

import operator
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, chain, count

import numpy as np


class InstancePaths:
    """The instance paths of each group, and where a path is: the first few questions by a
    search of the lists, then by a lookup table built for the rest."""

    # A million-element model's table takes 0.5-0.7 s to build, a search of its paths 5-15 ms:
    # reading a result or two (res["C2.v"], a deck's .meas of one node) asks a few times.
    SEARCHED = 8

    def __init__(self, paths: list[list[str]]):
        self.paths = paths
        self._first = list(accumulate(map(len, paths), initial=0))   # per group: its first instance
        self._number: dict[str, int] | None = None      # path -> instance, counted over all groups
        self._searched = 0

    def where(self, path: str) -> tuple[int, int] | None:
        """(group, row) of the instance at ``path``, or None."""
        if self._number is None:
            if self._searched < self.SEARCHED:
                self._searched += 1
                return self._search(path)
            self._number = dict(zip(chain.from_iterable(self.paths), count()))
        k = self._number.get(path)
        if k is None:
            return None
        g = bisect_right(self._first, k) - 1
        return g, k - self._first[g]

    def _search(self, path: str) -> tuple[int, int] | None:
        for g, paths in enumerate(self.paths):
            try:
                return g, paths.index(path)
            except ValueError:
                continue
        return None

    def __getstate__(self):
        return {"paths": self.paths}    # the lookup is rebuilt where it is needed

    def __setstate__(self, state):
        self.__init__(state["paths"])


class GroupedTable(Sequence):
    """Entries laid out group by group, instance by instance, then per piece of the group:
    ``pieces[g]`` lists what each instance of group ``g`` has (its locals, its parameters).
    A subclass says what an entry is (:meth:`entry`)."""

    def __init__(self, instances: InstancePaths, pieces: list[list]):
        self.instances, self.pieces = instances, pieces
        sizes = (len(paths) * len(own) for paths, own in zip(instances.paths, pieces))
        self._starts = list(accumulate(sizes, initial=0))

    def entry(self, piece, path: str):
        """The entry of ``piece`` for the instance at ``path``."""
        raise NotImplementedError

    def __len__(self) -> int:
        return self._starts[-1]

    def locate(self, i) -> tuple[int, int, int]:
        """(group, row, piece) of entry ``i``; negative ``i`` counts from the end, as for a list."""
        i = operator.index(i)
        n = self._starts[-1]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{type(self).__name__} index out of range")
        g = bisect_right(self._starts, i) - 1     # groups without entries are skipped
        row, k = divmod(i - self._starts[g], len(self.pieces[g]))
        return g, row, k

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        g, row, k = self.locate(i)
        return self.entry(self.pieces[g][k], self.instances.paths[g][row])

    def __iter__(self):
        entry = self.entry
        for paths, pieces in zip(self.instances.paths, self.pieces):
            yield from [entry(piece, path) for path in paths for piece in pieces]


class NameTable(GroupedTable):
    """Names ``head + path + tail``; ``pieces[g]`` holds the (head, tail) of each local."""

    def __init__(self, instances: InstancePaths, pieces: list[list[tuple[str, str]]]):
        super().__init__(instances, pieces)
        self._heads = tuple(dict.fromkeys(head for own in pieces for head, _ in own))
        self._piece_of = [{piece: k for k, piece in enumerate(own)} for own in pieces]

    def entry(self, piece: tuple[str, str], path: str) -> str:
        return piece[0] + path + piece[1]

    def __iter__(self):
        for paths, pieces in zip(self.instances.paths, self.pieces):
            yield from [head + path + tail for path in paths for head, tail in pieces]

    def find(self, name) -> int | None:
        """The number of ``name``, or None. The instance path is the part of the name (after a
        head) up to one of its dots or all of it, the rest is the tail of one of its locals."""
        if not isinstance(name, str):
            return None
        for head in self._heads:
            if not name.startswith(head):
                continue
            body = name[len(head):]
            dot = body.find(".")
            while True:
                cut = len(body) if dot < 0 else dot
                where = self.instances.where(body[:cut])
                k = None if where is None else self._piece_of[where[0]].get((head, body[cut:]))
                if k is not None:
                    g, row = where
                    return self._starts[g] + row * len(self.pieces[g]) + k
                if dot < 0:
                    break
                dot = body.find(".", dot + 1)
        return None

    def __contains__(self, name) -> bool:
        return self.find(name) is not None

    def take(self, ids) -> list[str]:
        """The names of ``ids`` (valid numbers), made in bulk."""
        ids = np.asarray(ids, dtype=np.int64)
        starts = np.array(self._starts, dtype=np.int64)
        widths = np.array([len(own) for own in self.pieces] + [1], dtype=np.int64)
        g = np.searchsorted(starts, ids, side="right") - 1
        row, k = np.divmod(ids - starts[g], widths[g])
        first_path = np.array([0, *accumulate(map(len, self.instances.paths))], dtype=np.int64)
        first_piece = np.array([0, *accumulate(widths[:-1].tolist())], dtype=np.int64)
        paths = list(chain.from_iterable(self.instances.paths))
        pieces = list(chain.from_iterable(self.pieces))
        return [pieces[p][0] + paths[r] + pieces[p][1]
                for p, r in zip((first_piece[g] + k).tolist(), (first_path[g] + row).tolist())]


class ParameterChecks(GroupedTable):
    """Per parameter entry: (its declaration, the path of its component), for checking values
    given by name; ``pieces[g]`` holds the declarations of group ``g``."""

    def entry(self, piece, path: str) -> tuple:
        return piece, path


class PositionNames(Sequence):
    """Names of positions: the names of raw variables ``ids`` in a :class:`NameTable` (the
    representatives of alias sets), then ``extra`` names (derivatives added by index reduction)."""

    def __init__(self, table: NameTable, ids: np.ndarray, extra: tuple[str, ...] = ()):
        self.table, self.ids, self.extra = table, ids, extra

    def __len__(self) -> int:
        return len(self.ids) + len(self.extra)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        i, n = operator.index(i), len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("position index out of range")
        return self.table[int(self.ids[i])] if i < len(self.ids) else self.extra[i - len(self.ids)]

    def __iter__(self):
        yield from self.table.take(self.ids)
        yield from self.extra

    def take(self, positions) -> list[str]:
        """The names at ``positions`` (valid, non-negative), made in bulk."""
        positions = np.asarray(positions, dtype=np.int64)
        raw = positions < len(self.ids)
        made = iter(self.table.take(self.ids[positions[raw]]))
        return [next(made) if is_raw else self.extra[p - len(self.ids)]
                for p, is_raw in zip(positions.tolist(), raw.tolist())]

    def __add__(self, more) -> PositionNames:
        """These names followed by ``more``."""
        return PositionNames(self.table, self.ids, self.extra + tuple(more))
