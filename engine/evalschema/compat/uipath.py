"""UiPath ``JsonSimilarityEvaluator`` and ``LegacyJsonSimilarityEvaluator`` (uipath 2.14.44), reproduced.

Both walk the *expected* tree and count leaves: each expected leaf is worth one
point, earned in part by the actual value at the same place (numbers by
``1 - |e-a|/|e|``, strings by normalised Levenshtein, bools and null by
equality, a type clash or a missing key by nothing). Extra actual keys and
elements are never looked at. The score is matched / total, or full marks when
the expected side has no leaves at all. The new evaluator scores 0..1 and turns
any failure inside ``evaluate()`` (a missing target key, unparsable expected
text) into an error result scoring 0.0; the legacy one scores 0..100 and turns a
target key it cannot resolve into ``{}``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
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
    short,
)
from evalschema.compat.errors import CompatInputError
from evalschema.jsontypes import is_number
from evalschema.results import FieldResult, Status

SYSTEM = "uipath"

TargetKey = str | Sequence[str]


@dataclass(frozen=True, slots=True)
class SimilarityDetails:
    """The score with the leaf counts UiPath reports in its justification.

    ``error`` is set when the evaluator would have returned an
    ``ErrorEvaluationResult`` (score 0.0); ``fields`` is filled only on request.
    """

    score: float
    matched_leaves: float
    total_leaves: float
    error: str | None = None
    fields: tuple[FieldResult, ...] = ()


class _EvaluationFailed(Exception):
    """Something inside UiPath's ``evaluate()`` raised; its wrapper scores that 0.0."""


# -- public API ------------------------------------------------------------------


@overload
def json_similarity(
    expected: Any,
    actual: Any,
    target_output_key: TargetKey = "*",
    *,
    explain: Literal[False] = False,
) -> float: ...
@overload
def json_similarity(
    expected: Any, actual: Any, target_output_key: TargetKey = "*", *, explain: Literal[True]
) -> CompatScore: ...
def json_similarity(
    expected: Any, actual: Any, target_output_key: TargetKey = "*", *, explain: bool = False
) -> float | CompatScore:
    """``JsonSimilarityEvaluator`` score, 0..1.

    ``expected`` and ``actual`` must be an object or a string (UiPath's pydantic
    models reject anything else, e.g. a top-level list, before scoring: we raise
    CompatInputError). With ``target_output_key="*"`` strings are compared as raw
    text; with a key path (``result.items[1].name``) or a list of paths, an
    expected string is JSON-parsed first and the values at the paths are compared.

    With ``explain=True`` the CompatScore's fields list every expected leaf (one
    field, weighted by its leaf count, for a subtree that was missing or of
    another type) plus SKIPPED weight-0 entries for actual values never looked
    at; ``score == Σ weight·score / Σ weight`` (1.0 when Σ weight is 0), unless
    ``details["error"]`` is set, in which case the score is 0.0.
    """
    details = json_similarity_details(expected, actual, target_output_key, explain=explain)
    return _as_result(details, 1.0) if explain else details.score


@overload
def legacy_json_similarity(
    expected: Any, actual: Any, target_output_key: str = "*", *, explain: Literal[False] = False
) -> float: ...
@overload
def legacy_json_similarity(
    expected: Any, actual: Any, target_output_key: str = "*", *, explain: Literal[True]
) -> CompatScore: ...
def legacy_json_similarity(
    expected: Any, actual: Any, target_output_key: str = "*", *, explain: bool = False
) -> float | CompatScore:
    """``LegacyJsonSimilarityEvaluator`` score, 0..100.

    ``expected`` may be any JSON value; ``actual`` must be an object or a string.
    A target key that does not resolve turns that side into ``{}``: a missing key
    in expected scores 100, one missing in actual scores 0. Numbers are not
    normalised first. With ``explain=True``, fields as for ``json_similarity``
    and ``score == 100 · Σ weight·score / Σ weight`` (100 when Σ weight is 0)
    unless ``details["error"]`` is set (score 0.0).
    """
    details = legacy_json_similarity_details(expected, actual, target_output_key, explain=explain)
    return _as_result(details, 100.0) if explain else details.score


