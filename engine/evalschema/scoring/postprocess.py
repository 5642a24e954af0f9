"""Post-processors: functions from a record's field results to new field results.

Passed to ``evaluate(post_process=...)``; they run per record, after batch
comparators, before metrics, so they can re-read what was judged without re-scoring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from evalschema.results import FieldResult, Status

PostProcessor = Callable[[list[FieldResult]], list[FieldResult]]

_FINAL = {Status.SKIPPED, Status.OMISSION, Status.HALLUCINATION, Status.BATCH_ERROR}


def _is_absent(value: Any, absent_values: Sequence[Any]) -> bool:
    return any(value is a or (type(value) is type(a) and value == a) for a in absent_values)


def _values(r: FieldResult) -> tuple[Any, Any]:
    return r.gold, r.extracted


def reclassify_nulls(absent_values: Sequence[Any] = (None,), both_absent_skip: bool = True,
                     *, compared: Callable[[FieldResult], tuple[Any, Any]] = _values
                     ) -> PostProcessor:
    """Treat the listed values (null by default) as absent, after comparing.

    Both absent: skipped (or a match with ``both_absent_skip=False``); only gold
    absent: hallucination; only extracted absent: omission. Statuses that already
    say absent or skipped are left alone. Same type and value is required, so
    ``False`` is not absent when ``0`` is listed. ``compared`` gives the (gold,
    extracted) values a result is judged absent by (compat reads them its own way).
    """
    absent = tuple(absent_values)

    def process(results: list[FieldResult]) -> list[FieldResult]:
        out = []
        for r in results:
            if r.status in _FINAL:
                out.append(r)
                continue
            gv, ev = compared(r)
            ga, ea = _is_absent(gv, absent), _is_absent(ev, absent)
            if ga and ea:
                out.append(r._replace(status=Status.SKIPPED if both_absent_skip else Status.MATCH,
                                   score=0.0 if both_absent_skip else 1.0,
                                   reason="absent on both sides"))
            elif ga:
                out.append(r._replace(status=Status.HALLUCINATION, score=0.0,
                                   reason="gold is absent"))
            elif ea:
                out.append(r._replace(status=Status.OMISSION, score=0.0,
                                   reason="extracted is absent"))
            else:
                out.append(r)
        return out

    return process


def propagate_batch_errors(results: list[FieldResult]) -> list[FieldResult]:
    """When any batch comparison of a record failed, mark its other pending ones failed too.

    A judge that failed on one field of a record usually failed for the record
    (quota, timeout); leaving its siblings pending would score a partial record.
    """
    if not any(r.status is Status.BATCH_ERROR for r in results):
        return results
    return [r._replace(status=Status.BATCH_ERROR, reason="another batch comparison of this "
                    "record failed") if r.status is Status.PENDING else r for r in results]
