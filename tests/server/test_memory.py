"""Freed memory goes back to the system after a run (glibc's ``malloc_trim``)."""

from __future__ import annotations

from pathlib import Path

from evalschema_server.memory import release


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_release_returns_freed_pages_to_the_system() -> None:
    """As a run leaves the heap: blocks of record texts freed between ones kept (the
    allocator keeps the holes, as its heap cannot shrink past the kept blocks)."""
    blocks = [bytes(4000) for _ in range(20_000)]  # 80 MB of malloc'd blocks
    kept = blocks[::10]
    del blocks  # 72 MB free, in holes between the kept tenth
    before = _rss_mb()
    assert release() is True
    assert before - _rss_mb() > 40
    assert len(kept) == 2_000
