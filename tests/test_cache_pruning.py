"""physlib's cache folder does not grow without bound: every physlib upgrade (or edit) changes
every template key, so the entries of the old code can never be read again. The first process
of a changed physlib removes what nothing has used for UNUSED_DAYS days; a read marks an entry
used (its modification time), so entries in use survive however old they are."""
import os
import time

from physlib.assembly import template_cache, templates

from test_electrical_transients import rc_model

DAY = 86400.0


def _compile_afresh(monkeypatch):
    """Compiles the RC circuit as a new process would: no templates in memory, the code digest
    looked up in the cache folder."""
    monkeypatch.setattr(templates, "_cache", {})
    template_cache._environment.cache_clear()
    try:
        rc_model().compile()
    finally:
        template_cache._environment.cache_clear()


def _age(path, days):
    old = time.time() - days * DAY
    os.utime(path, (old, old))


def test_a_changed_physlib_removes_entries_unused_for_the_pruning_age(tmp_path, monkeypatch):
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path))
    templates = tmp_path / f"templates-v{template_cache.FORMAT}"
    stale = [templates / f"{'0' * 64}.pkl", templates / "code-old", tmp_path / "callbacks" / "helper-0123456789abcdef.so",
             tmp_path / "templates-v0" / "entry.pkl",                 # an older format's folder too
             tmp_path / "rows" / ".row-0123456789abcdef.so.4242.c",   # a background build that died
             tmp_path / "rows" / ".row-0123456789abcdef.so.4242.partial"]
    recent = templates / f"{'1' * 64}.pkl"
    foreign = [tmp_path / "notes.txt", tmp_path / "callbacks" / "mine.so"]   # not physlib's: kept
    for path in [*stale, recent, *foreign]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    for path in [*stale, *foreign]:
        _age(path, template_cache.UNUSED_DAYS + 1)
    _age(recent, template_cache.UNUSED_DAYS - 1)

    _compile_afresh(monkeypatch)                    # no memo of this code's digest there yet
    assert not any(path.exists() for path in stale)
    assert recent.exists() and all(path.exists() for path in foreign)
    assert list(templates.glob("code-*")) and list(templates.glob("*.pkl"))   # the new code's own


def test_reading_an_entry_marks_it_used(tmp_path, monkeypatch):
    monkeypatch.setenv("PHYSLIB_CACHE_DIR", str(tmp_path))
    _compile_afresh(monkeypatch)                    # derives and stores the templates
    entries = list((tmp_path / f"templates-v{template_cache.FORMAT}").glob("*"))
    for path in entries:
        _age(path, template_cache.UNUSED_DAYS + 1)
    _compile_afresh(monkeypatch)                    # reads them back: each marked used now
    assert entries and all(time.time() - path.stat().st_mtime < DAY for path in entries)
