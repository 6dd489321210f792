"""The compiler's tables of numbers (incidence entries, variables, positions, equations) are
int32 where every number fits: a million-element model's tables run to millions of entries,
they live through the explicit solutions and the emission, and their width was a twelfth of
the compile's peak memory (1.80 GB at a million elements, 1.65 GB once these were int32)."""
import numpy as np

import physlib.assembly.compile as compile_module
from physlib.core.arrays import index_dtype

from test_results import rc_ladder


def test_index_dtype_is_int32_below_two_to_the_31_and_int64_from_there():
    assert index_dtype(0) is np.int32 and index_dtype(2**31 - 1) is np.int32
    assert index_dtype(2**31) is np.int64 and index_dtype(2**40) is np.int64


def test_the_passes_keep_their_tables_of_numbers_as_int32(monkeypatch):
    results, run = {}, compile_module._run

    def keep(name, function, *args):
        results[name] = result = run(name, function, *args)
        return result

    monkeypatch.setattr(compile_module, "_run", keep)
    sim = rc_ladder(20).compile()
    eqs, aliases = results["incidence"], results["aliases"]
    reduced, torn = results["index reduction"], results["tearing"]
    tables = {"incidence rows": eqs.rows, "incidence columns": eqs.cols,
              "alias representatives": aliases.rep, "alias positions": aliases.col,
              "connection sum members": aliases.sum_ids,
              "unknown of each position": reduced.unknown, "position of each unknown": reduced.unknown_pos,
              "matching": reduced.match, "explicit targets": torn.target,
              "explicit target positions": torn.target_pos, "explicit ranks": torn.rank}
    wide = {name: table.dtype for name, table in tables.items() if table.dtype != np.int32}
    assert not wide, wide
    # and the narrower tables compile the same circuit: C1 (τ = 1 s) charges through R1 from
    # 1 V, the stages behind it drawing on it, so it starts at 0 and stays below 1 V
    res = sim.simulate(1e-3)
    assert res["C1.v"][0] == 0.0 and 0.0 < res["C1.v"][-1] < 1.0
