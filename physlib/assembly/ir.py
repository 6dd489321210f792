"""The compiler's intermediate form: what each pass of :mod:`physlib.assembly.compile` hands on.

Every pass takes some of these frozen dataclasses and returns a new one; none changes its input.
They also own the index spaces the passes translate between, so no pass passes bare index
arrays around:

* **raw variable**: an entry of ``FlatSystem.var_names`` (every local of every instance; the
  names are made on demand, :mod:`physlib.assembly.names`).
* **local**: a variable of one instance, numbered as in ``ClassTemplate.local_names``;
  ``InstanceGroup.var_ids[instance, local]`` is its raw variable.
* **position**: a representative variable after alias elimination (:class:`AliasMap`:
  ``col[raw]``, ``sign[raw]``); index reduction appends the positions of new derivatives
  (:class:`Reduced`).
* **unknown**: a position that is not a state, i.e. a column of the matching
  (``Reduced.unknown[position]``, ``Reduced.unknown_pos[unknown]``).
* **equation**: a row of :class:`Equations`: template equations block by block, then linear
  rows (connection sums, alias pairs kept as equations), then the derivatives added by index
  reduction.
* **template block**: the ``k`` equations that instantiate one residual of one class
  (:class:`TemplateBlock`); ``Equations.block_of(e)`` finds the block and instance of an equation.
"""
from __future__ import annotations

from dataclasses import field
from functools import cached_property
from typing import Mapping, NamedTuple, Sequence

import casadi as cs
import numpy as np

from ..core.records import record
from .names import PositionNames
from .sparse import CSR, entry_order, in_order


@record(frozen=True)
class AliasMap:
    """Alias elimination: raw variables onto representative positions."""

    rep: np.ndarray        # raw variable -> raw id of its representative
    sign: np.ndarray       # raw value = sign * representative value
    col: np.ndarray        # raw variable -> position
    reps: np.ndarray       # position -> raw id of the representative
    state_ids: np.ndarray  # raw ids of the states that stay states (representatives)
    der_ids: np.ndarray    # raw ids of their derivatives
    demoted: np.ndarray    # rows (a, b, s): x_a = s·x_b kept as an equation, not an alias
    names: PositionNames   # name of each position: the name of its representative
    sum_ids: np.ndarray    # raw ids of the connection sums that stay equations, concatenated
    sum_lengths: np.ndarray  # number of members of each of those sums
    n_sum_pairs: int       # connection sums of two members (aliases)

    @cached_property
    def sum_offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sum_lengths)]).astype(np.int64)

    @property
    def n(self) -> int:
        return len(self.reps)

    @cached_property
    def derivative(self) -> dict[int, int]:
        """State position -> position of its derivative."""
        return dict(zip(self.col[self.state_ids].tolist(), self.col[self.der_ids].tolist()))

    def counts(self) -> str:
        return f"{len(self.col)} variables -> {self.n} positions, {len(self.state_ids)} states"


class TemplateBlock(NamedTuple):
    group: int       # index into FlatSystem.groups
    residual: int    # index into the class template's residuals
    first: int       # equation id of the block's first instance


@record(frozen=True)
class Combination:
    """An equation replaced by a combination of several: ``sum w_e·F_e = 0``, in which the
    unknowns ``cancelled`` drop out. Found where equations are numerically dependent on the
    unknowns of their block (capacitors in parallel between free nodes): the combination is
    a constraint between states, which index reduction then differentiates."""

    members: np.ndarray
    weights: np.ndarray
    cancelled: np.ndarray


