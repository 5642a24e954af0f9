"""Batch judging: the leaves a batch comparator (an LLM judge) left pending in a record's
walk, judged with one call per comparator and record, then given their status (the
walk's rule, ``results.leaf_status``).

``judge_window`` judges the batches of many records at once: the calls of a comparator
that declares a ``concurrency`` (the ``semantic`` judge: its client's limit) run on that
many threads, so a window of records costs about (calls / concurrency) x latency rather
than calls x latency; other batch comparators are called one at a time, as before.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from evalschema.results import FieldResult, Status, leaf_status
from evalschema.scoring.walk import PendingBatch

#: A batch's answer: its scores, or the error that replaced them.
Verdicts = tuple[Sequence[float | None], str | None]


def ask(batch: PendingBatch) -> Verdicts:
    """One call of a batch comparator; a failure is the error every leaf gets."""
    assert batch.node.batch is not None
    try:
        scores: Sequence[float | None] = list(batch.node.batch(batch.pairs))
        error = None if len(scores) == len(batch.pairs) else \
            f"judge returned {len(scores)} scores for {len(batch.pairs)} fields"
    except Exception as exc:
        scores, error = [], f"{type(exc).__name__}: {exc}"
    return scores, error


def apply(out: list[FieldResult], batch: PendingBatch, verdicts: Verdicts) -> None:
    """Give the batch's pending leaves in ``out`` their score and status."""
    scores, error = verdicts
    for k, i in enumerate(batch.indices):
        score = scores[k] if error is None else None
        r = out[i]
        if score is None:
            out[i] = r._replace(status=Status.BATCH_ERROR,
                                reason=error or "the judge gave no score for this field")
        else:
            s = max(0.0, min(1.0, float(score)))
            out[i] = r._replace(status=leaf_status(s, batch.node.threshold), score=s)


def run_batches(results: list[FieldResult], batches: Iterable[PendingBatch]) -> list[FieldResult]:
    """Judge pending leaves, one call per batch comparator and record."""
    out = list(results)
    for batch in batches:
        apply(out, batch, ask(batch))
    return out


def concurrency(batch: PendingBatch) -> int:
    """How many calls of the batch's comparator may run at once (1 unless it says)."""
    got = getattr(batch.node.batch, "concurrency", 1)
    return got if isinstance(got, int) and got > 1 else 1


def judge_window(records: Sequence[tuple[list[FieldResult], Sequence[PendingBatch]]]
                 ) -> list[list[FieldResult]]:
    """``run_batches`` for many records at once: each record's results with its batches
    judged, the same as record by record, but with the calls of concurrent comparators
    in flight together (each on a copy of the caller's context: its cancellation)."""
    batches = [b for _, pending in records for b in pending]
    verdicts: dict[int, Verdicts] = {}
    threads = max((concurrency(b) for b in batches), default=1)
    parallel = [b for b in batches if concurrency(b) > 1]
    if len(parallel) > 1:
        with ThreadPoolExecutor(threads, thread_name_prefix="evalschema-judge") as pool:
            futures = [(b, pool.submit(contextvars.copy_context().run, ask, b))
                       for b in parallel]
            verdicts.update((id(b), f.result()) for b, f in futures)
    out: list[list[FieldResult]] = []
    for results, pending in records:
        judged = list(results)
        for b in pending:
            got = verdicts.get(id(b))
            apply(judged, b, got if got is not None else ask(b))
        out.append(judged)
    return out