def json_similarity_details(
    expected: Any, actual: Any, target_output_key: TargetKey = "*", *, explain: bool = False
) -> SimilarityDetails:
    """Score and leaf counts of ``json_similarity`` (see there)."""
    keys = _check_target_key(target_output_key)
    _check_document(expected, "expected_output")
    _check_document(actual, "workload_output")
    sink: list[FieldResult] | None = [] if explain else None
    try:
        e, a, ctx = _resolve_new(expected, actual, keys, sink)
        matched, total = _compare(e, a, ctx)
    except (_EvaluationFailed, RecursionError) as exc:
        return _error_details(exc, keys, sink)
    ratio = 1.0 if total == 0 else matched / total
    return SimilarityDetails(_clamp(ratio, 1.0), matched, total, None, _frozen(sink))


def legacy_json_similarity_details(
    expected: Any, actual: Any, target_output_key: str = "*", *, explain: bool = False
) -> SimilarityDetails:
    """Score (0..100) and leaf counts of ``legacy_json_similarity`` (see there)."""
    if not isinstance(target_output_key, str):
        raise CompatInputError(
            "targetOutputKey must be a string for the legacy evaluator",
            original="pydantic ValidationError",
        )
    _check_document(actual, "workload_output")
    sink: list[FieldResult] | None = [] if explain else None
    try:
        e, a, ctx = _resolve_legacy(expected, actual, target_output_key, sink)
        matched, total = _compare(e, a, ctx)
    except (_EvaluationFailed, RecursionError) as exc:
        return _error_details(exc, target_output_key, sink)
    if total == 0:
        return SimilarityDetails(100.0, matched, total, None, _frozen(sink))
    return SimilarityDetails(
        _clamp(matched / total * 100.0, 100.0), matched, total, None, _frozen(sink)
    )


# -- input checks and target keys ---------------------------------------------------


def _check_document(value: Any, name: str) -> None:
    if not isinstance(value, dict | str):
        raise CompatInputError(
            f"{name} must be an object or a string, got {type(value).__name__}: UiPath's "
            "pydantic model rejects it before scoring",
            original="pydantic ValidationError",
        )


def _check_target_key(key: Any) -> TargetKey:
    if isinstance(key, str):
        return key
    if isinstance(key, Sequence) and all(isinstance(k, str) for k in key):
        return list(key)
    raise CompatInputError(
        f"target_output_key must be a string or a list of strings, got {short(key)}",
        original="pydantic ValidationError",
    )


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _tokens(path: str) -> Parts:
    """Dot keys and ``[n]`` indices; characters that fit neither are skipped, as UiPath does."""
    out: list[str | int] = []
    for m in _TOKEN.finditer(path):
        key, index = m.groups()
        out.append(int(index) if index is not None else key)
    if not out:
        raise _EvaluationFailed(f"Invalid path: {path!r}")
    return tuple(out)


class _Unresolved(Exception):
    """The path does not lead anywhere (UiPath's KeyError / IndexError / TypeError)."""


def _resolve(value: Any, parts: Parts) -> Any:
    for p in parts:
        if isinstance(p, int):
            if not isinstance(value, list):
                raise _Unresolved(f"cannot index {type(value).__name__} with [{p}]")
            if p >= len(value):
                raise _Unresolved(f"index [{p}] out of range")
        elif not isinstance(value, dict):
            raise _Unresolved(f"cannot read key {p!r} of {type(value).__name__}")
        elif p not in value:
            raise _Unresolved(f"key {p!r} not found")
        value = value[p]
    return value


def _resolve_new(
    expected: Any, actual: Any, keys: TargetKey, sink: list[FieldResult] | None
) -> tuple[Any, Any, _Ctx | None]:
    """Expected and actual as the new evaluator compares them, and the walk's root."""
    if keys == "*":
        _check_floatable(expected)
        _check_floatable(actual)
        return expected, actual, _root(sink, ROOT, None, True)
    if isinstance(expected, str):
        try:
            expected = json.loads(expected)
        except ValueError as exc:
            raise _EvaluationFailed(f"expected output is not valid JSON: {exc}") from exc
    if isinstance(keys, str):
        parts = _tokens(keys)
        e = _resolve_or_fail(expected, parts, "expected output")
        a = _resolve_or_fail(actual, parts, "actual output")
        remap = None
    else:
        if not isinstance(expected, dict) or not isinstance(actual, dict):
            raise _EvaluationFailed("with a list of target keys both outputs must be objects")
        remap = {k: _tokens(k) for k in keys}
        e = {k: _resolve_or_fail(expected, remap[k], "expected output") for k in keys}
        a = {k: _resolve_or_fail(actual, remap[k], "actual output") for k in keys}
        parts = ROOT
    _check_floatable(e)
    _check_floatable(a)
    return e, a, _root(sink, parts, remap, True)