@record(frozen=True)
class Equations:
    """All equations as sparse incidence over positions: one entry per (equation, variable)."""

    rows: np.ndarray       # equation of each entry
    cols: np.ndarray       # position of each entry
    preferred: np.ndarray  # entry may be used by the matching without risk
    explicit: np.ndarray   # equation can be solved for this position by one division
    linear: np.ndarray     # per equation: affine in its variables (no modes)
    blocks: tuple[TemplateBlock, ...]
    n_template: int
    through: CSR             # linear rows (connection sums, kept alias pairs) over positions
    n_eq: int
    derivative_of: tuple[int, ...] = ()    # base equation of each derivative row
    combos: Mapping[int, Combination] = field(default_factory=dict)

    @property
    def n_base(self) -> int:
        """Equations before index reduction: template and linear rows."""
        return self.n_template + self.through.shape[0]

    @cached_property
    def _block_table(self) -> np.ndarray:
        """(group, residual, first equation) per template block."""
        return np.array(self.blocks, dtype=np.int64).reshape(-1, 3)

    def blocks_of(self, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Block index, group and instance of each template equation in ``rows``."""
        rows = np.asarray(rows, dtype=np.int64)
        table = self._block_table
        block = np.searchsorted(table[:, 2], rows, side="right") - 1
        return block, table[block, 0], rows - table[block, 2]

    def block_of(self, e: int) -> tuple[TemplateBlock, int]:
        """The template block of template equation ``e`` and the instance it belongs to."""
        block, _, instance = self.blocks_of([e])
        return self.blocks[int(block[0])], int(instance[0])

    @cached_property
    def _entry_order(self) -> np.ndarray | None:
        """The entries in the order of (equation, position), None where they are stored so
        (:func:`~physlib.assembly.passes.incidence.build_equations` stores them so): the column
        maps the passes use keep that order, so their patterns come sorted (no sort each time)."""
        return None if in_order(self.rows, self.cols) else entry_order(self.rows, self.cols)

    def entries_in_order(self) -> tuple[np.ndarray, np.ndarray]:
        """(equation, position) of every incidence, sorted by equation, then position."""
        order = self._entry_order
        return (self.rows, self.cols) if order is None else (self.rows[order], self.cols[order])

    def incidence(self, mask=None, n_cols=None, col_map=None) -> CSR:
        """Equations × columns (positions, or ``col_map[position]`` where that is >= 0), a pattern."""
        rows, cols = self.entries_in_order()
        if mask is not None:
            order = self._entry_order
            kept = mask if order is None else mask[order]
            rows, cols = rows[kept], cols[kept]
        if col_map is not None:
            cols = col_map[cols]
            keep = cols >= 0
            rows, cols = rows[keep], cols[keep]
        n_cols = int(self.cols.max(initial=-1)) + 1 if n_cols is None else n_cols
        return CSR.from_entries(rows, cols, (self.n_eq, n_cols))

    def counts(self) -> str:
        return (f"{self.n_eq} equations ({self.n_template} template, {self.through.shape[0]} linear, "
                f"{len(self.derivative_of)} derivatives, {len(self.combos)} combinations), "
                f"{len(self.rows)} incidences")


@record(frozen=True)
class Reduced:
    """The equations after index reduction, with the position and unknown spaces it settles."""

    equations: Equations
    names: PositionNames           # name of each position, derivatives of index reduction last
    var_derivative: Mapping[int, int]  # position -> position of its derivative
    new_vars: tuple[int, ...]      # base position of each new derivative position
    new_eqs: tuple[int, ...]       # base equation of each derivative row
    dummies: tuple[int, ...]       # states demoted to algebraic variables
    states: np.ndarray             # state positions, in state order
    unknown: np.ndarray            # position -> unknown (-1 for states)
    unknown_pos: np.ndarray        # unknown -> position
    match: np.ndarray | None = None  # equation -> unknown, when found before: no equation differentiated

    @property
    def n_pos(self) -> int:
        return len(self.names)

    @property
    def der_pos(self) -> np.ndarray:
        """Position of each state's derivative."""
        return np.array([self.var_derivative[s] for s in self.states.tolist()], dtype=np.int64)

    def counts(self) -> str:
        return (f"{len(self.new_eqs)} equations differentiated, {len(self.dummies)} dummy states, "
                f"{len(self.states)} states, {len(self.unknown_pos)} unknowns")


@record(frozen=True)
class BlockOrder:
    """Matching and block-lower-triangular order of the equations."""

    match: np.ndarray        # equation -> unknown it is solved for
    block: np.ndarray        # equation -> block number, blocks numbered in evaluation order
    n_blocks: int

    def counts(self) -> str:
        return f"{self.n_blocks} blocks"


@record(frozen=True)
class Symbolic:
    """The equations as CasADi expressions in the positions ``R``, parameters ``P`` and time ``T``."""

    R: cs.SX
    P: cs.SX
    T: cs.SX
    locals: Sequence   # per group: SX (locals × instances), signs applied (made on first use)
    params: tuple      # per group: SX (parameters and modes × instances)
    # every position a symbol; else those the explicit solutions define hold zeros until then
    all_symbols: bool = True

    def counts(self) -> str:
        return f"{self.locals.n_entries} locals over {self.R.numel()} positions"


class LinearBlock(NamedTuple):
    label: int             # block number (evaluation order)
    members: list          # its equations
    unknowns: np.ndarray   # the unknowns they are matched to


@record(frozen=True)
class Torn:
    """Which unknown each equation is solved for explicitly, and what is left to the DAE solver."""

    target: np.ndarray       # equation -> unknown it is solved for explicitly (-1 if none)
    target_pos: np.ndarray   # equation -> position it is solved for explicitly (-1 if none)
    rank: np.ndarray         # order of explicit equations within their block (-1 for others)
    z_unknowns: np.ndarray   # unknowns left for the DAE solver (algebraic variables)
    g_eqs: np.ndarray        # equations left as residuals 0 = g
    n_loops: int             # blocks that need Newton
    linear_blocks: tuple[LinearBlock, ...]   # small linear loops solved symbolically

    def counts(self) -> str:
        return (f"{int((self.target >= 0).sum())} explicit, {len(self.linear_blocks)} linear loops "
                f"solved, {len(self.g_eqs)} residuals in {self.n_loops} loops")


@record(frozen=True)
class Solved:
    """The value of every position in terms of the states, algebraic variables, P and T."""

    positions: np.ndarray    # solved positions, each after those it reads
    values: cs.SX            # value of every position (states and algebraic variables: R's symbols)
    guard: object = None     # FiniteGuard of the solutions used (None: none that vouches)

    def counts(self) -> str:
        return f"{len(self.positions)} positions solved"
