"""Freed memory goes back to the system after a run (glibc's ``malloc_trim``), and the
runs' worker thread allocates from the main arena (``mallopt(M_ARENA_MAX, 1)``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


#: A fresh interpreter: the arenas in use once a thread has allocated (glibc's
#: ``malloc_info`` lists one ``<heap nr=...>`` each), after ``one_arena()`` or not.
_ARENAS = """
import ctypes, ctypes.util, sys, tempfile, threading
from evalschema_server.memory import one_arena
if sys.argv[1] == "one":
    assert one_arena() is True
kept = []
t = threading.Thread(target=lambda: kept.extend(bytes(4000) for _ in range(2000)))
t.start(); t.join()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    fp = libc.fopen(f.name.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(fp))
    libc.fclose(ctypes.c_void_p(fp))
    print(open(f.name).read().count("<heap nr="))
"""


@pytest.mark.parametrize(("how", "arenas"), [("one", 1), ("default", 2)])
def test_a_thread_allocates_from_the_main_arena(how: str, arenas: int) -> None:
    done = subprocess.run([sys.executable, "-c", _ARENAS, how], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == arenas


_MAIN = """
import sys
import evalschema_server.memory as memory, evalschema_server.server as server
calls = []
memory.one_arena = lambda: calls.append("one_arena") or True
class Fake:
    def start_io(self):
        calls.append("start_io")
        print(" ".join(calls))
        return 0
server.create_server = lambda: calls.append("create_server") or Fake()
from evalschema_server.__main__ import main
main([])
"""


def test_the_server_takes_one_arena_before_it_starts() -> None:
    """``python -m evalschema_server``'s ``main``: before the server is made (runs start
    their worker thread later)."""
    done = subprocess.run([sys.executable, "-c", _MAIN], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["one_arena", "create_server", "start_io"]
