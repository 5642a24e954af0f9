"""When suites run: debounced, off the event loop, superseded by newer runs.

A request for a suite that is running cancels that run (it stops at its next record
batch) and queues a fresh one; several requests within the debounce make one run.
Callers that need the answer (commands) await ``run``; saves and file events only
``request``. The event loop never waits on scoring: runs execute on worker threads,
so completion and hover are answered while a run is in progress.

Runs of different suites go on separate lanes (``LANES`` worker threads), so a suite
that is slow for a reason outside our control (an LLM judge that hangs until its
deadline, a custom comparator that sleeps) never holds up the others. Runs of one suite
are serialised by a lock of that suite: a superseded run finishes (at its next batch)
before the newer one touches the suite's cache.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runner import Cancelled, CancelToken, SuiteCache, SuiteOutcome, run_suite
from .suites import Suite

#: Suites that may run at the same time. Scoring holds the GIL, so more lanes would
#: not score faster; they exist so that runs waiting on the network or a sleeping
#: comparator leave room for the others, while bounding the memory of concurrent runs.
LANES = 4

#: suite -> the editor texts of its open files, taken on the event loop.
Snapshot = Callable[[Suite], dict[Path, str]]
#: (outcome, the texts it was run on) -> what the server shows, built on the worker
#: thread too (locating thousands of findings must not hold up the event loop).
Build = Callable[[SuiteOutcome, dict[Path, str]], Any]


@dataclass
class Hooks:
    """What the server does around a run (all called on the event loop)."""

    #: A suite that was idle has a run pending (the client shows "updating" from now on).
    queued: Callable[[Suite], None]
    #: A pending run was cancelled before it started (no started/finished will follow).
    dropped: Callable[[Suite], None]
    started: Callable[[Suite, str], Awaitable[None]]
    progress: Callable[[Suite, str, int, int], None]
    finished: Callable[[SuiteOutcome, str, Any], Awaitable[None]]
    cancelled: Callable[[Suite, str], Awaitable[None]]
    failed: Callable[[Suite, str, BaseException], Awaitable[None]]


@dataclass
class _Active:
    token: CancelToken
    run_id: str


@dataclass
class Scheduler:
    hooks: Hooks
    snapshot: Snapshot
    build: Build
    #: Bumped when registered comparators change, so cached scores are not reused.
    generation: int = 0
    #: Whether runs may share many records with a helper process (``helperProcess``).
    helper: Callable[[], bool] = lambda: True
    caches: dict[str, SuiteCache] = field(default_factory=dict)
    active: dict[str, _Active] = field(default_factory=dict)
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)
    waiters: dict[str, list[asyncio.Future[SuiteOutcome | None]]] = field(default_factory=dict)
    suites: dict[str, Suite] = field(default_factory=dict)
    _executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(LANES, thread_name_prefix="evalschema-run"))
    #: One lock per suite: its runs never overlap (they share the suite's cache).
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    #: Building what the server shows shares caches across suites: one build at a time.
    _build_lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def request(self, suite: Suite, delay: float = 0.05) -> None:
        """Run ``suite`` after ``delay`` seconds of quiet, superseding a run in progress."""
        self.suites[suite.key] = suite
        if not self.pending(suite.key):
            self.hooks.queued(suite)
        old = self.timers.pop(suite.key, None)
        if old is not None:
            old.cancel()
        active = self.active.get(suite.key)
        if active is not None:
            active.token.cancel()
        loop = asyncio.get_running_loop()
        self.timers[suite.key] = loop.call_later(delay, self._start, suite.key)

    async def run(self, suite: Suite) -> SuiteOutcome | None:
        """Run ``suite`` now (superseding any run of it) and return its outcome; None when
        that run was itself superseded and the newer one was cancelled."""
        fut: asyncio.Future[SuiteOutcome | None] = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(suite.key, []).append(fut)
        self.request(suite, 0)
        try:
            return await fut
        except asyncio.CancelledError:
            self.cancel(suite.key)
            raise

    def pending(self, key: str) -> bool:
        """Whether a run of ``key`` is waiting for its debounce or in progress."""
        return key in self.timers or key in self.active

    def cancel(self, key: str) -> bool:
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        active = self.active.get(key)
        if active is not None:
            active.token.cancel()
        elif timer is not None and (suite := self.suites.get(key)) is not None:
            self.hooks.dropped(suite)  # the run never started: nothing else will say so
        self._resolve(key, None)
        return timer is not None or active is not None

    def cancel_run(self, run_id: str) -> bool:
        for key, active in list(self.active.items()):
            if active.run_id == run_id:
                return self.cancel(key)
        return False

    def cancel_all(self) -> None:
        for key in {*self.timers, *self.active}:
            self.cancel(key)

    def forget(self, keep: set[str]) -> None:
        """Drop the caches of suites that no longer exist."""
        for key in list(self.caches):
            if key not in keep:
                self.cancel(key)
                del self.caches[key]
                self._locks.pop(key, None)

    def shutdown(self) -> None:
        self.cancel_all()
        self._executor.shutdown(wait=False, cancel_futures=True)

    # -- internals ----------------------------------------------------------

    def _start(self, key: str) -> None:
        self.timers.pop(key, None)
        suite = self.suites.get(key)
        if suite is None:
            return
        task = asyncio.get_running_loop().create_task(self._run(suite))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, suite: Suite) -> None:
        key = suite.key
        previous = self.active.get(key)
        token = CancelToken()
        run_id = f"evalschema-run-{next(self._ids)}"
        self.active[key] = _Active(token, run_id)
        if previous is not None:
            previous.token.cancel()
        loop = asyncio.get_running_loop()
        texts = self.snapshot(suite)
        cache = self.caches.setdefault(key, SuiteCache())
        lock = self._locks.setdefault(key, threading.Lock())

        def progress(done: int, total: int) -> None:
            loop.call_soon_threadsafe(self.hooks.progress, suite, run_id, done, total)

        try:
            await self.hooks.started(suite, run_id)
            outcome, built = await loop.run_in_executor(
                self._executor, self._job, suite, texts, cache, token, progress, lock)
        except Cancelled:
            await self._after_cancel(suite, run_id, key)
            return
        except Exception as exc:  # never let a run take the server down
            self._clear(key, run_id)
            await self.hooks.failed(suite, run_id, exc)
            self._resolve(key, None)
            return
        if token.cancelled:
            await self._after_cancel(suite, run_id, key)
            return
        self._clear(key, run_id)
        await self.hooks.finished(outcome, run_id, built)
        self._resolve(key, outcome)

    def _job(self, suite: Suite, texts: dict[Path, str], cache: SuiteCache, token: CancelToken,
             progress: Callable[[int, int], None], lock: threading.Lock
             ) -> tuple[SuiteOutcome, Any]:
        with lock:
            token.check()  # superseded while the previous run of this suite finished
            outcome = run_suite(suite, texts, cache, token, progress, self.generation,
                                helper=self.helper())
            token.check()
            with self._build_lock:
                return outcome, self.build(outcome, texts)

    async def _after_cancel(self, suite: Suite, run_id: str, key: str) -> None:
        self._clear(key, run_id)
        await self.hooks.cancelled(suite, run_id)
        if key not in self.active and key not in self.timers:
            self._resolve(key, None)

    def _clear(self, key: str, run_id: str) -> None:
        active = self.active.get(key)
        if active is not None and active.run_id == run_id:
            del self.active[key]

    def _resolve(self, key: str, outcome: SuiteOutcome | None) -> None:
        for fut in self.waiters.pop(key, []):
            if not fut.done():
                fut.set_result(outcome)
