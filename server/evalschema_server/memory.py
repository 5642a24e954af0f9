"""Handing freed memory back to the system after a run.

A run parses and scores every changed record, then lets the values go; CPython returns
the small objects to its own pools, but the C allocator keeps the freed pages of larger
blocks (record texts, parsed documents) in the process unless asked to trim them. On
glibc (Linux) ``malloc_trim`` does that; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import cache


@cache
def _trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        fn: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return fn


def release() -> bool:
    """Return the allocator's free pages to the system; False where it cannot."""
    fn = _trim()
    if fn is None:
        return False
    fn(0)
    return True