def _resolve_or_fail(value: Any, parts: Parts, side: str) -> Any:
    try:
        return _resolve(value, parts)
    except _Unresolved as exc:
        raise _EvaluationFailed(f"target output key not found in {side}: {exc}") from exc


def _resolve_legacy(
    expected: Any, actual: Any, key: str, sink: list[FieldResult] | None
) -> tuple[Any, Any, _Ctx | None]:
    """Legacy: an unresolvable key turns that side into ``{}`` instead of failing."""
    if not key or key == "*":
        return expected, actual, _root(sink, ROOT, None, True)
    parts = _tokens(key)
    try:
        actual = _resolve(actual, parts)
        actual_found = True
    except _Unresolved:
        actual, actual_found = {}, False
    try:
        expected = _resolve(expected, parts)
    except _Unresolved:
        expected = {}
    return expected, actual, _root(sink, parts, None, actual_found)


def _check_floatable(value: Any) -> None:
    """The new evaluator turns every number into a float first; huge ints overflow there."""
    if isinstance(value, dict):
        for v in value.values():
            _check_floatable(v)
    elif isinstance(value, list):
        for v in value:
            _check_floatable(v)
    elif is_number(value):
        _to_float(value)


def _to_float(value: float) -> float:
    try:
        return float(value)
    except OverflowError as exc:
        raise _EvaluationFailed(f"number {short(value)} does not fit a float") from exc


# -- the comparison ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ctx:
    """Where the walk is (explain mode only)."""

    parts: Parts
    extracted_present: bool
    sink: list[FieldResult]
    #: Top-level keys of a list-of-keys comparison, mapped to their real location.
    remap: dict[str, Parts] | None = None

    def child(self, part: str | int, extracted_present: bool = True) -> _Ctx:
        if self.remap is not None and isinstance(part, str):
            return _Ctx(self.remap[part], extracted_present, self.sink)
        return _Ctx((*self.parts, part), extracted_present, self.sink)


def _root(
    sink: list[FieldResult] | None, parts: Parts, remap: dict[str, Parts] | None, present: bool
) -> _Ctx | None:
    return None if sink is None else _Ctx(parts, present, sink, remap)


def _compare(e: Any, a: Any, ctx: _Ctx | None) -> tuple[float, float]:
    """(matched, total) leaves of ``a`` against ``e``."""
    if is_number(e) and is_number(a):
        return _leaf(ctx, _relative_number(_to_float(e), _to_float(a)), "relative_number", e, a)
    if type(e) is not type(a):
        total = _count_leaves(e)
        if ctx is not None:
            _emit_unmatched(ctx, e, a, total)
        return 0.0, total
    if isinstance(e, dict):
        return _compare_objects(e, a, ctx)
    if isinstance(e, list):
        return _compare_arrays(e, a, ctx)
    if isinstance(e, bool):
        return _leaf(ctx, 1.0 if e == a else 0.0, "bool_equality", e, a)
    if isinstance(e, str):
        return _leaf(ctx, _clamp(levenshtein_similarity(e, a), 1.0), "levenshtein", e, a)
    return _leaf(ctx, 1.0 if str(e) == str(a) else 0.0, "str_equality", e, a)


def _compare_objects(e: dict[str, Any], a: dict[str, Any], ctx: _Ctx | None) -> tuple[float, float]:
    matched = total = 0.0
    for key, value in e.items():
        if key in a:
            m, t = _compare(value, a[key], None if ctx is None else ctx.child(key))
        else:
            m, t = 0.0, _count_leaves(value)
            if ctx is not None:
                _emit_unmatched(ctx.child(key, extracted_present=False), value, None, t)
        matched += m
        total += t
    if ctx is not None:
        for key in a.keys() - e.keys():
            ctx.sink.append(_ignored(ctx.child(key), a[key], "key not in expected"))
    return matched, total


def _compare_arrays(e: list[Any], a: list[Any], ctx: _Ctx | None) -> tuple[float, float]:
    matched = total = 0.0
    common = min(len(e), len(a))
    for i in range(common):
        m, t = _compare(e[i], a[i], None if ctx is None else ctx.child(i))
        matched += m
        total += t
    for i in range(common, len(e)):
        t = _count_leaves(e[i])
        total += t
        if ctx is not None:
            _emit_unmatched(ctx.child(i, extracted_present=False), e[i], None, t)
    if ctx is not None:
        for i in range(common, len(a)):
            ctx.sink.append(_ignored(ctx.child(i), a[i], "beyond the expected array's length"))
    return matched, total


