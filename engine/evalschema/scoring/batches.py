"""Batch judging: the leaves a batch comparator (an LLM judge) left pending in a record's
walk, judged with one call per comparator and record, then given their status (the
walk's rule, ``results.leaf_status``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evalschema.results import FieldResult, Status, leaf_status
from evalschema.scoring.walk import PendingBatch


def run_batches(results: list[FieldResult], batches: Iterable[PendingBatch]) -> list[FieldResult]:
    """Judge pending leaves, one call per batch comparator and record."""
    out = list(results)
    for batch in batches:
        assert batch.node.batch is not None
        try:
            scores: Sequence[float | None] = list(batch.node.batch(batch.pairs))
            error = None if len(scores) == len(batch.pairs) else \
                f"judge returned {len(scores)} scores for {len(batch.pairs)} fields"
        except Exception as exc:
            scores, error = [], f"{type(exc).__name__}: {exc}"
        for k, i in enumerate(batch.indices):
            score = scores[k] if error is None else None
            r = out[i]
            if score is None:
                out[i] = r._replace(status=Status.BATCH_ERROR,
                                 reason=error or "the judge gave no score for this field")
            else:
                s = max(0.0, min(1.0, float(score)))
                out[i] = r._replace(status=leaf_status(s, batch.node.threshold), score=s)
    return out
