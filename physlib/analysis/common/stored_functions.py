"""Functions a run derives from a compiled model's own, kept on disk for the next process.

A run of a model with algebraic variables needs functions made from the model's equations by
symbolic work, once per model and process: the row function that completes output rows
(:func:`~physlib.analysis.simulation.dae_points.row_between_steps`, 12 ms for a Shockley-diode
buck converter, a twentieth of its whole script), the unrolled Newton solve and the unrolled
consistent rates. :func:`stored` keeps such a function in physlib's cache folder
(:mod:`physlib.assembly.template_cache`), so a later process of the same model reads it back
(about 1 ms) instead.

**Key.** A SHA-256 over the format, CasADi's version, the function's name, the text of the
modules that make it (any edit is a new key) and the digest of the serialization of the
model's equations (its ``dae`` function, hashed once per model): the same equations, numbers
and sparsity, or a new key. Functions of larger models (their serialization grows with them)
and functions that are not ``SX`` are not stored.

**Failure.** As for templates: written atomically, an unreadable entry is made again; caching
off (``PHYSLIB_NO_CACHE=1``) or an unwritable folder only means making it every time.
"""
from __future__ import annotations

import casadi as cs

from ...assembly.template_cache import cache_root, file_digest, mark_used, write_atomically
from ...core.digests import sha256
from ...core.logs import logger

FORMAT = 1
MAX_INSTRUCTIONS = 20_000     # model functions beyond this many instructions: not stored

_log = logger("physlib.cache")


def stored(name: str, system, make, code: list[str]) -> cs.Function:
    """The function ``make()`` would make from the equations of ``system`` (a compiled model's
    :class:`~physlib.assembly.compiled.DaeSystem`: its ``dae`` function) by the modules whose
    files are ``code``: read from physlib's cache folder where an earlier process stored it,
    else made (and stored when it is an ``SX`` function of a small model)."""
    root = cache_root()
    if root is None or system.dae.n_instructions() > MAX_INSTRUCTIONS:
        return make()
    try:
        parts = [str(FORMAT), cs.__version__, name, *map(file_digest, code), _equations_digest(system)]
    except (OSError, RuntimeError) as err:
        _log.debug("%s not stored (%s)", name, err)
        return make()
    path = root / f"stored-v{FORMAT}" / f"{name}-{sha256(chr(0).join(parts).encode()).hexdigest()[:16]}.casadi"
    try:
        function = cs.Function.deserialize(path.read_text())
        if function.is_null():              # an empty file reads as no function at all
            raise RuntimeError("no function")
        mark_used(path)
        return function
    except FileNotFoundError:
        pass
    except (OSError, RuntimeError, UnicodeDecodeError) as err:     # damaged: made and written again
        _log.debug("stored %s unusable (%s)", path, err)
    function = make()
    if function.is_a("SXFunction"):
        write_atomically(path, function.serialize().encode())
    return function


def _equations_digest(system) -> str:
    """The digest of the serialization of ``system.dae``, made once per model (the key of each
    of its stored functions)."""
    digest = system.cache.get("equations_digest")
    if digest is None:
        digest = system.cache["equations_digest"] = sha256(system.dae.serialize().encode()).hexdigest()
    return digest
