"""SHA-256, the digest that keys physlib's on-disk caches (class templates, compiled C
functions, stored CasADi functions), taken from CPython's own implementation as its
``random`` module takes its SHA-512: importing :mod:`hashlib` loads OpenSSL's library first
(2.8 ms and 3.8 MiB of a script that compiles and simulates a small model), which no key
needs. The digests are the same."""
from __future__ import annotations

try:
    from _sha256 import sha256          # CPython 3.11
except ImportError:                     # pragma: no cover - CPython 3.12+ (_sha2), or another Python
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256

__all__ = ["sha256"]
