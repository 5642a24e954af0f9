"""Lynxius "JSON Difference" (``JsonDiffEval.json_diff``, lynxius 1.2.0), reproduced.

A recursive weighted mean: objects average their keys (the *union* of both
sides, so extra keys cost as much as missing ones), arrays average the pairs
``zip`` makes (extras on either side are ignored), strings score by normalised
Levenshtein, numbers (bools included) by ``1 - |a-b| / (|a|+|b|)``. Per-key
weights come from a nested ``weights`` object; a container key's own weight is
the ``"__<key>"`` loopback entry inside its weights object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

from evalschema.compat._explain import (
    ROOT,
    CompatScore,
    Metric,
    Parts,
    field_at,
    ignored_at,
    levenshtein_similarity,
    metric_options,
    no_recursion_error,
    short,
)
from evalschema.compat.errors import CompatInputError
from evalschema.results import FieldResult

SYSTEM = "lynxius"


@dataclass(frozen=True, slots=True)
class _Ctx:
    """Where the walk is (explain mode only): location, presence, effective weight."""

    parts: Parts
    weight: float
    note: str
    gold_present: bool
    extracted_present: bool
    sink: list[FieldResult]

    def child(self, part: str | int, weight: float, note: str, gold: bool, extracted: bool) -> _Ctx:
        return _Ctx((*self.parts, part), weight, note, gold, extracted, self.sink)


@overload
def json_diff(
    reference: Any,
    output: Any,
    weights: Any = None,
    *,
    validate_inputs: bool = True,
    explain: Literal[False] = False,
) -> float: ...
@overload
def json_diff(
    reference: Any,
    output: Any,
    weights: Any = None,
    *,
    validate_inputs: bool = True,
    explain: Literal[True],
) -> CompatScore: ...
def json_diff(
    reference: Any,
    output: Any,
    weights: Any = None,
    *,
    validate_inputs: bool = True,
    explain: bool = False,
) -> float | CompatScore:
    """Lynxius JSON Difference of ``output`` against ``reference`` (0..1).

    ``validate_inputs`` runs the checks the Lynxius client (``JsonDiff.add_trace``)
    makes before any scoring: both documents truthy (so ``{}`` is rejected), and
    weights only numbers in [0, 1] or nested objects. Turn it off to reproduce the
    bare ``JsonDiffEval.json_diff`` that the Lynxius server runs. ``weights=None``
    means no weights (the same as ``{}``).

    With ``explain=True`` returns a CompatScore whose ``fields`` hold every
    compared leaf (plus ``{}``/``[]`` pairs, and SKIPPED weight-0 entries for array
    elements ``zip`` drops). Each field's ``weight`` is its share of the final
    score: the product, from the root down, of ``w_key / Σw`` at every object
    level and ``1 / n_pairs`` at every array level. So the recursive weighted
    mean unrolls to ``score == Σ field.weight * field.score``, and the weights of
    the non-skipped fields sum to 1.
    """
    if validate_inputs:
        _check_client_side(reference, output, weights)
    w = {} if weights is None else weights
    sink: list[FieldResult] = []
    ctx = _Ctx(ROOT, 1.0, "root", True, True, sink) if explain else None
    with no_recursion_error(SYSTEM):
        score = _diff(reference, output, w, ctx)
    if not explain:
        return score
    return CompatScore(score, {"scale": 1.0}, tuple(sink))


# -- client-side checks -------------------------------------------------------


def _check_client_side(reference: Any, output: Any, weights: Any) -> None:
    """What ``JsonDiff.add_trace`` rejects before the evaluator ever runs."""
    if not reference or not output:
        raise CompatInputError(
            "Both reference and output must be provided: the Lynxius client rejects "
            "falsy documents such as {} or [] (pass validate_inputs=False to score them "
            "as the bare evaluator does)",
            original="ValueError",
        )
    if weights is not None:
        _check_weights(weights)


def _check_weights(obj: Any) -> None:
    if isinstance(obj, dict):
        for value in obj.values():
            _check_weights(value)
    elif isinstance(obj, list | str | bool):
        raise CompatInputError(
            f"Weights object can contain only floats or ints, not {short(obj)}",
            original="ValueError",
        )
    elif isinstance(obj, int | float) and (obj < 0 or obj > 1):
        raise CompatInputError(
            f"Weights should be in the range of [0.0, 1.0], got {obj!r}", original="ValueError"
        )


# -- the walk ------------------------------------------------------------------


def _diff(o1: Any, o2: Any, weights: Any, ctx: _Ctx | None) -> float:
    if isinstance(o1, dict) and isinstance(o2, dict):
        return _diff_objects(o1, o2, weights, ctx)
    if isinstance(o1, list) and isinstance(o2, list):
        return _diff_arrays(o1, o2, weights, ctx)
    score, comparator, how = _leaf(o1, o2)
    if ctx is not None:
        _emit(ctx, score, comparator, f"{how} {score:.3f}", o1, o2)
    return score


def _diff_objects(o1: dict[str, Any], o2: dict[str, Any], weights: Any, ctx: _Ctx | None) -> float:
    if not o1 and not o2:
        if ctx is not None:
            _emit(ctx, 1.0, f"{SYSTEM}.empty", "both objects empty", o1, o2)
        return 1.0
    keys = list(dict.fromkeys([*o1, *o2]))
    children = [_child_weights(weights, key) for key in keys]
    own = [w for _, w in children]
    total = sum(own)
    if total == 0:
        own = [1.0] * len(keys)
        factor = 1.0
    else:
        factor = len(own) / total
    n = len(keys)
    scores: list[float] = []
    for key, (next_w, w) in zip(keys, children, strict=True):
        sub = None
        if ctx is not None:
            shown = 1.0 if total == 0 else w
            note = f"weight {shown:g} of {total if total else n:g} here"
            sub = ctx.child(key, ctx.weight * shown * factor / n, note, key in o1, key in o2)
        scores.append(_diff(o1.get(key), o2.get(key), next_w, sub))
    return sum(s * w * factor for s, w in zip(scores, own, strict=True)) / n


def _child_weights(weights: Any, key: Any) -> tuple[Any, float]:
    """(weights passed down to ``key``, the key's own weight) as the evaluator reads them."""
    if not isinstance(key, str):
        raise CompatInputError(
            f"object key {key!r} is not a string", original="TypeError (str + key)"
        )
    if isinstance(weights, int | float):
        next_w: Any = 1.0
    elif isinstance(weights, dict):
        next_w = weights.get(key, 1.0)
    else:
        raise CompatInputError(
            f"weights for an object must be an object or a number, got {short(weights)}",
            original="AttributeError (.get on a non-dict weight)",
        )
    if isinstance(next_w, int | float):
        own = next_w
    elif isinstance(next_w, dict) and "__" + key in next_w:
        own = next_w["__" + key]
    else:
        own = 1.0
    if not isinstance(own, int | float):
        raise CompatInputError(
            f"loopback weight '__{key}' must be a number, got {short(own)}",
            original="TypeError (summing weights)",
        )
    return next_w, float(own)


def _diff_arrays(o1: list[Any], o2: list[Any], weights: Any, ctx: _Ctx | None) -> float:
    if not o1 and not o2:
        if ctx is not None:
            _emit(ctx, 1.0, f"{SYSTEM}.empty", "both arrays empty", o1, o2)
        return 1.0
    pairs = min(len(o1), len(o2))
    if pairs == 0:
        raise CompatInputError(
            "an empty array against a non-empty one: Lynxius averages over zip() of the "
            "two arrays and divides by zero",
            original="ZeroDivisionError",
        )
    scores = []
    for i in range(pairs):
        sub = None
        if ctx is not None:
            sub = ctx.child(i, ctx.weight / pairs, f"element {i + 1} of {pairs} paired", True, True)
        scores.append(_diff(o1[i], o2[i], weights, sub))
    if ctx is not None:
        _emit_unpaired(ctx, o1, o2, pairs)
    return sum(scores) / len(scores)


def _leaf(o1: Any, o2: Any) -> tuple[float, str, str]:
    """(score, comparator, short description) for two values that are not both containers."""
    if isinstance(o1, str) and isinstance(o2, str):
        return levenshtein_similarity(o1, o2), f"{SYSTEM}.levenshtein", "levenshtein"
    if isinstance(o1, int | float) and isinstance(o2, int | float):
        return _normalized_difference(o1, o2), f"{SYSTEM}.normalized_difference", "difference"
    if o1 is None and o2 is None:
        return 1.0, f"{SYSTEM}.null", "both null"
    if o1 is None or o2 is None:
        return 0.0, f"{SYSTEM}.null", "null against a value"
    return 0.0, f"{SYSTEM}.type_mismatch", f"{type(o1).__name__} vs {type(o2).__name__}"


def _normalized_difference(a: float, b: float) -> float:
    """``1 - |b-a| / (|a|+|b|)``: symmetric, bools count as 0/1, opposite signs give 0."""
    if a == 0 and b == 0:
        return 1.0
    try:
        return float(1 - abs(b - a) / (abs(b) + abs(a)))
    except OverflowError as exc:
        raise CompatInputError(
            f"numbers {short(a)} and {short(b)} overflow float arithmetic",
            original="OverflowError",
        ) from exc


# -- explanation ----------------------------------------------------------------


def _emit(ctx: _Ctx, score: float, comparator: str, how: str, gold: Any, extracted: Any) -> None:
    ctx.sink.append(
        field_at(
            ctx.parts,
            score,
            comparator=comparator,
            reason=f"{ctx.note}; {how}",
            gold=gold,
            extracted=extracted,
            gold_present=ctx.gold_present,
            extracted_present=ctx.extracted_present,
            weight=ctx.weight,
        )
    )


def _emit_unpaired(ctx: _Ctx, o1: list[Any], o2: list[Any], pairs: int) -> None:
    side, extra = ("gold", o1) if len(o1) > pairs else ("extracted", o2)
    for i in range(pairs, len(extra)):
        ctx.sink.append(
            ignored_at(
                (*ctx.parts, i),
                side=side,
                value=extra[i],
                system=SYSTEM,
                reason=f"not scored: zip() stops at the shorter array ({pairs} pairs)",
            )
        )


def _metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
    explain = metric_options("lynxius.json_diff", options, _OPTIONS)
    weights = options.get("weights")
    validate = bool(options.get("validate_inputs", True))
    if explain:
        return json_diff(expected, actual, weights, validate_inputs=validate, explain=True)
    return CompatScore(
        json_diff(expected, actual, weights, validate_inputs=validate), {"scale": 1.0}
    )


_OPTIONS = frozenset({"weights", "validate_inputs"})

#: Dotted metric names for ``evalschema eval --metric``.
METRICS: dict[str, Metric] = {"lynxius.json_diff": _metric}
