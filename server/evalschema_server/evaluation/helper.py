"""A second core for a run that scores many records: a helper process takes the run's
tasks from the back while the run's thread scores from the front, until they meet.

A first run, or a full re-score after the schema changed, scores every record (10,000
records: seconds); a save after an edit scores a block or two, which no helper would
speed up, so one is started only for ``MIN_RECORDS`` records or more and stopped when the
run ends (it holds nothing between runs). The thread never waits for the helper to start:
it takes each task it reaches that the helper has not begun (``Future.cancel``), so a
helper that is slow to start, or never starts, costs nothing but its start. A helper that
fails is given up on and its tasks are done here: the results never depend on it.

The helper is spawned, not forked (this process runs threads), with the current folder off
its ``sys.path`` (``safe_path_children``); it writes nothing to the standard output this
process speaks LSP on, and runs at a lower priority (``NICER``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, Generic, TypeVar

from evalschema.run.parallel import safe_path_children

T = TypeVar("T")

#: Records a run must score before it starts a helper: the helper's start (~0.5 s here:
#: an interpreter importing the engine) must be well under what it takes off.
MIN_RECORDS = 4096


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


#: How much lower the helper's scheduling priority is than the server's: where the cores
#: are short, the editor's requests and the run's own thread come first.
NICER = 5


def _start() -> None:
    """In the helper, first: its standard output is the editor's LSP stream (send it to
    stderr), and it yields the cores to the server."""
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with contextlib.suppress(OSError, AttributeError):  # not on every platform
        os.nice(NICER)


class Helper(Generic[T]):
    """One helper process, and the tasks of the run it shares them with: the run's thread
    takes them from the front (``take``), the helper from the back, each task made and
    sent only when the helper is about to need it (``feed``: two at a time)."""

    def __init__(self) -> None:
        self._tasks: dict[int, Future[T]] = {}
        self._left: deque[int] = deque()
        self._fn: Callable[..., T] | None = None
        self._make: Callable[[int], tuple[Any, ...]] | None = None
        self._pool: ProcessPoolExecutor | None = None
        #: Done once the helper has started (its process id).
        self.started: Future[int] | None = None
        with safe_path_children():
            try:
                self._pool = ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"), initializer=_start)
                self.started = self._pool.submit(os.getpid)  # it starts now, not at a task
            except Exception:  # no process to be had: the run's thread does it all
                self.close()

    def share(self, fn: Callable[..., T], make: Callable[[int], tuple[Any, ...]],
              numbers: Sequence[int]) -> None:
        """Tasks ``fn(*make(n))`` for each ``n`` of ``numbers``, in the run's order."""
        self._fn, self._make = fn, make
        self._left = deque(numbers)
        self.feed()

    def feed(self) -> None:
        """Send the helper the last tasks left, until two are in its hands."""
        pool, fn, make = self._pool, self._fn, self._make
        if pool is None or fn is None or make is None:
            return
        busy = sum(not f.done() for f in self._tasks.values())
        try:
            while busy < 2 and self._left:
                number = self._left.pop()
                self._tasks[number] = pool.submit(fn, *make(number))
                busy += 1
        except Exception:  # the helper is gone (BrokenProcessPool) or cannot be started
            self.close()

    def take(self, number: int, check: Callable[[], None]) -> T | None:
        """Task ``number``'s result from the helper, or None when it is this thread's to do
        (not sent, or the helper failed). ``check`` is called while waiting for a task the
        helper is doing (it raises to stop the wait)."""
        if self._left and self._left[0] == number:
            self._left.popleft()
            self.feed()
            return None
        future = self._tasks.pop(number, None)
        if future is None or future.cancel():
            return None
        while True:
            try:
                return future.result(timeout=0.05)
            except FutureTimeout:
                check()
            except Exception:  # the helper failed: this and its other tasks are done here
                self.close()
                return None

    def close(self) -> None:
        """Stop the helper: tasks not begun are dropped, one begun is left to finish."""
        pool, self._pool = self._pool, None
        for future in self._tasks.values():
            future.cancel()
        self._tasks.clear()
        self._left.clear()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class Helping(Generic[T]):
    """A run's helper, started when the run finds it worth it (``start``), and stopped
    when the run ends, however it ends."""

    def __init__(self, *, enabled: bool = True) -> None:
        #: Whether a helper may be started (the ``helperProcess`` setting).
        self.enabled = enabled
        self.helper: Helper[T] | None = None

    def start(self) -> None:
        if self.helper is None:
            self.helper = Helper()

    def __enter__(self) -> Helping[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.helper is not None:
            self.helper.close()