def _relative_number(e: float, a: float) -> float:
    """Credit relative to expected: 10 vs 15 is 0.5, 10 vs 25 and -5 vs 5 are 0."""
    if math.isclose(e, 0.0, abs_tol=1e-12):
        return 1.0 if math.isclose(a, 0.0, abs_tol=1e-12) else 0.0
    return _clamp(1.0 - abs(e - a) / abs(e), 1.0)


def _count_leaves(value: Any) -> float:
    """Scalars are one leaf; containers the sum of their children (so ``{}`` and ``[]`` are 0)."""
    if isinstance(value, dict):
        return float(sum(_count_leaves(v) for v in value.values()))
    if isinstance(value, list):
        return float(sum(_count_leaves(v) for v in value))
    return 1.0


def _clamp(value: float, top: float) -> float:
    """UiPath's ``max(0, min(top, x))`` (NaN included: it comes out as ``top``)."""
    return max(0.0, min(top, value))


# -- explanation ---------------------------------------------------------------------


def _leaf(ctx: _Ctx | None, score: float, how: str, e: Any, a: Any) -> tuple[float, float]:
    if ctx is not None:
        ctx.sink.append(
            field_at(
                ctx.parts,
                score,
                comparator=f"{SYSTEM}.{how}",
                reason=f"1 leaf; {how.replace('_', ' ')} {score:.3f}",
                gold=e,
                extracted=a,
                extracted_present=ctx.extracted_present,
            )
        )
    return score, 1.0


def _emit_unmatched(ctx: _Ctx, e: Any, a: Any, leaves: float) -> None:
    if ctx.extracted_present:
        why = f"type mismatch: expected {type(e).__name__}, got {type(a).__name__}"
        comparator = "type_mismatch"
    else:
        why, comparator = "missing from actual", "missing"
    ctx.sink.append(
        field_at(
            ctx.parts,
            0.0,
            comparator=f"{SYSTEM}.{comparator}",
            reason=f"{why}; {leaves:g} expected leaves score 0",
            gold=e,
            extracted=a,
            extracted_present=ctx.extracted_present,
            weight=leaves,
        )
    )


def _ignored(ctx: _Ctx, value: Any, why: str) -> FieldResult:
    return ignored_at(
        ctx.parts, side="extracted", value=value, system=SYSTEM, reason=f"not scored: {why}"
    )


def _error_details(
    exc: BaseException, key: TargetKey, sink: list[FieldResult] | None
) -> SimilarityDetails:
    message = (
        "input nested too deeply (RecursionError)" if isinstance(exc, RecursionError) else str(exc)
    )
    fields: tuple[FieldResult, ...] = ()
    if sink is not None:
        path = key if isinstance(key, str) else ", ".join(key)
        path = "" if path == "*" else path
        error = FieldResult(
            path=path,
            field=re.sub(r"\[\d+\]", "[]", path),
            status=Status.ERROR,
            score=0.0,
            comparator=f"{SYSTEM}.error",
            reason=f"evaluator error, scored 0.0: {message}",
            weight=0.0,
        )
        fields = (error,)
    return SimilarityDetails(0.0, 0.0, 0.0, message, fields)


def _frozen(sink: list[FieldResult] | None) -> tuple[FieldResult, ...]:
    return () if sink is None else tuple(sink)


def _as_result(details: SimilarityDetails, scale: float) -> CompatScore:
    info: dict[str, Any] = {
        "scale": scale,
        "matched_leaves": details.matched_leaves,
        "total_leaves": details.total_leaves,
    }
    if details.error is not None:
        info["error"] = details.error
    return CompatScore(details.score, info, details.fields)


def _metric_for(name: str, scale: float) -> Metric:
    details_fn = json_similarity_details if scale == 1.0 else legacy_json_similarity_details

    def metric(expected: Any, actual: Any, /, **options: Any) -> CompatScore:
        explain = metric_options(name, options, frozenset({"target_output_key"}))
        key = options.get("target_output_key", "*")
        return _as_result(details_fn(expected, actual, key, explain=explain), scale)

    return metric


#: Dotted metric names for ``evalschema eval --metric``.
METRICS: dict[str, Metric] = {
    "uipath.json_similarity": _metric_for("uipath.json_similarity", 1.0),
    "uipath.legacy_json_similarity": _metric_for("uipath.legacy_json_similarity", 100.0),
}
