"""The Jacobian of a model affine in its unknowns, evaluated numerically from the DAE itself.

A circuit of R, L, C and sources has a DAE F(y) = J·y + b(p, t) whose J depends on the
parameters (modes included) only: every component class says so when its equations are
derived (affine in its variables, with coefficients that read neither variables nor time;
:attr:`DaeSystem.affine <physlib.assembly.compiled.DaeSystem.affine>`). Its stored entries
are then found without differentiating anything, by column compression (Curtis, Powell and
Reid, "On the estimation of sparse Jacobian matrices", IMA J. Appl. Math. 13, 1974): columns
that share no row get one color, and for each color c the DAE evaluated at the seed
y = h·s_c (s_c the indicator of the color's columns) gives

    (F(h·s_c) − F(0)) / h = J·s_c,

whose row i is the entry J[i, j] of the one column j of color c that row i stores. A band
or ladder needs three colors, a mesh of degree d about d + 1: a few evaluations of the DAE
at each new parameter vector, linear in the model's size. It serves a large affine model's
stepped runs, operating point and linearization; CasADi's symbolic Jacobian of the whole DAE,
which it replaces there, took 4.6 s of a 1,000,000-element RC ladder's first transient and
grew faster than the model (0.37 s at 100,000).

Rounding: the seed's scale h = 2¹⁰⁰ makes b's share of each node's value negligible, and
subtracting F(0) removes what is left of it, so each entry carries the rounding of the
DAE's own arithmetic (a few units in the last place), not of b: exact in the seeds' powers
of two, J·s_c comes out as J's entries to within that rounding.
"""
from __future__ import annotations

import threading

import casadi as cs
import numpy as np

from .sparse_lu import SparseColumns

SEED_SCALE = 2.0 ** 100      # h: large against any source term, far from overflow (1e308)


FORMS = ("dae", "ida", "cvode")


def affine_jacobian(system, form: str) -> "AffineJacobian":
    """The :class:`AffineJacobian` of a compiled model's DAE (``system``, a ``DaeSystem``) in
    ``form``, made once per model and form (its pattern and coloring are shared by the runs,
    the operating points and the linearizations)."""
    key = ("affine_jacobian", form)
    if key not in system.cache:
        # "dae" and "ida" share the unknowns, rows and pattern; so does "cvode" without
        # algebraic variables
        ida = form != "cvode" or system.dae.size1_in(1) == 0
        coloring = system.cache.get(("jacobian_coloring", ida))
        if coloring is None:
            coloring = system.cache[("jacobian_coloring", ida)] = JacobianColoring(system.dae, ida)
        system.cache[key] = AffineJacobian(system.dae, form, coloring)
    return system.cache[key]


class JacobianColoring:
    """The structural pattern of the Jacobian of ``dae`` with the whole diagonal added (the
    stepped solvers add cj·I or −γ·I in place), over [x; z] (``ida``) or x alone, and the
    coloring of its columns that :meth:`AffineJacobian.values` reads the entries with. The
    DAE's own form and IDA's share it: finding it walks the whole DAE (0.5 s of a
    million-element ladder), so an operating point and a transient find it once."""

    def __init__(self, dae: cs.Function, ida: bool):
        self.nx, self.nz = dae.size1_in(0), dae.size1_in(1)
        n = self.nx + self.nz if ida else self.nx
        # ∂f/∂x (CVODE); IDA: [∂f/∂x ∂f/∂z; ∂g/∂x ∂g/∂z], the (output, input) blocks
        # (without algebraic variables the other blocks are empty: joining them to a million
        # elements' pattern took 0.09 s)
        structure = dae.sparsity_jac(0, 0)
        if ida and self.nz:
            structure = cs.horzcat(cs.vertcat(structure, dae.sparsity_jac(0, 1)),
                                   cs.vertcat(dae.sparsity_jac(1, 0), dae.sparsity_jac(1, 1)))
        self.pattern = structure + cs.Sparsity.diag(n)
        self.colind = np.array(self.pattern.colind(), dtype=np.int64)
        self.row = np.array(self.pattern.row(), dtype=np.int64)
        column = np.repeat(np.arange(n), np.diff(self.colind))
        # one color per column; a stored entry (i, j) is read from row i of its column's color
        coloring = self.pattern.uni_coloring()
        self.colors = coloring.size2()
        color_of = np.repeat(np.arange(self.colors), np.diff(np.array(coloring.colind(), dtype=np.int64)))
        self.color_of_column = np.empty(n, dtype=np.int64)
        self.color_of_column[np.array(coloring.row(), dtype=np.int64)] = color_of
        self.entry_color = self.color_of_column[column]
        self.n = n
        # (p as bytes, t, the DAE's entries, F(0, 0)) of the last evaluation, for the forms
        # sharing this coloring: a deck's operating point and the transient from it read the
        # same ones (0.2 s at a million elements)
        self.last = None


