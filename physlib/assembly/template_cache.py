"""The on-disk cache of class templates, so that a new process does not derive them again.

Deriving a component class's equations (SymPy, :mod:`physlib.assembly.derivation`) costs a
second or more per process for a handful of classes, most of it importing SymPy. A derived
:class:`~physlib.assembly.class_template.ClassTemplate` holds only CasADi expressions (stored as
the ``serialize()`` string of one function) and plain data, so it is written here once and read
back by later processes, which then never import SymPy.

**Key.** A SHA-256 over: the cache format, physlib's version and the text of the modules that
derive templates and of the component catalog (so that editing physlib invalidates it), the Python, CasADi and SymPy
versions, the class's module and qualified name, the text of the module of each component
class in its MRO (a changed equation, or helper beside it, is a new key), the structure key
and the position variant. Classes without a source file (defined in a REPL or notebook),
classes their module does not hold under their name (made inside a function, which may depend
on its variables, or by ``type()``) unless they name the module-level function that made them
(``__made_by__``: a noise analysis's copy of a class with its noise currents as parameters),
and structure keys that are not plain data, are not cached on disk.

**Location.** ``$PHYSLIB_CACHE_DIR``, else the user cache folder (``$XDG_CACHE_HOME/physlib``
or ``~/.cache/physlib``; ``~/Library/Caches/physlib`` on macOS, ``%LOCALAPPDATA%\\physlib``
on Windows), in a subfolder per format. ``PHYSLIB_NO_CACHE=1`` turns the cache off.

**Pruning.** An entry's modification time is its last use (a read touches it). The first process
that runs a changed physlib (a new version, an edited module: every key changes) removes what no
process has used for ``UNUSED_DAYS`` days from every subfolder of physlib's cache folder, so
upgrades do not pile up entries that can never be read again.

**Failure.** Entries are written to a temporary file and renamed into place, so a reader never
sees half an entry. Anything that goes wrong reading or writing (missing, corrupt or foreign
file, unwritable folder, content that does not pickle) is logged at DEBUG on the logger
``"physlib.cache"`` and the template is derived instead: never an error, never a wrong
template (an entry must name its own key, and loading accepts plain data only).
"""
from __future__ import annotations

import importlib.util
import os
import pickle
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

import casadi as cs

from ..core import records
from ..core.component import Component
from ..core.digests import sha256
from ..core.logs import logger
from .class_template import ClassTemplate

FORMAT = 1
UNUSED_DAYS = 60
log = logger("physlib.cache")

# physlib's own modules whose text decides what a derivation produces; a folder stands for
# every module under it, its subpackages' too. The catalog's folder is among them: its classes
# call helpers in other modules (the pn-junction functions of junctions.py), whose edits their
# own module's text would not show.
_DERIVING_MODULES = ("core", "domains", "components", "assembly/class_template.py",
                     "assembly/derivation.py", "assembly/positions.py", "assembly/sympy_to_casadi.py",
                     "assembly/template_cache.py", "assembly/unit_check.py", "constants.py")


def cache_dir() -> Path | None:
    """Where templates are cached; None when caching is off (``PHYSLIB_NO_CACHE=1``)."""
    root = cache_root()
    return None if root is None else root / f"templates-v{FORMAT}"


def cache_root() -> Path | None:
    """physlib's folder in the user cache (templates, built solver callbacks); None when
    caching is off (``PHYSLIB_NO_CACHE=1``)."""
    if os.environ.get("PHYSLIB_NO_CACHE", "").strip() not in ("", "0"):
        return None
    root = os.environ.get("PHYSLIB_CACHE_DIR")
    if not root:
        if sys.platform == "win32":
            root = os.path.join(os.environ.get("LOCALAPPDATA") or os.path.expanduser("~"), "physlib")
        elif sys.platform == "darwin":
            root = os.path.join(os.path.expanduser("~"), "Library", "Caches", "physlib")
        else:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            root = os.path.join(base, "physlib")
    return Path(root)


def cache_key(cls: type, structure, followers: frozenset, unread: frozenset) -> str | None:
    """The disk-cache key of a class's template, or None when it must not be cached on disk."""
    try:
        sources = [_class_source(klass) for klass in cls.__mro__
                   if isinstance(klass, type) and issubclass(klass, Component) and klass is not Component]
        if any(s is None for s in sources):
            return None
        parts = [str(FORMAT), _environment(), cls.__module__, cls.__qualname__, *sources,
                 _plain(structure), repr(sorted(followers)), repr(sorted(unread))]
    except (OSError, TypeError, ValueError) as err:
        log.debug("template of %s not cached on disk: %s", cls.__qualname__, err)
        return None
    return sha256("\0".join(parts).encode()).hexdigest()


