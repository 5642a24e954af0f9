"""When suites run (evaluation/scheduler.py): requests within the debounce make one run, a
newer request supersedes a run in progress, cancellation reaches the waiting caller, and
runs read the editor's texts. Real runs of the ``eval_workspace`` suite, on the worker
threads; a build that waits on an event holds a run in progress where a test needs it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from eval_workspace import EXTRACTED_LINES, write_suite

from evalschema_server.evaluation.runner import SuiteOutcome
from evalschema_server.evaluation.scheduler import Hooks, Scheduler
from evalschema_server.evaluation.suites import Suite, discover


class Recorder:
    """The hooks, recording (event, run id, detail) in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []
        #: Whether the scheduler said "pending" when each finished/cancelled/failed hook ran.
        self.pending: list[bool] = []
        self.scheduler: Scheduler | None = None
        self.hooks = Hooks(self.queued, self.dropped, self.started, self.progress,
                           self.finished, self.cancelled, self.failed)

    def _pending(self, key: str) -> None:
        assert self.scheduler is not None
        self.pending.append(self.scheduler.pending(key))

    def queued(self, suite: Suite) -> None:
        self.events.append(("queued", "", suite.key))

    def dropped(self, suite: Suite) -> None:
        self.events.append(("dropped", "", suite.key))

    async def started(self, suite: Suite, run_id: str) -> None:
        self.events.append(("started", run_id, suite.key))

    def progress(self, suite: Suite, run_id: str, done: int, total: int) -> None:
        pass

    async def finished(self, outcome: SuiteOutcome, run_id: str, built: Any) -> None:
        self.events.append(("finished", run_id, built))
        self._pending(outcome.suite.key)

    async def cancelled(self, suite: Suite, run_id: str) -> None:
        self.events.append(("cancelled", run_id, None))
        self._pending(suite.key)

    async def failed(self, suite: Suite, run_id: str, exc: BaseException) -> None:
        self.events.append(("failed", run_id, exc))
        self._pending(suite.key)

    def of(self, kind: str) -> list[tuple[str, str, Any]]:
        return [e for e in self.events if e[0] == kind]

    async def until(self, check: Callable[[], bool], timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, f"timed out; events: {self.events}"
            await asyncio.sleep(0.01)


class Gate:
    """A build that holds the first run in progress until ``open``; numbers each build."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self._gate = threading.Event()
        self.calls = 0

    def __call__(self, outcome: SuiteOutcome, texts: dict[Path, str]) -> int:
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            self._gate.wait(10)
        return self.calls

    def open(self) -> None:
        self._gate.set()


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    files = write_suite(tmp_path / "p")
    [found] = discover([files["schema"].parent.resolve()], lambda p: p.read_text("utf-8")).suites
    return found


@pytest.fixture
async def parts() -> AsyncIterator[tuple[Recorder, Gate, list[Scheduler]]]:
    made: list[Scheduler] = []
    yield Recorder(), Gate(), made
    for s in made:
        s.shutdown()


def scheduler(parts: tuple[Recorder, Gate, list[Scheduler]],
              snapshot: Callable[[Suite], dict[Path, str]] = lambda s: {}) -> Scheduler:
    rec, gate, made = parts
    made.append(Scheduler(rec.hooks, snapshot, gate))
    rec.scheduler = made[-1]
    return made[-1]


async def test_requests_within_the_debounce_make_one_run(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    rec, gate, _ = parts
    gate.open()
    sched = scheduler(parts)
    for _ in range(3):
        sched.request(suite, 0.05)
    await rec.until(lambda: bool(rec.of("finished")))
    await asyncio.sleep(0.1)  # nothing else comes
    assert [e[0] for e in rec.events] == ["queued", "started", "finished"]
    assert gate.calls == 1 and not sched.active and not sched.timers
    assert rec.pending == [False]  # the figures that arrive are current


async def test_a_request_while_pending_is_not_queued_again(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    """One "queued" per idle → pending change, however many keystrokes follow."""
    rec, gate, _ = parts
    sched = scheduler(parts)
    sched.request(suite, 0)
    await rec.until(gate.entered.is_set)  # in progress
    sched.request(suite, 10)  # during the run, then during the debounce
    sched.request(suite, 10)
    assert rec.of("queued") == [("queued", "", suite.key)] and sched.pending(suite.key)
    gate.open()
    await rec.until(lambda: bool(rec.of("cancelled")))
    assert rec.pending == [True]  # superseded, and the newer run is still waiting
    sched.cancel(suite.key)
    assert rec.of("dropped") == [("dropped", "", suite.key)] and not sched.pending(suite.key)
    sched.request(suite, 10)  # idle again: queued again
    assert len(rec.of("queued")) == 2


async def test_cancelling_a_run_that_never_started_says_so(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    rec, gate, _ = parts
    gate.open()
    sched = scheduler(parts)
    sched.request(suite, 10)
    assert sched.cancel(suite.key) is True
    assert [e[0] for e in rec.events] == ["queued", "dropped"]
    assert sched.cancel(suite.key) is False and len(rec.of("dropped")) == 1


async def test_a_run_that_fails_ends_with_its_run_id(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    """The server ends the run's progress and tells the client (else "updating" forever)."""
    rec, _, made = parts

    def broken(outcome: SuiteOutcome, texts: dict[Path, str]) -> Any:
        raise ValueError("boom")

    made.append(sched := Scheduler(rec.hooks, lambda s: {}, broken))
    rec.scheduler = sched
    assert await sched.run(suite) is None
    [(_, run_id, _)] = rec.of("started")
    [(_, failed_id, exc)] = rec.of("failed")
    assert failed_id == run_id and str(exc) == "boom" and rec.pending == [False]


async def test_a_newer_request_supersedes_the_run_in_progress(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    rec, gate, _ = parts
    sched = scheduler(parts)
    sched.request(suite, 0)
    await rec.until(gate.entered.is_set)  # the first run is building its diagnostics
    sched.request(suite, 0)
    await rec.until(lambda: len(rec.of("started")) == 2)
    gate.open()
    await rec.until(lambda: bool(rec.of("finished")))
    first, second = (e[1] for e in rec.of("started"))
    assert rec.events[3:] == [("cancelled", first, None), ("finished", second, 2)]
    assert rec.pending == [True, False]


async def test_run_returns_the_outcome_of_the_editor_texts(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    rec, gate, _ = parts
    gate.open()
    extracted = suite.config.extracted[0]
    fixed = EXTRACTED_LINES[0].replace("13.9", "12.5")
    text = "\n".join([fixed, *EXTRACTED_LINES[1:]]) + "\n"
    sched = scheduler(parts, lambda s: {extracted: text})
    outcome = await sched.run(suite)
    assert outcome is not None and outcome.texts[extracted] == text
    [run] = outcome.runs
    assert run.result.per_field["price"].counts.mismatches == 0  # the disk says 13.9
    assert rec.of("finished")[0][2] == 1


async def test_cancelling_a_run_answers_its_caller_with_none(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    rec, gate, _ = parts
    sched = scheduler(parts)
    caller = asyncio.get_running_loop().create_task(sched.run(suite))
    await rec.until(gate.entered.is_set)
    [(_, run_id, _)] = rec.of("started")
    assert sched.cancel_run(run_id) is True  # as work-done progress cancels it
    assert await asyncio.wait_for(caller, 5) is None
    gate.open()
    await rec.until(lambda: bool(rec.of("cancelled")))
    assert rec.of("cancelled") == [("cancelled", run_id, None)] and not rec.of("finished")
    assert sched.cancel_run(run_id) is False  # nothing left to cancel


async def test_forgotten_suites_lose_their_cache(
        suite: Suite, parts: tuple[Recorder, Gate, list[Scheduler]]) -> None:
    _, gate, _ = parts
    gate.open()
    sched = scheduler(parts)
    assert await sched.run(suite) is not None
    assert set(sched.caches) == {suite.key}
    sched.forget({suite.key})
    assert set(sched.caches) == {suite.key}
    sched.forget(set())
    assert sched.caches == {}