class AffineJacobian:
    """J's stored entries for one compiled model, on :attr:`pattern` (J's structural pattern
    with the whole diagonal added: the stepped solvers add cj·I or −γ·I in place), in one of
    three forms: ``"dae"`` ∂[f; g]/∂[x; z]; ``"ida"`` the residual IDA sees,
    ∂[x' − f; g]/∂[x; z] (the states' rows negated); ``"cvode"`` CVODE's right-hand side,
    ∂f/∂x. :meth:`values` evaluates them for a parameter vector at a time (any time: J reads
    none). ``coloring``: the :class:`JacobianColoring` of ``dae`` for the form's unknowns
    (found here if not given)."""

    def __init__(self, dae: cs.Function, form: str, coloring: JacobianColoring | None = None):
        if form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, got {form!r}")
        self.dae, self.form = dae, form
        self.ida = form != "cvode"          # the unknowns are [x; z], the rows [f; g]
        coloring = coloring or JacobianColoring(dae, self.ida)
        self.nx, self.nz, self.n = coloring.nx, coloring.nz, coloring.n
        self.pattern, self.colind, self.row = coloring.pattern, coloring.colind, coloring.row
        self.colors, self.color_of_column, self.entry_color = \
            coloring.colors, coloring.color_of_column, coloring.entry_color
        self._coloring = coloring
        self._local = threading.local()      # a DAE buffer per thread: runs may share the model

    def values(self, p, t: float) -> np.ndarray:
        """J's stored entries (in :attr:`pattern`'s order) for the parameter vector ``p``,
        evaluated at time ``t`` (where the model's sources are finite)."""
        return self.values_and_offset(p, t)[0]

    def values_and_offset(self, p, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(J's stored entries as :meth:`values` gives them, the form's residual at zero
        unknowns F(0, 0) at ``p`` and ``t``): the residual is then J·y + F(0, 0). New arrays
        each call; the DAE is evaluated again only for another ``p`` or ``t`` than the last
        evaluation's of a form sharing the coloring."""
        p = np.asarray(p, dtype=float)
        last = self._coloring.last
        if last is None or last[1] != t or last[0] != p.tobytes():
            last = self._coloring.last = (p.tobytes(), t, *self._evaluated(p, t))
        entries, base = last[2].copy(), last[3].copy()
        if self.form == "ida":
            entries[self.row < self.nx] *= -1.0      # IDA's residual is x' − f on the states' rows
            base[:self.nx] = 0.0 - base[:self.nx]
        return entries, base

    def _evaluated(self, p, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(∂[f; g]/∂[x; z]'s stored entries, [f; g] at zero unknowns) at ``p`` and ``t``."""
        if getattr(self._local, "buffer", None) is None:
            self._local.buffer = _dense_buffer(self.dae)
        _, trigger, (x, z, p_in, t_in), outputs = self._local.buffer
        p_in[:], t_in[0] = p, t
        x[:], z[:] = 0.0, 0.0
        base = _residual(trigger, outputs, self.nx, self.n)
        compressed = np.empty((self.n, self.colors))
        for color in range(self.colors):
            seed = np.where(self.color_of_column == color, SEED_SCALE, 0.0)
            x[:] = seed[:self.nx]
            if self.ida:
                z[:] = seed[self.nx:]
            compressed[:, color] = (_residual(trigger, outputs, self.nx, self.n) - base) / SEED_SCALE
        return compressed[self.row, self.entry_color], base

    def columns(self, p, t: float) -> SparseColumns:
        """J for ``p`` by its compressed columns (NumPy arrays: no CasADi matrix made)."""
        return SparseColumns(self.colind, self.row, self.values(p, t))


def _dense_buffer(dae: cs.Function):
    """(buffer, trigger, dense input arrays, (array, rows) per output) of a FunctionBuffer of
    ``dae`` (whoever triggers it keeps the buffer): an output's array holds its stored
    entries, ``rows`` where they go."""
    buffer, trigger = dae.buffer()
    inputs = []
    for i in range(dae.n_in()):
        if not dae.sparsity_in(i).is_dense():
            raise ValueError(f"{dae.name()}: input {i} is sparse")
        inputs.append(np.zeros(dae.nnz_in(i)))
        buffer.set_arg(i, memoryview(inputs[-1]))
    outputs = []
    for i in range(dae.n_out()):
        outputs.append((np.zeros(dae.nnz_out(i)), np.array(dae.sparsity_out(i).row(), dtype=np.int64)))
        buffer.set_res(i, memoryview(outputs[-1][0]))
    return buffer, trigger, inputs, outputs


def _residual(trigger, outputs, nx: int, n: int) -> np.ndarray:
    """[f; g] at the buffer's inputs, its first ``n`` rows (f has ``nx``)."""
    trigger()
    (ode, ode_rows), (alg, alg_rows) = outputs
    value = np.zeros(n)
    value[ode_rows] = ode
    if n > nx:
        value[nx + alg_rows] = alg
    return value
