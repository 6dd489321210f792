"""One class function on many instances: a mapped call, or from :data:`VECTOR_FROM` instances
its instructions replayed on rows of all of them (:func:`mapped`)."""
from __future__ import annotations

import casadi as cs

__all__ = ["RowSource", "mapped", "VECTOR_FROM"]


class RowSource:
    """An argument of :func:`mapped` (an input × instances matrix) made a row at a time when
    the function is replayed on rows, and whole otherwise."""

    def size1(self) -> int:
        raise NotImplementedError

    def size2(self) -> int:
        raise NotImplementedError

    def row(self, i: int) -> cs.SX:
        """Row ``i``: input ``i`` of every instance."""
        raise NotImplementedError

    def matrix(self) -> cs.SX:
        raise NotImplementedError


VECTOR_FROM = 256      # instances from which a class function is evaluated on whole rows


def mapped(function: cs.Function, k: int, *args) -> cs.SX:
    """``function`` on ``k`` instances whose arguments are stacked column by column. From
    VECTOR_FROM instances its instructions run on whole rows (:func:`_on_rows`); otherwise the
    call maps itself (a third faster than ``function.map(k)``). Both make the same
    expressions, node for node."""
    if k >= VECTOR_FROM:
        out = _on_rows(function, k, args)
        if out is not None:
            return out
    args = [arg.matrix() if isinstance(arg, RowSource) else arg for arg in args]
    out = function(*args)
    return out if out.size2() == k else function.map(k)(*args)


def _on_rows(function: cs.Function, k: int, args) -> cs.SX | None:
    """``function``'s single dense output for ``k`` instances, its instructions replayed once
    each on rows of k entries (one CasADi operation on a row makes its k nodes in one C++ loop,
    with the simplifications a per-instance evaluation applies: 40 % less time than the mapped
    call on a million-element ladder's explicit solutions); None for a function this does not
    replay (several outputs, a sparse input or output, calls or free parameters in its graph:
    an input's instruction reads a nonzero, which is its row only where the input is dense)."""
    if function.n_out() != 1 or not function.sparsity_out(0).is_dense() or not function.is_a("SXFunction") \
            or any(function.size2_in(i) != 1 or not function.sparsity_in(i).is_dense()
                   or args[i].size1() != function.size1_in(i) or args[i].size2() not in (1, k)
                   for i in range(function.n_in())):
        return None
    work = [None] * function.sz_w()
    out = [None] * function.nnz_out(0)
    rows: dict = {}
    for n in range(function.n_instructions()):
        op, into = function.instruction_id(n), function.instruction_output(n)
        read = function.instruction_input(n)
        if op == cs.OP_INPUT:
            key = tuple(read)
            if key not in rows:
                arg = args[read[0]]
                rows[key] = arg.row(read[1]) if isinstance(arg, RowSource) else \
                    cs.SX(arg[read[1], :] if arg.size2() == k else arg[read[1], 0])
            work[into[0]] = rows[key]
        elif op == cs.OP_OUTPUT:
            out[into[1]] = work[read[0]]
        elif op == cs.OP_CONST:
            work[into[0]] = cs.SX(function.instruction_constant(n))
        elif op in _UNREPLAYED or len(read) > 2:
            return None
        elif len(read) == 2:
            work[into[0]] = cs.SX.binary(op, work[read[0]], work[read[1]])
        else:
            work[into[0]] = cs.SX.unary(op, work[read[0]])
    # a row that reads no instance (a constant, a shared input) is the same for every instance
    out = [row if row.size2() == k else cs.repmat(row, 1, k) for row in out]
    return out[0] if len(out) == 1 else cs.vertcat(*out) if out else cs.SX(0, k)   # (one row: no copy)


_UNREPLAYED = {cs.OP_CALL, cs.OP_PARAMETER}     # nodes that are no scalar operation
