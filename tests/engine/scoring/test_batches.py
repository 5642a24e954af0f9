"""Batch judging (``evalschema.scoring.batches``): one call per batch comparator and
record; a judge that fails, miscounts or gives no score leaves a batch error, never a
crash; scores are clamped and judged against the node's threshold."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from hang_budget import HANG_SECONDS

from evalschema.results import FieldResult, Status
from evalschema.scoring.batches import concurrency, judge_window, run_batches
from evalschema.scoring.walk import PendingBatch


def _pending(judge: Any, threshold: float = 0.5) -> tuple[list[FieldResult], PendingBatch]:
    results = [FieldResult("x", "x", Status.MATCH, 1.0),
               FieldResult("a", "a", Status.PENDING, 0.0),
               FieldResult("b", "b", Status.PENDING, 0.0)]
    node = SimpleNamespace(batch=judge, threshold=threshold)
    return results, PendingBatch(node, [1, 2], [("g1", "e1"), ("g2", "e2")])  # type: ignore[arg-type]


def test_scores_are_clamped_and_judged_against_the_threshold() -> None:
    calls: list[Sequence[tuple[Any, Any]]] = []

    def judge(pairs: Sequence[tuple[Any, Any]]) -> list[float]:
        calls.append(list(pairs))
        return [1.7, 0.2]

    results, batch = _pending(judge)
    out = run_batches(results, [batch])
    assert calls == [[("g1", "e1"), ("g2", "e2")]]
    assert [(r.status, r.score) for r in out] == [
        (Status.MATCH, 1.0), (Status.MATCH, 1.0), (Status.MISMATCH, 0.2)]
    assert results[1].status is Status.PENDING  # the input list is left as it was


def test_a_score_at_the_threshold_matches_and_one_below_zero_is_zero() -> None:
    out = run_batches(*_swap(_pending(lambda pairs: [0.5, -0.3], threshold=0.5)))
    assert [(r.status, r.score) for r in out[1:]] == [
        (Status.MATCH, 0.5), (Status.MISMATCH, 0.0)]


def test_a_judge_that_fails_or_miscounts_leaves_batch_errors() -> None:
    def boom(pairs: Sequence[tuple[Any, Any]]) -> list[float]:
        raise RuntimeError("down")

    out = run_batches(*_swap(_pending(boom)))
    assert [(r.status, r.reason) for r in out[1:]] == [
        (Status.BATCH_ERROR, "RuntimeError: down")] * 2
    out = run_batches(*_swap(_pending(lambda pairs: [1.0])))
    assert {r.reason for r in out[1:]} == {"judge returned 1 scores for 2 fields"}


def test_a_missing_score_is_a_batch_error_for_that_field_only() -> None:
    out = run_batches(*_swap(_pending(lambda pairs: [None, 0.9])))
    assert [(r.status, r.reason) for r in out[1:]] == [
        (Status.BATCH_ERROR, "the judge gave no score for this field"), (Status.MATCH, None)]


def _swap(pending: tuple[list[FieldResult], PendingBatch]
          ) -> tuple[list[FieldResult], list[PendingBatch]]:
    return pending[0], [pending[1]]


# -- judge_window: many records' batches at once --------------------------------------

class Concurrent:
    """A batch comparator that declares ``concurrency``: each call waits at a barrier
    that only ``concurrency`` calls in flight together can pass."""

    def __init__(self, concurrency: int, scores: dict[str, float | None]) -> None:
        self.concurrency = concurrency
        self.barrier = threading.Barrier(concurrency, timeout=HANG_SECONDS)
        self.scores = scores
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, pairs: Sequence[tuple[Any, Any]]) -> list[float | None]:
        with self.lock:
            self.threads.add(threading.current_thread().name)
        self.barrier.wait()
        if pairs[0][0] == "boom":
            raise RuntimeError("down")
        return [self.scores[g] for g, _ in pairs]


def _records(judge: Any, golds: Sequence[Sequence[str]]
             ) -> list[tuple[list[FieldResult], list[PendingBatch]]]:
    """One record per entry of ``golds``: a matched field, then one pending leaf per gold."""
    node = SimpleNamespace(batch=judge, threshold=0.5)
    out = []
    for gs in golds:
        results = [FieldResult("id", "id", Status.MATCH, 1.0)] + [
            FieldResult(f"f{k}", f"f{k}", Status.PENDING, 0.0) for k in range(len(gs))]
        batch = PendingBatch(node, list(range(1, len(gs) + 1)), [(g, "e") for g in gs])  # type: ignore[arg-type]
        out.append((results, [batch]))
    return out


def test_a_window_judges_its_records_concurrently_with_the_results_of_one_at_a_time() -> None:
    """Eight records, a judge allowing 4 calls at once: the calls pass a barrier of 4
    (one at a time they never could), and each record's results are exactly what
    ``run_batches`` gives record by record: scores, statuses, errors and reasons."""
    scores: dict[str, float | None] = {"a": 0.9, "b": 0.1, "c": None, "d": 1.4}
    golds = [["a"], ["b", "a"], ["c"], ["boom"], ["d", "b"], ["a"], ["b"], ["c", "d"]]
    judge = Concurrent(4, scores)
    got = judge_window(_records(judge, golds))
    assert not judge.barrier.broken
    assert len(judge.threads) == 4 and threading.current_thread().name not in judge.threads
    one_by_one = Concurrent(1, scores)
    want = [run_batches(results, pending) for results, pending in _records(one_by_one, golds)]
    assert got == want
    assert [[(str(r.status), r.score, r.reason) for r in rec[1:]] for rec in got] == [
        [("match", 0.9, None)],
        [("mismatch", 0.1, None), ("match", 0.9, None)],
        [("batch_error", 0.0, "the judge gave no score for this field")],
        [("batch_error", 0.0, "RuntimeError: down")],
        [("match", 1.0, None), ("mismatch", 0.1, None)],
        [("match", 0.9, None)],
        [("mismatch", 0.1, None)],
        [("batch_error", 0.0, "the judge gave no score for this field"), ("match", 1.0, None)],
    ]


def test_a_comparator_without_concurrency_is_called_one_record_at_a_time_in_order() -> None:
    """Custom batch comparators (``register_comparator(batch=True)``) may not be thread
    safe: they are called on the caller's thread, in record order, as before."""
    calls: list[tuple[str, str]] = []

    def judge(pairs: Sequence[tuple[Any, Any]]) -> list[float]:
        calls.append((threading.current_thread().name, pairs[0][0]))
        return [1.0] * len(pairs)

    judge_window(_records(judge, [["r1"], ["r2"], ["r3"]]))
    me = threading.current_thread().name
    assert calls == [(me, "r1"), (me, "r2"), (me, "r3")]


def test_concurrent_calls_run_in_the_callers_context() -> None:
    """The judge reads its run's cancellation from a context variable: the threads of a
    window see the caller's value."""
    seen: list[str | None] = []
    var: contextvars.ContextVar[str | None] = contextvars.ContextVar("run", default=None)

    class Judge:
        concurrency = 2

        def __call__(self, pairs: Sequence[tuple[Any, Any]]) -> list[float]:
            seen.append(var.get())
            return [1.0]

    token = var.set("run-1")
    try:
        judge_window(_records(Judge(), [["a"], ["b"], ["c"]]))
    finally:
        var.reset(token)
    assert seen == ["run-1"] * 3


def test_concurrency_is_read_only_from_a_whole_number_above_one() -> None:
    def plain(pairs: Sequence[tuple[Any, Any]]) -> list[float]:
        return [1.0]

    for judge, want in [(plain, 1), (SimpleNamespace(concurrency=3), 3),
                        (SimpleNamespace(concurrency="8"), 1),
                        (SimpleNamespace(concurrency=0), 1)]:
        ((_, (batch,)),) = _records(judge, [["a"]])
        assert concurrency(batch) == want
