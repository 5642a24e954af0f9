"""Galtea "JSON Field Match" metrics, reproduced from their documentation.

Galtea computes these on its servers and publishes no code, so this follows the
docs (JSON Field Match, JSON Field Match Normalized, JSON Field Match
Normalized Strict) and settles what they leave open the way a Python backend
would; docs/compat.md lists each choice:

* values compare with Python ``==`` (``1 == 1.0`` and ``true == 1`` match);
* normalisation is NFD, combining marks removed, then ``str.casefold`` (so
  ``"ß"`` matches ``"ss"``), applied to strings at any depth; whitespace is not
  trimmed and keys are not normalised;
* the expected output must be a JSON object (or strict JSON text of one); the
  actual output may be an object or text, read leniently (fences, prose).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any, Literal, overload

from evalschema.compat._explain import (
    CompatScore,
    Metric,
    field_at,
    guard_recursion,
    ignored_at,
    loads_strict,
    metric_options,
    parse_object_leniently,
    short,
)
from evalschema.compat.errors import CompatInputError
from evalschema.results import FieldResult, Status

SYSTEM = "galtea"


@overload
def json_field_match(expected: Any, actual: Any, *, explain: Literal[False] = False) -> float: ...
@overload
def json_field_match(expected: Any, actual: Any, *, explain: Literal[True]) -> CompatScore: ...
def json_field_match(expected: Any, actual: Any, *, explain: bool = False) -> float | CompatScore:
    """JSON Field Match: ``1 - non_matching / len(expected keys)``, values compared as they are.

    Only top-level keys of ``expected`` count; extra actual keys are ignored; an
    empty expected object scores 1.0. With ``explain=True``: one weight-1 field per
    expected key and SKIPPED weight-0 fields for extra keys;
    ``score == Σ weight·score / Σ weight`` (1.0 when Σ weight is 0).
    """
    return _score(expected, actual, normalize=False, strict=False, explain=explain)


@overload
def json_field_match_normalized(
    expected: Any, actual: Any, *, explain: Literal[False] = False
) -> float: ...
@overload
def json_field_match_normalized(
    expected: Any, actual: Any, *, explain: Literal[True]
) -> CompatScore: ...
def json_field_match_normalized(
    expected: Any, actual: Any, *, explain: bool = False
) -> float | CompatScore:
    """JSON Field Match (Normalized): as ``json_field_match``, strings accent- and case-folded.

    ``"Sí" == "SI" == "si"``, ``"José" == "Jose"``; nested strings are folded too,
    array order still matters. Fields and recomposition as in ``json_field_match``.
    """
    return _score(expected, actual, normalize=True, strict=False, explain=explain)


@overload
def json_field_match_normalized_strict(
    expected: Any, actual: Any, *, explain: Literal[False] = False
) -> float: ...
@overload
def json_field_match_normalized_strict(
    expected: Any, actual: Any, *, explain: Literal[True]
) -> CompatScore: ...
def json_field_match_normalized_strict(
    expected: Any, actual: Any, *, explain: bool = False
) -> float | CompatScore:
    """JSON Field Match (Normalized, Strict): ``matched / |expected keys ∪ actual keys|``.

    Extra actual keys count against the score: ``{}`` expected with a non-empty
    actual scores 0.0 (both empty: 1.0). With ``explain=True`` extra keys are
    HALLUCINATION fields of weight 1; ``score == Σ weight·score / Σ weight``.
    """
    return _score(expected, actual, normalize=True, strict=True, explain=explain)


# -- shared walk ---------------------------------------------------------------------


@guard_recursion(SYSTEM)
def _score(
    expected: Any, actual: Any, *, normalize: bool, strict: bool, explain: bool
) -> float | CompatScore:
    gold = _expected_object(expected)
    out, method = _actual_object(actual)
    fold = _normalize if normalize else _same
    matched = sum(1 for k, v in gold.items() if k in out and fold(v) == fold(out[k]))
    if strict:
        union = len(gold.keys() | out.keys())
        score = matched / union if union else 1.0
    else:
        score = 1.0 - (len(gold) - matched) / len(gold) if gold else 1.0
    if not explain:
        return score
    fields = _explain(gold, out, fold, normalize, strict)
    return CompatScore(score, {"scale": 1.0, "parse": method}, fields)


def _expected_object(expected: Any) -> dict[str, Any]:
    if isinstance(expected, str):
        expected = loads_strict(expected, what="expected output", original="an evaluation error")
    if not isinstance(expected, dict):
        raise CompatInputError(
            f"expected output must be a JSON object, got {type(expected).__name__}",
            original="an evaluation error",
        )
    return expected


def _actual_object(actual: Any) -> tuple[dict[str, Any], str]:
    """The actual object and how it was read ("object", "strict", "fence", ...)."""
    if isinstance(actual, dict):
        return actual, "object"
    if isinstance(actual, str):
        return parse_object_leniently(actual, what="actual output")
    raise CompatInputError(
        f"actual output must be a JSON object or text, got {type(actual).__name__}",
        original="an evaluation error",
    )


def _same(value: Any) -> Any:
    return value


def _normalize(value: Any) -> Any:
    """Fold strings at any depth: NFD, drop combining marks, casefold."""
    if isinstance(value, str):
        decomposed = unicodedata.normalize("NFD", value)
        return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    return value


# -- explanation ------------------------------------------------------------------------


def _explain(
    gold: dict[str, Any],
    out: dict[str, Any],
    fold: Callable[[Any], Any],
    normalize: bool,
    strict: bool,
) -> tuple[FieldResult, ...]:
    comparator = f"{SYSTEM}.{'normalized_equality' if normalize else 'equality'}"
    fields = [_key_field(k, v, out, fold, comparator) for k, v in gold.items()]
    for key in out.keys() - gold.keys():
        if strict:
            fields.append(
                field_at(
                    (key,),
                    0.0,
                    comparator=comparator,
                    reason="extra key: strict scoring counts it as non-matching",
                    extracted=out[key],
                    gold_present=False,
                )
            )
        else:
            reason = "not scored: only expected keys count"
            fields.append(
                ignored_at((key,), side="extracted", value=out[key], system=SYSTEM, reason=reason)
            )
    return tuple(fields)


def _key_field(
    key: str, value: Any, out: dict[str, Any], fold: Callable[[Any], Any], comparator: str
) -> FieldResult:
    if key not in out:
        return field_at(
            (key,),
            0.0,
            comparator=comparator,
            reason="missing from actual output",
            gold=value,
            extracted_present=False,
        )
    a, b = fold(value), fold(out[key])
    match = a == b
    if match:
        reason = "equal" if fold is _same or a == value else f"equal after folding to {short(a)}"
    else:
        reason = f"{short(a)} != {short(b)}"
    return field_at(
        (key,),
        1.0 if match else 0.0,
        comparator=comparator,
        reason=reason,
        gold=value,
        extracted=out[key],
        status=Status.MATCH if match else Status.MISMATCH,
    )


def _metric_for(name: str, fn: Callable[..., Any]) -> Metric:
    def metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
        if metric_options(name, options, frozenset()):
            result: CompatScore = fn(expected, actual, explain=True)
            return result
        return CompatScore(fn(expected, actual), {"scale": 1.0})

    return metric


#: Dotted metric names for ``evalschema eval --metric``.
METRICS: dict[str, Metric] = {
    f"galtea.{fn.__name__}": _metric_for(f"galtea.{fn.__name__}", fn)
    for fn in (json_field_match, json_field_match_normalized, json_field_match_normalized_strict)
}
