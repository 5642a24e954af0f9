"""Batch judging (``evalschema.scoring.batches``): one call per batch comparator and
record; a judge that fails, miscounts or gives no score leaves a batch error, never a
crash; scores are clamped and judged against the node's threshold."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from evalschema.results import FieldResult, Status
from evalschema.scoring.batches import run_batches
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
