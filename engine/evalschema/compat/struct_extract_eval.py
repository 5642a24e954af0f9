"""struct_extract_eval's ``evaluate``, reproduced with its quirks.

The native engine is struct_extract_eval's scoring model with a handful of
deliberate changes (``evalschema.policy``); this module switches them back and
adds what policy cannot express: equal-length record lists, per-field results
keyed by instance path, numeric comparison without float slack, comparators
required on every leaf, and unknown ``x-eval-*`` keys only tolerated.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from evalschema.compat.errors import CompatInputError
from evalschema.errors import SchemaError
from evalschema.policy import STRUCT_EXTRACT_EVAL
from evalschema.results import Counts, FieldAggregation, FieldResult, RecordResult, RunResult
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import ComparatorDef, Compare, CompareTypeError, Registry
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.evaluate import Evaluator, iter_evaluate
from evalschema.schema.tree import check_eval_schema
from evalschema.scoring.postprocess import PostProcessor


def _seed_numeric(params: Mapping[str, Any]) -> Compare:
    """Their numeric: float() both sides, tolerances compared without slack."""
    tol = params.get("tolerance") or {}
    rel, abs_ = tol.get("rel"), tol.get("abs")

    def numeric(g: Any, e: Any) -> float:
        if g is None or e is None:
            if g is None and e is None:
                return 1.0
            raise CompareTypeError("type_error")
        try:
            gf, ef = float(g), float(e)
        except (TypeError, ValueError):
            raise CompareTypeError("type_error") from None
        if math.isnan(gf) or math.isnan(ef):
            if math.isnan(gf) and math.isnan(ef):
                return 1.0
            raise CompareTypeError("type_error")
        if rel is None and abs_ is None:
            return 1.0 if gf == ef else 0.0
        diff = abs(gf - ef)
        if rel is not None and diff / (abs(gf) if gf != 0.0 else 1.0) > rel:
            return 0.0
        if abs_ is not None and diff > abs_:
            return 0.0
        return 1.0

    return numeric


def compat_registry() -> Registry:
    """Built-ins, with numeric as struct_extract_eval computes it."""
    reg = builtin_registry()
    native = reg.comparators["numeric"]
    reg.comparators["numeric"] = ComparatorDef(
        native.name, native.doc, native.params, native.types, builtin=True,
        factory=_seed_numeric)
    return reg


class SeedCounts(Counts):
    """Counts with struct_extract_eval's figures: an empty denominator gives 1.0 and
    nothing judged gives F1 1.0, where the native engine says undefined (None)."""

    __slots__ = ()

    def metrics(self) -> tuple[float, float, float, float]:
        p, r, f1, w = Counts.metrics(self)
        return (1.0 if p is None else p, 1.0 if r is None else r,
                1.0 if f1 is None else f1, 1.0 if w is None else w)


class _SeedAccumulator(RunAccumulator):
    """A run accumulated with ``SeedCounts``: its records, fields, totals and means."""

    def add(self, record: RecordResult, *, counted: bool = True) -> None:
        super().add(record._replace(counts=SeedCounts(*record.counts)), counted=counted)

    def result(self) -> RunResult:
        run = super().result()
        return dataclasses.replace(
            run, totals=SeedCounts(*run.totals),
            per_field={k: FieldAggregation(k, SeedCounts(*a.counts))
                       for k, a in run.per_field.items()})


def _key_by_instance_path(results: list[FieldResult]) -> list[FieldResult]:
    return [r._replace(field=r.path) for r in results]


def evaluate(gold: Sequence[Any], extracted: Sequence[Any], schema: Any, *,
             id_field: str | None = None,
             post_process: PostProcessor | Iterable[PostProcessor] | None = None,
             registry: Registry | None = None) -> RunResult:
    """Score as struct_extract_eval 0.1.0 (@6a51aa28) does; ``per_field`` keyed by instance path.

    Raises CompatInputError where the original raises: lists of different length
    (its ValueError) and a transform meeting a value of the wrong type (its TypeError).
    """
    if len(gold) != len(extracted):
        raise CompatInputError(f"struct_extract_eval raises ValueError: {len(gold)} gold and "
                               f"{len(extracted)} extracted records (lengths must match)")
    reg = registry or compat_registry()
    check = check_eval_schema(schema, registry=reg, defaults=False)
    # It only logs unknown x-eval keys.
    errors = [p for p in check.errors if p.code != "unknown-key"]
    if errors:
        raise SchemaError(errors, "the eval schema is invalid")
    pps: list[PostProcessor] = []
    if post_process is not None:
        pps.extend([post_process] if callable(post_process) else post_process)
    pps.append(_key_by_instance_path)
    evaluator = Evaluator(check.root, id_field or check.root.id_field, pps,
                          policy=STRUCT_EXTRACT_EVAL)
    acc = _SeedAccumulator()
    try:
        for _ in iter_evaluate(gold, extracted, evaluator, acc):
            pass
    except TypeError as exc:
        raise CompatInputError(f"struct_extract_eval raises TypeError: {exc}") from exc
    return acc.result()


#: The metric as ``evalschema eval --metric struct_extract_eval.evaluate`` runs it.
RunMetric = Callable[..., RunResult]
METRICS: dict[str, RunMetric] = {"struct_extract_eval.evaluate": evaluate}
