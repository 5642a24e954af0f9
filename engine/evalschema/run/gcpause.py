"""Pausing Python's cyclic garbage collector during allocation bursts.

A run keeps every FieldResult it builds; each collection triggered along the way
re-scans that growing, all-reachable heap (40% of a run's time here). Our results
hold no reference cycles, so reference counting frees everything that is dropped
and the collector can safely wait until the burst is over.

When it is over, the objects the burst allocated are still in the youngest
generation, and the next allocation would make the collector scan them all (7–10 µs
a record in a run that keeps its results, a fifth of its time or more) only to find
what we know: they are alive and hold no cycles. ``promote=True`` moves them straight
to the oldest generation instead (``gc.freeze()`` then ``gc.unfreeze()``: two list
splices), where a full collection still examines them. That is where they would
end up after surviving two young collections anyway; all it saves is those scans.
Objects the caller allocated just before the pause ride along; a cycle among them
is then freed by the next full collection rather than by a young one. Skipped when
the process has frozen objects of its own (``gc.freeze()`` callers, e.g. before a
fork), as unfreezing would thaw them.

``freeze=True`` is for a long-lived process that keeps each burst's results until the
next one (the language server): the objects go to the permanent generation and stay
there, never scanned again. Reference counting still frees them; only a reference cycle
among them would wait for ``gc.unfreeze()``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(*, promote: bool = False, freeze: bool = False) -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if freeze:
                gc.freeze()
            elif promote and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
