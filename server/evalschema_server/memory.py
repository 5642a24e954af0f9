"""Handing freed memory back to the system after a run.

A run parses and scores every changed record, then lets the values go; CPython returns
the small objects to its own pools, but the C allocator keeps the freed pages of larger
blocks (record texts, parsed documents) in the process unless asked to trim them. On
glibc (Linux) ``malloc_trim`` does that, and ``mallopt`` keeps the runs' worker thread in
the main arena; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache

#: glibc's ``mallopt`` parameter for the most arenas (``malloc.h``).
M_ARENA_MAX = -8


@cache
def _libc(name: str) -> Callable[..., int] | None:
    """A glibc allocator function by name; None elsewhere."""
    path = ctypes.util.find_library("c")
    if path is None:
        return None
    try:
        fn: Callable[..., int] = getattr(ctypes.CDLL(path), name)
    except (OSError, AttributeError):  # not glibc
        return None
    return fn


def release() -> bool:
    """Return the allocator's free pages to the system; False where it cannot."""
    fn = _libc("malloc_trim")
    if fn is None:
        return False
    fn(0)
    return True


def one_arena() -> bool:
    """Make every thread allocate from the main arena (glibc); False where it cannot.

    glibc gives each new thread an arena of its own: the worker thread's runs then leave
    their freed pages in a second heap, beside the event loop's, and the server keeps
    ~9 MB more at 10,000 records (147 against 156 MB). Python's threads take turns
    under the GIL, so one arena costs them nothing. Called before the first thread starts.
    """
    fn = _libc("mallopt")
    return fn is not None and fn(M_ARENA_MAX, 1) == 1
