"""Pass 2: alias elimination over the flat system (see :mod:`physlib.assembly.alias_sets`)."""
from __future__ import annotations

import numpy as np

from ...core.arrays import index_dtype
from ..alias_sets import eliminate_aliases
from ..ir import AliasMap
from ..names import PositionNames


def split_through_sums(flat) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The one rule for connection sums: a sum of two members says x_a = -x_b (an alias pair,
    returned as rows (a, b, -1)); a sum of one member or three and more stays an equation
    (returned as its members' ids, concatenated, and the number of members of each)."""
    ids, lengths = flat.through_sums.values, flat.through_sums.lengths
    starts = np.cumsum(lengths) - lengths
    first = starts[lengths == 2]
    pairs = np.column_stack([ids[first], ids[first + 1], -np.ones(len(first))])
    return pairs, ids[np.repeat(lengths != 2, lengths)], lengths[lengths != 2]


def find_aliases(flat) -> AliasMap:
    """Representatives and signs of all variables; states and their derivatives; alias pairs kept
    as equations (see :func:`~physlib.assembly.alias_sets.eliminate_aliases`)."""
    pairs = [np.column_stack([flat.equalities, np.ones(len(flat.equalities))])]   # a, b, sign
    states, ders, started = [], [], []
    for g in flat.groups:
        tpl, k = g.template, len(g.paths)
        for a, b, s in tpl.aliases:
            pairs.append(np.column_stack([g.var_ids[:, a], g.var_ids[:, b], np.full(k, s)]))
        for d, x in tpl.der_of.items():
            states.append(g.var_ids[:, x])
            ders.append(g.var_ids[:, d])
            if x in tpl.initial_uses:
                started.append(g.var_ids[:, x])
    sum_pairs, sum_ids, sum_lengths = split_through_sums(flat)
    pairs.append(sum_pairs)
    state_ids = np.concatenate(states) if states else np.zeros(0, np.int64)
    der_ids = np.concatenate(ders) if ders else np.zeros(0, np.int64)
    started_ids = np.concatenate(started) if started else np.zeros(0, np.int64)
    aliases = eliminate_aliases(len(flat.var_names), np.concatenate(pairs), state_ids, der_ids,
                                flat.var_names, started_ids)
    # variables and positions as int32 where they fit: the compiled model keeps a position per
    # variable (a million-element model has 6.5 million variables) and its positions' names
    index = index_dtype(len(aliases.rep))
    rep = aliases.rep.astype(index)
    reps = np.flatnonzero(rep == np.arange(len(rep))).astype(index)
    col = np.full(len(rep), -1, dtype=index)
    col[reps] = np.arange(len(reps), dtype=index)
    # States tied to another state are aliases of it now; only representatives stay states.
    keep = rep[state_ids] == state_ids
    return AliasMap(rep, aliases.sign, col[rep], reps, state_ids[keep], der_ids[keep],
                    aliases.demoted, PositionNames(flat.var_names, reps), sum_ids.astype(index), sum_lengths,
                    len(sum_pairs))