def load(key: str | None) -> ClassTemplate | None:
    """The cached template under ``key``, or None (missing, unreadable, or caching is off)."""
    folder = cache_dir()
    if key is None or folder is None:
        return None
    path = folder / f"{key}.pkl"
    try:
        with open(path, "rb") as file:
            entry = _PlainUnpickler(file).load()
        if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
            raise ValueError("entry of another key or format")
        fields = dict(entry["fields"])
        fields["expressions"] = cs.Function.deserialize(fields["expressions"])
        mark_used(path)
        return ClassTemplate(**fields)
    except FileNotFoundError:
        return None
    except Exception as err:    # noqa: BLE001 -- a bad entry of any kind means: derive again
        log.debug("template cache entry %s unusable (%s: %s); deriving", path, type(err).__name__, err)
        return None


def store(key: str | None, template: ClassTemplate) -> None:
    """Writes ``template`` under ``key`` (atomically); failures are logged, never raised."""
    folder = cache_dir()
    if key is None or folder is None:
        return
    try:
        fields = {name: getattr(template, name) for name in records.fields(template)}
        fields["expressions"] = template.expressions.serialize()
        data = pickle.dumps({"format": FORMAT, "key": key, "fields": fields}, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:    # noqa: BLE001 -- the cache is an optimisation: never fail for it
        log.debug("template of %s not cached (%s: %s)", template.class_name, type(err).__name__, err)
        return
    write_atomically(folder / f"{key}.pkl", data)


def mark_used(path: Path) -> None:
    """Sets ``path``'s modification time to now: the cache entry was just used (see Pruning)."""
    try:
        os.utime(path)
    except OSError:
        pass


# What physlib writes in its cache folder (templates of every format, the code-digest memos,
# native helpers and functions named <source>-<16 hex digits>.so, stored functions, and what a
# build or write that never finished left of them): pruning removes nothing else, whatever
# else a folder named by PHYSLIB_CACHE_DIR holds.
_OWN_FILES = ("templates-v*/*.pkl", "templates-v*/code-*", "templates-v*/.*.tmp", "*/*-" + "[0-9a-f]" * 16 + ".so",
              "*/.*-" + "[0-9a-f]" * 16 + ".so.*", "stored-v*/*-" + "[0-9a-f]" * 16 + ".casadi",
              "stored-v*/.*.tmp")


def prune(root: Path, unused_days: float = UNUSED_DAYS) -> None:
    """Removes physlib's files under ``root`` that no process has used for ``unused_days`` days;
    failures (a file removed by another process, a read-only folder) are logged, never raised."""
    cutoff = time.time() - unused_days * 86400.0
    for pattern in _OWN_FILES:
        try:
            files = list(root.glob(pattern))
        except OSError as err:
            log.debug("cache %s not pruned (%s)", root, err)
            continue
        for path in files:
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError as err:
                log.debug("%s not pruned (%s)", path, err)


def write_atomically(path: Path, data: bytes) -> None:
    """Writes ``data`` to a temporary file beside ``path`` and renames it into place, so a
    reader never sees half a file; failures are logged, never raised."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp",
                                         delete=False) as file:
            temporary = file.name
            file.write(data)
        os.replace(temporary, path)
        temporary = None
    except Exception as err:    # noqa: BLE001 -- the cache is an optimisation: never fail for it
        log.debug("%s not written (%s: %s)", path, type(err).__name__, err)
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


class _PlainUnpickler(pickle.Unpickler):
    """Loads plain data only (numbers, strings, bytes, lists, tuples, dicts, sets): an entry
    naming any class or function is refused, so a foreign file cannot run code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


def _class_source(cls: type) -> str | None:
    """A fingerprint of the source of ``cls``: the text of its module; None without one, and
    for a class its module does not hold under its name (made by ``type()`` or inside a
    function, as ``Add(k=[...])`` makes one class per number of inputs), unless the class
    names the module-level function that made it as ``__made_by__`` in its own namespace
    (a noise analysis's ``NoisyDiode``): then the text of that function's module, with the
    two names. Such a function must make the same class from the same bases every time
    (their sources are in the key as the rest of the MRO)."""
    if _held_by_module(cls):
        return _module_digest(cls.__module__)
    made_by = vars(cls).get("__made_by__")
    if made_by is None or not _held_by_module(made_by):
        return None
    digest = _module_digest(made_by.__module__)
    return None if digest is None else f"{digest}:{made_by.__qualname__}:{cls.__qualname__}"


def _held_by_module(obj) -> bool:
    """Whether ``obj`` (a class or function) is what its module holds under its name."""
    found = sys.modules.get(getattr(obj, "__module__", None) or "")
    for part in getattr(obj, "__qualname__", "<>").split("."):
        found = getattr(found, part, None)
    return found is obj


def _module_digest(name: str) -> str | None:
    """The digest of the text of module ``name``; None if it has no source file."""
    path = getattr(sys.modules.get(name), "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    return file_digest(path)


def file_digest(path: str) -> str:
    """The SHA-256 of the file's text, read again only when its size or time changed."""
    stat = os.stat(path)
    return _digest(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=None)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as file:
        return sha256(file.read()).hexdigest()


@lru_cache(maxsize=1)
def _environment() -> str:
    """physlib's version and deriving code, and the Python, CasADi and SymPy versions."""
    import physlib
    package = os.path.dirname(physlib.__file__)
    files = []
    for name in _DERIVING_MODULES:
        where = os.path.join(package, name)
        files += sorted(_python_files(where)) if os.path.isdir(where) else [where]
    return "|".join([physlib.__version__, _code_digest(files), sys.version.split()[0],
                     cs.__version__, _sympy_version()])


def _python_files(folder: str) -> list[str]:
    """The .py files under ``folder``, as paths. By os.scandir: pathlib's rglob and the sorting
    of Path objects took 10 ms of every process's first compile."""
    found = []
    for entry in os.scandir(folder):
        if entry.is_dir():
            found += _python_files(entry.path)
        elif entry.name.endswith(".py"):
            found.append(entry.path)
    return found


def _code_digest(paths: list[str]) -> str:
    """The digest of the text of the files ``paths``. Reading and hashing the hundred-odd
    modules of physlib's deriving code is a third of a small model's first compile, so the
    digest is kept in the cache folder under their paths, sizes and modification times (what
    Python trusts to reuse a module's bytecode) and read back by later processes."""
    stats = [os.stat(path) for path in paths]
    listing = "\0".join(f"{p}:{s.st_mtime_ns}:{s.st_size}" for p, s in zip(paths, stats))
    folder = cache_dir()
    memo = None if folder is None else folder / f"code-{sha256(listing.encode()).hexdigest()}"
    try:
        digest = memo.read_text() if memo is not None else ""
    except OSError:
        digest = ""
    if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
        mark_used(memo)
        return digest
    digest = sha256(b"".join(file_digest(path).encode() for path in paths)).hexdigest()
    if memo is not None:
        prune(folder.parent)         # physlib's code changed: entries of the old code are unreadable now
        write_atomically(memo, digest.encode())
    return digest


def _sympy_version() -> str:
    """SymPy's version without importing SymPy (which a cache hit is meant to avoid)."""
    spec = importlib.util.find_spec("sympy")
    if spec is None or not spec.origin:
        return "none"
    release = Path(spec.origin).parent / "release.py"
    return file_digest(str(release)) if release.exists() else file_digest(spec.origin)


def _plain(value) -> str:
    """A canonical text of a structure key made of plain data; TypeError for anything else
    (its repr might not tell two values apart, or might change between processes)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}(" + ",".join(_plain(v) for v in value) + ")"
    if isinstance(value, (frozenset, set)):
        return f"{type(value).__name__}(" + ",".join(sorted(_plain(v) for v in value)) + ")"
    if isinstance(value, dict):
        return "dict(" + ",".join(sorted(f"{_plain(k)}:{_plain(v)}" for k, v in value.items())) + ")"
    module = type(value).__module__
    if module == "numpy" and hasattr(value, "dtype"):          # a NumPy scalar or array
        import numpy as np
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise TypeError("a NumPy array of objects")
        digest = sha256(np.ascontiguousarray(array).tobytes()).hexdigest()
        return f"ndarray({array.dtype.str},{array.shape},{digest})"
    raise TypeError(f"structure key holds a {type(value).__name__}")
